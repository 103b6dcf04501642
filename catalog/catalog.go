// Package catalog is the catalog: evtool.yaml plus
// schemas/<type>/{event.yaml,v<N>.json|avsc|proto,examples/v<N>/*.json},
// loaded into event types and versions with compiled schemas and digests.
// Each version's schema is also behind the format seam (Version.Compiled,
// a format.Schema); all versions of a type share one format.
//
// Loading never stops at the first problem: Load returns every problem it
// found as findings (with file, line and JSON pointer) in a *LoadError,
// together with whatever it could load, so `evtool lint` can report them
// all. Each format compiles its versions behind its provider (JSON
// Schema's with santhosh-tekuri/jsonschema v6, where `$ref`
// resolves only to files inside the catalog root or to `$id`s those files
// declare — never to the network, never outside the root).
package catalog

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/report"
)

// Catalog is a loaded catalog.
type Catalog struct {
	// Dir is the directory holding evtool.yaml, as given to Load.
	Dir string
	// ConfigFile is the display path of evtool.yaml.
	ConfigFile string
	Config     Config
	// Root is the display path of the catalog root (the schemas directory).
	Root     string
	Types    []*EventType
	Template *Template
	// Draft is what schemas without `$schema` are read as (default_draft).
	Draft Draft
	// Warnings are problems that do not stop the catalog from being used.
	Warnings []report.Finding

	byName map[string]*EventType
	// roots are the roots read once by the formats that compile from
	// them (format.RootCompiler), by format.
	roots map[format.Kind]rootOf
	// openFS opens the file system the catalog was loaded from (for files
	// read after loading, such as the registry ids).
	openFS func() (fs.FS, func() error, error)
	// rootPath is the slash path of the root inside the catalog directory.
	rootPath string
	// deferred is set when the catalog was loaded without compiling
	// (LoadDeferred): CompileType compiles a type's versions on demand.
	deferred *deferred
}

// EventType is one directory of the catalog root.
type EventType struct {
	// Name is the CloudEvents type (the directory name).
	Name string
	// Dir is the display path of the type's directory.
	Dir string
	// MetaFile is the display path of event.yaml ("" when absent).
	MetaFile string
	Meta     EventMeta
	// Versions holds v1..vN in order: Versions[i].Number == i+1.
	Versions []*Version
	// Format is the format all versions are written in ("" for a type
	// without versions).
	Format format.Kind

	sourceRE *regexp.Regexp
}

// Version is one v<N>.json, v<N>.avsc or v<N>.proto of a type.
type Version struct {
	Type   string
	Number int
	// Format is the format the file is written in, by its extension.
	Format format.Kind
	// Compiled is the version's schema behind the format seam (for JSON
	// Schema a *jsonschema.Schema of format/jsonschema wrapping the
	// library's compiled schema; for Avro an *avro.Schema, for Protobuf a
	// *protobuf.Schema of their format packages); nil when the version
	// did not compile. Only format/ and the format's engines look inside.
	Compiled format.Schema
	// File is the display path; RelPath the slash path inside the root.
	File    string
	RelPath string
	// Text is the file as read; Doc its decoded value (json.Number
	// numbers) for JSON Schema, nil for the other formats.
	//
	// Doc is JSON Schema's own form, set from what its provider read
	// with the root (format.RootVersion) rather than asked of Compiled:
	// digests, the input scan and the registry read it, and a
	// format.Schema does not carry it.
	Text []byte
	Doc  any
	// Digest is "sha256:" and the hex SHA-256 of the format's canonical
	// form (for JSON Schema the canonical JSON of Doc).
	Digest   string
	Examples []*Example
	// URL is the location the schema was compiled at (a virtual file URL),
	// for a format that compiles from the root's files (JSON Schema); ""
	// for the others.
	URL string
}

// Example is one example payload of a version.
type Example struct {
	File string
	Text []byte
	// Value is Text decoded; nil in a catalog loaded by LoadDeferred,
	// which decodes Text again when the example is checked.
	Value any

	decodeAgain bool
}

// Lookup returns the type with the given name.
func (c *Catalog) Lookup(name string) *EventType { return c.byName[name] }

// Names returns the type names in order.
func (c *Catalog) Names() []string {
	out := make([]string, len(c.Types))
	for i, t := range c.Types {
		out[i] = t.Name
	}
	return out
}

// DataSchema returns the dataschema URI of a type's version.
func (c *Catalog) DataSchema(typ string, version int) string {
	return c.Template.Format(typ, version)
}

