package jsonschema

import (
	"bytes"
	"fmt"
	"maps"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonorder"
	"github.com/evtool/evtool/internal/jsonpos"
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

var _ format.AsyncAPIComponenter = Provider{}

// AsyncAPIComponents starts the components.schemas of one AsyncAPI
// document for versions, every JSON Schema version of the catalog.
func (Provider) AsyncAPIComponents(versions []format.AsyncAPIVersion, fileOf func(url string) (display, rel string, ok bool)) (format.AsyncAPISchemas, error) {
	x := &schemaExporter{fileOf: fileOf, byLoc: map[string]*jsonschema.Schema{}, files: map[string]*fileComp{},
		names: map[string]string{}, texts: map[string][]byte{}}
	for _, v := range versions {
		s, ok := v.Schema.(*Schema)
		if !ok {
			return nil, format.NotKind(v.Schema, format.JSONSchema)
		}
		x.index(s.Compiled)
		base, _, _ := strings.Cut(v.URL, "#")
		x.texts[base] = v.Text
	}
	return x, nil
}

// AsyncAPISummary is the schema's description, else its title.
func (Provider) AsyncAPISummary(sch format.Schema) string {
	s, ok := sch.(*Schema)
	if !ok || s.Compiled == nil {
		return ""
	}
	if s.Compiled.Description != "" {
		return s.Compiled.Description
	}
	return s.Compiled.Title
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
	node   *jsonorder.Object
	target string // compiled location "url#pointer"
}

// schemaExporter is format.AsyncAPISchemas: the components of one
// document, exported as versions ask for them.
type schemaExporter struct {
	fileOf   func(url string) (display, rel string, ok bool)
	byLoc    map[string]*jsonschema.Schema // by url + "#" + decoded pointer
	files    map[string]*fileComp          // by base url
	queue    []*fileComp
	names    map[string]string // component name -> base url
	refs     []pendingRef
	warnings []format.AsyncAPIWarning // since the last Payload
	texts    map[string][]byte        // version files' text by base url
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
	base, ptr := splitLocation(loc)
	return base + "#" + ptr
}

// Payload returns the document reference to a version's schema, exporting
// it (and every file it reaches) on first use.
func (x *schemaExporter) Payload(v format.AsyncAPIVersion) (string, []format.AsyncAPIWarning, error) {
	x.warnings = nil
	base, _, _ := strings.Cut(v.URL, "#")
	f, err := x.file(base)
	if err != nil {
		return "", x.warnings, err
	}
	if err := x.drain(); err != nil {
		return "", x.warnings, err
	}
	return componentsSchemas + jsonpos.Escape(f.name), x.warnings, nil
}

// Schemas are the exported files, sorted by component name.
func (x *schemaExporter) Schemas() ([]format.AsyncAPISchema, error) {
	var out []format.AsyncAPISchema
	for _, name := range slices.Sorted(maps.Keys(x.names)) {
		var b bytes.Buffer
		if err := jsonorder.Write(&b, x.files[x.names[name]].out, ""); err != nil {
			return nil, err
		}
		out = append(out, format.AsyncAPISchema{Name: name, JSON: b.Bytes()})
	}
	return out, nil
}

// file returns the component of the file at base url, queueing it.
func (x *schemaExporter) file(base string) (*fileComp, error) {
	if f := x.files[base]; f != nil {
		return f, nil
	}
	display, rel, ok := x.fileOf(base)
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
		doc, err := jsonorder.Decode(text)
		if err != nil {
			return fmt.Errorf("%s: %w", f.display, err)
		}
		f.draft = draftOf(doc)
		f.out = x.schema(f, doc, "", "")
	}
	for _, r := range x.refs {
		base, ptr := splitLocation(r.target)
		tf, err := x.file(base)
		if err != nil {
			return fmt.Errorf("%s: %s/$ref: %w", r.from.display, r.ptr, err)
		}
		if len(x.queue) > 0 {
			if err := x.drain(); err != nil {
				return err
			}
		}
		r.node.Set("$ref", componentsSchemas+jsonpos.Escape(tf.name)+fragmentPointer(tf.mapPointer(ptr)))
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

func draftOf(doc any) int {
	o, ok := doc.(*jsonorder.Object)
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

func (x *schemaExporter) warn(f *fileComp, ptr, msg string, args ...any) {
	x.warnings = append(x.warnings, format.AsyncAPIWarning{File: f.display, Pointer: ptr, Message: fmt.Sprintf(msg, args...)})
}

// Keyword classes of the schema walk.
var (
	asyncAPIDropped = map[string]bool{"$schema": true, "$id": true, "$anchor": true, "$dynamicAnchor": true,
		"$recursiveAnchor": true, "$vocabulary": true}
	asyncAPIOneSchema = map[string]bool{"additionalProperties": true, "additionalItems": true, "not": true, "if": true,
		"then": true, "else": true, "contains": true, "propertyNames": true, "unevaluatedProperties": true,
		"unevaluatedItems": true, "contentSchema": true}
	asyncAPISchemaList = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true}
	asyncAPISchemaMap  = map[string]bool{"properties": true, "patternProperties": true}
	asyncAPIDefs       = map[string]bool{"$defs": true, "definitions": true}
	asyncAPINoDraft7   = map[string]string{
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
	in, ok := v.(*jsonorder.Object)
	if !ok {
		return v // a boolean schema (or something santhosh refused earlier)
	}
	out := jsonorder.New()
	_, hasPrefix := in.Vals["prefixItems"]
	var refNode *jsonorder.Object
	for _, k := range in.Keys {
		val := in.Vals[k]
		kp, np := ptr+"/"+jsonpos.Escape(k), newPtr+"/"+jsonpos.Escape(k)
		if msg, bad := asyncAPINoDraft7[k]; bad {
			x.warn(f, kp, "%s: kept as written, and AsyncAPI tools reading draft-07 ignore it (they accept more than the catalog does)", msg)
		}
		switch {
		case asyncAPIDropped[k]:
		case k == "id" && f.draft == 4:
		case k == "$ref":
			refNode = jsonorder.New()
			if s := x.byLoc[f.url+"#"+ptr]; s != nil && s.Ref != nil {
				x.refs = append(x.refs, pendingRef{from: f, ptr: ptr, node: refNode, target: s.Ref.Location})
			} else {
				x.warn(f, kp, "the compiler did not resolve this $ref; kept as written")
				refNode.Set("$ref", val)
			}
		case asyncAPIOneSchema[k]:
			out.Set(k, x.schema(f, val, kp, np))
		case asyncAPISchemaList[k]:
			out.Set(k, x.list(f, val, kp, np))
		case asyncAPISchemaMap[k]:
			out.Set(k, x.schemaMap(f, val, kp, np, false))
		case asyncAPIDefs[k]:
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
	m, ok := v.(*jsonorder.Object)
	if !ok {
		return v
	}
	out := jsonorder.New()
	for _, k := range m.Keys {
		kp := ptr + "/" + jsonpos.Escape(k)
		if defs {
			if _, reached := x.byLoc[f.url+"#"+kp]; !reached {
				continue
			}
		}
		out.Set(k, x.schema(f, m.Vals[k], kp, newPtr+"/"+jsonpos.Escape(k)))
	}
	if defs && out.Len() == 0 {
		return nil
	}
	return out
}

// dependencies merges dependencies, dependentSchemas ("schemas") and
// dependentRequired ("required") into draft-07's dependencies.
func (x *schemaExporter) dependencies(f *fileComp, out *jsonorder.Object, v any, ptr, newPtr, kind string) {
	m, ok := v.(*jsonorder.Object)
	if !ok {
		out.Set("dependencies", v)
		return
	}
	deps, _ := out.Vals["dependencies"].(*jsonorder.Object)
	if deps == nil {
		deps = jsonorder.New()
		out.Set("dependencies", deps)
	}
	for _, k := range m.Keys {
		val := m.Vals[k]
		kp := ptr + "/" + jsonpos.Escape(k)
		np := newPtr + "/dependencies/" + jsonpos.Escape(k)
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
			deps.Set(k, asyncAPIObject("required", val, "allOf", []any{prev}))
		case !exists:
			deps.Set(k, x.schema(f, val, kp, np))
		default:
			// required names already there: {required, allOf: [schema]}
			deps.Set(k, asyncAPIObject("required", prev, "allOf", []any{x.schema(f, val, kp, np+"/allOf/0")}))
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

// asyncAPIObject builds an object from key, value pairs; nil values are
// left out.
func asyncAPIObject(kv ...any) *jsonorder.Object {
	o := jsonorder.New()
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			continue
		}
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}
