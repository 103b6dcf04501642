package catalog

import (
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	jsformat "github.com/evtool/evtool/format/jsonschema"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
	"github.com/evtool/evtool/report"
)

// JSON Schema drafts, the compiler's rules, the reading of a root's JSON
// files, $ref resolution, canonical JSON and schema files outside a
// catalog moved to format/jsonschema, JSON Schema's provider; these
// names stay for the catalog's importers.

// Draft is jsformat.Draft.
type Draft = jsformat.Draft

// Drafts are the drafts evtool reads, newest first (jsformat.Drafts).
var Drafts = jsformat.Drafts

// DefaultDraft is jsformat.DefaultDraft.
var DefaultDraft = jsformat.DefaultDraft

// ParseDraft is jsformat.ParseDraft.
func ParseDraft(s string) (Draft, error) { return jsformat.ParseDraft(s) }

// DraftNames is jsformat.DraftNames.
func DraftNames() string { return jsformat.DraftNames() }

// NewDraftCompiler is jsformat.NewDraftCompiler.
func NewDraftCompiler(assertFormats bool, draft Draft) *jsonschema.Compiler {
	return jsformat.NewDraftCompiler(assertFormats, draft)
}

// Canonical is jsformat.Canonical: a decoded JSON value in canonical form.
func Canonical(v any) []byte { return jsformat.Canonical(v) }

// Digest is jsformat.Digest: "sha256:" and the hex SHA-256 of the
// canonical form.
func Digest(v any) string { return jsformat.Digest(v) }

// SchemaFile is jsformat.SchemaFile: one JSON Schema file compiled on its
// own, outside a catalog.
type SchemaFile = jsformat.SchemaFile

// SchemaFileOptions are jsformat.SchemaFileOptions.
type SchemaFileOptions = jsformat.SchemaFileOptions

// LoadSchemaFile reads and compiles the schema file at p, draft 2020-12
// when it has no `$schema`. Errors name the file, line and JSON pointer.
func LoadSchemaFile(p string, assertFormats bool) (*SchemaFile, error) {
	return LoadSchemaFileWith(p, SchemaFileOptions{AssertFormats: assertFormats})
}

// LoadSchemaFileWith reads and compiles the schema file at p; its $refs
// reach the files of the nearest enclosing catalog (the directory holding
// evtool.yaml), or else of the file's own directory. Errors name the
// file, line and JSON pointer.
func LoadSchemaFileWith(p string, opts SchemaFileOptions) (*SchemaFile, error) {
	if opts.Marker == "" {
		opts.Marker = ConfigName
	}
	return jsformat.LoadSchemaFileWith(p, opts)
}

// schemaFile is a JSON file of the root as format/jsonschema read it;
// its fields repeat the File's under the names they had when the catalog
// read the files itself, which the input scan (unchanged.go) reads them
// by.
type schemaFile struct {
	*jsformat.File
	rel, display string
	text         []byte
	err          error
	id           string
}

// newSchemaFile is the catalog's view of f.
func newSchemaFile(f *jsformat.File) *schemaFile {
	return &schemaFile{File: f, rel: f.Rel, display: f.Display, text: f.Text, err: f.Err, id: f.ID}
}

// readSchemaFiles reads the root once for each format that compiles
// from the root read once (format.RootCompiler: JSON Schema reads every
// JSON file under the root except examples, so that $ref and $id lookups
// are answered from memory).
func (l *loader) readSchemaFiles(cat *Catalog) {
	for _, p := range formats.All() {
		rc, ok := p.(format.RootCompiler)
		if !ok {
			continue
		}
		root, probs := rc.ReadRoot(l.fsys, format.RootReader{
			Root:        l.root,
			Show:        l.show,
			Skip:        func(dir string) bool { return SkipSchemaDir(l.root, dir) },
			PathProblem: pathProblem,
			Evict:       l.evictVersion,
		})
		if cat.roots == nil {
			cat.roots = map[format.Kind]rootOf{}
		}
		cat.roots[p.Kind()] = rootOf{root: root, readRule: rc.ReadRule()}
		if jf, ok := root.(jsonFiles); ok {
			cat.json = jf.JSONFiles()
			for rel, f := range cat.json {
				cat.files[rel] = newSchemaFile(f)
			}
		}
		for _, f := range probs {
			l.fail(f)
		}
	}
}

// fileURL is jsformat.FileURL.
func fileURL(rel string) string { return jsformat.FileURL(rel) }

// relFromURL is jsformat.RelFromURL.
func relFromURL(raw string) (string, bool) { return jsformat.RelFromURL(raw) }

// resolveRef is jsformat.ResolveRef.
func resolveRef(base, ref string) string { return jsformat.ResolveRef(base, ref) }

// jsonFinding is jsformat.MalformedFinding.
func jsonFinding(rule, file string, err error) report.Finding {
	return jsformat.MalformedFinding(rule, file, err)
}

func unwrapPathError(err error) error { return format.UnwrapPathError(err) }
