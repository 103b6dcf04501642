package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/internal/yamldoc"
	"github.com/evtool/evtool/metaschema"
	"github.com/evtool/evtool/report"
)

// ConfigName is the catalog's root file.
const ConfigName = "evtool.yaml"

// MaxFileSize bounds any single catalog file; a schema larger than this is
// a mistake, not a contract.
const MaxFileSize = 8 << 20

// Rule ids of catalog findings.
const (
	RuleConfig         = "catalog-config"
	RuleEventMeta      = "event-meta"
	RuleTypeName       = "type-name"
	RuleVersionName    = "version-name"
	RuleVersionGap     = "version-gap"
	RuleExampleJSON    = "example-json"
	RuleExampleInvalid = "example-invalid"
	RuleExampleOrphan  = "example-orphan"
	RuleNoVersions     = "type-no-versions"
	RuleDeprecated     = "deprecated-version"
	// RuleFormatMixed: versions of one type in different formats.
	RuleFormatMixed = "version-format-mixed"
)

var (
	// looksLikeVersion catches near misses (v01.json, V2.avsc, v3.PROTO,
	// v1.avro) that would otherwise be ignored as shared files.
	looksLikeVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[vV][0-9]+\.(?i:json|yaml|yml|avsc|avro|proto)$`) })
	// typeName: dot-separated segments of letters, digits, '_' and '-';
	// also a safe directory name and Go/URL friendly.
	// exampleDir is a directory of examples/: v1, v2, ...
	exampleDir = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^v([1-9][0-9]*)$`) })
	typeName   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z0-9]+([_-][A-Za-z0-9]+)*(\.[A-Za-z0-9]+([_-][A-Za-z0-9]+)*)*$`)
	})
)

// isVersionFile reports whether name is a version file of some format
// (v1.json, v2.avsc, v3.proto).
func isVersionFile(name string) bool {
	_, _, ok := format.VersionFile(name)
	return ok
}

// ValidTypeName reports whether s may name a catalog type (a directory of
// the catalog root).
func ValidTypeName(s string) bool { return len(s) <= 255 && typeName().MatchString(s) }

// LooksLikeVersion reports whether a file name is meant as a version file,
// right or nearly (v01.json, V2.avsc, v1.avro): such a file is never a
// shared schema.
func LooksLikeVersion(name string) bool { return looksLikeVersion().MatchString(name) }

// Load reads the catalog whose evtool.yaml is in dir.
func Load(dir string) (*Catalog, error) { return loadDir(context.Background(), dir, false) }

// LoadContext is Load reading no more files, and compiling no more
// versions, once ctx is done (a signal): the load then stops soon and its
// error is ctx's cause (errors.Is context.Canceled), with no catalog.
func LoadContext(ctx context.Context, dir string) (*Catalog, error) {
	return loadDir(ctx, dir, false)
}

// loadDir is Load, compiling no schema when deferred (LoadDeferred), and
// reading nothing more once ctx is done.
func loadDir(ctx context.Context, dir string, deferred bool) (*Catalog, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("catalog directory %s: %w", dir, unwrapPathError(err))
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("catalog directory %s: not a directory", dir)
	}
	// os.Root, not os.DirFS: a symlink inside the catalog that points
	// outside it (a schema, a $ref target, a whole directory) is refused
	// like a $ref that climbs out, instead of being read.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("catalog directory %s: %w", dir, unwrapPathError(err))
	}
	defer root.Close()
	cat, err := loadFSContext(ctx, root.FS(), dir, deferred)
	if cat != nil {
		// Files read later (the registry ids) are read through a root
		// opened again: the same confinement, and what is on disk then.
		cat.openFS = func() (fs.FS, func() error, error) {
			r, err := os.OpenRoot(dir)
			if err != nil {
				return nil, nil, err
			}
			return r.FS(), r.Close, nil
		}
	}
	return cat, err
}

// loadFSContext loads from fsys, reading nothing more once ctx is done:
// the catalog is then nil and the error says it was interrupted.
func loadFSContext(ctx context.Context, fsys fs.FS, display string, deferred bool) (*Catalog, error) {
	if ctx.Done() != nil {
		fsys = stoppingFS{fsys, ctx}
	}
	cat, err := loadWith(&loader{fsys: fsys, display: display, deferred: deferred, ctx: ctx})
	if ctx.Err() != nil {
		// What was not read is reported as unreadable: no catalog.
		return nil, fmt.Errorf("interrupted while loading the catalog %s: %w", display, context.Cause(ctx))
	}
	return cat, err
}

// LoadFS reads a catalog from fsys, whose root holds evtool.yaml. display
// prefixes the paths in findings (the directory, or "REF:" for a git tree).
func LoadFS(fsys fs.FS, display string) (*Catalog, error) {
	return LoadFSCached(fsys, display, nil)
}

// LoadFSCached is LoadFS taking the Avro and Protobuf schemas that did
// not change from cache (nil: compile them all).
func LoadFSCached(fsys fs.FS, display string, cache *SchemaCache) (*Catalog, error) {
	return loadWith(&loader{fsys: fsys, display: display, cache: cache, gen: cache.begin()})
}

// loadWith runs l over its file system.
func loadWith(l *loader) (*Catalog, error) {
	defer l.cache.end(l.gen)
	fsys := l.fsys
	cat := l.load()
	cat.openFS = func() (fs.FS, func() error, error) { return fsys, func() error { return nil }, nil }
	if len(l.errs) > 0 {
		sortFindings(l.errs)
		return cat, &LoadError{Findings: l.errs}
	}
	return cat, nil
}

type loader struct {
	fsys    fs.FS
	display string
	cache   *SchemaCache
	gen     uint64 // this load's, in cache
	root    string // slash path of the catalog root inside fsys
	errs    []report.Finding
	warns   []report.Finding
	// deferred: compile no schema while loading (LoadDeferred).
	deferred bool
	// ctx, when set, stops the compiling of versions once done (the
	// reads stop through stoppingFS).
	ctx context.Context
	// metas are the meta-schemas compiled for decodeYAML, by name: once
	// per load, not once per event.yaml.
	metas map[string]*metaschema.Schema
}

func (l *loader) show(p string) string { return showPath(l.display, p) }

// showPath joins a display prefix (a directory, or "REF:" for a git tree)
// and a slash path.
func showPath(display, p string) string {
	if display == "" || display == "." {
		return p
	}
	if strings.HasSuffix(display, ":") {
		return display + p
	}
	return filepath.Join(display, filepath.FromSlash(p))
}

func (l *loader) fail(f report.Finding) {
	f.Severity = report.SeverityError
	l.errs = append(l.errs, f)
}

func (l *loader) warn(f report.Finding) {
	f.Severity = report.SeverityWarning
	l.warns = append(l.warns, f)
}

func (l *loader) load() *Catalog {
	cat := &Catalog{Dir: l.display, ConfigFile: l.show(ConfigName), byName: map[string]*EventType{}}
	if !l.loadConfig(cat) {
		return cat
	}
	cat.Root = l.show(l.root)
	cat.rootPath = l.root
	entries, err := fs.ReadDir(l.fsys, l.root)
	if err != nil {
		l.fail(report.Finding{Rule: RuleConfig, File: cat.ConfigFile, Message: fmt.Sprintf("catalog root %q: %v", cat.Config.Schemas, unwrapPathError(err))})
		return cat
	}
	l.readSchemaFiles(cat)
	for _, e := range entries {
		if !l.typeDirEntry(e) {
			continue
		}
		if t := l.loadType(cat, e.Name()); t != nil {
			cat.Types = append(cat.Types, t)
			cat.byName[t.Name] = t
		}
	}
	sort.Slice(cat.Types, func(i, j int) bool { return cat.Types[i].Name < cat.Types[j].Name })
	if l.deferred {
		cat.deferred = newDeferred(l.display)
	} else {
		l.compile(cat)
	}
	l.loadExamples(cat)
	sortFindings(l.warns)
	cat.Warnings = l.warns
	return cat
}

// typeDirEntry reports whether an entry of the schemas directory is a
// type directory to load. What is not read is said, never skipped
// silently: a hidden directory (".x", "..x") is a warning; a symbolic link
// (which the loader does not follow, and which may point outside the
// catalog) and a name that is not UTF-8 are errors. Files are shared
// schemas, read with the rest.
func (l *loader) typeDirEntry(e fs.DirEntry) bool {
	name := e.Name()
	p := path.Join(l.root, name)
	switch {
	case !utf8.ValidString(name):
		// readSchemaFiles reports it, naming the path.
		return false
	case e.Type()&fs.ModeSymlink != 0:
		msg := "the type directory is a symbolic link: evtool does not follow links to directories (move the directory here instead)"
		if st, err := fs.Stat(l.fsys, p); err != nil {
			msg = fmt.Sprintf("symbolic link refused: %v (nothing outside the catalog is read)", unwrapPathError(err))
		} else if !st.IsDir() {
			return false // a link to a file: a shared schema, read like the others
		}
		l.fail(report.Finding{Rule: RuleTypeName, File: l.show(p), Message: msg})
		return false
	case !e.IsDir():
		return false
	case name == path.Dir(LegacySchemaIDsFile):
		if _, err := fs.Stat(l.fsys, path.Join(l.root, LegacySchemaIDsFile)); err != nil {
			// `evtool registry serve`'s lock and levels, where the root is
			// the catalog directory (schemas: .): no schemas to report.
			return false
		}
		l.warn(report.Finding{Rule: RuleTypeName, File: l.show(p),
			Message: fmt.Sprintf("hidden directory %q is not read: it is where an older `evtool registry serve` kept its state; schema ids now live in %s beside %s (still read from here until then), which the next `evtool registry serve` moves them to (or move ids.json there and delete the directory)", name, SchemaIDsFile, ConfigName)})
		return false
	case strings.HasPrefix(name, "."):
		l.warn(report.Finding{Rule: RuleTypeName, File: l.show(p),
			Message: fmt.Sprintf("hidden directory %q is not read: type names do not start with '.' (rename it to load its schemas)", name)})
		return false
	}
	return true
}

// pathProblem says why a path could not be read, naming what is wrong with
// the name itself when that is the cause.
func pathProblem(p string, err error) string {
	if !utf8.ValidString(p) {
		return "the name is not valid UTF-8: evtool reads UTF-8 file and directory names only (rename it)"
	}
	return unwrapPathError(err).Error()
}

// SkipSchemaDir reports whether dir (a slash path under the schemas root
// root) holds no schemas: a dot directory (tool state), or a type's
// examples/ (data, not schemas; a type that is itself named "examples",
// right under the root, is a type).
func SkipSchemaDir(root, dir string) bool {
	if dir == root {
		return false
	}
	name := path.Base(dir)
	return strings.HasPrefix(name, ".") || name == "examples" && path.Dir(dir) != root
}

func (l *loader) loadConfig(cat *Catalog) bool {
	data, err := readFile(l.fsys, ConfigName)
	if err != nil {
		msg := fmt.Sprintf("cannot read %s: %v", ConfigName, unwrapPathError(err))
		if errors.Is(err, fs.ErrNotExist) {
			msg = fmt.Sprintf("no %s here: this is not an evtool catalog (run `evtool init` to create one, or pass --dir)", ConfigName)
		}
		l.fail(report.Finding{Rule: RuleConfig, File: cat.ConfigFile, Message: msg})
		return false
	}
	if !l.decodeYAML(cat.ConfigFile, data, metaschema.Config, RuleConfig, &cat.Config) {
		return false
	}
	cfg := &cat.Config
	if cfg.Schemas == "" {
		cfg.Schemas = "schemas"
	}
	root := path.Clean(filepath.ToSlash(cfg.Schemas))
	if path.IsAbs(root) || root == ".." || strings.HasPrefix(root, "../") || !fs.ValidPath(root) {
		l.fail(report.Finding{Rule: RuleConfig, File: cat.ConfigFile, Line: lineOfYAML(data, "schemas"), Pointer: "/schemas",
			Message: fmt.Sprintf("schemas %q must be a relative path inside the catalog directory", cfg.Schemas)})
		return false
	}
	l.root = root
	tmpl := cfg.DataSchema
	if tmpl == "" {
		tmpl = DefaultDataSchema
	}
	t, err := ParseTemplate(tmpl)
	if err != nil {
		l.fail(report.Finding{Rule: RuleConfig, File: cat.ConfigFile, Line: lineOfYAML(data, "dataschema"), Pointer: "/dataschema", Message: err.Error()})
		return false
	}
	cat.Template = t
	draft, err := ParseDraft(cfg.DefaultDraft)
	if err != nil {
		l.fail(report.Finding{Rule: RuleConfig, File: cat.ConfigFile, Line: lineOfYAML(data, "default_draft"), Pointer: "/default_draft", Message: err.Error()})
		return false
	}
	cat.Draft = draft
	if ig := cfg.Compat.Ignore; len(ig) > 0 {
		doc, _ := yamldoc.Parse(data)
		for i := range ig {
			if doc != nil {
				ptr := "/compat/ignore/" + strconv.Itoa(i)
				ig[i].Line = doc.Line(ptr)
				l.checkReason(cat.ConfigFile, doc, ptr+"/reason", ig[i].Reason)
			}
		}
	}
	return true
}

// checkReason warns when an approval's reason was cut at a `#`: in YAML,
// `reason: approved in review of #1234` is the reason "approved in review
// of" and the comment "#1234". A comment whose '#' is followed by a
// non-blank (an issue number, a tag) is read as part of the reason meant.
func (l *loader) checkReason(file string, doc *yamldoc.Doc, ptr, reason string) {
	c := doc.LineComment(ptr)
	if len(c) < 2 || c[0] != '#' || c[1] == ' ' || c[1] == '\t' {
		return
	}
	line, col := doc.Position(ptr)
	l.warn(report.Finding{Rule: RuleConfig, File: file, Line: line, Column: col, Pointer: ptr,
		Message: fmt.Sprintf("reason %q is followed by the YAML comment %q: a '#' after a space starts a comment, so the reason was cut; quote it (reason: \"%s %s\")", reason, c, reason, c)})
}

