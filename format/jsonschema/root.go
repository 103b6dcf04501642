package jsonschema

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/internal/schemaerr"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
	"github.com/evtool/evtool/report"
)

// Rule ids of a catalog's JSON Schema files (format's, which package
// catalog declares as its own and documents).
const (
	RuleSchemaJSON    = format.RuleSchemaJSON
	RuleSchemaInvalid = format.RuleSchemaInvalid
	RuleSchemaRef     = format.RuleSchemaRef
	RuleSchemaCompile = format.RuleSchemaCompile
	RuleDuplicateID   = format.RuleDuplicateID
)

// MaxFileSize bounds one schema file: a schema larger than this is a
// mistake, not a contract, and the bound keeps a hostile catalog from
// exhausting memory.
const MaxFileSize = 8 << 20

// virtualRoot is the file URL the catalog root is compiled under. Schemas
// never see real paths: a $ref that resolves outside this prefix escapes
// the catalog and is refused, whatever the real directory layout is.
const virtualRoot = "/evtool-catalog/"

// File is a JSON file under the catalog root that $ref may reach.
type File struct {
	// Rel is its path relative to the root; Display its path as findings
	// show it.
	Rel     string
	Display string
	Text    []byte
	Doc     any   // nil when malformed
	Err     error // the read or parse error, when malformed
	// ID is the absolute $id the file declares, fragment dropped ("" when
	// none).
	ID string
	// evicted: Doc was dropped (Evict) and Document decodes Text again;
	// digest is then the digest of its canonical JSON, taken before.
	evicted bool
	digest  string

	// lines indexes text for LineOf, built on first use (findings are
	// placed from several goroutines).
	linesOnce sync.Once
	lines     *jsonpos.Index

	// canonical is Canonical(Doc), computed once for a version's digest
	// and its compiled Schema.
	canonicalOnce sync.Once
	canonical     []byte
}

// Canonical is the canonical JSON of the file's document (nil when it
// was not read or parsed).
func (f *File) Canonical() []byte {
	if f.evicted {
		// Not kept: the point of evicting is not to hold the file twice.
		if doc := f.Document(); doc != nil {
			return Canonical(doc)
		}
		return nil
	}
	f.canonicalOnce.Do(func() {
		if f.Doc != nil {
			f.canonical = Canonical(f.Doc)
		}
	})
	return f.canonical
}

// LineOf is the line of pointer in the file (0 when unknown).
func (f *File) LineOf(pointer string) int {
	f.linesOnce.Do(func() { f.lines = jsonpos.NewIndex(f.Text) })
	line, _ := f.lines.Find(pointer)
	return line
}

// Evict drops the decoded document, keeping Text: Document decodes it
// again when asked. A catalog compiled type by type evicts its version
// files once read, so that the decoded form of every file (several times
// its text) is not held for the whole command. Only while nothing else
// uses the file: Evict is not safe for concurrent use.
func (f *File) Evict() {
	if f.Doc != nil {
		f.Doc, f.evicted = nil, true
	}
}

// Document is the file's decoded value (nil when malformed): Doc, or
// Text decoded again after Evict (a value of the caller's, not kept).
func (f *File) Document() any {
	if !f.evicted {
		return f.Doc
	}
	doc, err := jsonstrict.Decode(f.Text)
	if err != nil {
		return nil // decoded once already: cannot happen
	}
	return doc
}

// Files are the JSON files under a catalog root, by path relative to it.
type Files map[string]*File

// FileURL is the virtual file URL a file of the root (rel, relative to
// it) is compiled at.
func FileURL(rel string) string {
	u := url.URL{Scheme: "file", Path: virtualRoot + rel}
	return u.String()
}

// RelFromURL returns the catalog-relative path of a virtual file URL.
func RelFromURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	p := path.Clean(u.Path)
	if !strings.HasPrefix(p, virtualRoot) {
		return "", false
	}
	return strings.TrimPrefix(p, virtualRoot), true
}

// RootReader says how ReadRoot walks a catalog root (format.RootReader).
type RootReader = format.RootReader

// relTo turns a path inside the file system into a path relative to the
// root.
func relTo(r RootReader, p string) string {
	if r.Root == "." {
		return p
	}
	return strings.TrimPrefix(p, r.Root+"/")
}

