package format

// Projector is a Provider that projects a schema on the fields a consumer
// reads: the field-aware verdicts of consumer contracts compare the
// projections of both versions with the format's own engine, so a change
// to a field no pointer reaches is left out of the comparison.
type Projector interface {
	// Project returns s restricted to fields: what a pointer names is
	// kept whole (with every constraint on it), what no pointer reaches
	// is removed where the format can remove it, and the containers on
	// the way keep their place and kind. A named type reached through
	// several read paths keeps the fields read through any of them (a
	// format defines a named type once). Positions (files, lines,
	// pointers) of what is kept are those of s, so findings about the
	// projection point into s's files and keep their fingerprints.
	Project(s Schema, fields *Fields) (Schema, error)
}

// Merge returns the union of two field sets (nil is the empty set): a
// named type read through several paths reads what any of them reads.
func Merge(a, b *Fields) *Fields {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.All || b.All:
		return &Fields{All: true}
	}
	out := &Fields{Children: map[string]*Fields{}}
	for k, c := range a.Children {
		out.Children[k] = c
	}
	for k, c := range b.Children {
		out.Children[k] = Merge(out.Children[k], c)
	}
	return out
}

// Equal reports whether two field sets read the same.
func (f *Fields) Equal(g *Fields) bool {
	if f == nil || g == nil {
		return f == g
	}
	if f.All || g.All {
		return f.All == g.All
	}
	if len(f.Children) != len(g.Children) {
		return false
	}
	for k, c := range f.Children {
		if !c.Equal(g.Children[k]) {
			return false
		}
	}
	return true
}
