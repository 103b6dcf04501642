package catalog

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/report"
)

// compileFormats loads the Avro and Protobuf versions. Avro named types
// resolve among the type's own non-version .avsc files and those of the
// shared directories (every directory under the root that is not a type,
// like common/); Protobuf imports are paths relative to the root, plus
// the bundled well-known types.
func (l *loader) compileFormats(cat *Catalog) {
	// Each directory listed once for the whole load, as CompileType does
	// for a deferred one (listings).
	fsys := l.fsys
	l.fsys = withListings(fsys, newListings())
	defer func() { l.fsys = fsys }()
	fl := &formatLoader{loader: l, reported: map[string]bool{}, used: map[string]bool{}, compilers: l.newFileCompilers()}
	kinds := map[format.Kind]bool{}
	for _, t := range cat.Types {
		if l.stopped() {
			return
		}
		for _, v := range t.Versions {
			if _, ok := fileCompiler(v.Format); !ok {
				continue // compiled from the root (loader.compile)
			}
			kinds[v.Format] = true
			if fl.shared == nil {
				fl.shared = l.sharedDirs(cat)
			}
			fl.compileVersion(t, v)
		}
	}
	fl.lintShared(kinds)
}

// compileVersion reads and compiles v, an Avro or Protobuf version of t
// (fl.shared set).
func (fl *formatLoader) compileVersion(t *EventType, v *Version) {
	p := path.Join(fl.root, v.RelPath)
	text, err := readFile(fl.fsys, p)
	if err != nil {
		fl.loader.fail(report.Finding{Rule: ruleOf(v.Format), File: v.File, Message: pathProblem(p, err)})
		return
	}
	v.Text = text
	sch, err := fl.load(v.Format, p, t.Meta.Message)
	if err != nil {
		fl.fail(v.Format, err, v.File)
		return
	}
	v.Compiled = sch
	v.Digest = DigestOf(sch)
}

// formatLoader loads the Avro and Protobuf files of one catalog.
type formatLoader struct {
	*loader
	shared []string
	// reported keeps a problem of a shared file that several versions
	// use from being reported once per version.
	reported map[string]bool
	// used holds the files (paths in the loader's fsys) that compiled
	// versions read.
	used map[string]bool
	// compilers are the load's (nil: each provider's own).
	compilers *fileCompilers
}

// fileCompilers are the compilers of one load's Avro and Protobuf
// versions, by kind: a format.FileSharer's reads the shared directories'
// files once for the whole load instead of once per version. Safe for
// concurrent use (CompileType).
type fileCompilers struct {
	mu sync.Mutex
	m  map[format.Kind]format.FileCompiler
}

// newFileCompilers returns the compilers of one load; nil (each
// provider's own) with a SchemaCache, which must see every file a
// compilation reads to know when it is stale.
func (l *loader) newFileCompilers() *fileCompilers {
	if l.cache != nil {
		return nil
	}
	return &fileCompilers{m: map[format.Kind]format.FileCompiler{}}
}

