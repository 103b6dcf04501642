package avro

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing/fstest"

	twmb "github.com/twmb/avro"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/jsonstrict"
)

// Error is one problem with a schema file, at a line and JSON pointer.
type Error = format.Error

// Errors is every problem found in one schema; lint reports them all, not
// the first.
type Errors = format.Errors

// maxFileSize bounds one .avsc file: a schema is text a person wrote, and
// the limit keeps a hostile catalog from exhausting memory.
const maxFileSize = 8 << 20

// Load reads the .avsc file name from fsys and resolves the named types it
// references among the other .avsc files of its directory and of the
// shared directories (paths in fsys). Nothing outside fsys is read: give it
// an os.Root's FS (os.OpenRoot(dir).FS()), which refuses symlinks that
// leave the root, or an fstest.MapFS. The error is Errors, or an *Error
// when a file cannot be read.
func Load(fsys fs.FS, name string, shared ...string) (*Schema, error) {
	return loadShared(fsys, nil, name, shared)
}

// loadShared is Load taking the files of the shared directories from
// files (read into it on first use; nil: read them all here).
func loadShared(fsys fs.FS, files *Files, name string, shared []string) (*Schema, error) {
	l := &loader{fsys: fsys, files: files, shared: shared, texts: map[string][]byte{}, docs: map[string]any{}}
	dirs := append([]string{path.Dir(name)}, shared...)
	for _, dir := range dirs {
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			return nil, &Error{File: dir, Line: 1, Message: "cannot read directory: " + err.Error()}
		}
		for _, e := range entries {
			// The name first: a shared directory may be a catalog root
			// listing thousands of type directories for every version.
			if !strings.HasSuffix(e.Name(), ".avsc") || e.IsDir() {
				continue
			}
			if p := path.Join(dir, e.Name()); p != name && !slices.Contains(l.candidates, p) {
				l.candidates = append(l.candidates, p)
			}
		}
	}
	doc, err := l.doc(name)
	if err != nil {
		return nil, err
	}
	b := &builder{loader: l, defs: map[string]*Node{}, files: []string{name}}
	root := b.build(doc, name, "", "")
	// Defaults are checked in the same run as the structure, so that one
	// lint run shows every error; only defaults of types that were built
	// without errors are checked.
	size := minSizes(root)
	errs := append(b.errs, checkDatumSizes(l, root, size)...)
	if errs := append(errs, checkDefaults(l, root, b.broken)...); len(errs) > 0 {
		return nil, errs
	}
	s := &Schema{Root: root, File: name, Files: b.files, texts: l.texts, minSize: size}
	if err := s.compile(); err != nil {
		return nil, Errors{l.errorAt(name, "", err.Error())}
	}
	return s, nil
}

// Parse compiles one self-contained schema document (no references to
// other files); display names it in errors.
func Parse(display string, text []byte) (*Schema, error) {
	return Load(fstest.MapFS{display: {Data: text}}, display)
}

type loader struct {
	fsys fs.FS
	// files holds the shared directories' files read once for a whole
	// catalog load (nil: read here); shared are those directories.
	files      *Files
	shared     []string
	texts      map[string][]byte
	docs       map[string]any
	candidates []string
	// indexed: every candidate was read, so definitions may look in them.
	indexed bool
	// index is the named types the candidates define, when they were
	// not read from files (whose entries index their own).
	index map[string][]site
}

// Files keeps the .avsc files of the shared directories read, decoded and
// indexed by the named types they define, by path, for the versions of
// one catalog load: every Avro version resolves its names among all the
// shared files, and reading and parsing each of them once per version
// was a third of a 3,000-type load's CPU. The files must not change while
// it is used. Safe for concurrent use.
type Files struct {
	mu sync.Mutex
	m  map[string]*sharedFile
}

// NewFiles returns an empty Files, for one load.
func NewFiles() *Files { return &Files{m: map[string]*sharedFile{}} }

// sharedFile is one file of Files, read on first use.
type sharedFile struct {
	once sync.Once
	text []byte
	doc  any
	err  error
	defs map[string][]site // the named types doc defines
}

