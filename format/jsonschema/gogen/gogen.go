// Package gogen is JSON Schema's Go generator behind evtool gen go: the
// format's rules for what Go a schema becomes, reached through the JSON
// Schema provider (format/jsonschema's Provider is a format.GoGenerator)
// and writing into the package codegen makes (codegen/gocode.Package).
//
// It reads schemas through santhosh-tekuri/jsonschema's compiled form: it
// recompiles the catalog's schema files with format assertions on, so
// that formats are visible in the compiled schemas (the generated code
// asserts the formats it knows). That is why it needs nothing of
// format/jsonschema's compiled Schema and is a package of its own under
// the format rather than part of it. Each version gets a struct (decoding validates
// against the version's schema in one pass) with typed CloudEvents
// constructors and decoders; types of shared schema files go to the
// shared file. Keywords the generator does not translate are never
// skipped: the value at that location is also validated with the embedded
// catalog schema at decode time, and a Note names the keywords.
//
// analyze.go and model.go build the model (nodes and named types: the Go
// shape of each schema location), emit.go and plain.go write it.
package gogen

import (
	"sort"

	"github.com/evtool/evtool/codegen/gocode"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// gen is one run of the JSON Schema generator.
type gen struct {
	pkg gocode.Package
	cs  *catalogSchemas

	nodes        map[nodeKey]*node
	defs         []*def
	types        []*typeInfo
	versionFiles map[string]*verInfo
	ordered      map[*schemaFile]*ordered
	notes        []gocode.Note
	noted        map[string]bool

	// filled while emitting
	simple    map[string]string // pattern -> generated matcher
	schemas   map[string]string // location -> variable
	unionFns  []*unionFn
	unionSeen map[*unionCheck]bool
}

type unionFn struct {
	uc *unionCheck
}

// New starts a run of the JSON Schema generator writing into pkg; it reads
// every schema file of the catalog (the versions' $refs reach them).
func New(pkg gocode.Package) (format.GoTypes, error) {
	cs, err := readCatalog(pkg.Catalog())
	if err != nil {
		return nil, err
	}
	return &gen{
		pkg:          pkg,
		cs:           cs,
		nodes:        map[nodeKey]*node{},
		versionFiles: map[string]*verInfo{},
		ordered:      map[*schemaFile]*ordered{},
		noted:        map[string]bool{},
		schemas:      map[string]string{},
		unionSeen:    map[*unionCheck]bool{},
	}, nil
}

// compile compiles a version's schema with format assertions on.
func (g *gen) compile(v gocode.Version) (*jsonschema.Schema, error) { return g.cs.compile(v) }

// defsByFile are the named types by the event type whose file holds them
// ("" for the shared file).
func (g *gen) defsByFile() map[string][]*def {
	byFile := map[string][]*def{}
	for _, d := range g.defs {
		byFile[d.file] = append(byFile[d.file], d)
	}
	return byFile
}

// Files writes a file per event type.
func (g *gen) Files() ([]gocode.File, error) {
	if g.pkg.Plain() {
		return g.plainFiles()
	}
	byFile := g.defsByFile()
	var files []gocode.File
	for _, ti := range g.types {
		o := &gocode.Writer{}
		g.emitTypeHead(o, ti)
		defs := byFile[ti.t.Name]
		sort.SliceStable(defs, func(i, j int) bool { return defs[i].order < defs[j].order })
		for _, d := range defs {
			g.emitDef(o, d)
		}
		g.emitUnionFns(o)
		f, err := g.pkg.Finish(ti.file, "", o.String())
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// SharedDefs writes the types of shared schema files and the union checks
// they call.
func (g *gen) SharedDefs(o *gocode.Writer) {
	if g.pkg.Plain() {
		g.plainShared(o)
		return
	}
	shared := g.defsByFile()[""]
	sort.SliceStable(shared, func(i, j int) bool { return shared[i].name < shared[j].name })
	for _, d := range shared {
		g.emitDef(o, d)
	}
	g.emitUnionFns(o)
}

// SharedVars writes the generated pattern matchers and the embedded
// schemas.
func (g *gen) SharedVars(o *gocode.Writer) { g.emitVars(o) }

// PackageDoc: the package's doc already speaks of JSON Schema.
func (g *gen) PackageDoc() string { return "" }

// Notes are the locations validated with the embedded schema.
func (g *gen) Notes() []gocode.Note { return g.notes }
