package asyncapi

import (
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/internal/schemawalk"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// Schemas travel into the AsyncAPI document as Schema Objects (AsyncAPI's
// superset of JSON Schema draft-07, the format every AsyncAPI tool reads):
// one entry of components.schemas per catalog file a version reaches,
// version files and shared files alike. Each is made self-contained within
// the document:
//
//   - every $ref is rewritten to the absolute pointer of its target in the
//     document ("#/components/schemas/common.money"), using the compiled
//     schema to know what the reference resolves to;
//   - $schema, $id and anchors are dropped (they would change how the
//     rewritten references resolve);
//   - 2019-09/2020-12 keywords with a draft-07 spelling are translated:
//     prefixItems/items become items/additionalItems, dependentRequired and
//     dependentSchemas become dependencies, a $ref with sibling keywords
//     becomes an allOf entry (draft-07 ignores siblings of $ref), and
//     draft-04's boolean exclusiveMinimum/Maximum become numbers;
//   - keywords with no draft-07 equivalent (unevaluated*, min/maxContains,
//     $dynamicRef, $recursiveRef) are kept as written and reported as
//     warnings: a draft-07 tool ignores them and so accepts more.
//   - $defs entries that no version reaches are left out.

const componentsSchemas = "#/components/schemas/"

// Warning is a schema keyword the export could not carry over exactly.
type Warning struct {
	File    string // display path
	Pointer string
	Message string
}

func (w Warning) String() string {
	ptr := w.Pointer
	if ptr == "" {
		ptr = "/"
	}
	return fmt.Sprintf("%s: %s: %s", w.File, ptr, w.Message)
}

// fileComp is one catalog file turned into a components.schemas entry.
type fileComp struct {
	url, display, rel string
	name              string
	draft             int
	out               any
	// ptrs maps each schema pointer of the file to its pointer in out.
	ptrs map[string]string
}

type pendingRef struct {
	from   *fileComp
	ptr    string
	node   *object
	target string // compiled location "url#pointer"
}

type schemaExporter struct {
	cat      *catalog.Catalog
	byLoc    map[string]*jsonschema.Schema // by url + "#" + decoded pointer
	files    map[string]*fileComp          // by base url
	queue    []*fileComp
	names    map[string]string // component name -> base url
	refs     []pendingRef
	warnings []Warning
	texts    map[string][]byte // version files' text by base url
}

func newSchemaExporter(cat *catalog.Catalog) *schemaExporter {
	x := &schemaExporter{cat: cat, byLoc: map[string]*jsonschema.Schema{}, files: map[string]*fileComp{},
		names: map[string]string{}, texts: map[string][]byte{}}
	for _, t := range cat.Types {
		for _, v := range t.Versions {
			if v.Schema != nil {
				x.index(v.Schema)
			}
			base, _, _ := strings.Cut(v.URL, "#")
			x.texts[base] = v.Text
		}
	}
	return x
}

// index records every compiled schema reachable from s by its location.
func (x *schemaExporter) index(root *jsonschema.Schema) {
	stack := []*jsonschema.Schema{root}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s == nil {
			continue
		}
		key := locKey(s.Location)
		if _, ok := x.byLoc[key]; ok {
			continue
		}
		x.byLoc[key] = s
		stack = append(stack, schemawalk.Children(s)...)
	}
}

// locKey normalizes a compiled location: base url, '#', decoded pointer.
func locKey(loc string) string {
	base, frag, _ := strings.Cut(loc, "#")
	if p, err := url.PathUnescape(frag); err == nil {
		frag = p
	}
	return base + "#" + frag
}

// ref returns the document reference to a version's schema, exporting it
// (and every file it reaches) on first use.
func (x *schemaExporter) ref(v *catalog.Version) (string, error) {
	base, _, _ := strings.Cut(v.URL, "#")
	f, err := x.file(base)
	if err != nil {
		return "", err
	}
	if err := x.drain(); err != nil {
		return "", err
	}
	return componentsSchemas + escapePointerToken(f.name), nil
}

// file returns the component of the file at base url, queueing it.
func (x *schemaExporter) file(base string) (*fileComp, error) {
	if f := x.files[base]; f != nil {
		return f, nil
	}
	display, rel, _, ok := x.cat.FileOfURL(base)
	if !ok {
		return nil, fmt.Errorf("schema %s is not a file of the catalog", base)
	}
	f := &fileComp{url: base, display: display, rel: rel, ptrs: map[string]string{}}
	f.name = x.componentName(rel, base)
	x.files[base] = f
	x.queue = append(x.queue, f)
	return f, nil
}

var unsafeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._-]+`) })

// componentName derives a components.schemas key from a catalog path:
// "com.example.order.placed/v2.json" -> "com.example.order.placed.v2",
// "common/money.json" -> "common.money".
func (x *schemaExporter) componentName(rel, base string) string {
	n := strings.TrimSuffix(rel, ".json")
	n = strings.ReplaceAll(n, "/", ".")
	n = unsafeName().ReplaceAllString(n, "_")
	if n == "" {
		n = "schema"
	}
	name := n
	for i := 2; ; i++ {
		if u, ok := x.names[name]; !ok || u == base {
			break
		}
		name = n + "_" + strconv.Itoa(i)
	}
	x.names[name] = base
	return name
}

// drain exports queued files, then resolves the references between them.
func (x *schemaExporter) drain() error {
	for len(x.queue) > 0 {
		f := x.queue[0]
		x.queue = x.queue[1:]
		text, ok := x.texts[f.url]
		if !ok {
			var err error
			if text, err = os.ReadFile(f.display); err != nil {
				return fmt.Errorf("reading %s: %w", f.display, err)
			}
		}
		doc, err := decodeOrdered(text)
		if err != nil {
			return fmt.Errorf("%s: %w", f.display, err)
		}
		f.draft = draftOf(doc)
		f.out = x.schema(f, doc, "", "")
	}
	for _, r := range x.refs {
		base, ptr, _ := strings.Cut(locKey(r.target), "#")
		tf, err := x.file(base)
		if err != nil {
			return fmt.Errorf("%s: %s/$ref: %w", r.from.display, r.ptr, err)
		}
		if len(x.queue) > 0 {
			if err := x.drain(); err != nil {
				return err
			}
		}
		r.node.Set("$ref", componentsSchemas+escapePointerToken(tf.name)+fragmentPointer(tf.mapPointer(ptr)))
	}
	x.refs = nil
	return nil
}

// mapPointer translates a pointer of the file into its exported form: the
// pointer itself when the walk recorded it, else its longest recorded
// prefix with the rest unchanged.
func (f *fileComp) mapPointer(ptr string) string {
	if p, ok := f.ptrs[ptr]; ok {
		return p
	}
	for cut := strings.LastIndex(ptr, "/"); cut >= 0; cut = strings.LastIndex(ptr[:cut], "/") {
		if p, ok := f.ptrs[ptr[:cut]]; ok {
			return p + ptr[cut:]
		}
		if cut == 0 {
			break
		}
	}
	return ptr
}

// fragmentPointer renders a JSON pointer for use in a URI fragment.
func fragmentPointer(ptr string) string {
	if ptr == "" {
		return ""
	}
	var sb strings.Builder
	for i, tok := range strings.Split(ptr, "/") {
		if i > 0 {
			sb.WriteByte('/')
		}
		sb.WriteString(url.PathEscape(tok))
	}
	return sb.String()
}

func escapePointerToken(tok string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(tok)
}

func draftOf(doc any) int {
	o, ok := doc.(*object)
	if !ok {
		return 2020
	}
	s, _ := o.Vals["$schema"].(string)
	switch {
	case strings.Contains(s, "draft-04"):
		return 4
	case strings.Contains(s, "draft-06"):
		return 6
	case strings.Contains(s, "draft-07"):
		return 7
	case strings.Contains(s, "2019-09"):
		return 2019
	}
	return 2020
}

func (x *schemaExporter) warn(f *fileComp, ptr, format string, args ...any) {
	x.warnings = append(x.warnings, Warning{File: f.display, Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

// Keyword classes of the schema walk.
var (
	dropped = map[string]bool{"$schema": true, "$id": true, "$anchor": true, "$dynamicAnchor": true,
		"$recursiveAnchor": true, "$vocabulary": true}
	oneSchema = map[string]bool{"additionalProperties": true, "additionalItems": true, "not": true, "if": true,
		"then": true, "else": true, "contains": true, "propertyNames": true, "unevaluatedProperties": true,
		"unevaluatedItems": true, "contentSchema": true}
	schemaList = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true}
	schemaMap  = map[string]bool{"properties": true, "patternProperties": true}
	defsMap    = map[string]bool{"$defs": true, "definitions": true}
	noDraft7   = map[string]string{
		"unevaluatedProperties": "unevaluatedProperties has no draft-07 equivalent",
		"unevaluatedItems":      "unevaluatedItems has no draft-07 equivalent",
		"minContains":           "minContains has no draft-07 equivalent",
		"maxContains":           "maxContains has no draft-07 equivalent",
		"$dynamicRef":           "$dynamicRef has no draft-07 equivalent",
		"$recursiveRef":         "$recursiveRef has no draft-07 equivalent",
	}
)

// schema exports the schema at ptr of file f to newPtr of the component.
func (x *schemaExporter) schema(f *fileComp, v any, ptr, newPtr string) any {
	f.ptrs[ptr] = newPtr
	in, ok := v.(*object)
	if !ok {
		return v // a boolean schema (or something santhosh refused earlier)
	}
	out := newObject()
	_, hasPrefix := in.Vals["prefixItems"]
	var refNode *object
	for _, k := range in.Keys {
		val := in.Vals[k]
		kp, np := ptr+"/"+escapePointerToken(k), newPtr+"/"+escapePointerToken(k)
		if msg, bad := noDraft7[k]; bad {
			x.warn(f, kp, "%s: kept as written, and AsyncAPI tools reading draft-07 ignore it (they accept more than the catalog does)", msg)
		}
		switch {
		case dropped[k]:
		case k == "id" && f.draft == 4:
		case k == "$ref":
			refNode = obj()
			if s := x.byLoc[f.url+"#"+ptr]; s != nil && s.Ref != nil {
				x.refs = append(x.refs, pendingRef{from: f, ptr: ptr, node: refNode, target: s.Ref.Location})
			} else {
				x.warn(f, kp, "the compiler did not resolve this $ref; kept as written")
				refNode.Set("$ref", val)
			}
		case oneSchema[k]:
			out.Set(k, x.schema(f, val, kp, np))
		case schemaList[k]:
			out.Set(k, x.list(f, val, kp, np))
		case schemaMap[k]:
			out.Set(k, x.schemaMap(f, val, kp, np, false))
		case defsMap[k]:
			if m := x.schemaMap(f, val, kp, np, true); m != nil {
				out.Set(k, m)
			}
		case k == "items":
			switch {
			case hasPrefix: // 2020-12: items after prefixItems
				out.Set("additionalItems", x.schema(f, val, kp, newPtr+"/additionalItems"))
			default:
				if _, isList := val.([]any); isList {
					out.Set(k, x.list(f, val, kp, np))
				} else {
					out.Set(k, x.schema(f, val, kp, np))
				}
			}
		case k == "prefixItems":
			out.Set("items", x.list(f, val, kp, newPtr+"/items"))
		case k == "dependencies":
			x.dependencies(f, out, val, kp, newPtr, "")
		case k == "dependentSchemas":
			x.dependencies(f, out, val, kp, newPtr, "schemas")
		case k == "dependentRequired":
			x.dependencies(f, out, val, kp, newPtr, "required")
		case (k == "exclusiveMinimum" || k == "exclusiveMaximum") && f.draft == 4:
			bound := map[string]string{"exclusiveMinimum": "minimum", "exclusiveMaximum": "maximum"}[k]
			if b, _ := val.(bool); b {
				if n, ok := in.Vals[bound]; ok {
					out.Set(k, n)
				}
			}
		case (k == "minimum" || k == "maximum") && f.draft == 4:
			ex, _ := in.Vals["exclusive"+strings.ToUpper(k[:1])+k[1:]].(bool)
			if !ex {
				out.Set(k, val)
			}
		default:
			out.Set(k, val)
		}
	}
	if refNode != nil {
		if out.Len() == 0 {
			return refNode
		}
		// draft-07 ignores the siblings of $ref: keep them, and the
		// reference as one more allOf entry.
		all, _ := out.Vals["allOf"].([]any)
		out.Set("allOf", append(all, refNode))
	}
	return out
}

func (x *schemaExporter) list(f *fileComp, v any, ptr, newPtr string) any {
	a, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]any, len(a))
	for i, e := range a {
		out[i] = x.schema(f, e, ptr+"/"+strconv.Itoa(i), newPtr+"/"+strconv.Itoa(i))
	}
	return out
}

// schemaMap exports a map of schemas; with defs, entries that no version
// reaches (never compiled) are left out, and an empty result is nil.
func (x *schemaExporter) schemaMap(f *fileComp, v any, ptr, newPtr string, defs bool) any {
	m, ok := v.(*object)
	if !ok {
		return v
	}
	out := newObject()
	for _, k := range m.Keys {
		kp := ptr + "/" + escapePointerToken(k)
		if defs {
			if _, reached := x.byLoc[f.url+"#"+kp]; !reached {
				continue
			}
		}
		out.Set(k, x.schema(f, m.Vals[k], kp, newPtr+"/"+escapePointerToken(k)))
	}
	if defs && out.Len() == 0 {
		return nil
	}
	return out
}

// dependencies merges dependencies, dependentSchemas ("schemas") and
// dependentRequired ("required") into draft-07's dependencies.
func (x *schemaExporter) dependencies(f *fileComp, out *object, v any, ptr, newPtr, kind string) {
	m, ok := v.(*object)
	if !ok {
		out.Set("dependencies", v)
		return
	}
	deps, _ := out.Vals["dependencies"].(*object)
	if deps == nil {
		deps = newObject()
		out.Set("dependencies", deps)
	}
	for _, k := range m.Keys {
		val := m.Vals[k]
		kp := ptr + "/" + escapePointerToken(k)
		np := newPtr + "/dependencies/" + escapePointerToken(k)
		isReq := kind == "required"
		if kind == "" {
			_, isReq = val.([]any)
		}
		prev, exists := deps.Vals[k]
		switch {
		case isReq && !exists:
			deps.Set(k, val)
		case isReq:
			// a schema is already there: {required, allOf: [schema]}
			f.movePointers(np, np+"/allOf/0")
			deps.Set(k, obj("required", val, "allOf", []any{prev}))
		case !exists:
			deps.Set(k, x.schema(f, val, kp, np))
		default:
			// required names already there: {required, allOf: [schema]}
			deps.Set(k, obj("required", prev, "allOf", []any{x.schema(f, val, kp, np+"/allOf/0")}))
		}
	}
}

// movePointers re-targets recorded pointers under from to under to.
func (f *fileComp) movePointers(from, to string) {
	for k, p := range f.ptrs {
		if p == from || strings.HasPrefix(p, from+"/") {
			f.ptrs[k] = to + p[len(from):]
		}
	}
}
