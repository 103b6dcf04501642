package codegen

import (
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/codegen/gocode"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
)

// analyze hands every event type to the generator of its format, in
// catalog order, then lets each generator build its Go types.
func (g *gen) analyze() error {
	runs := map[format.Kind]format.GoTypes{}
	for _, p := range formats.All() {
		gg, ok := p.(format.GoGenerator)
		if !ok {
			continue
		}
		fg, err := gg.GoTypes(g)
		if err != nil {
			return err
		}
		runs[p.Kind()] = fg
		g.gens = append(g.gens, fg)
	}
	for _, t := range g.cat.Types {
		p, ok := formats.ForKind(t.Format)
		if !ok {
			g.Fail(fmt.Errorf("event type %s has no schema format", t.Name))
			continue
		}
		fg := runs[t.Format]
		if fg == nil {
			g.skipped = append(g.skipped, Skip{Type: t.Name, Format: p.Kind().Name(), Note: skipNote(p)})
			if why := noGoCode(p); !slices.Contains(g.skipWhy, why) {
				g.skipWhy = append(g.skipWhy, why)
			}
			continue
		}
		schemas := make([]format.Schema, len(t.Versions))
		for i, v := range t.Versions {
			schemas[i] = v.Compiled
		}
		if err := fg.Type(g.eventType(t), schemas); err != nil {
			return err
		}
	}
	for _, fg := range g.gens {
		fg.Analyze()
	}
	return nil
}

// noGoCode is why the types of p's format, which has no Go generator,
// get no Go code, in p's words when it has them.
func noGoCode(p format.Provider) string {
	if e, ok := p.(format.GoElsewhere); ok {
		return e.NoGoCode()
	}
	return p.Kind().Name() + " event types get no Go code from evtool"
}

// skipNote is what gen go says of one type of p's format, which has no
// Go generator, among types it generates.
func skipNote(p format.Provider) string {
	if e, ok := p.(format.GoElsewhere); ok {
		return e.SkipNote()
	}
	return "no Go code generated for it"
}

// eventType is t as the formats' generators see it.
func (g *gen) eventType(t *catalog.EventType) gocode.EventType {
	et := gocode.EventType{Name: t.Name, Base: gocode.TypeBaseName(t.Name), Description: t.Meta.Description, Source: t.Meta.Source}
	for _, v := range t.Versions {
		et.Versions = append(et.Versions, gocode.Version{
			Number: v.Number, File: v.File, RelPath: v.RelPath,
			DataSchema: g.cat.DataSchema(t.Name, v.Number), Deprecated: t.Deprecated(v.Number),
		})
	}
	return et
}

// emit writes every file: each format's, then the shared file.
func (g *gen) emit() ([]File, error) {
	var files []File
	for _, fg := range g.gens {
		fs, err := fg.Files()
		if err != nil {
			return nil, err
		}
		files = append(files, fs...)
	}
	o := &gocode.Writer{}
	var doc string
	if g.opts.Plain {
		for _, fg := range g.gens {
			fg.SharedDefs(o)
		}
		doc = "// Package " + g.opts.Package + " holds the plain (non-validating) types of an evtool catalog.\n"
	} else {
		g.emitDecodeAll(o)
		for _, fg := range g.gens {
			fg.SharedDefs(o)
		}
		g.emitRegexps(o)
		for _, fg := range g.gens {
			fg.SharedVars(o)
		}
		g.emitRuntime(o)
		doc = "// Package " + g.opts.Package + " holds Go types for the events of an evtool catalog: one struct per\n" +
			"// version of each event type, decoded and validated against the version's JSON Schema in\n" +
			"// one pass, with typed CloudEvents constructors and decoders. Regenerate it with\n" +
			"// `evtool gen go`; check that it is up to date with `evtool gen go --check`.\n"
		for _, fg := range g.gens {
			doc += fg.PackageDoc()
		}
	}
	f, err := g.finish(SharedFile, doc, o.String())
	if err != nil {
		return nil, err
	}
	files = append(files, f)
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, nil
}