// ReadRoot reads every JSON file under the root except examples, so
// that $ref and $id lookups are answered from memory: a $ref or $id may
// name any JSON file of the root, so the root is read once before any
// version compiles (Provider is a format.RootCompiler, not a
// format.FileCompiler as Avro and Protobuf are), and a Session compiles
// the versions with the catalog's assert_formats and default_draft. The
// findings are the files that could not be read or parsed and the $ids
// declared twice, in the order the walk met them.
func ReadRoot(fsys fs.FS, r RootReader) (Files, []report.Finding) {
	files := Files{}
	var probs []report.Finding
	fail := func(f report.Finding) {
		f.Severity = report.SeverityError
		probs = append(probs, f)
	}
	ids := map[string]*File{}
	_ = fs.WalkDir(fsys, r.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fail(report.Finding{Rule: RuleSchemaJSON, File: r.Show(p), Message: r.PathProblem(p, err)})
			return nil
		}
		if d.IsDir() {
			if r.Skip(p) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".json") || strings.HasPrefix(d.Name(), ".") {
			return nil // hidden files (editor backups, tool state) are not schemas
		}
		rel := relTo(r, p)
		f := &File{Rel: rel, Display: r.Show(p)}
		files[rel] = f
		data, err := format.ReadFile(fsys, p, MaxFileSize)
		if err != nil {
			f.Err = err
			fail(report.Finding{Rule: RuleSchemaJSON, File: f.Display, Message: err.Error()})
			return nil
		}
		f.Text = data
		doc, err := jsonstrict.Decode(data)
		if err != nil {
			f.Err = err
			fail(format.MalformedJSON(RuleSchemaJSON, f.Display, err))
			return nil
		}
		f.Doc = doc
		if f.ID = declaredID(doc); f.ID != "" {
			if other := ids[f.ID]; other != nil {
				line, col := jsonpos.Find(data, "/$id")
				fail(report.Finding{Rule: RuleDuplicateID, File: f.Display, Line: line, Column: col, Pointer: "/$id",
					Message: fmt.Sprintf("$id %q is also declared by %s", doc.(map[string]any)["$id"], other.Display)})
			} else {
				ids[f.ID] = f
			}
		}
		if r.Evict != nil && r.Evict(f.Rel) {
			f.digest = format.DigestOf(Canonical(doc))
			f.Evict()
		}
		return nil
	})
	return files, probs
}

// declaredID is the absolute $id a schema document declares, fragment
// dropped ("" when none).
func declaredID(doc any) string {
	if obj, ok := doc.(map[string]any); ok {
		if id, ok := obj["$id"].(string); ok {
			if u, err := url.Parse(id); err == nil && u.IsAbs() {
				u.Fragment = ""
				return u.String()
			}
		}
	}
	return ""
}

// refLoader answers santhosh's resource requests from the catalog's files.
type refLoader struct {
	files Files
}

// refError is a $ref that points where it may not, or at nothing.
// schemaMsg, when set, says it for a $schema instead: the loader is not
// told which keyword asked, the finding's place is.
type refError struct{ msg, schemaMsg string }

func (e *refError) Error() string { return e.msg }

// parseRef parses the URL of a document the compiler asks for, fragment
// dropped (a file is loaded whole).
func parseRef(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, &refError{msg: fmt.Sprintf("%q is not a valid URL", raw)}
	}
	u.Fragment = ""
	return u, nil
}

func (l *refLoader) Load(raw string) (any, error) {
	u, err := parseRef(raw)
	if err != nil {
		return nil, err
	}
	if u.Scheme == "file" {
		rel, ok := RelFromURL(u.String())
		if !ok {
			return nil, &refError{
				msg:       fmt.Sprintf("reference to %s escapes the catalog root: $ref may only reach files inside the catalog", u.Path),
				schemaMsg: fmt.Sprintf("reference to %s escapes the catalog root: $schema names a JSON Schema draft's URI or the $id of a meta-schema inside the catalog", u.Path),
			}
		}
		f := l.files[rel]
		if f == nil {
			return nil, &refError{msg: fmt.Sprintf("reference to %s: no such JSON file in the catalog", rel)}
		}
		doc := f.Document()
		if doc == nil {
			return nil, &refError{msg: fmt.Sprintf("reference to %s: that file is not valid JSON", rel)}
		}
		return doc, nil
	}
	return l.files.byID(u, "catalog schema", " inside the catalog")
}