// get is the file name of fsys, read, decoded and indexed once.
func (f *Files) get(fsys fs.FS, name string) *sharedFile {
	f.mu.Lock()
	e := f.m[name]
	if e == nil {
		e = &sharedFile{}
		f.m[name] = e
	}
	f.mu.Unlock()
	e.once.Do(func() {
		e.text, e.doc, e.err = readDoc(fsys, name)
		if e.err == nil {
			e.defs = map[string][]site{}
			collectDefs(e.doc, name, "", "", e.defs)
		}
	})
	return e
}

// fromFiles is the entry of name in l.files when name is a file of a
// shared directory that l.files keeps; nil otherwise.
func (l *loader) fromFiles(name string) *sharedFile {
	if l.files == nil || !slices.Contains(l.shared, path.Dir(name)) {
		return nil
	}
	return l.files.get(l.fsys, name)
}

// site is where a named type is defined: its raw JSON and the namespace
// around it.
type site struct {
	file, ptr, ns string
	raw           any
}

func (l *loader) doc(name string) (any, error) {
	if d, ok := l.docs[name]; ok {
		return d, nil
	}
	var text []byte
	var d any
	var err error
	if e := l.fromFiles(name); e != nil {
		text, d, err = e.text, e.doc, e.err
	} else {
		text, d, err = readDoc(l.fsys, name)
	}
	if text != nil {
		l.texts[name] = text
	}
	if err != nil {
		return nil, err
	}
	l.docs[name] = d
	return d, nil
}

// readDoc reads and decodes the file name; the text is set when it was
// read, even if it does not decode.
func readDoc(fsys fs.FS, name string) ([]byte, any, error) {
	text, err := format.ReadFile(fsys, name, maxFileSize)
	if err != nil {
		// No line: nothing of the file was read. The path is the
		// error's File already (os.Root's "statat" op is no help).
		return nil, nil, &Error{File: name, Message: "cannot read: " + format.UnwrapPathError(err).Error()}
	}
	d, err := jsonstrict.Decode(text)
	if err != nil {
		var je *jsonstrict.Error
		if errors.As(err, &je) {
			return text, nil, Errors{{File: name, Line: je.Line, Column: je.Column, Pointer: je.Pointer, Message: je.Msg}}
		}
		return text, nil, Errors{{File: name, Line: 1, Message: err.Error()}}
	}
	return text, d, nil
}

// definitions lists the files other than from that define full.
func (l *loader) definitions(full, from string) []site {
	if !l.indexed {
		l.indexed = true
		l.index = map[string][]site{}
		for _, f := range l.candidates {
			d, err := l.doc(f)
			if err != nil || l.fromFiles(f) != nil {
				// A broken sibling is its own file's problem; it only
				// matters here when nothing else defines the name. A
				// shared file kept in files is indexed there.
				continue
			}
			collectDefs(d, f, "", "", l.index)
		}
	}
	var out []site
	if l.files == nil {
		for _, s := range l.index[full] {
			if s.file != from {
				out = append(out, s)
			}
		}
		return out
	}
	// In the candidates' order, as one index of them all would list them.
	for _, f := range l.candidates {
		defs := l.index
		if e := l.fromFiles(f); e != nil {
			defs = e.defs
		}
		for _, s := range defs[full] {
			if s.file == f && s.file != from {
				out = append(out, s)
			}
		}
	}
	return out
}

// collectDefs records every named type definition in raw.
func collectDefs(raw any, file, ptr, ns string, into map[string][]site) {
	switch v := raw.(type) {
	case []any:
		for i, b := range v {
			collectDefs(b, file, ptr+"/"+strconv.Itoa(i), ns, into)
		}
	case map[string]any:
		t := v["type"]
		switch ts, _ := t.(string); ts {
		case "record", "error", "enum", "fixed":
			name, _ := v["name"].(string)
			var nsAttr *string
			if s, ok := v["namespace"].(string); ok {
				nsAttr = &s
			}
			full := fullName(name, nsAttr, ns)
			into[full] = append(into[full], site{file: file, ptr: ptr, ns: ns, raw: v})
			if fields, ok := v["fields"].([]any); ok {
				for i, f := range fields {
					if fo, ok := f.(map[string]any); ok {
						collectDefs(fo["type"], file, ptr+"/fields/"+strconv.Itoa(i)+"/type", namespaceOf(full), into)
					}
				}
			}
		case "array":
			collectDefs(v["items"], file, ptr+"/items", ns, into)
		case "map":
			collectDefs(v["values"], file, ptr+"/values", ns, into)
		case "":
			collectDefs(t, file, ptr+"/type", ns, into)
		}
	}
}

