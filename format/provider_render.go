package format

import "io/fs"

// What evtool renders of a schema for people and other tools (the field
// table of docs, the payload of an AsyncAPI message, the form a schema
// registry holds) is asked of the format's provider through the optional
// interfaces below, so that docsite, asyncapi and schemaregistry need not
// know a format's compiled type.

// FieldDoc is one row of a version's field table (evtool docs): a place in
// the event's data and what the schema says about it. What only one format
// has (an Avro default or logical type, a Protobuf field number, label or
// json_name) is a constraint line, so that tables and their diffs are one
// code path for every format.
type FieldDoc struct {
	// Path names the place: "items[].unitPrice.currency"; "[]" is any
	// item, "[0]" a tuple item, "{oneOf 1}" a variant, "*" any other
	// property, "[/re/]" properties matching a pattern, "{}" a map value,
	// "{Card}" a union branch.
	Path  string
	Depth int
	Type  string
	// Property: the place is a property of an object (not an item or a
	// variant); Required: the object requires it.
	Property bool
	Required bool
	// Enum holds the allowed values as JSON text; Constraints the rest.
	Enum        []string
	Constraints []string
	Title       string
	Description string
	// RefName names the shared definition the field is, if any
	// ("Money · common/money.json").
	RefName string
}

// Bounds of a field table; a schema past them is summarized (truncated).
const (
	MaxFieldDocs     = 2000
	MaxFieldDocDepth = 24
)

// FieldPath is the path of the field name below path.
func FieldPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// FieldDocumenter is a Provider that lists the fields of its compiled
// schemas for docs (Avro, Protobuf; JSON Schema's table is built by
// package docsite, which reads the catalog's files for the order authors
// wrote properties in).
type FieldDocumenter interface {
	// FieldDocs describes s's root (its type, name and doc) and lists its
	// fields, nested ones included, at most MaxFieldDocs rows and
	// MaxFieldDocDepth levels (truncated says it stopped). fsys is the
	// catalog root, where s's files are read again for what the compiled
	// schema keeps no copy of (Avro's doc); nil leaves that out.
	FieldDocs(s Schema, fsys fs.FS) (root FieldDoc, rows []FieldDoc, truncated bool)
}
