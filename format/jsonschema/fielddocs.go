package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/internal/schemawalk"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// The field table of a JSON Schema version (evtool docs): the compiled
// schema walked with what its $refs and allOf members add at each place,
// properties in the order the authors wrote them (read again from the
// catalog's files, as the compiled schema keeps them in a map), recursion
// shown instead of followed.

var _ format.FieldDocumenter = Provider{}

// FieldDocs lists the fields of a JSON Schema (properties, items,
// pattern and additional properties, oneOf/anyOf variants, what $ref and
// allOf add) and describes the root: its type and constraints from the
// root and what it refers to, its title and description the version
// file's own (what the page leads with).
func (Provider) FieldDocs(sch format.Schema, files format.FieldDocFiles) (root format.FieldDoc, rows []format.FieldDoc, truncated bool) {
	s, ok := sch.(*Schema)
	if !ok || s.Compiled == nil {
		return format.FieldDoc{}, nil, false
	}
	texts := newSchemaTexts(files)
	root = describe(expand(s.Compiled), texts)
	root.Title, root.Description = s.Compiled.Title, s.Compiled.Description
	rows, truncated = fieldDocsOf(files, texts, s.Compiled)
	return root, rows, truncated
}

// fieldWalker turns a compiled schema into rows.
type fieldWalker struct {
	files format.FieldDocFiles
	texts *schemaTexts
	rows  []format.FieldDoc
	// stack holds the schemas being expanded, with the path they are at,
	// to show recursion instead of following it.
	stack     map[*jsonschema.Schema]string
	truncated bool
}

// schemaTexts reads catalog files (by compiled base URL) once, for the
// order in which authors wrote properties.
type schemaTexts struct {
	files format.FieldDocFiles
	byURL map[string]*schemaText
}

// schemaText is what the walker reads of one file: its text, the keys of its
// objects as written and its decoded document, each made once (and kept
// in files.Cache, by path, for the next versions that use the file).
type schemaText struct {
	text    []byte
	orders  map[string][]string
	doc     any
	decoded bool
}

func newSchemaTexts(files format.FieldDocFiles) *schemaTexts {
	return &schemaTexts{files: files, byURL: map[string]*schemaText{}}
}

// file is the file a base URL is compiled from, read through the catalog
// root (no text when unknown or unreadable: properties then come in name
// order).
func (c *schemaTexts) file(base string) *schemaText {
	f, ok := c.byURL[base]
	if ok {
		return f
	}
	f = &schemaText{}
	if p, _, found := locateFile(c.files, base); found && c.files.FS != nil {
		if kept, ok := c.files.Cache[p].(*schemaText); ok {
			f = kept
		} else {
			f.text, _ = format.ReadFile(c.files.FS, p, MaxFileSize)
			if c.files.Cache != nil {
				c.files.Cache[p] = f
			}
		}
	}
	c.byURL[base] = f
	return f
}

// keyOrder returns the keys of the object at ptr of the file, as written.
func (c *schemaTexts) keyOrder(loc, ptr string) []string {
	base, _, _ := strings.Cut(loc, "#")
	f := c.file(base)
	if f.orders == nil {
		f.orders = keyOrders(f.text)
	}
	return f.orders[ptr]
}

// raw returns the schema object a compiled schema was compiled from, for
// the annotations the compiled form leaves out (format, when formats are
// not asserted); nil when unknown.
func (c *schemaTexts) raw(s *jsonschema.Schema) map[string]any {
	base, ptr := splitLocation(s.Location)
	f := c.file(base)
	if !f.decoded {
		dec := json.NewDecoder(bytes.NewReader(f.text))
		dec.UseNumber()
		if dec.Decode(&f.doc) != nil {
			f.doc = nil
		}
		f.decoded = true
	}
	v, _ := jsonpos.Get(f.doc, ptr)
	m, _ := v.(map[string]any)
	return m
}

// keyOrders maps the JSON pointer of every object in a JSON text
// to its keys in document order (nil map for text that does not parse).
func keyOrders(text []byte) map[string][]string {
	out := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var walk func(ptr string) error
	walk = func(ptr string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		switch d {
		case '{':
			keys := []string{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				keys = append(keys, k)
				if err := walk(ptr + "/" + jsonpos.Escape(k)); err != nil {
					return err
				}
			}
			out[ptr] = keys
		case '[':
			for i := 0; dec.More(); i++ {
				if err := walk(ptr + "/" + strconv.Itoa(i)); err != nil {
					return err
				}
			}
		}
		_, err = dec.Token()
		return err
	}
	if err := walk(""); err != nil {
		return map[string][]string{}
	}
	return out
}

// locateFile is files.Locate, none when unset.
func locateFile(files format.FieldDocFiles, u string) (path, rel string, ok bool) {
	if files.Locate == nil {
		return "", "", false
	}
	return files.Locate(u)
}

