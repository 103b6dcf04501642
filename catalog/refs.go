package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/internal/schemaerr"
	"github.com/evtool/evtool/report"
)

// virtualRoot is the file URL the catalog root is compiled under. Schemas
// never see real paths: a $ref that resolves outside this prefix escapes
// the catalog and is refused, whatever the real directory layout is.
const virtualRoot = "/evtool-catalog/"

// schemaFile is a JSON file under the catalog root that $ref may reach.
type schemaFile struct {
	rel     string
	display string
	text    []byte
	doc     any   // nil when malformed
	err     error // the parse error, when malformed
	id      string

	// lines indexes text for LineOf, built on first use (findings are
	// placed from several goroutines).
	linesOnce sync.Once
	lines     *jsonpos.Index
}

func (f *schemaFile) lineOf(pointer string) int {
	f.linesOnce.Do(func() { f.lines = jsonpos.NewIndex(f.text) })
	line, _ := f.lines.Find(pointer)
	return line
}

func fileURL(rel string) string {
	u := url.URL{Scheme: "file", Path: virtualRoot + rel}
	return u.String()
}

// relFromURL returns the catalog-relative path of a virtual file URL.
func relFromURL(raw string) (string, bool) {
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

// readSchemaFiles reads every JSON file under the root except examples, so
// that $ref and $id lookups are answered from memory.
func (l *loader) readSchemaFiles(cat *Catalog) {
	ids := map[string]*schemaFile{}
	_ = fs.WalkDir(l.fsys, l.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			l.fail(report.Finding{Rule: RuleSchemaJSON, File: l.show(p), Message: pathProblem(p, err)})
			return nil
		}
		if d.IsDir() {
			if SkipSchemaDir(l.root, p) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".json") || strings.HasPrefix(d.Name(), ".") {
			return nil // hidden files (editor backups, tool state) are not schemas
		}
		rel := l.rel(p)
		f := &schemaFile{rel: rel, display: l.show(p)}
		cat.files[rel] = f
		data, err := readFile(l.fsys, p)
		if err != nil {
			f.err = err
			l.fail(report.Finding{Rule: RuleSchemaJSON, File: f.display, Message: err.Error()})
			return nil
		}
		f.text = data
		doc, err := jsonstrict.Decode(data)
		if err != nil {
			f.err = err
			l.fail(jsonFinding(RuleSchemaJSON, f.display, err))
			return nil
		}
		f.doc = doc
		if obj, ok := doc.(map[string]any); ok {
			if id, ok := obj["$id"].(string); ok {
				if u, err := url.Parse(id); err == nil && u.IsAbs() {
					u.Fragment = ""
					f.id = u.String()
					if other := ids[f.id]; other != nil {
						line, col := jsonpos.Find(data, "/$id")
						l.fail(report.Finding{Rule: RuleDuplicateID, File: f.display, Line: line, Column: col, Pointer: "/$id",
							Message: fmt.Sprintf("$id %q is also declared by %s", id, other.display)})
					} else {
						ids[f.id] = f
					}
				}
			}
		}
		return nil
	})
}

// refLoader answers santhosh's resource requests from the catalog's files.
type refLoader struct {
	files map[string]*schemaFile
}

// refError is a $ref that points where it may not, or at nothing.
type refError struct{ msg string }

func (e *refError) Error() string { return e.msg }

func (l *refLoader) Load(raw string) (any, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, &refError{fmt.Sprintf("%q is not a valid URL", raw)}
	}
	u.Fragment = ""
	if u.Scheme == "file" {
		rel, ok := relFromURL(u.String())
		if !ok {
			return nil, &refError{fmt.Sprintf("reference to %s escapes the catalog root: $ref may only reach files inside the catalog", u.Path)}
		}
		f := l.files[rel]
		if f == nil {
			return nil, &refError{fmt.Sprintf("reference to %s: no such JSON file in the catalog", rel)}
		}
		if f.doc == nil {
			return nil, &refError{fmt.Sprintf("reference to %s: that file is not valid JSON", rel)}
		}
		return f.doc, nil
	}
	for _, f := range l.files {
		if f.id != "" && f.id == u.String() && f.doc != nil {
			return f.doc, nil
		}
	}
	if u.Scheme == "http" || u.Scheme == "https" {
		return nil, &refError{fmt.Sprintf("reference to %s: no catalog schema declares this $id, and evtool never fetches schemas from the network", u)}
	}
	return nil, &refError{fmt.Sprintf("reference to %s: unsupported URL scheme %q (use a relative path inside the catalog)", u, u.Scheme)}
}

