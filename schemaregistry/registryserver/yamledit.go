package registryserver

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evtool/evtool/format"
)

// The server's PUT/DELETE /config change compat.mode in evtool.yaml or a
// type's event.yaml. Edits are textual where the layout allows (block
// mappings, the common case), so comments and formatting survive; other
// layouts are re-encoded.

// setCompatMode returns data with compat.mode set to mode.
func setCompatMode(data []byte, mode string) ([]byte, error) {
	if len(bytes.TrimSpace(stripComments(data))) == 0 {
		return append(format.EnsureNL(data), []byte("compat:\n  mode: "+mode+"\n")...), nil
	}
	root, err := parseMapping(data)
	if err != nil {
		return nil, err
	}
	ck, cv := findKey(root, "compat")
	if ck == nil {
		if root.Style&yaml.FlowStyle != 0 {
			return reencodeSet(root, mode)
		}
		return append(format.EnsureNL(data), []byte("compat:\n  mode: "+mode+"\n")...), nil
	}
	if cv.Kind != yaml.MappingNode {
		if cv.Kind == yaml.ScalarNode && cv.Tag == "!!null" {
			return reencodeSet(root, mode)
		}
		return nil, errors.New("compat is not a mapping")
	}
	_, mv := findKey(cv, "mode")
	if mv != nil && mv.Kind == yaml.ScalarNode {
		if out, ok := replaceScalar(data, mv, mode); ok {
			return out, nil
		}
		return reencodeSet(root, mode)
	}
	if cv.Style&yaml.FlowStyle != 0 || len(cv.Content) == 0 || mv != nil {
		return reencodeSet(root, mode)
	}
	first := cv.Content[0]
	lines := splitLines(data)
	if first.Line < 1 || first.Line > len(lines) || first.Line <= ck.Line {
		return reencodeSet(root, mode)
	}
	indent := strings.Repeat(" ", first.Column-1)
	var out []byte
	for i, l := range lines {
		if i == first.Line-1 {
			out = append(out, []byte(indent+"mode: "+mode+"\n")...)
		}
		out = append(out, l...)
	}
	return out, nil
}

// removeCompatMode returns data without compat.mode, the mode that was
// set (""  when none), and whether nothing but comments is left.
func removeCompatMode(data []byte) ([]byte, string, bool, error) {
	if len(bytes.TrimSpace(stripComments(data))) == 0 {
		return data, "", true, nil
	}
	root, err := parseMapping(data)
	if err != nil {
		return nil, "", false, err
	}
	ck, cv := findKey(root, "compat")
	if ck == nil || cv.Kind != yaml.MappingNode {
		return data, "", false, nil
	}
	mk, mv := findKey(cv, "mode")
	if mk == nil {
		return data, "", false, nil
	}
	old := mv.Value
	var out []byte
	block := root.Style&yaml.FlowStyle == 0 && cv.Style&yaml.FlowStyle == 0 && mv.Kind == yaml.ScalarNode && mv.Line == mk.Line
	lines := splitLines(data)
	if block && mk.Line <= len(lines) && strings.HasPrefix(strings.TrimSpace(string(lines[mk.Line-1])), "mode") {
		from, to := mk.Line, mk.Line
		if len(cv.Content) == 2 && ck.Line < mk.Line {
			from = ck.Line // compat held only mode: drop the key too
		}
		for i, l := range lines {
			if i+1 < from || i+1 > to {
				out = append(out, l...)
			}
		}
	} else {
		removeKey(cv, "mode")
		if len(cv.Content) == 0 {
			removeKey(root, "compat")
		}
		out, err = encode(root)
		if err != nil {
			return nil, "", false, err
		}
	}
	check, err := parseMapping(out)
	empty := len(bytes.TrimSpace(stripComments(out))) == 0 || (err == nil && len(check.Content) == 0)
	if err != nil && !empty {
		return nil, "", false, fmt.Errorf("editing the YAML went wrong: %w", err)
	}
	return out, old, empty, nil
}

func parseMapping(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return &yaml.Node{Kind: yaml.MappingNode}, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("the file is not a YAML mapping")
	}
	return root, nil
}

func findKey(m *yaml.Node, key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

func removeKey(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

func reencodeSet(root *yaml.Node, mode string) ([]byte, error) {
	_, cv := findKey(root, "compat")
	if cv == nil || cv.Kind != yaml.MappingNode {
		removeKey(root, "compat")
		cv = &yaml.Node{Kind: yaml.MappingNode}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "compat"}, cv)
	}
	cv.Style = 0
	if _, mv := findKey(cv, "mode"); mv != nil {
		mv.Kind, mv.Tag, mv.Value, mv.Style = yaml.ScalarNode, "", mode, 0
	} else {
		cv.Content = append(cv.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "mode"}, &yaml.Node{Kind: yaml.ScalarNode, Value: mode})
	}
	root.Style = 0
	return encode(root)
}

func encode(root *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// replaceScalar replaces the source text of a scalar node.
func replaceScalar(data []byte, n *yaml.Node, value string) ([]byte, bool) {
	lines := splitLines(data)
	if n.Line < 1 || n.Line > len(lines) {
		return nil, false
	}
	line := []rune(string(lines[n.Line-1]))
	start := n.Column - 1
	if start < 0 || start >= len(line) {
		return nil, false
	}
	end := -1
	switch n.Style {
	case yaml.SingleQuotedStyle:
		for i := start + 1; i < len(line); i++ {
			if line[i] == '\'' {
				if i+1 < len(line) && line[i+1] == '\'' {
					i++
					continue
				}
				end = i + 1
				break
			}
		}
	case yaml.DoubleQuotedStyle:
		for i := start + 1; i < len(line); i++ {
			if line[i] == '\\' {
				i++
				continue
			}
			if line[i] == '"' {
				end = i + 1
				break
			}
		}
	case 0:
		if strings.HasPrefix(string(line[start:]), n.Value) {
			end = start + len([]rune(n.Value))
		}
	}
	if end < 0 {
		return nil, false
	}
	newLine := string(line[:start]) + value + string(line[end:])
	var out []byte
	for i, l := range lines {
		if i == n.Line-1 {
			out = append(out, newLine...)
		} else {
			out = append(out, l...)
		}
	}
	return out, true
}

// splitLines splits after each newline, keeping it.
func splitLines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			out = append(out, data)
			break
		}
		out = append(out, data[:i+1])
		data = data[i+1:]
	}
	return out
}

func stripComments(data []byte) []byte {
	var out []byte
	for _, l := range splitLines(data) {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] == '#' {
			continue
		}
		out = append(out, l...)
	}
	return out
}
