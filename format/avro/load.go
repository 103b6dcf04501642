package avro

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
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
	l := &loader{fsys: fsys, texts: map[string][]byte{}, docs: map[string]any{}}
	dirs := append([]string{path.Dir(name)}, shared...)
	for _, dir := range dirs {
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			return nil, &Error{File: dir, Line: 1, Message: "cannot read directory: " + err.Error()}
		}
		for _, e := range entries {
			p := path.Join(dir, e.Name())
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".avsc") && p != name && !slices.Contains(l.candidates, p) {
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
	fsys       fs.FS
	texts      map[string][]byte
	docs       map[string]any
	candidates []string
	index      map[string][]site
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
	text, err := format.ReadFile(l.fsys, name, maxFileSize)
	if err != nil {
		return nil, &Error{File: name, Line: 1, Message: "cannot read: " + err.Error()}
	}
	l.texts[name] = text
	d, err := jsonstrict.Decode(text)
	if err != nil {
		var je *jsonstrict.Error
		if errors.As(err, &je) {
			return nil, Errors{{File: name, Line: je.Line, Column: je.Column, Pointer: je.Pointer, Message: je.Msg}}
		}
		return nil, Errors{{File: name, Line: 1, Message: err.Error()}}
	}
	l.docs[name] = d
	return d, nil
}

// definitions lists the files other than from that define full.
func (l *loader) definitions(full, from string) []site {
	if l.index == nil {
		l.index = map[string][]site{}
		for _, f := range l.candidates {
			d, err := l.doc(f)
			if err != nil {
				// A broken sibling is its own file's problem; it only
				// matters here when nothing else defines the name.
				continue
			}
			collectDefs(d, f, "", "", l.index)
		}
	}
	var out []site
	for _, s := range l.index[full] {
		if s.file != from {
			out = append(out, s)
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

// checkDefaults decodes every field default with the schema of its field
// (for a union, the first branch, as the specification requires; registries
// and the libraries accept any branch). A field whose type reaches a
// broken node is skipped: its structural error is reported already, and
// the default would be judged against a placeholder.
func checkDefaults(l *loader, root *Node, broken map[*Node]bool) Errors {
	var errs Errors
	tainted := reachingBroken(root, broken)
	walk(root, func(n *Node) {
		for _, f := range n.Fields {
			if !f.HasDefault {
				continue
			}
			t, what := f.Type, f.Type.Describe()
			if t.Kind == "union" && len(t.Branches) == 0 {
				errs = append(errs, l.errorAt(n.File, f.Pointer+"/default", "a union without branches has no value to default to"))
				continue
			}
			if t.Kind == "union" {
				t, what = t.Branches[0], t.Branches[0].Describe()+" (the union's first branch, which a default must be)"
			}
			if tainted[t] {
				continue
			}
			ls, err := twmb.Parse(string(emit(t, true, false)))
			if err == nil {
				var v any
				err = ls.DecodeJSON(completeDefault(t, f.Default), &v)
			}
			if err != nil {
				errs = append(errs, l.errorAt(n.File, f.Pointer+"/default", fmt.Sprintf("default %s is not a valid %s: %v", truncate(string(f.Default), 60), what, err)))
			}
		}
	})
	return errs
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
