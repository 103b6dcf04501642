package format

import "github.com/evtool/evtool/codegen/gocode"

// GoGenerator is a Provider whose event types get Go code from evtool gen
// go: it writes the Go of its types from its own compiled schemas, so the
// generator (package codegen) never switches on a format or looks into a
// schema. A provider that is not one gets no Go code: its types are
// listed as skipped (Protobuf: protoc-gen-go's job).
type GoGenerator interface {
	// GoTypes starts one run of the format's generator, writing into pkg.
	// An error stops generation (the format's files could not be read).
	GoTypes(pkg gocode.Package) (GoTypes, error)
}

// GoTypes is one run of a format's Go generator. codegen calls Type for
// each event type of the format in catalog order (every format's types
// interleaved, so names are claimed in catalog order), then Analyze once,
// then Files, then the shared file's parts.
type GoTypes interface {
	// Type takes event type t, whose versions compiled to schemas (in
	// order); it declares the type's names (and may build its Go types).
	// An error stops generation; problems of the type go to Package.Fail.
	Type(t gocode.EventType, schemas []Schema) error
	// Analyze builds the Go types of every type taken, once all types of
	// every format were taken.
	Analyze()
	// Files writes a file per event type.
	Files() ([]gocode.File, error)
	// SharedDefs writes the format's part of the shared file before the
	// package-level variables (types of shared schema files).
	SharedDefs(o *gocode.Writer)
	// SharedVars writes the format's package-level variables and the
	// functions over them after the package's compiled patterns.
	SharedVars(o *gocode.Writer)
	// PackageDoc is a paragraph added to the package's doc comment ("" for
	// none), each line starting with "// ".
	PackageDoc() string
	// Notes are the places the generated code validates with the
	// embedded schema instead of Go, in any order.
	Notes() []gocode.Note
}

// GoElsewhere is a Provider without a GoGenerator whose types get their
// Go code from another tool (Protobuf: protoc-gen-go): it says which, for
// evtool gen go to tell when that leaves nothing to generate.
type GoElsewhere interface {
	// NoGoCode says why the format's event types get no Go code from
	// evtool and where it comes from, to follow the types' names and ": ".
	NoGoCode() string
	// SkipNote says, after "NAME is a FORMAT type: ", what evtool gen go
	// does with one such type in a catalog that has other types to
	// generate, and where its Go code comes from.
	SkipNote() string
}
