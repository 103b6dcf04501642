package asyncapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/evtool/evtool/internal/jsonorder"
	"github.com/evtool/evtool/report"
)

// The document is built from ordered values, so that the output keeps the
// order of the AsyncAPI fields and of the keywords as the schema authors
// wrote them, and is the same bytes on every run:
//
//	*object, []any, string, json.Number, bool, nil

// object is a JSON object that remembers the order of its keys.
type object = jsonorder.Object

func newObject() *object { return jsonorder.New() }

// obj builds an object from key, value pairs; nil values are left out.
func obj(kv ...any) *object {
	o := newObject()
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			continue
		}
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// decodeOrdered decodes JSON text into ordered values (jsonorder.Decode).
func decodeOrdered(data []byte) (any, error) { return jsonorder.Decode(data) }

// fromPlain converts a decoded JSON value with Go maps (as the catalog
// holds examples) into ordered values, keys sorted.
func fromPlain(v any) any {
	switch t := v.(type) {
	case map[string]any:
		o := newObject()
		for _, k := range slices.Sorted(maps.Keys(t)) {
			o.Set(k, fromPlain(t[k]))
		}
		return o
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = fromPlain(e)
		}
		return out
	case float64:
		return json.Number(fmt.Sprint(t))
	case int:
		return json.Number(fmt.Sprint(t))
	}
	return v
}

// encodeJSON writes v as indented JSON with a final newline; HTML
// characters are not escaped (the document is not embedded in HTML).
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, v, ""); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	// The document goes to a terminal or a CI log as often as to a file:
	// bidi controls and the like as \u escapes, the same strings.
	return report.JSONSafe(b.Bytes()), nil
}

func writeJSON(b *bytes.Buffer, v any, indent string) error { return jsonorder.Write(b, v, indent) }

// encodeYAML writes v as a YAML document: block style, multi-line strings
// as literal blocks, strings that would read as another type quoted.
func encodeYAML(v any) ([]byte, error) {
	n, err := yamlNode(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return yamlSafe(b.Bytes()), nil
}

// yamlSafe writes the characters report.Escape escapes that yaml.v3
// leaves raw in a double-quoted scalar (bidi controls and the other
// format characters, among them) as YAML escapes: the document then reads
// the same, and a terminal or a CI log shows it inert. strNode puts every
// string holding one in double quotes, where an escape means the
// character.
func yamlSafe(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r >= 0x80 && size > 1 && report.Escape(string(r)) != string(r) {
			if out == nil {
				out = append(make([]byte, 0, len(b)+16), b[:i]...)
			}
			if r > 0xffff {
				out = fmt.Appendf(out, `\U%08x`, r)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		} else if out != nil {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	if out == nil {
		return b
	}
	return out
}

func yamlNode(v any) (*yaml.Node, error) {
	switch t := v.(type) {
	case *object:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, k := range t.Keys {
			vn, err := yamlNode(t.Vals[k])
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, strNode(k), vn)
		}
		if len(n.Content) == 0 {
			n.Style = yaml.FlowStyle
		}
		return n, nil
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range t {
			en, err := yamlNode(e)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, en)
		}
		if len(n.Content) == 0 {
			n.Style = yaml.FlowStyle
		}
		return n, nil
	case string:
		return strNode(t), nil
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(t.String(), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: t.String()}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(t)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("asyncapi: cannot encode %T", v)
}

func strNode(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	// Literal blocks read best for descriptions; they cannot carry
	// trailing spaces on a line or tabs reliably, so those stay quoted.
	// A string a terminal or a CI log would not show as it is (a line
	// that reads as a command, a bidi control) is double-quoted, where
	// yaml.v3 and yamlSafe escape it.
	if report.SafeLines(s) != s {
		n.Style = yaml.DoubleQuotedStyle
	} else if strings.Contains(s, "\n") && !strings.Contains(s, " \n") && !strings.Contains(s, "\t") && !strings.HasSuffix(s, " ") {
		n.Style = yaml.LiteralStyle
	} else if yaml11Special(s) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

var (
	yaml11Words = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|=|<<|~)$`)
	})
	// The YAML 1.1 int, float and timestamp forms (as PyYAML resolves
	// them), sexagesimal and underscores included.
	yaml11Numeric = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[-+]?(?:0b[01_]+|0[0-7_]+|0|[1-9][0-9_]*|0x[0-9a-fA-F_]+|[1-9][0-9_]*(?::[0-5]?[0-9])+)$` +
			`|^[-+]?(?:[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?|[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$` +
			`|^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}`)
	})
)

// yaml11Special reports whether a plain scalar s would not read back as a
// string under YAML 1.1, which many AsyncAPI tools still parse with
// (SnakeYAML, PyYAML): yes/no/on/off/y/n are booleans there, 12:30 is a
// sexagesimal number, 1_000 an integer, 2001-12-14 a timestamp, = a value
// key. yaml.v3 quotes only what YAML 1.2 would misread; over-quoting is
// harmless.
func yaml11Special(s string) bool {
	return yaml11Words().MatchString(s) || yaml11Numeric().MatchString(s)
}
