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

// FieldDocFiles is where a FieldDocumenter reads a schema's files again,
// for what the compiled schema keeps no copy of: Avro's doc, and the
// order JSON Schema properties were written in and their format keyword.
type FieldDocFiles struct {
	// FS is the catalog directory; nil leaves out what is read from files.
	FS fs.FS
	// Locate is the catalog file a location of a compiled schema is in
	// (JSON Schema's: a virtual file URL or an $id, "#" and a pointer
	// after it or not): its slash path in FS, and its path relative to the
	// schema root as pages name shared definitions ("common/money.json").
	// ok is false for a location no file of the catalog holds; nil locates
	// none. A JSON Schema is compiled at URLs that only the catalog's read
	// of its root maps to files (an $id may name any file of the root), so
	// the catalog answers, not FS.
	Locate func(location string) (path, rel string, ok bool)
	// Cache, when set, keeps what a provider made of a file (by its path
	// in FS) for the next schemas that use it: a site reads and parses a
	// shared file once, not once per version. The caller keeps it for one
	// FS and uses it from one goroutine at a time.
	Cache map[string]any
}

// FieldDocumenter is a Provider that lists the fields of its compiled
// schemas for docs (every format: package docsite renders the rows and
// asks no format for its compiled type).
type FieldDocumenter interface {
	// FieldDocs describes s's root (its type, name, title and doc) and
	// lists its fields, nested ones included, at most MaxFieldDocs rows
	// and MaxFieldDocDepth levels (truncated says it stopped). files is
	// where s's files are read again (FieldDocFiles); without them the
	// rows leave out what only the files say, and JSON Schema properties
	// come in name order.
	FieldDocs(s Schema, files FieldDocFiles) (root FieldDoc, rows []FieldDoc, truncated bool)
}

// SharedSchema is a catalog file that versions use from outside their own
// file: an .avsc defining a named type (a record, enum or fixed referenced
// by full name), or an imported .proto. A registry holds it under a subject
// of its own, and the versions that use it carry Confluent schema
// references to it.
type SharedSchema struct {
	Kind Kind
	// Name is the reference name: the full name of the file's top-level
	// named type (Avro) or its import path (Protobuf). Subject is where it
	// is registered: the name itself, as Confluent's serializers and
	// Maven plugin do (DefaultReferenceSubjectNameStrategy).
	Name, Subject string
	// Rel is the file's slash path inside the catalog root.
	Rel  string
	Text []byte
	// Deps are the names of the shared schemas it uses itself, in
	// dependency order (set by the registry form that orders them).
	Deps []string
	// Digest is the identity push, diff and the server compare.
	Digest string
	// DepRels are the shared files it uses itself, as paths inside the
	// catalog root.
	DepRels []string
}

// SharedFiles is where a format reads the shared schemas of registry
// forms: the catalog root, the bound on one file, and the shared schemas
// read so far by path inside the root (a cache the caller keeps and
// guards, as one file is one shared schema for every version using it).
type SharedFiles struct {
	Root    fs.FS
	MaxSize int64
	Cache   map[string]*SharedSchema
}

// Keep puts sh in the cache (none: nothing is kept).
func (sf SharedFiles) Keep(rel string, sh *SharedSchema) {
	if sf.Cache != nil {
		sf.Cache[rel] = sh
	}
}

// RegistryFormer is a Provider whose registry form is a version's file as
// written with references to the shared schemas it uses (Avro, Protobuf;
// JSON Schema's form inlines them: RegistryBundler).
type RegistryFormer interface {
	// RegistryShared are the shared schemas s uses, directly or not:
	// closure their paths inside the root, sorted, and byRel each of them
	// by path. rel is s's own file inside the root.
	RegistryShared(s Schema, rel string, files SharedFiles) (closure []string, byRel map[string]*SharedSchema, err error)
	// AllShared are the shared schemas among rels (files of the root with
	// the format's extension that are no version file), by path: a file
	// that is not one, or does not compile on its own, is left out.
	AllShared(rels []string, files SharedFiles) map[string]*SharedSchema
}

// AsyncAPIComponenter is a Provider whose versions are carried into an
// AsyncAPI document as entries of its components.schemas, which messages'
// payloads reference and versions share (JSON Schema: one entry per
// catalog file a version reaches, its $refs rewritten to point inside the
// document, in the draft-07 dialect AsyncAPI Schema Objects are).
type AsyncAPIComponenter interface {
	// AsyncAPIComponents starts the components of one document. versions
	// are all the catalog's versions of the format (what none of them
	// reaches is left out); fileOf describes the catalog file at a URL:
	// its display path and its slash path inside the catalog root.
	AsyncAPIComponents(versions []AsyncAPIVersion, fileOf func(url string) (display, rel string, ok bool)) (AsyncAPISchemas, error)
	// AsyncAPISummary is the summary of a message of s ("" for none).
	AsyncAPISummary(s Schema) string
}

// AsyncAPIVersion is one version given to AsyncAPIComponents.
type AsyncAPIVersion struct {
	Schema Schema
	// URL is the version's compiled URL; Text its file as written.
	URL  string
	Text []byte
}

// AsyncAPISchemas are the components.schemas of one AsyncAPI document,
// exported as messages ask for them.
type AsyncAPISchemas interface {
	// Payload is the $ref of v's messages' payload, exporting v's file
	// and every file it reaches on first use; warnings name what those
	// files could not carry over exactly.
	Payload(v AsyncAPIVersion) (ref string, warnings []AsyncAPIWarning, err error)
	// Schemas are the entries exported so far, sorted by name.
	Schemas() ([]AsyncAPISchema, error)
}

// AsyncAPISchema is one entry of components.schemas: its name and its
// value as JSON text, keeping the key order written.
type AsyncAPISchema struct {
	Name string
	JSON []byte
}

// AsyncAPIWarning is a schema keyword an export could not carry over
// exactly: the file's display path, the keyword's JSON pointer there.
type AsyncAPIWarning struct {
	File, Pointer, Message string
}

// AsyncAPIPayload is a version's schema as the payload of an AsyncAPI 3.0
// message that is not JSON Schema: a Multi Format Schema Object.
type AsyncAPIPayload struct {
	// SchemaFormat is the payload's schemaFormat, as the AsyncAPI
	// specification spells it.
	SchemaFormat string
	// JSON is the embedded schema when it is a JSON value (Avro), as JSON
	// text keeping the key order written; Text when it is a string
	// (Protobuf's .proto).
	JSON []byte
	Text string
	// Message is the event message's full name (x-evtool-message, ""
	// for none); Imports the files the schema was bundled with
	// (x-evtool-imports).
	Message string
	Imports []string
	// ContentType is the messages' content type.
	ContentType string
	// Warning says why the schema is embedded otherwise than the format
	// would (Protobuf: as written, with imports the AsyncAPI parser
	// cannot follow); "" for none.
	Warning string
}

// AsyncAPIPayloader is a Provider whose versions are embedded in an
// AsyncAPI message with their schemaFormat (Avro, Protobuf; JSON Schema's
// are components: AsyncAPIComponenter).
type AsyncAPIPayloader interface {
	// AsyncAPIPayload is s embedded in a message; text is s's file as
	// written.
	AsyncAPIPayload(s Schema, text []byte) (AsyncAPIPayload, error)
	// AsyncAPIInfo says how the format's versions are carried (record
	// value, content type, what the payload embeds): a paragraph of the
	// document's description when the catalog has such versions.
	AsyncAPIInfo() string
}