// decodeYAML parses, checks against the named meta-schema and decodes a
// YAML file, reporting every problem with its line.
func (l *loader) decodeYAML(file string, data []byte, metaSchema, rule string, out any) bool {
	if len(data) > MaxFileSize {
		l.fail(report.Finding{Rule: rule, File: file, Message: fmt.Sprintf("file is larger than %d bytes", MaxFileSize)})
		return false
	}
	doc, prob := yamldoc.Parse(data)
	if prob != nil {
		l.fail(report.Finding{Rule: rule, File: file, Line: prob.Line, Column: prob.Column, Pointer: prob.Pointer, Message: "malformed YAML: " + prob.Message})
		return false
	}
	meta, err := l.metaSchema(metaSchema)
	if err != nil {
		l.fail(report.Finding{Rule: rule, File: file, Message: err.Error()})
		return false
	}
	if probs := doc.Check(meta); len(probs) > 0 {
		for _, p := range probs {
			l.fail(report.Finding{Rule: rule, File: file, Line: p.Line, Column: p.Column, Pointer: p.Pointer, Message: friendlyMeta(p.Message)})
		}
		return false
	}
	if prob := doc.Decode(out); prob != nil {
		l.fail(report.Finding{Rule: rule, File: file, Line: prob.Line, Message: prob.Message})
		return false
	}
	return true
}

