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
