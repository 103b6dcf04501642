package format

// DescriptorFormer is a RegistryRuler whose Descriptors() is true
// (Protobuf): a client may register a serialized descriptor in place of
// the schema's text, and a registry serves one on ?format=serialized.
type DescriptorFormer interface {
	// RegistryText is the schema text a registered schema stands for:
	// the text of a serialized descriptor, schema itself when it is text.
	// The error says why a descriptor cannot be read or printed.
	RegistryText(schema []byte) ([]byte, error)
	// SerializedForm is the serialized descriptor of s, named name.
	SerializedForm(s Schema, name string) (string, error)
}

// BuiltinFiler is a Provider whose compiler has files built in
// (Protobuf's well-known files, google/protobuf/*.proto) that a
// registry's clients may register all the same: a registry answers them
// with ids and never writes them into a catalog.
type BuiltinFiler interface {
	// IsBuiltin reports whether name (a reference's name, a subject) is
	// in the built-in files' place: never a catalog file.
	IsBuiltin(name string) bool
	// BuiltinFiles are the names of the built-in files a registry serves.
	BuiltinFiles() []string
	// BuiltinText is the text the built-in file name is served as and its
	// registry identity (ok false: name is no file a registry serves).
	BuiltinText(name string) (text []byte, digest string, ok bool, err error)
	// CheckBuiltin compares text, registered as the built-in file name
	// (one BuiltinText answers for), with the file: difference names the
	// first declaration one has and the other lacks ("" for none); err
	// says why text does not parse.
	CheckBuiltin(name string, text []byte) (difference string, err error)
	// BuiltinWhere says, for a registry's messages, which files are built
	// in: "files under DIR are the compiler's own (EXAMPLES)".
	BuiltinWhere() string
}

// SameTexter is a RegistryCompiler whose reference files may differ in
// text and still be the same schema (Protobuf: comments and layout), so a
// registry's copy of a catalog file is not taken for an edit.
type SameTexter interface {
	// SameText reports whether a and b, two texts of the reference file
	// name, compile to the same schema.
	SameText(a, b, name string) bool
}