func (l *loader) errorAt(file, ptr, msg string) *Error {
	e := &Error{File: file, Pointer: ptr, Message: msg, Line: 1, Column: 1}
	if text, ok := l.texts[file]; ok {
		e.Line, e.Column = jsonpos.Find(text, ptr)
	}
	return e
}

func (l *loader) place(file, ptr string) string {
	e := l.errorAt(file, ptr, "")
	return fmt.Sprintf("%s:%d", file, e.Line)
}

// checkDefaults decodes every field default with the schema of its field;
// for a union, with the first branch it matches (Avro 1.12, AVRO-3649: up
// to 1.11 only the first branch was allowed). twmb/avro, which compiles,
// resolves and fills defaults here and in generated code, takes the first
// match too, so no workaround is needed; hamba/avro v2 (isValidDefault
// checks Types()[0]) and Java before 1.12 still refuse such a schema, as
// docs/avro.md records. A field whose type reaches a broken
// node is skipped: its structural error is reported already, and the
// default would be judged against a placeholder.
func checkDefaults(l *loader, root *Node, broken map[*Node]bool) Errors {
	var errs Errors
	tainted := reachingBroken(root, broken)
	dd := defaultDecoder{}
	walk(root, func(n *Node) {
		for _, f := range n.Fields {
			if !f.HasDefault {
				continue
			}
			at := f.Pointer + "/default"
			t := f.Type
			if t.Kind == "union" && len(t.Branches) == 0 {
				errs = append(errs, l.errorAt(n.File, at, "a union without branches has no value to default to"))
				continue
			}
			if tainted[t] {
				continue
			}
			if t.Kind != "union" {
				if err := dd.decode(t, f.Default); err != nil {
					errs = append(errs, l.errorAt(n.File, at, fmt.Sprintf("default %s is not a valid %s: %v%s", truncate(string(f.Default), 60), t.Describe(), err, defaultHint(t, f.Default))))
				}
				continue
			}
			if string(f.Default) == `"null"` && t.Branches[0].Kind == "null" {
				// Valid as a string since 1.12 when the union has one, but
				// a null was meant; before 1.12 it is no value at all.
				errs = append(errs, l.errorAt(n.File, at, `default "null" is the string "null", not null: use "default": null (JSON null, not the string "null")`))
				continue
			}
			if dd.union(t, f.Default) == nil {
				errs = append(errs, l.errorAt(n.File, at, fmt.Sprintf("default %s is a value of no branch of the union %s%s", truncate(string(f.Default), 60), branchList(t), defaultHint(t, f.Default))))
			}
		}
	})
	return errs
}

// defaultDecoder decodes defaults with the physical schema of their type,
// compiled once per type: fields and union branches that refer to one big
// record would otherwise compile it once each.
type defaultDecoder map[*Node]*twmb.Schema

func (dd defaultDecoder) decode(t *Node, raw json.RawMessage) error {
	ls, ok := dd[t]
	if !ok {
		var err error
		if ls, err = twmb.Parse(string(emit(t, true, false))); err != nil {
			return err
		}
		dd[t] = ls
	}
	full, err := completeDefault(t, raw)
	if err != nil {
		return err
	}
	var v any
	return ls.DecodeJSON(full, &v)
}

// union is the branch of union u that default raw is a value of:
// the first that decodes it (Avro 1.12), among the branches whose kind
// takes raw's JSON kind (so a wide union costs one decode, not one per
// branch); nil when none does.
func (dd defaultDecoder) union(u *Node, raw json.RawMessage) *Node {
	kind := jsonKindOf(raw)
	var symbol string
	if kind == "string" {
		json.Unmarshal(raw, &symbol)
	}
	for _, b := range u.Branches {
		if b.Kind == "enum" && !slices.Contains(b.Symbols, symbol) {
			// Not decoded: a union of thousands of enums would cost a
			// decode each.
			continue
		}
		if takes(b, kind) && dd.decode(b, raw) == nil {
			return b
		}
	}
	return nil
}

