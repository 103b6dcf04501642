// Package gocode is what every format's Go generator writes with: the
// seam between evtool gen go (package codegen) and the formats.
//
// codegen writes one Go package per catalog. What is the same for every
// format lives in codegen: the package scope (every exported name with
// where it comes from), the shared file (the package-level Decode, the
// compiled patterns, the runtime copied from codegen/internal/rt), the
// imports and gofmt of each file. What Go a schema becomes is each
// format's own rule, written beside the format's schema tree: a format
// whose provider is a format.GoGenerator generates the Go of its event
// types from its own compiled schemas (Avro from its Nodes, in
// format/avro; JSON Schema from santhosh-tekuri/jsonschema's compiled
// form, in format/jsonschema/gogen), reaching the package through Package. codegen
// asks the provider of each event type's format for its generator and
// never looks at a schema itself.
//
// gocode imports nothing from evtool but the generated runtime
// (codegen/internal/rt, standard library only), so format packages can
// implement the seam without an import cycle through the catalog.
package gocode

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// File is one generated file.
type File struct {
	Name string
	Data []byte
}

// Note says that the value at Location is validated with the embedded
// schema because the generator does not translate Keywords.
type Note struct {
	Location string
	Keywords []string
}

func (n Note) String() string {
	return fmt.Sprintf("%s: not translated to Go: %s; values there are validated with the embedded schema at decode time", n.Location, strings.Join(n.Keywords, ", "))
}

// EventType is an event type of the catalog as a generator sees it.
type EventType struct {
	// Name is the CloudEvents type.
	Name string
	// Base is the Go name the type's identifiers start with
	// (TypeBaseName of Name).
	Base string
	// Description is the type's description from event.yaml.
	Description string
	// Source is the pattern event.yaml gives sources ("" for none).
	Source string
	// Versions are v1..vN in order.
	Versions []Version
}

// Version is one version of an event type.
type Version struct {
	Number int
	// File is the schema file's display path; RelPath its slash path
	// inside the catalog's schema root.
	File, RelPath string
	// DataSchema is the version's dataschema attribute.
	DataSchema string
	// Deprecated says event.yaml deprecates the version.
	Deprecated bool
}

// Catalog is where the catalog's schema files are.
type Catalog struct {
	// Dir reads the catalog directory (the one holding evtool.yaml).
	Dir fs.FS
	// Schemas is the schema root in Dir (slash-separated, cleaned).
	Schemas string
	// Root is the schema root's display path.
	Root string
}

// Package is the generated package a format's generator writes into.
type Package interface {
	// Plain says only plain types are wanted: no methods, no validation,
	// no CloudEvents helpers (for benchmarks).
	Plain() bool
	// Catalog is where the catalog's schema files are.
	Catalog() Catalog
	// Declare claims name for origin in the package scope; a name another
	// origin claimed is a problem of the run (see Fail).
	Declare(name, origin string)
	// Claim declares name, or name followed by the first number from 2 on
	// that is free, and returns the name declared.
	Claim(name, origin string) string
	// OwnFile records that event type typ is generated into file; two
	// types in one file are a problem of the run.
	OwnFile(file, typ string)
	// Decodes records that the package's Decode hands events of type base
	// to Decode<base>, in the order called.
	Decodes(base string)
	// Fail records a problem that stops generation; all of them are
	// reported together.
	Fail(err error)
	// RegexpVar is the package-level variable holding pattern compiled
	// (declared in the shared file).
	RegexpVar(pattern string) string
	// UseRuntime copies the runtime piece name (codegen/internal/rt's
	// rt_<name>.go) into the shared file.
	UseRuntime(name string)
	// Finish makes a file of the package: the header, doc, the package
	// clause, the imports body uses, and gofmt.
	Finish(name, doc, body string) (File, error)
}

// Writer writes Go source.
type Writer struct {
	b   bytes.Buffer
	tmp int
}

// P writes a line.
func (o *Writer) P(format string, args ...any) {
	fmt.Fprintf(&o.b, format, args...)
	o.b.WriteByte('\n')
}

// Raw writes s as it is.
func (o *Writer) Raw(s string) { o.b.WriteString(s) }

// V returns a fresh local variable name.
func (o *Writer) V(prefix string) string {
	o.tmp++
	return prefix + strconv.Itoa(o.tmp)
}

// String is what was written.
func (o *Writer) String() string { return o.b.String() }

// Q quotes s as a Go string literal.
func Q(s string) string { return strconv.Quote(s) }

// ShortHash names generated variables after what they hold, so that names
// do not shift when unrelated schemas change.
func ShortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:4])
}

// ConstructorHead writes the doc comment, the signature and the source
// check of New<name>Event for version v of t; encoding, contentType and
// fails are what the format does with the data; srcVar is the variable of
// t's source pattern ("" for none, RegexpVar).
func ConstructorHead(o *Writer, t EventType, v Version, name, srcVar, encoding, contentType, fails string) {
	doc := fmt.Sprintf("New%sEvent returns a %s event (version %d) from source with data%s: a random UUID id, the current time, datacontenttype %s and dataschema %s. It fails when data %s", name, t.Name, v.Number, encoding, contentType, v.DataSchema, fails)
	if srcVar != "" {
		doc += fmt.Sprintf(", when source does not match the catalog's pattern %q", t.Source)
	}
	doc += ", or when the options make the event invalid."
	if v.Deprecated {
		doc += fmt.Sprintf("\n\nDeprecated: version %d of %s is deprecated in the catalog.", v.Number, t.Name)
	}
	o.Raw(Comment(doc))
	o.P("func New%sEvent(source string, data %s, opts ...EventOption) (event.Event, error) {", name, name)
	if srcVar != "" {
		o.P("if !%s.MatchString(source) {", srcVar)
		o.P("return event.Event{}, evtSourceErr(%sType, source, %s)", t.Base, Q(t.Source))
		o.P("}")
	}
}