// compiler is the load's compiler of kind.
func (fl *formatLoader) compiler(kind format.Kind) (format.FileCompiler, bool) {
	fc, ok := fileCompiler(kind)
	c := fl.compilers
	if !ok || c == nil {
		return fc, ok
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.m[kind]; ok {
		return s, true
	}
	if sh, ok := fc.(format.FileSharer); ok {
		fc = sh.Sharing()
	}
	c.m[kind] = fc
	return fc, true
}

// load compiles the file at p (a path in the loader's fsys).
func (fl *formatLoader) load(kind format.Kind, p, message string) (format.Schema, error) {
	fc, ok := fl.compiler(kind)
	if !ok {
		return nil, fmt.Errorf("%s is not a schema format", kind)
	}
	v, err := fl.cache.compile(fl.gen, cacheKey(string(kind), fl.root, p, message, strings.Join(fl.shared, "\x01")), fl.fsys, func(fsys fs.FS) (any, error) {
		return fc.CompileVersion(versionsHidden{fsys, p}, fl.root, p, fl.shared, message)
	})
	if err != nil {
		return nil, err
	}
	s := v.(format.Schema)
	for _, f := range fc.SchemaFiles(s, fl.root) {
		fl.used[f] = true
	}
	return s, nil
}

// fileCompiler is the provider of a format whose files the formatLoader
// compiles.
func fileCompiler(kind format.Kind) (format.FileCompiler, bool) {
	return providerAs[format.FileCompiler](kind)
}

// providerAs is the provider of kind when it has the capability T (an
// optional interface of package format).
func providerAs[T any](kind format.Kind) (T, bool) {
	var none T
	p, ok := formats.ForKind(kind)
	if !ok {
		return none, false
	}
	c, ok := p.(T)
	return c, ok
}

// fail reports a format's errors once each, naming the files by display
// path (fallback when the error names none).
func (fl *formatLoader) fail(kind format.Kind, err error, fallback string) {
	for _, f := range format.Findings(err, ruleOf(kind), fl.show) {
		if f.File == "" {
			f.File = fallback
		}
		key := reportKey(f)
		if fl.reported[key] {
			continue
		}
		fl.reported[key] = true
		fl.loader.fail(f)
	}
}

// reportKey tells repeated problems of shared files apart.
func reportKey(f report.Finding) string {
	return fmt.Sprintf("%s:%d:%d:%s:%s", f.File, f.Line, f.Column, f.Pointer, f.Message)
}

// lintShared compiles the .avsc and .proto files of the shared
// directories that no version used, for the formats the catalog's types
// are in: lint checks every schema file, not only those a version reaches
// today.
func (fl *formatLoader) lintShared(kinds map[format.Kind]bool) {
	for _, dir := range fl.shared {
		entries, err := fs.ReadDir(fl.fsys, dir)
		if err != nil {
			continue // readSchemaFiles reports unreadable directories
		}
		for _, e := range entries {
			p := path.Join(dir, e.Name())
			kind, ok := format.KindOf(e.Name())
			if e.IsDir() || !ok || !kinds[kind] || fl.used[p] || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			fc, _ := fl.compiler(kind)
			_, err := fl.cache.compile(fl.gen, cacheKey(string(kind)+"-shared", fl.root, p, strings.Join(fl.shared, "\x01")), fl.fsys, func(fsys fs.FS) (any, error) {
				return nil, fc.CompileShared(versionsHidden{fsys, p}, fl.root, p, fl.shared)
			})
			if err != nil {
				fl.fail(kind, err, fl.show(p))
			}
		}
	}
}

// DigestOf is "sha256:" and the hex SHA-256 of a schema's canonical form.
func DigestOf(s format.Schema) string { return format.DigestOf(s.Canonical()) }

// ruleOf is the rule id of a schema file of k that does not load: its
// provider's (format.FileCompiler.LintRule), which documents it.
func ruleOf(k format.Kind) string {
	if fc, ok := fileCompiler(k); ok {
		return fc.LintRule()
	}
	return format.RuleSchemaCompile
}

// sharedDirs lists the directories under the root that hold schemas but
// are not types (nor inside one): where named types shared between types
// live.
func (l *loader) sharedDirs(cat *Catalog) []string {
	types := map[string]bool{}
	for _, t := range cat.Types {
		types[path.Join(l.root, t.Name)] = true
	}
	var dirs []string
	_ = fs.WalkDir(l.fsys, l.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil // unreadable entries are reported by readSchemaFiles
		}
		if types[p] || SkipSchemaDir(l.root, p) {
			return fs.SkipDir
		}
		dirs = append(dirs, p)
		return nil
	})
	return dirs
}

// versionsHidden hides a type's other version files from the Avro loader,
// which reads the .avsc files of a version's directory: a named type
// defined in v1.avsc is v1's, not a definition v2 may pick up (or find
// twice beside the shared one). It lists no subdirectories (listFiles).
type versionsHidden struct {
	fs.FS
	version string // the one version file shown
}

// Stat is the wrapped file system's, not an Open (see listingCache.Stat).
func (h versionsHidden) Stat(name string) (fs.FileInfo, error) { return fs.Stat(h.FS, name) }

func (h versionsHidden) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := listFiles(h.FS, name)
	if err != nil || name != path.Dir(h.version) {
		return entries, err
	}
	out := make([]fs.DirEntry, 0, len(entries))
	for _, e := range entries {
		if isVersionFile(e.Name()) && path.Join(name, e.Name()) != h.version {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// checkFormatExamples validates the examples of a version whose data has
// a binary encoding (Avro, Protobuf): the examples are in the format's
// JSON form (Avro's JSON encoding, Protobuf's JSON mapping), which form
// names in a finding.
func checkFormatExamples(t *EventType, v *Version, form string) []report.Finding {
	if v.Compiled == nil {
		return nil
	}
	var out []report.Finding
	for _, ex := range v.Examples {
		err := v.Compiled.Validate(ex.Text, format.ContentTypeJSON)
		if err == nil {
			continue
		}
		for _, f := range format.Findings(err, RuleExampleInvalid, nil) {
			f.File, f.Subject = ex.File, fmt.Sprintf("%s v%d", t.Name, v.Number)
			if f.Pointer != "" && f.Line == 0 {
				f.Line, f.Column = jsonpos.Find(ex.Text, f.Pointer)
			}
			f.Message = fmt.Sprintf("example fails v%d (%s, %s): %s", v.Number, v.Format.Name(), form, strings.TrimSpace(f.Message))
			out = append(out, f)
		}
	}
	return out
}

// binaryDataer is the provider of kind when its data has a binary
// encoding beside its JSON form.
func binaryDataer(kind format.Kind) (format.BinaryDataer, bool) {
	return providerAs[format.BinaryDataer](kind)
}

// selectsMessage reports whether event.yaml's message applies to types of
// kind (its provider is a format.MessageSelector).
func selectsMessage(kind format.Kind) bool {
	_, ok := providerAs[format.MessageSelector](kind)
	return ok
}

// isMessageSelector reports whether p is a format.MessageSelector.
func isMessageSelector(p format.Provider) bool {
	_, ok := p.(format.MessageSelector)
	return ok
}
