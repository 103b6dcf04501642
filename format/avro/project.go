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
	p := projector{keep: map[*Node]*keepSet{}, seen: map[visit]bool{}, all: &format.Fields{All: true}, out: map[*Node]*Node{}}
	p.collect(s.Root, fields)
	root := p.node(s.Root)
	ps := &Schema{Root: root, File: s.File, Files: s.Files, texts: s.texts, minSize: minSizes(root)}
	if err := ps.compile(); err != nil {
		return nil, err
	}
	return ps, nil
}

// keepSet is what a record keeps: every field, or those named.
type keepSet struct {
	all   bool
	names map[string]bool
}

type visit struct {
	n *Node
	f *format.Fields
}

type projector struct {
	// keep is what each record reached keeps, over every path it is
	// reached through.
	keep map[*Node]*keepSet
	// seen holds the (node, field set) pairs walked: each is walked once,
	// so the walk costs the schema's size times the pointers' length at
	// most, whatever the recursion (merging the sets read per record
	// instead grows a tree per level of a deep pointer).
	seen map[visit]bool
	// all stands for every field set that reads all of its value.
	all *format.Fields
	out map[*Node]*Node
}

// collect walks n for f, recording what each record keeps.
func (p *projector) collect(n *Node, f *format.Fields) {
	if n == nil || f == nil {
		return
	}
	if f.All {
		f = p.all
	}
	if p.seen[visit{n, f}] {
		return
	}
	p.seen[visit{n, f}] = true
	switch n.Kind {
	case "record", "error":
		k := p.keep[n]
		if k == nil {
			k = &keepSet{names: map[string]bool{}}
			p.keep[n] = k
		}
		k.all = k.all || f.All
		for _, fd := range n.Fields {
			if f.All {
				p.collect(fd.Type, f)
			} else if c := f.Children[fd.Name]; c != nil {
				k.names[fd.Name] = true
				p.collect(fd.Type, c)
			}
		}
	case "array", "map":
		items := n.Items
		if n.Kind == "map" {
			items = n.Values
		}
		if f.All {
			p.collect(items, f)
		}
		for _, c := range f.Children { // every index (or key) reads an item
			p.collect(items, c)
		}
	case "union":
		for _, b := range n.Branches {
			// A pointer may name the branch or go through it.
			p.collect(b, f)
			p.collect(b, f.Children[b.BranchName()])
		}
	}
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
		k := p.keep[n]
		c := *n
		p.out[n] = &c // before the fields: a recursive record refers to itself
		c.Fields = nil
		for _, fd := range n.Fields {
			if k == nil || (!k.all && !k.names[fd.Name]) {
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
