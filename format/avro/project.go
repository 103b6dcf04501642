package avro

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/evtool/evtool/format"
)

// Project is s restricted to fields, pointers into Avro's JSON encoding
// (as ResolvePointer reads them): a record keeps the fields a pointer
// reaches, in their order; arrays, maps and unions keep their shape (a
// union keeps every branch: dropping one would change what it resolves
// to) and project what they hold. A record reached through several read
// paths (a named type is defined once) keeps the fields read through any
// of them; a field read whole keeps its whole type. A record that has
// no field of a name read (a writer before a rename: the reader's field
// has the old name as an alias) is kept whole, unless it is a union
// branch and another branch has that field. A kept field's
// default is projected too, so it still matches its type: a union's
// default as the branch it is a value of (Avro 1.12: the first branch it
// matches, not necessarily the first), and the projection fails when
// leaving fields out would let an earlier branch take it (the caller
// compares the whole schemas then). Nodes keep their files and pointers,
// so the engine's findings point into s's files.
func (Provider) Project(sch format.Schema, fields *format.Fields) (format.Schema, error) {
	s, ok := sch.(*Schema)
	if !ok {
		return nil, format.NotKind(sch, format.Avro)
	}
	if fields == nil || fields.All {
		return s, nil
	}
	p := projector{keep: map[*Node]*keepSet{}, seen: map[visit]bool{}, all: &format.Fields{All: true}, through: map[visit]*format.Fields{}, out: map[*Node]*Node{}, dd: defaultDecoder{}, branches: map[branchKey]int{}}
	p.collect(s.Root, fields)
	root := p.node(s.Root)
	// Defaults once every node is projected: a default checks its union
	// branch against the projected union.
	for _, r := range p.records {
		for i, f := range r.copy.Fields {
			if f.HasDefault {
				d, err := p.projectDefault(r.orig[i].Type, f.Default)
				if err != nil {
					return nil, fmt.Errorf("%s: %s/default: %w", r.copy.File, r.orig[i].Pointer, err)
				}
				f.Default = d
			}
		}
	}
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
	// branch: n is reached as a branch of a union the pointer goes
	// through (a record there may lack a read field: another branch has it).
	branch bool
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
	// through memoizes throughUnion.
	through map[visit]*format.Fields
	out     map[*Node]*Node
	// records are the projected records with the fields they kept.
	records []projectedRecord
	dd      defaultDecoder
	// branches memoizes branchOf: a default repeats its values (an array
	// of 100,000 numbers in an [int, long] union).
	branches map[branchKey]int
}

type branchKey struct {
	u   *Node
	raw string
}

type projectedRecord struct {
	copy *Node
	orig []*Field // of the original record, one per field of copy
}

// collect walks n for f, recording what each record keeps.
func (p *projector) collect(n *Node, f *format.Fields) { p.collectAt(n, f, false) }

func (p *projector) collectAt(n *Node, f *format.Fields, branch bool) {
	if n == nil || f == nil {
		return
	}
	if f.All {
		f = p.all
	}
	if p.seen[visit{n, f, branch}] {
		return
	}
	p.seen[visit{n, f, branch}] = true
	switch n.Kind {
	case "record", "error":
		k := p.keep[n]
		if k == nil {
			k = &keepSet{names: map[string]bool{}}
			p.keep[n] = k
		}
		if !f.All && !branch && p.namesMissing(n, f) {
			// A read name this record has no field of: a writer version
			// before a rename (the reader's field has it as an alias) or
			// before the field was added. The record is kept whole, so
			// that the reader resolves the read field against every
			// writer field, through its aliases, as it does unprojected
			// (projected on the read name alone, a renamed field looked
			// removed: a false "no default" break).
			f = p.all
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
		through := p.throughUnion(n, f)
		// A record branch may lack a name read through the union when
		// another branch has it; when no branch has it, the union is as a
		// record without it (a writer before a rename): kept whole.
		orphan := p.readByNoBranch(n, through)
		for _, b := range n.Branches {
			// A pointer may name the branch or go through it.
			p.collectAt(b, through, !orphan)
			p.collect(b, f.Children[b.BranchName()])
		}
	}
}

// namesMissing reports whether f reads a name that is no field of record n.
func (p *projector) namesMissing(n *Node, f *format.Fields) bool {
	for name := range f.Children {
		if n.Field(name) == nil {
			return true
		}
	}
	return false
}

// throughUnion is f without the children that name a branch of union n:
// what a pointer that goes through the union (names no branch) reads of
// each branch. Made once per (union, f), so that the walk's memo (by
// field set) still ends recursive types.
func (p *projector) throughUnion(n *Node, f *format.Fields) *format.Fields {
	if f.All || len(f.Children) == 0 {
		return f
	}
	if t, ok := p.through[visit{n, f, false}]; ok {
		return t
	}
	t := f
	for _, b := range n.Branches {
		if _, ok := f.Children[b.BranchName()]; ok {
			t = &format.Fields{Children: map[string]*format.Fields{}}
			for name, c := range f.Children {
				if !branchNamed(n, name) {
					t.Children[name] = c
				}
			}
			break
		}
	}
	p.through[visit{n, f, false}] = t
	return t
}

// readByNoBranch reports whether f reads a name that no record branch of
// union u has a field of.
func (p *projector) readByNoBranch(u *Node, f *format.Fields) bool {
	if f.All {
		return false
	}
	for name := range f.Children {
		found := false
		for _, b := range u.Branches {
			if (b.Kind == "record" || b.Kind == "error") && b.Field(name) != nil {
				found = true
			}
		}
		if !found {
			return true
		}
	}
	return false
}

func branchNamed(u *Node, name string) bool {
	for _, b := range u.Branches {
		if b.BranchName() == name {
			return true
		}
	}
	return false
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
		r := projectedRecord{copy: &c}
		for _, fd := range n.Fields {
			if k == nil || (!k.all && !k.names[fd.Name]) {
				continue
			}
			f := *fd
			f.Type = p.node(fd.Type)
			c.Fields = append(c.Fields, &f)
			r.orig = append(r.orig, fd)
		}
		p.records = append(p.records, r)
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

// projectDefault is a default written for type o, restricted to o's
// projection: record objects keep the fields the projection keeps, a
// union's value is projected as the branch it is a value of. A default
// that is no value of its type (lint reports it) is left as it is.
func (p *projector) projectDefault(o *Node, raw json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // a long keeps every digit
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw, nil
	}
	v, err := p.defaultOf(o, v, 0)
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw, nil
	}
	return out, nil
}

