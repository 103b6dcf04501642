package avro

import (
	"encoding/json"

	"github.com/evtool/evtool/format"
)

// Project is s restricted to fields, pointers into Avro's JSON encoding
// (as ResolvePointer reads them): a record keeps the fields a pointer
// reaches, in their order; arrays, maps and unions keep their shape (a
// union keeps every branch: dropping one would change what it resolves
// to) and project what they hold. A record reached through several read
// paths (a named type is defined once) keeps the fields read through any
// of them; a field read whole keeps its whole type. A kept field's
// default is projected too, so it still matches its type. Nodes keep
// their files and pointers, so the engine's findings point into s's files.
func (Provider) Project(sch format.Schema, fields *format.Fields) (format.Schema, error) {
	s, ok := sch.(*Schema)
	if !ok {
		return nil, format.NotKind(sch, format.Avro)
	}
	if fields == nil || fields.All {
		return s, nil
	}
	p := projector{reads: map[*Node]*format.Fields{}, out: map[*Node]*Node{}}
	p.collect(s.Root, fields)
	root := p.node(s.Root)
	ps := &Schema{Root: root, File: s.File, Files: s.Files, texts: s.texts, minSize: minSizes(root)}
	if err := ps.compile(); err != nil {
		return nil, err
	}
	return ps, nil
}

type projector struct {
	// reads is what each record reached is read for, merged over the
	// paths it is reached through.
	reads map[*Node]*format.Fields
	out   map[*Node]*Node
}

// collect walks n for f, merging what each record is read for. A record
// is walked again only when what it is read for grew, so recursive
// records end.
func (p *projector) collect(n *Node, f *format.Fields) {
	if n == nil || f == nil {
		return
	}
	switch n.Kind {
	case "record", "error":
		m := format.Merge(p.reads[n], f)
		if old, seen := p.reads[n]; seen && old.Equal(m) {
			return
		}
		p.reads[n] = m
		for _, fd := range n.Fields {
			if m.All {
				p.collect(fd.Type, m)
			} else if c := m.Children[fd.Name]; c != nil {
				p.collect(fd.Type, c)
			}
		}
	case "array":
		p.collect(n.Items, items(f))
	case "map":
		p.collect(n.Values, items(f))
	case "union":
		for _, b := range n.Branches {
			// A pointer may name the branch or go through it.
			p.collect(b, format.Merge(f, f.Children[b.BranchName()]))
		}
	}
}

// items is what the items of an array or the values of a map are read
// for: every index (or key) merged.
func items(f *format.Fields) *format.Fields {
	if f.All {
		return f
	}
	var out *format.Fields
	for _, c := range f.Children {
		out = format.Merge(out, c)
	}
	return out
}

// node is n's projection (n itself where nothing below it was removed).
func (p *projector) node(n *Node) *Node {
	if n == nil {
		return nil
	}
	if o, ok := p.out[n]; ok {
		return o
	}
	switch n.Kind {
	case "record", "error":
		r := p.reads[n]
		c := *n
		p.out[n] = &c // before the fields: a recursive record refers to itself
		c.Fields = nil
		for _, fd := range n.Fields {
			if r == nil || (!r.All && r.Children[fd.Name] == nil) {
				continue
			}
			f := *fd
			f.Type = p.node(fd.Type)
			if f.HasDefault {
				f.Default = projectDefault(f.Type, fd.Default)
			}
			c.Fields = append(c.Fields, &f)
		}
		return &c
	case "array", "map", "union":
		c := *n
		p.out[n] = &c
		c.Items, c.Values = p.node(n.Items), p.node(n.Values)
		if n.Branches != nil {
			c.Branches = make([]*Node, len(n.Branches))
			for i, b := range n.Branches {
				c.Branches[i] = p.node(b)
			}
		}
		return &c
	}
	p.out[n] = n
	return n
}

// projectDefault is a default written for a type, restricted to the
// projected type t: record objects keep the fields t keeps (a union's
// default is of its first branch, untagged).
func projectDefault(t *Node, raw json.RawMessage) json.RawMessage {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return raw
	}
	out, err := json.Marshal(defaultOf(t, v, 0))
	if err != nil {
		return raw
	}
	return out
}

func defaultOf(t *Node, v any, depth int) any {
	if t == nil || depth > maxDefaultDepth {
		return v
	}
	switch t.Kind {
	case "record", "error":
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		out := make(map[string]any, len(t.Fields))
		for _, f := range t.Fields {
			if x, ok := m[f.Name]; ok {
				out[f.Name] = defaultOf(f.Type, x, depth+1)
			}
		}
		return out
	case "array":
		if a, ok := v.([]any); ok {
			out := make([]any, len(a))
			for i, x := range a {
				out[i] = defaultOf(t.Items, x, depth+1)
			}
			return out
		}
	case "map":
		if m, ok := v.(map[string]any); ok {
			out := make(map[string]any, len(m))
			for k, x := range m {
				out[k] = defaultOf(t.Values, x, depth+1)
			}
			return out
		}
	case "union":
		if len(t.Branches) > 0 {
			return defaultOf(t.Branches[0], v, depth+1)
		}
	}
	return v
}

// maxDefaultDepth bounds the walk of a default: its JSON was parsed
// already, so this only guards against a pathological nesting.
const maxDefaultDepth = 10000
