package format

// What jobs outside format/ used to learn by comparing a version's kind
// with a format constant is asked of the format's provider through the
// optional interfaces below (a provider that is not one answers "no").

// BinaryDataer is a Provider whose events' data has a binary encoding
// beside its JSON form (Avro, Protobuf): the data is kept, framed and
// checked in that encoding. JSON Schema's data is the JSON value itself,
// so its provider is not one.
type BinaryDataer interface {
	// JSONFormName names the format's JSON form of a datum in messages
	// ("Avro's JSON encoding").
	JSONFormName() string
	// ExampleForm names the JSON form a catalog's examples of the format
	// are written in, in an example's finding ("the JSON mapping").
	ExampleForm() string
}

// HasBinaryData reports whether p's events carry binary data (p is a
// BinaryDataer); nil (no provider) does not.
func HasBinaryData(p Provider) bool {
	_, ok := p.(BinaryDataer)
	return ok
}

// HasRegistryRefs reports whether p's registry schemas reference other
// schemas (p is a RegistryCompiler), so a registry holds them with their
// shared schemas; nil (no provider) does not.
func HasRegistryRefs(p Provider) bool {
	_, ok := p.(RegistryCompiler)
	return ok
}

// RegistryRuler is a RegistryCompiler with the format's own rules in a
// Confluent schema registry's API (Avro, Protobuf), which evtool's
// registry, push and diff follow.
type RegistryRuler interface {
	// SharedRel is where a new shared schema registered under subject is
	// written, inside the catalog's schemas directory.
	SharedRel(subject string) string
	// RegistryIdentity says what push and diff compare of the format's
	// versions.
	RegistryIdentity() string
	// RecordSubjectShared reports whether a subject named for a record the
	// schema declares (RecordNameStrategy, no topic) is a shared schema
	// other versions reference, as Confluent's clients register Avro named
	// types, rather than a type's.
	RecordSubjectShared() bool
	// Descriptors reports whether the format's registry text may be a
	// serialized descriptor instead of text (and is served as one on
	// ?format=serialized), references name shared files by their subject
	// (the import path), and the well-known files are the compiler's own
	// (Protobuf); such text is not JSON.
	Descriptors() bool
}