// fieldDocsOf lists the rows of a version's schema.
func fieldDocsOf(files format.FieldDocFiles, texts *schemaTexts, s *jsonschema.Schema) ([]format.FieldDoc, bool) {
	w := &fieldWalker{files: files, texts: texts, stack: map[*jsonschema.Schema]string{}}
	if s == nil {
		return nil, false
	}
	conj := expand(s)
	w.push(conj, "")
	w.children("", 0, conj)
	w.pop(conj)
	return w.rows, w.truncated
}

// expand returns the schemas that together constrain one place: s, what
// it references, and its allOf members, recursively, each once.
func expand(s *jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	seen := map[*jsonschema.Schema]bool{}
	var add func(x *jsonschema.Schema)
	add = func(x *jsonschema.Schema) {
		if x == nil || seen[x] {
			return
		}
		seen[x] = true
		out = append(out, x)
		add(x.Ref)
		add(x.RecursiveRef)
		if x.DynamicRef != nil {
			add(x.DynamicRef.Ref)
		}
		for _, a := range x.AllOf {
			add(a)
		}
	}
	add(s)
	return out
}

func expandAll(ss []*jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	seen := map[*jsonschema.Schema]bool{}
	for _, s := range ss {
		for _, x := range expand(s) {
			if !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	return out
}

func (w *fieldWalker) push(conj []*jsonschema.Schema, path string) {
	for _, s := range conj {
		if _, ok := w.stack[s]; !ok {
			w.stack[s] = path
		}
	}
}

func (w *fieldWalker) pop(conj []*jsonschema.Schema) {
	for _, s := range conj {
		delete(w.stack, s)
	}
}

// recursion reports the path of an enclosing field that a schema with
// children repeats.
func (w *fieldWalker) recursion(conj []*jsonschema.Schema) (string, bool) {
	for _, s := range conj {
		if !hasChildren(s) {
			continue
		}
		if p, ok := w.stack[s]; ok {
			return p, true
		}
	}
	return "", false
}

func hasChildren(s *jsonschema.Schema) bool {
	return len(s.Properties) > 0 || len(s.PatternProperties) > 0 || s.Items2020 != nil || s.Items != nil ||
		len(s.PrefixItems) > 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0 || s.AdditionalProperties != nil
}

// field adds the row for a place and the rows below it.
func (w *fieldWalker) field(path string, depth int, property, required bool, conj []*jsonschema.Schema) {
	if len(w.rows) >= format.MaxFieldDocs || depth > format.MaxFieldDocDepth {
		w.truncated = true
		return
	}
	f := describe(conj, w.texts)
	f.Path, f.Depth, f.Required, f.Property = path, depth, required, property
	f.RefName = w.refName(conj)
	if p, ok := w.recursion(conj); ok {
		where := p
		if where == "" {
			where = "the event itself"
		}
		f.Constraints = append(f.Constraints, "recursive: same structure as "+where)
		w.rows = append(w.rows, f)
		return
	}
	w.rows = append(w.rows, f)
	w.push(conj, path)
	w.children(path, depth+1, conj)
	w.pop(conj)
}

// children adds the rows of the properties, items and variants of a place.
func (w *fieldWalker) children(path string, depth int, conj []*jsonschema.Schema) {
	// Properties: in the order of the first schema that declares them.
	props := map[string][]*jsonschema.Schema{}
	var order []string
	required := map[string]bool{}
	for _, s := range conj {
		for _, r := range s.Required {
			required[r] = true
		}
		if len(s.Properties) == 0 {
			continue
		}
		base, ptr := splitLocation(s.Location)
		written := w.texts.keyOrder(base, ptr+"/properties")
		names := make([]string, 0, len(s.Properties))
		seen := map[string]bool{}
		for _, k := range written {
			if _, ok := s.Properties[k]; ok && !seen[k] {
				names = append(names, k)
				seen[k] = true
			}
		}
		var rest []string
		for k := range s.Properties {
			if !seen[k] {
				rest = append(rest, k)
			}
		}
		sort.Strings(rest)
		for _, k := range append(names, rest...) {
			if _, ok := props[k]; !ok {
				order = append(order, k)
			}
			props[k] = append(props[k], s.Properties[k])
		}
	}
	for _, k := range order {
		w.field(format.FieldPath(path, k), depth, true, required[k], expandAll(props[k]))
	}
	for _, s := range conj {
		for _, re := range schemawalk.Patterns(s) {
			w.field(format.FieldPath(path, "[/"+re.String()+"/]"), depth, true, false, expand(s.PatternProperties[re]))
		}
		if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok && ap.Bool == nil {
			w.field(format.FieldPath(path, "*"), depth, true, false, expand(ap))
		}
	}
	// Items.
	for _, s := range conj {
		for i, p := range s.PrefixItems {
			w.field(fmt.Sprintf("%s[%d]", path, i), depth, false, false, expand(p))
		}
		if s.Items2020 != nil && s.Items2020.Bool == nil {
			w.field(path+"[]", depth, false, false, expand(s.Items2020))
		}
		switch it := s.Items.(type) {
		case *jsonschema.Schema:
			if it.Bool == nil {
				w.field(path+"[]", depth, false, false, expand(it))
			}
		case []*jsonschema.Schema:
			for i, p := range it {
				w.field(fmt.Sprintf("%s[%d]", path, i), depth, false, false, expand(p))
			}
			if ai, ok := s.AdditionalItems.(*jsonschema.Schema); ok && ai.Bool == nil {
				w.field(path+"[]", depth, false, false, expand(ai))
			}
		}
	}
	// Variants.
	for _, s := range conj {
		for _, v := range []struct {
			kw string
			ss []*jsonschema.Schema
		}{{"oneOf", s.OneOf}, {"anyOf", s.AnyOf}} {
			for i, alt := range v.ss {
				seg := fmt.Sprintf("{%s %d}", v.kw, i+1)
				p := seg
				if path != "" {
					p = path + " " + seg
				}
				w.field(p, depth, false, false, expand(alt))
			}
		}
	}
}

// refName names the definition a place refers to when it lives in
// another file or under $defs: its title, else its last pointer token,
// and the file.
func (w *fieldWalker) refName(conj []*jsonschema.Schema) string {
	if len(conj) == 0 {
		return ""
	}
	first := conj[0]
	var target *jsonschema.Schema
	switch {
	case first.Ref != nil:
		target = first.Ref
	case first.RecursiveRef != nil:
		target = first.RecursiveRef
	case first.DynamicRef != nil:
		target = first.DynamicRef.Ref
	}
	if target == nil {
		return ""
	}
	tb, tp := splitLocation(target.Location)
	fb, _ := splitLocation(first.Location)
	name := target.Title
	if name == "" && tp != "" {
		name = tp[strings.LastIndex(tp, "/")+1:]
	}
	if tb == fb {
		return name
	}
	_, rel, ok := locateFile(w.files, tb)
	if !ok {
		return name
	}
	if tp != "" {
		rel += "#" + tp
	}
	if name == "" {
		return rel
	}
	return name + " · " + rel
}

// describe summarizes what a conjunction of schemas says about one place.
func describe(conj []*jsonschema.Schema, texts *schemaTexts) format.FieldDoc {
	var f format.FieldDoc
	var types []string
	typed := false
	var enum []any
	hasEnum := false
	var cs []string
	add := func(format string, args ...any) {
		c := fmt.Sprintf(format, args...)
		for _, x := range cs {
			if x == c {
				return
			}
		}
		cs = append(cs, c)
	}
	for _, s := range conj {
		if f.Title == "" {
			f.Title = s.Title
		}
		if f.Description == "" {
			f.Description = s.Description
		}
		if s.Bool != nil && !*s.Bool {
			add("no value allowed (false)")
		}
		if s.Types != nil {
			ts := s.Types.ToStrings()
			if !typed {
				types, typed = ts, true
			} else {
				types = intersectTypes(types, ts)
			}
		}
		if s.Enum != nil {
			if !hasEnum {
				enum, hasEnum = s.Enum.Values, true
			} else {
				enum = intersectValues(enum, s.Enum.Values)
			}
		}
		if s.Const != nil {
			add("= %s", jsonText(*s.Const))
		}
		if raw := texts.raw(s); raw != nil {
			if f, ok := raw["format"].(string); ok {
				add("format %s", f)
			}
		} else if s.Format != nil {
			add("format %s", s.Format.Name)
		}
		if s.Pattern != nil {
			add("pattern %s", s.Pattern.String())
		}
		lengths(add, "length", s.MinLength, s.MaxLength)
		lengths(add, "items", s.MinItems, s.MaxItems)
		lengths(add, "properties", s.MinProperties, s.MaxProperties)
		if s.Minimum != nil {
			add("≥ %s", ratText(s.Minimum))
		}
		if s.ExclusiveMinimum != nil {
			add("> %s", ratText(s.ExclusiveMinimum))
		}
		if s.Maximum != nil {
			add("≤ %s", ratText(s.Maximum))
		}
		if s.ExclusiveMaximum != nil {
			add("< %s", ratText(s.ExclusiveMaximum))
		}
		if s.MultipleOf != nil {
			add("multiple of %s", ratText(s.MultipleOf))
		}
		if s.UniqueItems {
			add("unique items")
		}
		if s.Contains != nil {
			add("contains a matching item")
		}
		if s.AdditionalProperties != nil {
			if b, ok := s.AdditionalProperties.(bool); ok && !b {
				add("no other properties")
			}
		}
		if s.UnevaluatedProperties != nil && s.UnevaluatedProperties.Bool != nil && !*s.UnevaluatedProperties.Bool {
			add("no unevaluated properties")
		}
		if s.AdditionalItems != nil {
			if b, ok := s.AdditionalItems.(bool); ok && !b {
				add("no other items")
			}
		}
		if s.Items2020 != nil && s.Items2020.Bool != nil && !*s.Items2020.Bool && len(s.PrefixItems) > 0 {
			add("no other items")
		}
		for _, k := range slices.Sorted(maps.Keys(s.DependentRequired)) {
			add("with %s also %s", k, strings.Join(s.DependentRequired[k], ", "))
		}
		for _, k := range slices.Sorted(maps.Keys(s.Dependencies)) {
			if names, ok := s.Dependencies[k].([]string); ok {
				add("with %s also %s", k, strings.Join(names, ", "))
			} else {
				add("with %s: more constraints", k)
			}
		}
		if len(s.DependentSchemas) > 0 {
			add("with %s: more constraints", strings.Join(slices.Sorted(maps.Keys(s.DependentSchemas)), ", "))
		}
		if s.PropertyNames != nil {
			add("property names constrained")
		}
		if s.Not != nil {
			add("not: excludes a schema")
		}
		if s.If != nil {
			add("conditional (if/then/else)")
		}
		if len(s.OneOf) > 0 {
			add("exactly one of %d variants", len(s.OneOf))
		}
		if len(s.AnyOf) > 0 {
			add("any of %d variants", len(s.AnyOf))
		}
		if s.ContentEncoding != nil {
			add("encoding %s", s.ContentEncoding.Name)
		}
		if s.ContentMediaType != nil {
			add("media type %s", s.ContentMediaType.Name)
		}
		if s.Default != nil {
			add("default %s", jsonText(*s.Default))
		}
		if s.Deprecated {
			add("deprecated")
		}
		if s.ReadOnly {
			add("read-only")
		}
		if s.WriteOnly {
			add("write-only")
		}
	}
	switch {
	case typed && len(types) == 0:
		f.Type = "never (types conflict)"
	case typed:
		f.Type = strings.Join(types, " | ")
	case hasEnum:
		f.Type = strings.Join(valueTypes(enum), " | ")
	default:
		f.Type = inferType(conj)
	}
	if hasEnum {
		f.Enum = []string{}
		for _, v := range enum {
			f.Enum = append(f.Enum, jsonText(v))
		}
	}
	f.Constraints = cs
	return f
}

func lengths(add func(string, ...any), what string, min, max *int) {
	switch {
	case min != nil && max != nil && *min == *max:
		add("%s %d", what, *min)
	case min != nil && max != nil:
		add("%s %d–%d", what, *min, *max)
	case min != nil:
		add("%s ≥ %d", what, *min)
	case max != nil:
		add("%s ≤ %d", what, *max)
	}
}

func inferType(conj []*jsonschema.Schema) string {
	for _, s := range conj {
		switch {
		case len(s.Properties) > 0 || len(s.PatternProperties) > 0 || len(s.Required) > 0:
			return "object"
		case s.Items2020 != nil || s.Items != nil || len(s.PrefixItems) > 0:
			return "array"
		case s.Const != nil:
			return strings.Join(valueTypes([]any{*s.Const}), "")
		}
	}
	for _, s := range conj {
		if len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
			return "variants"
		}
	}
	return "any"
}

func intersectTypes(a, b []string) []string {
	has := func(list []string, t string) bool {
		for _, x := range list {
			if x == t {
				return true
			}
		}
		return false
	}
	var out []string
	for _, t := range a {
		switch {
		case has(b, t):
			out = append(out, t)
		case t == "number" && has(b, "integer"), t == "integer" && has(b, "number"):
			out = append(out, "integer")
		}
	}
	return out
}

func intersectValues(a, b []any) []any {
	var out []any
	for _, x := range a {
		for _, y := range b {
			if jsonText(x) == jsonText(y) {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

func valueTypes(vs []any) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range vs {
		var t string
		switch x := v.(type) {
		case nil:
			t = "null"
		case bool:
			t = "boolean"
		case string:
			t = "string"
		case []any:
			t = "array"
		case map[string]any:
			t = "object"
		case json.Number:
			if _, err := x.Int64(); err == nil {
				t = "integer"
			} else {
				t = "number"
			}
		default:
			t = "number"
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// jsonText renders a value compactly, map keys sorted.
func jsonText(v any) string {
	b, err := jsonvalue.Marshal(v, "")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
