// Package yamldoc reads the YAML files evtool takes from users (evtool.yaml,
// event.yaml, replay scenarios) strictly: the document is checked against an
// embedded JSON Schema and every problem is reported with its line, before
// the document is decoded into a Go struct.
package yamldoc

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/schemaerr"
)

// maxNodes bounds the work a document may cause once aliases are expanded
// (a "billion laughs" file must fail, not exhaust memory).
const maxNodes = 1 << 20

// nodesPerByte and minNodes bound the expansion by the document's size as
// well: a plain document has fewer nodes than bytes, so a budget of 32
// nodes per byte leaves room for any sensible reuse of anchors while a
// 500-byte bomb stops after some 20,000 nodes instead of a million (the
// cost of a parse stays proportional to the bytes a user wrote).
const (
	nodesPerByte = 32
	minNodes     = 4096
)

// Problem is one thing wrong with a document, with its position.
type Problem struct {
	Line, Column int
	Pointer      string
	Message      string
}

func (p Problem) Error() string {
	if p.Pointer != "" {
		return fmt.Sprintf("line %d: %s: %s", p.Line, p.Pointer, p.Message)
	}
	return fmt.Sprintf("line %d: %s", p.Line, p.Message)
}

// Doc is a parsed YAML document.
type Doc struct {
	root  *yaml.Node
	value any
	pos   map[string]*yaml.Node // JSON pointer -> node (a member's key)
	// comments holds the line comments of scalar values by pointer.
	comments map[string]string
	nodes    int
	limit    int
	// expanding holds the aliases being expanded on the current path: an
	// alias to one of its own ancestors would expand forever.
	expanding map[*yaml.Node]bool
}

// Parse parses data as one YAML document. An empty document is an error:
// every file evtool reads must say something.
func Parse(data []byte) (*Doc, *Problem) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, syntaxProblem(err)
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, &Problem{Line: 1, Column: 1, Message: "empty document"}
	}
	d := &Doc{root: root.Content[0], pos: map[string]*yaml.Node{}, limit: min(maxNodes, minNodes+nodesPerByte*len(data))}
	v, prob := d.convert(d.root, "")
	if prob != nil {
		return nil, prob
	}
	d.value = v
	return d, nil
}

// Value is the document as JSON-compatible data (numbers as json.Number).
func (d *Doc) Value() any { return d.value }

// Position returns the line and column of the value at pointer, or of its
// nearest ancestor that exists.
func (d *Doc) Position(pointer string) (line, col int) {
	for {
		if n, ok := d.pos[pointer]; ok {
			return n.Line, n.Column
		}
		i := strings.LastIndexByte(pointer, '/')
		if i < 0 {
			return d.root.Line, d.root.Column
		}
		pointer = pointer[:i]
	}
}

// Validator is a compiled schema a document is checked against
// (metaschema.Schema, or the library's): Validate's error is the
// library's validation error, whose leaf problems carry JSON pointers.
type Validator interface {
	Validate(v any) error
}

// Check validates the document against schema and returns every problem.
func (d *Doc) Check(schema Validator) []Problem {
	err := schema.Validate(d.value)
	if err == nil {
		return nil
	}
	var out []Problem
	for _, pr := range schemaerr.Problems(err) {
		line, col := d.Position(pr.Pointer)
		out = append(out, Problem{Line: line, Column: col, Pointer: pr.Pointer, Message: pr.Message})
	}
	return out
}

// Decode decodes the document into out (a struct with yaml tags). Call it
// after Check passed; it still rejects fields out does not declare.
func (d *Doc) Decode(out any) *Problem {
	if err := d.root.Decode(out); err != nil {
		return syntaxProblem(err)
	}
	return nil
}

// LineComment returns the comment that follows the scalar at pointer on
// its line ("#1234" for `reason: see #1234`), or "".
func (d *Doc) LineComment(pointer string) string {
	return d.comments[pointer]
}

// Line returns the line of the value at pointer.
func (d *Doc) Line(pointer string) int {
	line, _ := d.Position(pointer)
	return line
}

