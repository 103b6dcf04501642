package format

// WriterProjector is a Projector that also projects a writer schema for
// a reader's projection, matching fields as the format's readers match
// them (Protobuf: by number). Projected on the contract's names alone, a
// writer version from before a rename keeps nothing of the renamed field,
// and the break the rename makes (a JSON key the reader does not know)
// reaches no consumer.
type WriterProjector interface {
	Projector
	// ProjectWriter is writer restricted to fields and to what reader,
	// Project's projection of the reader version on fields, reads.
	ProjectWriter(writer, reader Schema, fields *Fields) (Schema, error)
}