// compileFinding explains a compile error at the place that caused it.
func compileFinding(cat *Catalog, v *Version, err error) report.Finding {
	f := report.Finding{Rule: RuleSchemaCompile, Severity: report.SeverityError, File: v.File, Subject: fmt.Sprintf("%s v%d", v.Type, v.Number)}
	var (
		sve *jsonschema.SchemaValidationError
		lue *jsonschema.LoadURLError
		pnf *jsonschema.JSONPointerNotFoundError
		anf *jsonschema.AnchorNotFoundError
		ire *jsonschema.InvalidRegexError
	)
	switch {
	case errors.As(err, &sve):
		f.Rule = RuleSchemaInvalid
		file := cat.fileByURL(sve.URL)
		probs := schemaerr.Problems(sve.Err)
		if file != nil {
			f.File = file.display
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
			f.Line, f.Column = jsonpos.Find(file.text, f.Pointer)
		}
		return f
	case errors.As(err, &lue):
		f.Rule = RuleSchemaRef
		var re *refError
		if errors.As(lue.Err, &re) {
			f.Message = re.msg
		} else {
			f.Message = fmt.Sprintf("cannot load %s: %v", cat.showURL(lue.URL), lue.Err)
		}
		cat.locateRef(&f, lue.URL)
		return f
	case errors.As(err, &pnf):
		f.Rule = RuleSchemaRef
		f.Message = fmt.Sprintf("reference to %s: no such JSON pointer", cat.showURL(pnf.URL))
		cat.locateRef(&f, pnf.URL)
		return f
	case errors.As(err, &anf):
		f.Rule = RuleSchemaRef
		f.Message = fmt.Sprintf("reference %s: no such anchor", anf.Reference)
		cat.locateRef(&f, anf.Reference)
		return f
	case errors.As(err, &ire):
		f.Message = fmt.Sprintf("pattern %q is not a valid regular expression: %v", ire.Regex, ire.Err)
		cat.locateURL(&f, ire.URL)
		return f
	}
	f.Message = cat.showURLs(err.Error())
	return f
}

func (c *Catalog) fileByURL(raw string) *schemaFile {
	base, _, _ := strings.Cut(raw, "#")
	if rel, ok := relFromURL(base); ok {
		return c.files[rel]
	}
	for _, f := range c.files {
		if f.id != "" && f.id == base {
			return f
		}
	}
	return nil
}

// locateURL points f at the file and pointer a schema URL names.
func (c *Catalog) locateURL(f *report.Finding, raw string) {
	file := c.fileByURL(raw)
	if file == nil {
		return
	}
	_, frag, _ := strings.Cut(raw, "#")
	if ptr, err := url.PathUnescape(frag); err == nil {
		frag = ptr
	}
	f.File, f.Pointer = file.display, frag
	f.Line, f.Column = jsonpos.Find(file.text, frag)
}

// locateRef finds the $ref that asked for target and points f at it.
func (c *Catalog) locateRef(f *report.Finding, target string) {
	targetBase, _, _ := strings.Cut(target, "#")
	rels := make([]string, 0, len(c.files))
	for rel := range c.files {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	var fallback *report.Finding
	for _, rel := range rels {
		file := c.files[rel]
		if file.doc == nil {
			continue
		}
		base := fileURL(rel)
		if file.id != "" {
			base = file.id
		}
		found := ""
		exact := false
		walkRefs(file.doc, "", func(ptr, ref string) bool {
			resolved := resolveRef(base, ref)
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
		loc.File, loc.Pointer = file.display, found
		loc.Line, loc.Column = jsonpos.Find(file.text, found)
		if exact {
			*f = loc
			return
		}
		if fallback == nil {
			fallback = &loc
		}
	}
	if fallback != nil {
		*f = *fallback
	}
}

func resolveRef(base, ref string) string {
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
	switch t := doc.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			child := ptr + "/" + jsonpos.Escape(k)
			if s, ok := t[k].(string); ok && k == "$ref" {
				if !fn(child, s) {
					return false
				}
				continue
			}
			if !walkRefs(t[k], child, fn) {
				return false
			}
		}
	case []any:
		for i, e := range t {
			if !walkRefs(e, fmt.Sprintf("%s/%d", ptr, i), fn) {
				return false
			}
		}
	}
	return true
}

// showURL renders a virtual catalog URL as the file path a person knows.
func (c *Catalog) showURL(raw string) string {
	base, frag, hasFrag := strings.Cut(raw, "#")
	if rel, ok := relFromURL(base); ok {
		if f := c.files[rel]; f != nil {
			base = f.display
		} else {
			base = rel
		}
	}
	if hasFrag && frag != "" {
		return base + "#" + frag
	}
	return base
}

func (c *Catalog) showURLs(msg string) string {
	root := "file://" + virtualRoot
	for strings.Contains(msg, root) {
		i := strings.Index(msg, root)
		j := i + len(root)
		for j < len(msg) && !strings.ContainsRune("\"' ,#)", rune(msg[j])) {
			j++
		}
		rel := msg[i+len(root) : j]
		disp := rel
		if f := c.files[rel]; f != nil {
			disp = f.display
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