// metaSchema is metaschema.Compile(name), compiled once per load.
func (l *loader) metaSchema(name string) (*metaschema.Schema, error) {
	if m := l.metas[name]; m != nil {
		return m, nil
	}
	m, err := metaschema.Compile(name)
	if err != nil {
		return nil, err
	}
	if l.metas == nil {
		l.metas = map[string]*metaschema.Schema{}
	}
	l.metas[name] = m
	return m, nil
}

// friendlyMeta rewords the meta-schema's most common complaint.
func friendlyMeta(msg string) string {
	if name, ok := strings.CutPrefix(msg, "property "); ok && strings.HasSuffix(name, " is not allowed (additionalProperties)") {
		return "unknown key " + strings.TrimSuffix(name, " is not allowed (additionalProperties)")
	}
	return msg
}

func lineOfYAML(data []byte, key string) int {
	doc, _ := yamldoc.Parse(data)
	if doc == nil {
		return 0
	}
	return doc.Line("/" + key)
}

func (l *loader) loadType(cat *Catalog, name string) *EventType {
	dirPath := path.Join(l.root, name)
	entries, err := fs.ReadDir(l.fsys, dirPath)
	if err != nil {
		l.fail(report.Finding{Rule: RuleConfig, File: l.show(dirPath), Message: err.Error()})
		return nil
	}
	var hasMeta bool
	versions := map[int]string{}
	var kind format.Kind
	var kindFile string // the first version file read, in the format kind
	for _, e := range entries {
		switch {
		case e.Name() == "event.yaml" && !e.IsDir():
			hasMeta = true
		case !e.IsDir() && isVersionFile(e.Name()):
			n, k, _ := format.VersionFile(e.Name())
			p := path.Join(dirPath, e.Name())
			if kind == "" {
				kind, kindFile = k, p
			} else if k != kind {
				l.fail(report.Finding{Rule: RuleFormatMixed, File: l.show(p),
					Message: fmt.Sprintf("%s is %s but %s is %s: all versions of a type are in one format", l.show(p), k.Name(), l.show(kindFile), kind.Name())})
				continue
			}
			versions[n] = p
		case !e.IsDir() && looksLikeVersion().MatchString(e.Name()):
			l.fail(report.Finding{Rule: RuleVersionName, File: l.show(path.Join(dirPath, e.Name())),
				Message: fmt.Sprintf("%q looks like a version but versions are named v1.json, v2.json, ... (lower-case v, no leading zeros; .json, .avsc or .proto)", e.Name())})
		}
	}
	if !hasMeta && len(versions) == 0 {
		return nil // a shared directory: its files are reachable by $ref only
	}
	t := &EventType{Name: name, Dir: l.show(dirPath), Format: kind}
	if !typeName().MatchString(name) {
		l.fail(report.Finding{Rule: RuleTypeName, File: t.Dir,
			Message: fmt.Sprintf("type %q is not a valid event type name: use dot-separated segments of letters, digits, '-' and '_' (e.g. com.example.order.placed)", name)})
	} else if !strings.Contains(name, ".") {
		l.warn(report.Finding{Rule: RuleTypeName, File: t.Dir, Message: fmt.Sprintf("type %q should be prefixed with a reverse-DNS name (e.g. com.example.%s)", name, name)})
	}
	if hasMeta {
		metaPath := path.Join(dirPath, "event.yaml")
		t.MetaFile = l.show(metaPath)
		data, err := readFile(l.fsys, metaPath)
		if err != nil {
			l.fail(report.Finding{Rule: RuleEventMeta, File: t.MetaFile, Message: err.Error()})
		} else if l.decodeYAML(t.MetaFile, data, metaschema.Event, RuleEventMeta, &t.Meta) {
			l.checkMeta(t, data)
		}
	}
	if len(versions) == 0 {
		l.fail(report.Finding{Rule: RuleNoVersions, File: t.Dir, Message: "type has no versions: add v1.json (or v1.avsc, v1.proto)"})
		return t
	}
	nums := make([]int, 0, len(versions))
	for n := range versions {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for i, n := range nums {
		if n != i+1 {
			l.fail(report.Finding{Rule: RuleVersionGap, File: l.show(versions[n]),
				Message: fmt.Sprintf("versions must be contiguous from v1: found v%d but no v%d", n, i+1)})
			return t
		}
	}
	for _, n := range nums {
		rel := versions[n]
		v := &Version{Type: name, Number: n, Format: kind, File: l.show(rel), RelPath: l.rel(rel), URL: cat.versionURL(kind, l.rel(rel))}
		// A format that compiles from the root has read the file with it;
		// the others read and compile it once every type is known (the
		// shared directories are the directories that are not types).
		l.readFromRoot(cat, v)
		t.Versions = append(t.Versions, v)
	}
	for _, d := range t.Meta.Deprecated {
		if d > len(t.Versions) {
			l.fail(report.Finding{Rule: RuleEventMeta, File: t.MetaFile, Pointer: "/deprecated",
				Message: fmt.Sprintf("deprecated version %d does not exist (the type has versions 1..%d)", d, len(t.Versions))})
		}
	}
	return t
}

func (l *loader) checkMeta(t *EventType, data []byte) {
	if t.Meta.Message != "" && t.Format != "" && !selectsMessage(t.Format) {
		l.fail(report.Finding{Rule: RuleEventMeta, File: t.MetaFile, Line: lineOfYAML(data, "message"), Pointer: "/message",
			Message: fmt.Sprintf("message %q applies to %s types only, and %s is %s", t.Meta.Message, formats.NamesWhere(isMessageSelector, "and"), t.Name, t.Format.Name())})
	}
	if p := t.Meta.Compat.Profile; p != "" && t.Format != "" && !p.fits(t.Format) {
		want := strings.Join(profilesOf(t.Format).Names, " or ")
		if ps := profilesOf(t.Format); len(ps.Names) == 0 {
			want = "none: " + ps.None
		}
		l.fail(report.Finding{Rule: RuleEventMeta, File: t.MetaFile, Line: lineOfYAML(data, "compat"), Pointer: "/compat/profile",
			Message: fmt.Sprintf("profile %q does not apply to %s types (profiles: %s)", p, t.Format.Name(), want)})
	}
	if t.Meta.Source != "" {
		re, err := regexp.Compile(`^(?:` + t.Meta.Source + `)$`)
		if err != nil {
			l.fail(report.Finding{Rule: RuleEventMeta, File: t.MetaFile, Line: lineOfYAML(data, "source"), Pointer: "/source",
				Message: fmt.Sprintf("source pattern %q is not a valid regular expression: %v", t.Meta.Source, err)})
		}
		t.sourceRE = re
	}
}

// rel turns a path inside fsys into a path relative to the catalog root.
func (l *loader) rel(p string) string {
	if l.root == "." {
		return p
	}
	return strings.TrimPrefix(p, l.root+"/")
}

func (l *loader) loadExamples(cat *Catalog) {
	for _, t := range cat.Types {
		if len(t.Versions) == 0 {
			continue // no versions, or a gap: already reported, and "no vN.json" would be untrue
		}
		exDir := path.Join(l.root, t.Name, "examples")
		entries, err := fs.ReadDir(l.fsys, exDir)
		if err != nil {
			continue // no examples
		}
		for _, e := range entries {
			sub := path.Join(exDir, e.Name())
			m := exampleDir().FindStringSubmatch(e.Name())
			if !e.IsDir() || m == nil {
				l.fail(report.Finding{Rule: RuleExampleOrphan, File: l.show(sub), Message: "examples/ holds one directory per version: examples/v1/, examples/v2/, ..."})
				continue
			}
			n, _ := strconv.Atoi(m[1])
			v := t.Version(n)
			if v == nil {
				l.fail(report.Finding{Rule: RuleExampleOrphan, File: l.show(sub), Message: fmt.Sprintf("examples for v%d, but %s has no v%d%s", n, t.Name, n, t.Format.Ext())})
				continue
			}
			files, _ := fs.ReadDir(l.fsys, sub)
			for _, f := range files {
				if f.IsDir() || !strings.HasSuffix(f.Name(), ".json") {
					continue
				}
				p := path.Join(sub, f.Name())
				data, err := readFile(l.fsys, p)
				if err != nil {
					l.fail(report.Finding{Rule: RuleExampleJSON, File: l.show(p), Message: err.Error()})
					continue
				}
				val, err := jsonstrict.Decode(data)
				if err != nil {
					l.fail(format.MalformedJSON(RuleExampleJSON, l.show(p), err))
					continue
				}
				ex := &Example{File: l.show(p), Text: data, Value: val}
				if l.deferred {
					// Decoded again when its version is checked
					// (CheckTypeExamples), not held till then.
					ex.Value, ex.decodeAgain = nil, true
				}
				v.Examples = append(v.Examples, ex)
			}
		}
	}
}

// CheckExamples validates every example against its version and returns a
// finding per problem.
func (c *Catalog) CheckExamples() []report.Finding {
	var out []report.Finding
	for _, t := range c.Types {
		out = append(out, c.CheckTypeExamples(t)...)
	}
	return out
}

// CheckTypeExamples is CheckExamples for the versions of t.
func (c *Catalog) CheckTypeExamples(t *EventType) []report.Finding {
	var out []report.Finding
	{
		for _, v := range t.Versions {
			if bd, ok := binaryDataer(v.Format); ok {
				out = append(out, checkFormatExamples(t, v, bd.ExampleForm())...)
				continue
			}
			if v.Compiled == nil {
				continue
			}
			vv, ok := v.Compiled.(format.ValueValidator)
			if !ok {
				continue
			}
			for _, ex := range v.Examples {
				for _, p := range format.ValueErrors(vv.ValidateValue(ex.value())) {
					line, col := jsonpos.Find(ex.Text, p.Pointer)
					out = append(out, report.Finding{Rule: RuleExampleInvalid, Severity: report.SeverityError,
						File: ex.File, Line: line, Column: col, Pointer: p.Pointer, Subject: fmt.Sprintf("%s v%d", t.Name, v.Number),
						Message: fmt.Sprintf("example fails v%d: %s", v.Number, p.Message)})
				}
			}
		}
	}
	return out
}

func readFile(fsys fs.FS, name string) ([]byte, error) {
	return format.ReadFile(fsys, name, MaxFileSize)
}

// stopped reports whether the load's context is done: nothing more is
// compiled (loadDir then returns no catalog).
func (l *loader) stopped() bool { return l.ctx != nil && l.ctx.Err() != nil }

func sortFindings(fs []report.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].File != fs[j].File {
			return fs[i].File < fs[j].File
		}
		return fs[i].Line < fs[j].Line
	})
}

// compile compiles every version; the versions of a format that compiles
// from the root share one session, so shared files are compiled once.
func (l *loader) compile(cat *Catalog) {
	sessions := rootSessions{}
	for _, t := range cat.Types {
		if l.stopped() {
			return
		}
		for _, v := range t.Versions {
			if _, f := cat.compileFromRoot(sessions, v); f != nil {
				l.fail(*f)
			}
		}
	}
	l.compileFormats(cat)
}