// byID answers a URL that is not a file's from the $ids the files
// declare, or refuses it: evtool never fetches a schema from the
// network. which names the files in the refusal, where the place a
// relative path must stay in.
func (files Files) byID(u *url.URL, which, where string) (any, error) {
	for _, f := range files {
		if f.ID != "" && f.ID == u.String() {
			if doc := f.Document(); doc != nil {
				return doc, nil
			}
		}
	}
	if u.Scheme == "http" || u.Scheme == "https" {
		return nil, &refError{msg: fmt.Sprintf("reference to %s: no %s declares this $id, and evtool never fetches schemas from the network", u, which)}
	}
	if u.Scheme == "" {
		// The compiler resolves a $ref against its base; what it asks
		// for unresolved is a $schema, which must be absolute. A
		// fragment alone ("#") reaches here as the empty URL.
		name := u.String()
		if name == "" {
			name = `the empty URL ("" or a fragment alone)`
		}
		return nil, &refError{msg: fmt.Sprintf("reference to %s: a relative URL where an absolute one is needed ($schema must be an absolute URI: give the meta-schema an $id and name it by that)", name)}
	}
	return nil, &refError{
		msg:       fmt.Sprintf("reference to %s: unsupported URL scheme %q (use a relative path%s)", u, u.Scheme, where),
		schemaMsg: fmt.Sprintf("reference to %s: no %s declares this $id, and it is no JSON Schema draft's URI", u, which),
	}
}

// CompileFinding explains a compile error of the version file (its
// display path) at the place that caused it; subject names the version.
func (files Files) CompileFinding(version, subject string, err error) report.Finding {
	f := report.Finding{Rule: RuleSchemaCompile, Severity: report.SeverityError, File: version, Subject: subject}
	var (
		sve *jsonschema.SchemaValidationError
		lue *jsonschema.LoadURLError
		pnf *jsonschema.JSONPointerNotFoundError
		anf *jsonschema.AnchorNotFoundError
		ire *jsonschema.InvalidRegexError
		uve *jsonschema.UnsupportedVocabularyError
		mce *jsonschema.MetaSchemaCycleError
	)
	switch {
	case errors.As(err, &sve):
		f.Rule = RuleSchemaInvalid
		file := files.ByURL(sve.URL)
		probs := schemaerr.Problems(sve.Err)
		if file != nil {
			f.File = file.Display
		}
		if len(probs) > 0 {
			f.Pointer = probs[0].Pointer
			msgs := make([]string, 0, len(probs))
			for _, p := range probs {
				at := p.Pointer
				if at == "" {
					at = "/"
				}
				msgs = append(msgs, at+": "+p.Message)
			}
			f.Message = "not a valid JSON Schema: " + strings.Join(msgs, "; ")
		} else {
			f.Message = "not a valid JSON Schema: " + sve.Err.Error()
		}
		if file != nil {
			f.Line, f.Column = jsonpos.Find(file.Text, f.Pointer)
		}
		return f
	case errors.As(err, &lue):
		f.Rule = RuleSchemaRef
		var re *refError
		if errors.As(lue.Err, &re) {
			f.Message = re.msg
		} else {
			f.Message = fmt.Sprintf("cannot load %s: %v", files.showURL(lue.URL), lue.Err)
		}
		files.locateRef(&f, lue.URL, version)
		if re != nil && re.schemaMsg != "" && (f.Pointer == "/$schema" || strings.HasSuffix(f.Pointer, "/$schema")) {
			f.Message = re.schemaMsg
		}
		return f
	case errors.As(err, &pnf):
		f.Rule = RuleSchemaRef
		f.Message = fmt.Sprintf("reference to %s: no such JSON pointer", files.showURL(pnf.URL))
		files.locateRef(&f, pnf.URL, version)
		return f
	case errors.As(err, &anf):
		f.Rule = RuleSchemaRef
		f.Message = fmt.Sprintf("reference %s: no such anchor", anf.Reference)
		files.locateRef(&f, anf.Reference, version)
		return f
	case errors.As(err, &uve):
		// At the meta-schema's $vocabulary entry that requires it.
		f.Message = fmt.Sprintf("unsupported vocabulary %q required by %s (evtool knows the vocabularies of the JSON Schema drafts only)", uve.Vocabulary, files.showURL(uve.URL))
		files.locateURL(&f, uve.URL+"#/$vocabulary/"+jsonpos.Escape(uve.Vocabulary))
		return f
	case errors.As(err, &mce):
		// At the $schema of the meta-schema whose chain comes back to it.
		f.Message = fmt.Sprintf("$schema of %s leads back to it through meta-schemas (a cycle): end the chain at a JSON Schema draft's URI", files.showURL(mce.URL))
		files.locateURL(&f, mce.URL+"#/$schema")
		return f
	case errors.As(err, &ire):
		f.Message = fmt.Sprintf("pattern %q is not a valid regular expression: %v", ire.Regex, ire.Err)
		files.locateURL(&f, ire.URL)
		return f
	}
	f.Message = files.showURLs(err.Error())
	return f
}

