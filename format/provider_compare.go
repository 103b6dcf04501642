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