func (d *Doc) convert(n *yaml.Node, ptr string) (any, *Problem) {
	d.nodes++
	if d.nodes > d.limit {
		return nil, &Problem{Line: n.Line, Column: n.Column, Message: "document too large once aliases are expanded"}
	}
	if _, seen := d.pos[ptr]; !seen && len(d.expanding) == 0 {
		d.pos[ptr] = n
	}
	switch n.Kind {
	case yaml.AliasNode:
		if d.expanding[n.Alias] {
			return nil, &Problem{Line: n.Line, Column: n.Column, Pointer: ptr, Message: "recursive alias: *" + n.Value + " refers to a node that contains it"}
		}
		if d.expanding == nil {
			d.expanding = map[*yaml.Node]bool{}
		}
		d.expanding[n.Alias] = true
		v, prob := d.convert(n.Alias, ptr)
		delete(d.expanding, n.Alias)
		return v, prob
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return d.convert(n.Content[0], ptr)
	case yaml.MappingNode:
		obj := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				return nil, &Problem{Line: k.Line, Column: k.Column, Pointer: ptr, Message: "merge keys (<<) are not supported"}
			}
			if k.Kind != yaml.ScalarNode {
				return nil, &Problem{Line: k.Line, Column: k.Column, Pointer: ptr, Message: "mapping keys must be strings"}
			}
			if _, dup := obj[k.Value]; dup {
				return nil, &Problem{Line: k.Line, Column: k.Column, Pointer: ptr, Message: fmt.Sprintf("key %q appears twice", k.Value)}
			}
			child := ptr + "/" + jsonpos.Escape(k.Value)
			if len(d.expanding) == 0 {
				// Inside an alias the members have no line of their own:
				// a problem there is reported at the alias (Position
				// falls back to the nearest recorded ancestor).
				d.pos[child] = k
			}
			if v.Kind == yaml.ScalarNode && v.LineComment != "" {
				if d.comments == nil {
					d.comments = map[string]string{}
				}
				d.comments[child] = v.LineComment
			}
			cv, prob := d.convert(v, child)
			if prob != nil {
				return nil, prob
			}
			obj[k.Value] = cv
		}
		return obj, nil
	case yaml.SequenceNode:
		arr := make([]any, len(n.Content))
		for i, c := range n.Content {
			cv, prob := d.convert(c, ptr+"/"+strconv.Itoa(i))
			if prob != nil {
				return nil, prob
			}
			arr[i] = cv
		}
		return arr, nil
	case yaml.ScalarNode:
		return scalar(n)
	}
	return nil, &Problem{Line: n.Line, Column: n.Column, Pointer: ptr, Message: "unsupported YAML node"}
}

func scalar(n *yaml.Node) (any, *Problem) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, &Problem{Line: n.Line, Column: n.Column, Message: err.Error()}
		}
		return b, nil
	case "!!int", "!!float":
		var f string
		switch n.ShortTag() {
		case "!!int":
			var i big.Int
			s := strings.ReplaceAll(n.Value, "_", "")
			if _, ok := i.SetString(s, 0); !ok {
				return nil, &Problem{Line: n.Line, Column: n.Column, Message: fmt.Sprintf("bad integer %q", n.Value)}
			}
			f = i.String()
		default:
			v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
			if err != nil || v != v || v > 1e308 || v < -1e308 {
				return nil, &Problem{Line: n.Line, Column: n.Column, Message: fmt.Sprintf("number %q is not a finite JSON number", n.Value)}
			}
			f = strconv.FormatFloat(v, 'g', -1, 64)
		}
		return json.Number(f), nil
	case "!!str", "!!timestamp", "!!binary":
		return n.Value, nil
	}
	return nil, &Problem{Line: n.Line, Column: n.Column, Message: fmt.Sprintf("unsupported YAML tag %s", n.Tag)}
}

func syntaxProblem(err error) *Problem {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 1
	// yaml.v3 reports "line N: ..." (syntax) or "yaml: unmarshal errors:\n  line N: ..."
	if i := strings.Index(msg, "line "); i >= 0 {
		rest := msg[i+5:]
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if n, err := strconv.Atoi(rest[:j]); err == nil {
			line = n
			msg = strings.TrimSpace(strings.TrimPrefix(rest[j:], ":"))
		}
	}
	return &Problem{Line: line, Message: strings.TrimSpace(strings.ReplaceAll(msg, "\n", " "))}
}
