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
