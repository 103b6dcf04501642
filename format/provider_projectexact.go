package format

// ExactProjector is a Projector whose projections alone decide a
// consumer's verdict (JSON Schema: a projection keeps each read field
// whole with every constraint on it, keeps whole what it cannot split,
// and its reader rejects no event for a field no pointer reaches). For a
// Projector that is not one (Avro, Protobuf), a consumer check also
// counts the whole pair's findings at a path the consumer reads and those
// whose reader fails to decode the event: a projection can leave out
// what makes such a break.
type ExactProjector interface {
	Projector
	// ProjectsExactly reports whether the projections alone decide.
	ProjectsExactly() bool
}