// Resolve maps a dataschema URI back to its version, or explains why it
// cannot.
func (c *Catalog) Resolve(dataschema string) (*Version, error) {
	typ, n, err := c.Template.Parse(dataschema)
	if err != nil {
		return nil, fmt.Errorf("dataschema %q does not match the catalog's template %s", dataschema, c.Template)
	}
	t := c.Lookup(typ)
	if t == nil {
		return nil, fmt.Errorf("dataschema %q names type %q, which is not in the catalog", dataschema, typ)
	}
	v := t.Version(n)
	if v == nil {
		return nil, fmt.Errorf("dataschema %q names version %d of %s, which has versions 1..%d", dataschema, n, typ, len(t.Versions))
	}
	return v, nil
}

// LineOf returns the line of a JSON pointer in a catalog schema file given
// by its display path (0 when unknown). Findings use it for annotations.
func (c *Catalog) LineOf(file, pointer string) int {
	k, ok := format.KindOf(file)
	if rf := c.rootFiles(k); ok && rf != nil {
		return rf.LineOf(file, pointer)
	}
	return 0
}

// Version returns version n (1-based) or nil.
func (t *EventType) Version(n int) *Version {
	if n < 1 || n > len(t.Versions) {
		return nil
	}
	return t.Versions[n-1]
}

// Latest returns the newest version, or nil for a type without versions.
func (t *EventType) Latest() *Version {
	if len(t.Versions) == 0 {
		return nil
	}
	return t.Versions[len(t.Versions)-1]
}

// SourceMatches reports whether a source attribute satisfies the type's
// `source` pattern (always true when event.yaml sets none).
func (t *EventType) SourceMatches(source string) bool {
	return t.sourceRE == nil || t.sourceRE.MatchString(source)
}

// Deprecated reports whether event.yaml marks version n deprecated.
func (t *EventType) Deprecated(n int) bool {
	for _, d := range t.Meta.Deprecated {
		if d == n {
			return true
		}
	}
	return false
}

// Compat returns the type's compatibility mode and profile: event.yaml's
// override, else evtool.yaml's, else the defaults. A profile is per
// format: evtool.yaml's lenient or strict applies to JSON Schema types, its
// wire or wire-json to Protobuf types; a type whose format the configured
// profile does not fit gets its format's default (DefaultProfileOf; none
// for Avro).
func (c *Catalog) Compat(t *EventType) (Mode, Profile) {
	mode, profile := c.Config.Compat.Mode, c.Config.Compat.Profile
	kind := formats.DefaultKind
	if t != nil && t.Format != "" {
		kind = t.Format
	}
	if !profile.fits(kind) {
		profile = ""
	}
	if t != nil && t.Meta.Compat.Mode != "" {
		mode = t.Meta.Compat.Mode
	}
	if t != nil && t.Meta.Compat.Profile != "" && t.Meta.Compat.Profile.fits(kind) {
		profile = t.Meta.Compat.Profile
	}
	if mode == "" {
		mode = DefaultMode
	}
	if profile == "" {
		profile = DefaultProfileOf(kind)
	}
	return mode, profile
}

// Show is the display path of a slash path inside the catalog directory
// (what Avro schemas and findings name their files by).
func (c *Catalog) Show(p string) string { return showPath(c.Dir, p) }

// OpenFS opens the file system the catalog was loaded from, for files read
// after loading (for a directory an os.Root opened again: a symlink that
// leaves it is refused, and what is read is what is on disk now); release
// closes it. A catalog not loaded from files has none: an error.
func (c *Catalog) OpenFS() (fsys fs.FS, release func() error, err error) {
	if c.openFS == nil {
		return nil, nil, fmt.Errorf("catalog %s was not loaded from files", c.Dir)
	}
	return c.openFS()
}

// ShowRel is the display path of a slash path relative to the catalog
// root (what Protobuf schemas and findings name their files by).
func (c *Catalog) ShowRel(rel string) string {
	if c.rootPath == "" || c.rootPath == "." {
		return c.Show(rel)
	}
	return c.Show(c.rootPath + "/" + rel)
}

// LoadError carries every problem that kept a catalog from loading cleanly.
type LoadError struct {
	Findings []report.Finding
}

func (e *LoadError) Error() string {
	if len(e.Findings) == 0 {
		return "catalog failed to load"
	}
	var b strings.Builder
	for i, f := range e.Findings {
		if i == 5 {
			fmt.Fprintf(&b, "\n(and %d more problems; run `evtool lint` to see them all)", len(e.Findings)-5)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		// One line per finding, whatever a name or value in it holds.
		if loc := f.Location(); loc != "" {
			b.WriteString(report.Escape(loc) + ": ")
		}
		if f.Pointer != "" {
			b.WriteString(report.Escape(f.Pointer) + ": ")
		}
		b.WriteString(report.Escape(f.Message))
	}
	return b.String()
}