func (g *gen) emitDecodeAll(o *gocode.Writer) {
	o.Raw(gocode.Comment("Decode decodes and validates the data of an event of any type of the catalog: a pointer to the struct of the event's type and version (see the Decode<Type> functions). It fails for a type or version this code does not know, and for data the schema rejects."))
	o.P("func Decode(e event.Event) (any, error) {")
	o.P("switch e.Type() {")
	for _, base := range g.decodeOrder {
		o.P("case %sType:", base)
		o.P("v, err := Decode%s(e)", base)
		o.P("if err != nil {")
		o.P("return nil, err")
		o.P("}")
		o.P("return v, nil")
	}
	o.P("}")
	o.P("return nil, evtUnknownType(e)")
	o.P("}")
	o.P("")
}

// RegexpVar returns the package-level variable holding the compiled
// pattern.
func (g *gen) RegexpVar(pattern string) string {
	if v, ok := g.regexps[pattern]; ok {
		return v
	}
	v := "re" + gocode.ShortHash(pattern)
	for _, other := range g.regexps {
		if other == v {
			v += gocode.ShortHash(pattern + "#")
		}
	}
	g.regexps[pattern] = v
	return v
}

// emitRegexps writes the package-level compiled patterns (RegexpVar).
func (g *gen) emitRegexps(o *gocode.Writer) {
	if len(g.regexps) == 0 {
		return
	}
	o.P("// Patterns of the catalog's schemas, compiled once.")
	o.P("var (")
	pats := slices.Sorted(maps.Keys(g.regexps))
	sort.Slice(pats, func(i, j int) bool { return g.regexps[pats[i]] < g.regexps[pats[j]] })
	for _, p := range pats {
		if _, err := regexp.Compile(p); err != nil {
			g.Fail(fmt.Errorf("pattern %q: %v", p, err))
		}
		o.P("%s = regexp.MustCompile(%s)", g.regexps[p], gocode.Q(p))
	}
	o.P(")")
	o.P("")
}

// runtimeOrder is the order the runtime pieces a generator asks for are
// copied in, after core and events.
var runtimeOrder = []string{"avro", "big", "formats", "schema"}

// emitRuntime copies the runtime pieces into the shared file.
func (g *gen) emitRuntime(o *gocode.Writer) {
	names := []string{"core", "events"}
	g.pieces["formats"] = true // small, and date-time is everywhere
	for _, p := range runtimeOrder {
		if g.pieces[p] {
			names = append(names, p)
		}
	}
	for _, name := range names {
		o.Raw(runtimePiece(name))
		o.P("")
	}
}

// The generated package as the formats' generators write into it
// (gocode.Package).

// Plain says Options.Plain.
func (g *gen) Plain() bool { return g.opts.Plain }

// Catalog is where the catalog's schema files are read from.
func (g *gen) Catalog() gocode.Catalog {
	fsys := g.opts.FS
	if fsys == nil {
		fsys = os.DirFS(g.cat.Dir)
	}
	root := path.Clean(filepath.ToSlash(g.cat.Config.Schemas))
	if root == "" {
		root = "schemas"
	}
	return gocode.Catalog{Dir: fsys, Schemas: root, Root: g.cat.Root}
}

// Declare claims name for origin.
func (g *gen) Declare(name, origin string) { g.declare(name, origin) }

func (g *gen) declare(name, origin string) {
	if err := g.scope.declare(name, origin); err != nil {
		g.errs = append(g.errs, err)
	}
}

// Claim declares name, adding a number when the name is taken (two Avro
// namespaces with the same short name).
func (g *gen) Claim(name, origin string) string {
	try := name
	for i := 2; ; i++ {
		if _, taken := g.scope.names[try]; !taken {
			g.declare(try, origin)
			return try
		}
		try = name + strconv.Itoa(i)
	}
}

// OwnFile records that event type typ is generated into file.
func (g *gen) OwnFile(file, typ string) {
	if prev, ok := g.fileOwners[file]; ok {
		g.errs = append(g.errs, fmt.Errorf("event types %s and %s would both be generated into %s: rename one of them", prev, typ, file))
	}
	g.fileOwners[file] = typ
}

// Decodes adds a case to the package's Decode.
func (g *gen) Decodes(base string) { g.decodeOrder = append(g.decodeOrder, base) }

// Fail records a problem that stops generation.
func (g *gen) Fail(err error) { g.errs = append(g.errs, err) }

// UseRuntime copies a runtime piece into the shared file.
func (g *gen) UseRuntime(name string) { g.pieces[name] = true }

// Finish makes a file of the package.
func (g *gen) Finish(name, doc, body string) (File, error) { return g.finish(name, doc, body) }