// ByURL is the file a compiled schema URL (with or without fragment)
// belongs to: by its virtual path or by the $id it declares; nil when none.
func (files Files) ByURL(raw string) *File {
	base, _, _ := strings.Cut(raw, "#")
	if rel, ok := RelFromURL(base); ok {
		return files[rel]
	}
	for _, f := range files {
		if f.ID != "" && f.ID == base {
			return f
		}
	}
	return nil
}

// locateURL points f at the file and pointer a schema URL names.
func (files Files) locateURL(f *report.Finding, raw string) {
	file := files.ByURL(raw)
	if file == nil {
		return
	}
	_, frag, _ := strings.Cut(raw, "#")
	if ptr, err := url.PathUnescape(frag); err == nil {
		frag = ptr
	}
	f.File, f.Pointer = file.Display, frag
	f.Line, f.Column = jsonpos.Find(file.Text, frag)
}

// locateRef finds the $ref that asked for target and points f at it.
// The files the failing version (display path version) reaches through
// its $refs are searched first, the version's own file first, so a $ref
// that several types' files hold is placed in the file of the type that
// failed; then the other files, sorted.
func (files Files) locateRef(f *report.Finding, target, version string) {
	// A $ref asked for target, or else a $schema did (a meta-schema the
	// catalog does not hold, or one named by a relative URL).
	for _, keyword := range []string{"$ref", "$schema"} {
		if files.locateKeyword(f, target, version, keyword) {
			return
		}
	}
}

// locateKeyword is locateRef for one keyword; false when no file names
// target with it.
func (files Files) locateKeyword(f *report.Finding, target, version, keyword string) bool {
	targetBase, _, _ := strings.Cut(target, "#")
	var fallback *report.Finding
	for _, rel := range files.refOrder(version) {
		file := files[rel]
		doc := file.Document()
		if doc == nil {
			continue
		}
		base := FileURL(rel)
		if file.ID != "" {
			base = file.ID
		}
		found := ""
		exact := false
		walkKeyword(doc, "", keyword, func(ptr, ref string) bool {
			if written, _, _ := strings.Cut(ref, "#"); keyword == "$schema" && (ref == target || written == target) {
				// A relative $schema is not resolved by the
				// compiler: it asks for the URL as written,
				// without its fragment ("#" asks for "").
				found, exact = ptr, true
				return false
			}
			resolved := ResolveRef(base, ref)
			if resolved == target {
				found, exact = ptr, true
				return false
			}
			rb, _, _ := strings.Cut(resolved, "#")
			if rb == targetBase && found == "" {
				found = ptr
			}
			return true
		})
		if found == "" {
			continue
		}
		loc := *f
		loc.File, loc.Pointer = file.Display, found
		loc.Line, loc.Column = jsonpos.Find(file.Text, found)
		if exact {
			*f = loc
			return true
		}
		if fallback == nil {
			fallback = &loc
		}
	}
	if fallback != nil {
		*f = *fallback
	}
	return fallback != nil
}

// refOrder lists the files: first the file whose display path is version
// and those it reaches through $refs, breadth first (in each file's $ref
// order), then the rest, sorted.
func (files Files) refOrder(version string) []string {
	var order []string
	seen := map[string]bool{}
	for rel, file := range files {
		if file.Display == version {
			order, seen[rel] = append(order, rel), true
		}
	}
	for i := 0; i < len(order); i++ {
		file := files[order[i]]
		base := FileURL(order[i])
		if file.ID != "" {
			base = file.ID
		}
		walkRefs(file.Document(), "", func(_, ref string) bool {
			u, _, _ := strings.Cut(ResolveRef(base, ref), "#")
			if next := files.ByURL(u); next != nil && !seen[next.Rel] && files[next.Rel] == next {
				order, seen[next.Rel] = append(order, next.Rel), true
			}
			return true
		})
	}
	rest := make([]string, 0, len(files))
	for rel := range files {
		if !seen[rel] {
			rest = append(rest, rel)
		}
	}
	sort.Strings(rest)
	return append(order, rest...)
}