func (p *projector) defaultOf(o *Node, v any, depth int) (any, error) {
	if o == nil || depth > maxDefaultDepth {
		return v, nil
	}
	var err error
	switch o.Kind {
	case "record", "error":
		m, ok := v.(map[string]any)
		if !ok {
			return v, nil
		}
		k := p.keep[o]
		out := map[string]any{}
		for _, f := range o.Fields {
			x, ok := m[f.Name]
			if !ok || k == nil || (!k.all && !k.names[f.Name]) {
				continue
			}
			if out[f.Name], err = p.defaultOf(f.Type, x, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	case "array":
		if a, ok := v.([]any); ok {
			out := make([]any, len(a))
			for i, x := range a {
				if out[i], err = p.defaultOf(o.Items, x, depth+1); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
	case "map":
		if m, ok := v.(map[string]any); ok {
			out := make(map[string]any, len(m))
			for k, x := range m {
				if out[k], err = p.defaultOf(o.Values, x, depth+1); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
	case "union":
		return p.unionDefault(o, v, depth)
	}
	return v, nil
}

// unionDefault projects v, a value of union u, as the branch it is a
// value of, and checks that the projected union reads the result as the
// same branch.
func (p *projector) unionDefault(u *Node, v any, depth int) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return v, nil
	}
	i := p.branchOf(u, raw)
	if i < 0 {
		return v, nil
	}
	x, err := p.defaultOf(u.Branches[i], v, depth+1)
	if err != nil {
		return nil, err
	}
	projected := p.out[u]
	if projected == nil || len(projected.Branches) != len(u.Branches) {
		return x, nil
	}
	praw, err := json.Marshal(x)
	if err != nil {
		return x, nil
	}
	if bytes.Equal(raw, praw) && p.sameBefore(u, i) {
		return x, nil // the same value before the same branches
	}
	if j := p.branchOf(projected, praw); j != i {
		return nil, fmt.Errorf("default %s of the union at %s is a value of branch %d (%s), but of %s once the fields the pointers do not read are left out",
			truncate(string(raw), 60), u.Pointer, i+1, u.Branches[i].Describe(), branchName(j))
	}
	return x, nil
}

// sameBefore reports whether the projection kept the branches of u before
// the i-th as they are.
func (p *projector) sameBefore(u *Node, i int) bool {
	for _, b := range u.Branches[:i] {
		if p.out[b] != b {
			return false
		}
	}
	return true
}

func branchName(i int) string {
	if i < 0 {
		return "no branch"
	}
	return fmt.Sprintf("branch %d", i+1)
}

// branchOf is the index of the branch of u that raw is a value of (-1:
// none). A branch alone in taking raw's JSON kind is taken without
// decoding, so a default of many union values costs a decode only where
// several branches compete.
func (p *projector) branchOf(u *Node, raw json.RawMessage) int {
	key := branchKey{u, string(raw)}
	if i, ok := p.branches[key]; ok {
		return i
	}
	i := p.decideBranch(u, raw)
	p.branches[key] = i
	return i
}

func (p *projector) decideBranch(u *Node, raw json.RawMessage) int {
	kind := jsonKindOf(raw)
	only := -1
	for i, b := range u.Branches {
		if takes(b, kind) {
			if only >= 0 {
				only = -2
				break
			}
			only = i
		}
	}
	if only >= 0 || only == -1 {
		return only
	}
	b := p.dd.union(u, raw)
	for i, x := range u.Branches {
		if x == b {
			return i
		}
	}
	return -1
}

// maxDefaultDepth bounds the walk of a default: its JSON was parsed
// already, so this only guards against a pathological nesting.
const maxDefaultDepth = 10000