// jsonKindOf is the JSON kind of a value: null, boolean, number, string,
// array or object.
func jsonKindOf(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return ""
	}
	switch t[0] {
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean"
	case '"':
		return "string"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	return "number"
}

// takes reports whether a default of JSON kind could be a value of n.
func takes(n *Node, kind string) bool {
	switch n.Kind {
	case "null", "boolean", "array":
		return kind == n.Kind
	case "int", "long", "float", "double":
		// float and double also take "NaN" and "Infinity" as strings.
		return kind == "number" || kind == "string" && (n.Kind == "float" || n.Kind == "double")
	case "string", "bytes", "fixed", "enum":
		return kind == "string"
	case "map", "record":
		return kind == "object"
	}
	return false
}

// branchList names a union's branches: [null, string, record a.R].
func branchList(u *Node) string {
	names := make([]string, len(u.Branches))
	for i, b := range u.Branches {
		names[i] = b.Describe()
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// defaultHint shows the fix for the defaults people get wrong: an enum's
// default that is not a symbol, a null written as a string.
func defaultHint(t *Node, raw json.RawMessage) string {
	nodes := []*Node{t}
	if t.Kind == "union" {
		nodes = t.Branches
	}
	for _, n := range nodes {
		if n.Kind == "enum" && jsonKindOf(raw) == "string" {
			return "; use one of the symbols of " + n.Name + ": " + symbolList(n.Symbols)
		}
		if n.Kind == "null" && string(bytes.TrimSpace(raw)) == `"null"` {
			return `; use "default": null (JSON null, not the string "null")`
		}
	}
	return ""
}

// symbolList is the first symbols of an enum, quoted.
func symbolList(symbols []string) string {
	const most = 8
	var quoted []string
	for i, s := range symbols {
		if i == most {
			quoted = append(quoted, fmt.Sprintf("… (%d in all)", len(symbols)))
			break
		}
		quoted = append(quoted, strconv.Quote(s))
	}
	return strings.Join(quoted, ", ")
}

// reaching is the set of nodes under root from which a node that is is
// reachable (nil when none is).
func reaching(root *Node, is func(*Node) bool) map[*Node]bool {
	set := map[*Node]bool{}
	walk(root, func(n *Node) {
		if is(n) {
			set[n] = true
		}
	})
	return reachingBroken(root, set)
}

// reachingBroken is the set of nodes under root from which a broken node
// is reachable, found backwards from the broken ones so that a schema whose
// fields all refer to one big record costs one walk, not one per field.
func reachingBroken(root *Node, broken map[*Node]bool) map[*Node]bool {
	if len(broken) == 0 {
		return nil
	}
	parents := map[*Node][]*Node{}
	var queue []*Node
	walk(root, func(n *Node) {
		if broken[n] {
			queue = append(queue, n)
		}
		for _, c := range children(n) {
			parents[c] = append(parents[c], n)
		}
	})
	out := map[*Node]bool{}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if out[n] {
			continue
		}
		out[n] = true
		queue = append(queue, parents[n]...)
	}
	return out
}

// children lists the nodes n refers to directly.
func children(n *Node) []*Node {
	var out []*Node
	for _, f := range n.Fields {
		out = append(out, f.Type)
	}
	out = append(out, n.Branches...)
	for _, c := range []*Node{n.Items, n.Values} {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

// walk calls fn once for every node reachable from root.
func walk(root *Node, fn func(*Node)) { traverse(root, fn, nil) }

// traverse calls pre (if not nil) for every node reachable from root
// before its children, and post (if not nil) after them.
func traverse(root *Node, pre, post func(*Node)) {
	seen := map[*Node]bool{}
	var visit func(*Node)
	visit = func(n *Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		if pre != nil {
			pre(n)
		}
		for _, c := range children(n) {
			visit(c)
		}
		if post != nil {
			post(n)
		}
	}
	visit(root)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