// ResolveRef resolves ref against base, as the compiler resolves a $ref
// (ref itself when either does not parse).
func ResolveRef(base, ref string) string {
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return b.ResolveReference(r).String()
}

// walkRefs calls fn for every "$ref" string in doc, in a stable order,
// until fn returns false.
func walkRefs(doc any, ptr string, fn func(ptr, ref string) bool) bool {
	return walkKeyword(doc, ptr, "$ref", fn)
}

// walkKeyword is walkRefs for the string values of another keyword
// ($schema).
func walkKeyword(doc any, ptr, keyword string, fn func(ptr, ref string) bool) bool {
	switch t := doc.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			child := ptr + "/" + jsonpos.Escape(k)
			if s, ok := t[k].(string); ok && k == keyword {
				if !fn(child, s) {
					return false
				}
				continue
			}
			if !walkKeyword(t[k], child, keyword, fn) {
				return false
			}
		}
	case []any:
		for i, e := range t {
			if !walkKeyword(e, fmt.Sprintf("%s/%d", ptr, i), keyword, fn) {
				return false
			}
		}
	}
	return true
}

// showURL renders a virtual catalog URL as the file path a person knows.
func (files Files) showURL(raw string) string {
	base, frag, hasFrag := strings.Cut(raw, "#")
	if rel, ok := RelFromURL(base); ok {
		if f := files[rel]; f != nil {
			base = f.Display
		} else {
			base = rel
		}
	}
	if hasFrag && frag != "" {
		return base + "#" + frag
	}
	return base
}

func (files Files) showURLs(msg string) string {
	root := "file://" + virtualRoot
	for strings.Contains(msg, root) {
		i := strings.Index(msg, root)
		j := i + len(root)
		for j < len(msg) && !strings.ContainsRune("\"' ,#)", rune(msg[j])) {
			j++
		}
		rel := msg[i+len(root) : j]
		disp := rel
		if f := files[rel]; f != nil {
			disp = f.Display
		}
		msg = msg[:i] + disp + msg[j:]
	}
	return msg
}

// ValidationProblems validates v against sch and returns each leaf problem
// (nil when valid).
func ValidationProblems(sch *jsonschema.Schema, v any) []schemaerr.Problem {
	err := sch.Validate(v)
	if err == nil {
		return nil
	}
	return schemaerr.Problems(err)
}

// Loader answers the compiler's requests for documents from the files:
// a virtual file URL inside the root, or an $id a file declares. Nothing
// else is read: not a path outside the root, not the network.
func (files Files) Loader() jsonschema.URLLoader { return &refLoader{files: files} }

// Compiler returns a compiler of the root's files with the catalog's
// rules (NewDraftCompiler): a version is compiled at its FileURL.
func (files Files) Compiler(assertFormats bool, draft Draft) *jsonschema.Compiler {
	c := NewDraftCompiler(assertFormats, draft)
	c.UseLoader(files.Loader())
	return c
}

// Locate maps a compiled schema location ("url#/pointer") to the display
// path of its file and the JSON pointer inside it. Unknown URLs are
// returned as they are with an empty file.
func (files Files) Locate(location string) (file, pointer string) {
	base, frag, _ := strings.Cut(location, "#")
	f := files.ByURL(base)
	if f == nil {
		return "", location
	}
	return f.Display, unescapeFragment(frag)
}

// splitLocation splits a compiled schema's location into its base URL and
// its percent-decoded JSON pointer.
func splitLocation(loc string) (base, ptr string) {
	base, frag, _ := strings.Cut(loc, "#")
	return base, unescapeFragment(frag)
}

func unescapeFragment(frag string) string {
	if p, err := url.PathUnescape(frag); err == nil {
		return p
	}
	return frag
}

// LineOf returns the line of a JSON pointer in a file given by its
// display path (0 when unknown).
func (files Files) LineOf(display, pointer string) int {
	for _, f := range files {
		if f.Display == display {
			return f.LineOf(pointer)
		}
	}
	return 0
}
