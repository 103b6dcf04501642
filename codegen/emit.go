package codegen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/codegen/internal/rt"
	"github.com/evtool/evtool/internal/schemawalk"
)

// w writes Go source.
type w struct {
	b   bytes.Buffer
	tmp int
}

func (o *w) p(format string, args ...any) {
	fmt.Fprintf(&o.b, format, args...)
	o.b.WriteByte('\n')
}

func (o *w) raw(s string) { o.b.WriteString(s) }

// v returns a fresh local variable name.
func (o *w) v(prefix string) string {
	o.tmp++
	return prefix + strconv.Itoa(o.tmp)
}

func q(s string) string { return strconv.Quote(s) }

// emit writes every file.
func (g *gen) emit() ([]File, error) {
	if g.opts.Plain {
		return g.emitPlain()
	}
	byFile := map[string][]*def{}
	for _, d := range g.defs {
		byFile[d.file] = append(byFile[d.file], d)
	}
	var files []File
	for _, ti := range g.types {
		o := &w{}
		g.emitTypeHead(o, ti)
		defs := byFile[ti.t.Name]
		sort.SliceStable(defs, func(i, j int) bool { return defs[i].order < defs[j].order })
		for _, d := range defs {
			g.emitDef(o, d)
		}
		g.emitUnionFns(o)
		f, err := g.finish(ti.file, "", o.b.String())
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	for _, at := range g.avroTypes {
		f, err := g.emitAvroType(at)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	o := &w{}
	g.emitDecodeAll(o)
	shared := byFile[""]
	sort.SliceStable(shared, func(i, j int) bool { return shared[i].name < shared[j].name })
	for _, d := range shared {
		g.emitDef(o, d)
	}
	g.emitUnionFns(o)
	g.emitVars(o)
	g.emitRuntime(o)
	doc := "// Package " + g.opts.Package + " holds Go types for the events of an evtool catalog: one struct per\n" +
		"// version of each event type, decoded and validated against the version's JSON Schema in\n" +
		"// one pass, with typed CloudEvents constructors and decoders. Regenerate it with\n" +
		"// `evtool gen go`; check that it is up to date with `evtool gen go --check`.\n"
	if len(g.avroTypes) > 0 {
		doc += "//\n// Avro types are decoded from Avro's binary or JSON encoding instead, with Avro's schema\n" +
			"// resolution from the writer's version to the reader's.\n"
	}
	f, err := g.finish(SharedFile, doc, o.b.String())
	if err != nil {
		return nil, err
	}
	files = append(files, f)
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, nil
}

// goType is the Go type of values of n.
func goType(n *node) string {
	switch n.kind {
	case kRaw, kNever, kNullOnly:
		return "json.RawMessage"
	case kString:
		return "string"
	case kTime:
		return "time.Time"
	case kInt:
		return "int64"
	case kFloat:
		return "float64"
	case kBool:
		return "bool"
	case kMap:
		return "map[string]" + goType(n.elem)
	case kSlice:
		return "[]" + goType(n.elem)
	case kNull:
		return "Null[" + goType(n.elem) + "]"
	}
	return n.def.name
}

func (g *gen) emitTypeHead(o *w, ti *typeInfo) {
	t := ti.t
	doc := fmt.Sprintf("%sType is the CloudEvents type of %s events.", ti.base, t.Name)
	if t.Meta.Description != "" {
		doc += "\n\n" + t.Meta.Description
	}
	o.raw(comment(doc))
	o.p("const %sType = %s", ti.base, q(t.Name))
	o.p("")
	o.p("// The dataschema attribute of each version of %s events.", t.Name)
	o.p("const (")
	for _, vi := range ti.versions {
		o.p("%sDataSchema = %s", vi.name, q(g.cat.DataSchema(t.Name, vi.v.Number)))
	}
	o.p(")")
	o.p("")
	var names []string
	for _, vi := range ti.versions {
		names = append(names, "*"+vi.name)
	}
	o.raw(comment(fmt.Sprintf("%sData is the data of a %s event, one of: %s.", ti.base, t.Name, strings.Join(names, ", "))))
	o.p("type %sData interface {", ti.base)
	o.p("is%sData()", ti.base)
	o.p("}")
	o.p("")
	for _, vi := range ti.versions {
		o.p("func (*%s) is%sData() {}", vi.name, ti.base)
	}
	o.p("")
	srcVar := ""
	if t.Meta.Source != "" {
		srcVar = g.regexpVar(`^(?:` + t.Meta.Source + `)$`)
	}
	for _, vi := range ti.versions {
		n := vi.v.Number
		g.emitConstructorHead(o, t, ti.base, vi.name, n, srcVar, "", "application/json", "is not valid for the version's schema")
		o.p("b, err := data.MarshalJSON()")
		o.p("if err != nil {")
		o.p("return event.Event{}, evtEncodeErr(%sType, %d, err)", ti.base, n)
		o.p("}")
		o.p("var check %s", vi.name)
		o.p("if err := check.UnmarshalJSON(b); err != nil {")
		o.p("return event.Event{}, evtEncodeErr(%sType, %d, err)", ti.base, n)
		o.p("}")
		o.p("return evtNewEvent(%sType, %sDataSchema, source, b, opts)", ti.base, vi.name)
		o.p("}")
		o.p("")
	}
	latest := ti.versions[len(ti.versions)-1]
	o.raw(comment(fmt.Sprintf("Decode%s decodes and validates the data of a %s event: %s, the version chosen by the event's dataschema (the latest version when it has none). It fails for another type, an unknown dataschema, data that is not JSON, and data the version's schema rejects (the error then holds a *ValidationError per problem, each with a JSON pointer).", ti.base, t.Name, strings.Join(names, " or "))))
	o.p("func Decode%s(e event.Event) (%sData, error) {", ti.base, ti.base)
	o.p("data, err := evtEventData(e, %sType)", ti.base)
	o.p("if err != nil {")
	o.p("return nil, err")
	o.p("}")
	o.p("switch e.DataSchema() {")
	for _, vi := range ti.versions {
		if vi == latest {
			o.p("case %sDataSchema, \"\":", vi.name)
		} else {
			o.p("case %sDataSchema:", vi.name)
		}
		o.p("v := new(%s)", vi.name)
		o.p("if err := v.UnmarshalJSON(data); err != nil {")
		o.p("return nil, evtDataErr(e, %sType, %d, err)", ti.base, vi.v.Number)
		o.p("}")
		o.p("return v, nil")
	}
	o.p("}")
	o.p("return nil, evtUnknownDataSchema(e, %sType)", ti.base)
	o.p("}")
	o.p("")
}

// emitConstructorHead writes the doc comment, the signature and the source
// check of New<Version>Event; encoding, contentType and fails are what the
// format does with the data.
func (g *gen) emitConstructorHead(o *w, t *catalog.EventType, base, name string, n int, srcVar, encoding, contentType, fails string) {
	doc := fmt.Sprintf("New%sEvent returns a %s event (version %d) from source with data%s: a random UUID id, the current time, datacontenttype %s and dataschema %s. It fails when data %s", name, t.Name, n, encoding, contentType, g.cat.DataSchema(t.Name, n), fails)
	if srcVar != "" {
		doc += fmt.Sprintf(", when source does not match the catalog's pattern %q", t.Meta.Source)
	}
	doc += ", or when the options make the event invalid."
	if t.Deprecated(n) {
		doc += fmt.Sprintf("\n\nDeprecated: version %d of %s is deprecated in the catalog.", n, t.Name)
	}
	o.raw(comment(doc))
	o.p("func New%sEvent(source string, data %s, opts ...EventOption) (event.Event, error) {", name, name)
	if srcVar != "" {
		o.p("if !%s.MatchString(source) {", srcVar)
		o.p("return event.Event{}, evtSourceErr(%sType, source, %s)", base, q(t.Meta.Source))
		o.p("}")
	}
}

func (g *gen) emitDecodeAll(o *w) {
	o.raw(comment("Decode decodes and validates the data of an event of any type of the catalog: a pointer to the struct of the event's type and version (see the Decode<Type> functions). It fails for a type or version this code does not know, and for data the schema rejects."))
	o.p("func Decode(e event.Event) (any, error) {")
	o.p("switch e.Type() {")
	for _, base := range g.decodeOrder {
		o.p("case %sType:", base)
		o.p("v, err := Decode%s(e)", base)
		o.p("if err != nil {")
		o.p("return nil, err")
		o.p("}")
		o.p("return v, nil")
	}
	o.p("}")
	o.p("return nil, evtUnknownType(e)")
	o.p("}")
	o.p("")
}

// docOf is the doc comment of a named type.
func (g *gen) docOf(d *def, what string) string {
	text := describe(d.s)
	var vi *verInfo
	for _, ti := range g.types {
		for _, v := range ti.versions {
			if v.root == d {
				vi = v
			}
		}
	}
	head := d.name + " " + what
	if vi != nil {
		head = fmt.Sprintf("%s is the data of version %d of %s events.", d.name, vi.v.Number, vi.ti.t.Name)
		if vi.ti.t.Deprecated(vi.v.Number) {
			text += fmt.Sprintf("\n\nDeprecated: version %d of %s is deprecated in the catalog.", vi.v.Number, vi.ti.t.Name)
		}
	}
	out := head
	if text != "" {
		out += "\n\n" + text
	}
	out += "\n\nSchema: " + g.cs.rel(d.loc)
	return comment(out)
}

func (g *gen) emitDef(o *w, d *def) {
	switch d.kind {
	case kStruct:
		g.emitStruct(o, d)
	case kEnum:
		g.emitEnum(o, d)
	case kSealed:
		g.emitSealed(o, d)
	case kKindUnion, kBranchUnion:
		g.emitUnion(o, d)
	case kWrapper:
		g.emitWrapper(o, d)
	}
}

// emitCodec writes UnmarshalJSON, MarshalJSON and Validate of a named type.
func (g *gen) emitCodec(o *w, d *def) {
	o.raw(comment("UnmarshalJSON decodes b into v and validates it against the schema in the same pass. It reports every problem, each as a *ValidationError with a JSON pointer (joined with errors.Join). v is reset first."))
	o.p("func (v *%s) UnmarshalJSON(b []byte) error {", d.name)
	o.p("var path [16]evtSeg")
	o.p("d := evtDecoder{data: b, path: path[:0]}")
	o.p("var zero %s", d.name)
	o.p("*v = zero")
	o.p("v.decodeFrom(&d)")
	o.p("return d.finish()")
	o.p("}")
	o.p("")
	o.p("// MarshalJSON encodes v; it does not validate (see Validate).")
	o.p("func (v %s) MarshalJSON() ([]byte, error) {", d.name)
	o.p("e := evtEncoder{}")
	o.p("v.encodeTo(&e)")
	o.p("return e.b, e.err")
	o.p("}")
	o.p("")
	o.p("// Validate reports every way v fails its schema, as UnmarshalJSON would.")
	o.p("func (v *%s) Validate() error {", d.name)
	o.p("b, err := v.MarshalJSON()")
	o.p("if err != nil {")
	o.p("return err")
	o.p("}")
	o.p("var check %s", d.name)
	o.p("return check.UnmarshalJSON(b)")
	o.p("}")
	o.p("")
}

func (g *gen) fieldType(f *field) string {
	t := goType(f.n)
	if f.ptr {
		return "*" + t
	}
	return t
}

// jsonTag renders a struct tag when the name can be an encoding/json tag.
func jsonTag(name string, omit bool) string {
	if name == "" || strings.ContainsAny(name, ",\"`\\") {
		return ""
	}
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case c < 0x80 && !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'):
			return ""
		}
	}
	v := name
	if omit {
		v += ",omitempty"
	}
	return " `json:" + q(v) + "`"
}

func (g *gen) emitStruct(o *w, d *def) {
	o.raw(g.docOf(d, "is an object of the catalog."))
	o.p("type %s struct {", d.name)
	for _, f := range d.fields {
		if f.constRaw != nil {
			continue
		}
		doc := f.doc
		req := "Optional"
		if f.required {
			req = "Required"
		}
		switch {
		case f.n.kind == kNull && f.required:
			req += "; null when not Valid"
		case f.n.kind == kNull:
			req += " (nil when absent); null when not Valid"
		case !f.required:
			req += " (nil when absent)"
		}
		if doc != "" {
			doc += "\n\n"
		}
		doc += req + "."
		o.raw(comment(doc))
		o.p("%s %s%s", f.name, g.fieldType(f), jsonTag(f.json, !f.required))
	}
	switch {
	case d.extra != nil:
		o.p("// AdditionalProperties holds the members the schema does not declare (additionalProperties).")
		o.p("AdditionalProperties map[string]%s `json:\"-\"`", goType(d.extra))
	case d.keepExtra:
		o.p("// AdditionalProperties holds members the schema does not declare: the object is open, so they are kept (and written back) as they came.")
		o.p("AdditionalProperties map[string]json.RawMessage `json:\"-\"`")
	}
	o.p("}")
	o.p("")
	var consts []string
	for _, f := range d.fields {
		if f.constRaw != nil {
			consts = append(consts, fmt.Sprintf("%q is always %s", f.json, *f.constRaw))
		}
	}
	if len(consts) > 0 {
		o.raw(comment(fmt.Sprintf("(%s has no field for the constant members: %s.)", d.name, strings.Join(consts, "; "))))
		o.p("")
	}
	for _, s := range d.seals {
		o.p("func (*%s) is%s() {}", d.name, s.name)
		o.p("")
	}
	g.emitCodec(o, d)

	// decode
	o.p("func (v *%s) decodeFrom(d *evtDecoder) {", d.name)
	post := g.prePost(o, d.node, true)
	o.p("if d.objBegin() {")
	nbits := len(d.fields) + len(d.undeclared)
	words := (nbits + 63) / 64
	if nbits > 0 {
		if words == 1 {
			o.p("var seen uint64")
		} else {
			o.p("var seen [%d]uint64", words)
		}
	}
	bit := func(i int) string {
		if words == 1 {
			return fmt.Sprintf("seen&(1<<%d)", i)
		}
		return fmt.Sprintf("seen[%d]&(1<<%d)", i/64, i%64)
	}
	set := func(i int) string {
		if words == 1 {
			return fmt.Sprintf("seen |= 1 << %d", i)
		}
		return fmt.Sprintf("seen[%d] |= 1 << %d", i/64, i%64)
	}
	o.p("i := 0")
	o.p("for ; d.objMore(i); i++ {")
	o.p("k := d.objKey()")
	o.p("switch string(k) {")
	for i, f := range d.fields {
		o.p("case %s:", q(f.json))
		o.p("if %s != 0 {", bit(i))
		o.p("d.dup(%s)", q(f.json))
		o.p("}")
		o.p("%s", set(i))
		o.p("d.push(%s)", q(f.json))
		switch {
		case f.constRaw != nil:
			// The value is the const or wrong: compared as JSON, never
			// decoded into a Go type it might not fit (const 1e400).
			raw := o.v("raw")
			o.p("if %s := d.raw(); !d.stop {", raw)
			o.p("if c := evtCanon(%s); c != %s {", raw, q(rt.Canon([]byte(*f.constRaw))))
			o.p("d.failConst(string(%s), %s)", raw, q(*f.constRaw))
			o.p("}")
			o.p("}")
		case f.ptr:
			o.p("v.%s = new(%s)", f.name, goType(f.n))
			g.decode(o, f.n, "(*v."+f.name+")")
		default:
			g.decode(o, f.n, "v."+f.name)
		}
		o.p("d.pop()")
	}
	for _, name := range d.forbidden {
		o.p("case %s:", q(name))
		o.p("d.notAllowed(%s)", q(name))
		o.p("d.skip()")
	}
	for i, name := range d.undeclared {
		o.p("case %s:", q(name))
		o.p("%s", set(len(d.fields)+i))
		g.emitExtraMember(o, d)
	}
	o.p("default:")
	g.emitExtraMember(o, d)
	o.p("}")
	o.p("}")
	for _, r := range d.required {
		idx := -1
		for i, f := range d.fields {
			if f.json == r {
				idx = i
			}
		}
		for i, u := range d.undeclared {
			if u == r {
				idx = len(d.fields) + i
			}
		}
		if idx < 0 {
			o.p("d.missing(%s)", q(r)) // forbidden and required: never valid
			continue
		}
		o.p("if %s == 0 {", bit(idx))
		o.p("d.missing(%s)", q(r))
		o.p("}")
	}
	if s := d.s; s.MinProperties != nil || s.MaxProperties != nil {
		if s.MinProperties != nil {
			o.p("if i < %d {", *s.MinProperties)
			o.p("d.failProps(i, \"fewer than\", \"minProperties\", %d)", *s.MinProperties)
			o.p("}")
		}
		if s.MaxProperties != nil {
			o.p("if i > %d {", *s.MaxProperties)
			o.p("d.failProps(i, \"more than\", \"maxProperties\", %d)", *s.MaxProperties)
			o.p("}")
		}
	} else {
		o.p("_ = i")
	}
	o.p("}")
	post()
	o.p("}")
	o.p("")

	// encode
	o.p("func (v *%s) encodeTo(e *evtEncoder) {", d.name)
	if len(d.fields) > 0 || d.extra != nil || d.keepExtra {
		o.p("start := len(e.b)")
	}
	o.p("e.b = append(e.b, '{')")
	for _, f := range d.fields {
		key := q(jsonQuote(f.json) + ":")
		switch {
		case f.constRaw != nil:
			o.p("e.key(start, %s)", key)
			o.p("e.b = append(e.b, %s...)", q(*f.constRaw))
		case f.ptr || (!f.required && nilable(f.n)):
			o.p("if v.%s != nil {", f.name)
			o.p("e.key(start, %s)", key)
			if f.ptr {
				g.encode(o, f.n, "(*v."+f.name+")")
			} else {
				g.encode(o, f.n, "v."+f.name)
			}
			if f.required {
				o.p("} else {")
				o.p("e.key(start, %s)", key)
				o.p("e.null()")
			}
			o.p("}")
		default:
			o.p("e.key(start, %s)", key)
			g.encode(o, f.n, "v."+f.name)
		}
	}
	if d.extra != nil || d.keepExtra {
		o.p("for _, k := range evtSortedKeys(v.AdditionalProperties) {")
		var declared []string
		for _, f := range d.fields {
			declared = append(declared, q(f.json))
		}
		if len(declared) > 0 {
			o.p("switch k {")
			o.p("case %s:", strings.Join(declared, ", "))
			o.p("e.fail(\"%s.AdditionalProperties holds the declared property \" + strconv.Quote(k))", d.name)
			o.p("continue")
			o.p("}")
		}
		o.p("e.dynKey(start, k)")
		o.p("x := v.AdditionalProperties[k]")
		if d.extra != nil {
			g.encode(o, d.extra, "x")
		} else {
			o.p("e.raw(x)")
		}
		o.p("}")
	}
	o.p("e.b = append(e.b, '}')")
	o.p("}")
	o.p("")
}

// jsonQuote quotes a member name as JSON ("" when Go quoting and JSON
// quoting differ, which the caller handles).
func jsonQuote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// nilable reports whether the Go type of n has nil for "absent".
func nilable(n *node) bool {
	switch n.kind {
	case kRaw, kNever, kNullOnly, kMap, kSlice, kSealed:
		return true
	}
	return false
}

// emitExtraMember writes the handling of a member the struct does not
// declare.
func (g *gen) emitExtraMember(o *w, d *def) {
	switch {
	case d.closed:
		o.p("d.notAllowed(string(k))")
		o.p("d.skip()")
	case d.extra != nil:
		o.p("name := string(k)")
		o.p("if _, dup := v.AdditionalProperties[name]; dup {")
		o.p("d.dup(name)")
		o.p("}")
		o.p("d.push(name)")
		x := o.v("x")
		o.p("var %s %s", x, goType(d.extra))
		g.decode(o, d.extra, x)
		o.p("if v.AdditionalProperties == nil {")
		o.p("v.AdditionalProperties = map[string]%s{}", goType(d.extra))
		o.p("}")
		o.p("v.AdditionalProperties[name] = %s", x)
		o.p("d.pop()")
	default:
		o.p("name := string(k)")
		o.p("if _, dup := v.AdditionalProperties[name]; dup {")
		o.p("d.dup(name)")
		o.p("}")
		o.p("if r := d.raw(); r != nil {")
		o.p("if v.AdditionalProperties == nil {")
		o.p("v.AdditionalProperties = map[string]json.RawMessage{}")
		o.p("}")
		o.p("v.AdditionalProperties[name] = evtCopy(r)")
		o.p("}")
	}
}

// prePost writes what a value's decoding needs first (the start offset and
// error count) and returns a function writing the checks after it: enum
// and const over the whole value, oneOf/anyOf, and the embedded schema.
// named: n is a named type's own node (its checks live in decodeFrom).
func (g *gen) prePost(o *w, n *node, named bool) func() {
	if n == nil {
		return func() {}
	}
	canon := !n.noEnum && (n.s.Enum != nil || n.s.Const != nil) && canonChecked(n)
	fb := n.fallback && n.mask == ksAll
	if !canon && !fb && len(n.unions) == 0 {
		return func() {}
	}
	start, nerr := o.v("start"), o.v("nerr")
	o.p("%s, %s := d.mark(), len(d.errs)", start, nerr)
	return func() {
		o.p("if !d.stop {")
		if canon {
			g.canonCheck(o, n.s, "d.data["+start+":d.pos]")
		}
		for _, uc := range n.unions {
			if !g.unionSeen[uc] {
				g.unionSeen[uc] = true
				g.unionFns = append(g.unionFns, &unionFn{uc: uc})
			}
			o.p("%s(d, d.data[%s:d.pos])", uc.fn, start)
		}
		if fb {
			o.p("if len(d.errs) == %s {", nerr)
			o.p("d.schema(&%s, %s)", g.schemaVar(n.loc), start)
			o.p("}")
		} else {
			o.p("_ = %s", nerr)
		}
		o.p("}")
	}
}

// canonChecked reports whether enum/const of n are checked on the raw
// value (for the kinds without a typed check).
func canonChecked(n *node) bool {
	switch n.kind {
	case kString, kTime, kInt, kFloat, kBool, kEnum, kNull:
		return false
	}
	return true
}

// canonCheck writes an enum/const check of a raw value by canonical text.
func (g *gen) canonCheck(o *w, s *jsonschema.Schema, raw string) {
	if s.Const != nil {
		want := rt.Canon([]byte(jsonText(*s.Const)))
		o.p("if c := evtCanon(%s); c != %s {", raw, q(want))
		o.p("d.failConst(string(%s), %s)", raw, q(jsonText(*s.Const)))
		o.p("}")
	}
	if s.Enum != nil {
		var keys, shown []string
		seen := map[string]bool{}
		for _, v := range s.Enum.Values {
			k := rt.Canon([]byte(jsonText(v)))
			if !seen[k] {
				seen[k] = true
				keys = append(keys, q(k))
				shown = append(shown, jsonText(v))
			}
		}
		o.p("switch evtCanon(%s) {", raw)
		o.p("case %s:", strings.Join(keys, ", "))
		o.p("default:")
		o.p("d.failEnum(string(%s), %s)", raw, q(enumList(shown)))
		o.p("}")
	}
}

func enumList(vals []string) string {
	s := strings.Join(vals, ", ")
	if len(s) > 200 {
		s = s[:190] + "..."
	}
	return "[" + s + "]"
}

// decode writes statements that decode the next value into target (an
// addressable expression of n's Go type), with n's checks.
func (g *gen) decode(o *w, n *node, target string) {
	if n.def != nil {
		switch n.def.kind {
		case kSealed:
			o.p("%s = decode%s(d)", target, n.def.name)
		default:
			o.p("%s.decodeFrom(d)", target)
		}
		return
	}
	post := g.prePost(o, n, false)
	g.decodeKind(o, n, target)
	post()
}

func (g *gen) decodeKind(o *w, n *node, target string) {
	s := n.s
	switch n.kind {
	case kRaw:
		o.p("if r := d.raw(); r != nil {")
		o.p("%s = evtCopy(r)", target)
		o.p("}")
	case kNever:
		o.p("d.fail(\"no value is valid here (the schema is false)\")")
		o.p("d.skip()")
	case kNullOnly:
		o.p("if d.nullv() {")
		o.p("%s = json.RawMessage(\"null\")", target)
		o.p("}")
	case kString:
		x := o.v("x")
		o.p("if %s, ok := d.str(); ok {", x)
		g.stringChecks(o, s, x, n.noEnum)
		o.p("%s = %s", target, x)
		o.p("}")
	case kTime:
		x := o.v("x")
		o.p("if %s, ok := d.str(); ok {", x)
		o.p("if t, ok := evtParseDateTime(%s); ok {", x)
		o.p("%s = t", target)
		o.p("} else {")
		o.p("d.failFormat(%s, \"date-time\")", x)
		o.p("}")
		g.stringChecks(o, s, x, n.noEnum)
		o.p("}")
	case kInt:
		x, lit := o.v("x"), o.v("lit")
		o.p("if %s, %s, ok := d.int64v(); ok {", x, lit)
		g.intChecks(o, s, x, lit, n.noEnum)
		o.p("%s = %s", target, x)
		o.p("}")
	case kFloat:
		x, lit := o.v("x"), o.v("lit")
		o.p("if %s, %s, ok := d.float64v(); ok {", x, lit)
		g.floatChecks(o, s, x, lit, n.noEnum)
		o.p("%s = %s", target, x)
		o.p("}")
	case kBool:
		x := o.v("x")
		o.p("if %s, ok := d.boolv(); ok {", x)
		if !n.noEnum {
			g.boolChecks(o, s, x)
		}
		o.p("%s = %s", target, x)
		o.p("}")
	case kSlice:
		xs, i, z := o.v("xs"), o.v("i"), o.v("z")
		o.p("if d.arrBegin() {")
		o.p("%s := %s{}", xs, goType(n))
		o.p("var %s %s", z, goType(n.elem))
		spans := ""
		if s.UniqueItems && !comparableKind(n.elem) {
			spans = o.v("spans")
			o.p("var %s []int", spans)
		}
		o.p("for %s := 0; d.arrMore(%s); %s++ {", i, i, i)
		o.p("d.pushIdx(%s)", i)
		o.p("%s = append(%s, %s)", xs, xs, z)
		if spans != "" {
			o.p("%s = append(%s, d.mark())", spans, spans)
		}
		g.decode(o, n.elem, xs+"[len("+xs+")-1]")
		if spans != "" {
			o.p("%s = append(%s, d.pos)", spans, spans)
		}
		o.p("d.pop()")
		o.p("}")
		if s.MinItems != nil {
			o.p("if len(%s) < %d {", xs, *s.MinItems)
			o.p("d.failItems(len(%s), \"fewer than\", \"minItems\", %d)", xs, *s.MinItems)
			o.p("}")
		}
		if s.MaxItems != nil {
			o.p("if len(%s) > %d {", xs, *s.MaxItems)
			o.p("d.failItems(len(%s), \"more than\", \"maxItems\", %d)", xs, *s.MaxItems)
			o.p("}")
		}
		if s.UniqueItems {
			if spans != "" {
				o.p("if i, j, dup := evtDupRaw(d.data, %s); dup {", spans)
			} else {
				o.p("if i, j, dup := evtDup(%s); dup {", xs)
			}
			o.p("d.failUnique(i, j)")
			o.p("}")
		}
		o.p("%s = %s", target, xs)
		o.p("}")
	case kMap:
		m, i, x := o.v("m"), o.v("i"), o.v("x")
		o.p("if d.objBegin() {")
		o.p("%s := %s{}", m, goType(n))
		o.p("%s := 0", i)
		o.p("for ; d.objMore(%s); %s++ {", i, i)
		o.p("k := string(d.objKey())")
		o.p("if _, dup := %s[k]; dup {", m)
		o.p("d.dup(k)")
		o.p("}")
		o.p("d.push(k)")
		o.p("var %s %s", x, goType(n.elem))
		g.decode(o, n.elem, x)
		o.p("%s[k] = %s", m, x)
		o.p("d.pop()")
		o.p("}")
		if s.MinProperties != nil {
			o.p("if %s < %d {", i, *s.MinProperties)
			o.p("d.failProps(%s, \"fewer than\", \"minProperties\", %d)", i, *s.MinProperties)
			o.p("}")
		}
		if s.MaxProperties != nil {
			o.p("if %s > %d {", i, *s.MaxProperties)
			o.p("d.failProps(%s, \"more than\", \"maxProperties\", %d)", i, *s.MaxProperties)
			o.p("}")
		}
		o.p("%s = %s", target, m)
		o.p("}")
	case kNull:
		o.p("if d.isNull() {")
		o.p("%s = %s{}", target, goType(n))
		if !nullAllowed(s) && !n.noEnum {
			o.p("d.fail(\"null is not one of the allowed values\")")
		}
		o.p("} else {")
		o.p("%s.Valid = true", target)
		g.decode(o, n.elem, target+".V")
		o.p("}")
	default:
		panic(fmt.Sprintf("codegen: decode of kind %d", n.kind))
	}
}

// nullAllowed reports whether enum/const of s allow null.
func nullAllowed(s *jsonschema.Schema) bool {
	if s.Const != nil && *s.Const != nil {
		return false
	}
	if s.Enum != nil {
		for _, v := range s.Enum.Values {
			if v == nil {
				return true
			}
		}
		return false
	}
	return true
}

func comparableKind(n *node) bool {
	switch n.kind {
	case kString, kInt, kBool, kEnum:
		return true
	}
	return false
}

func (g *gen) stringChecks(o *w, s *jsonschema.Schema, x string, noEnum bool) {
	if s.MinLength != nil || s.MaxLength != nil {
		o.p("if n := evtRuneCount(%s); false {", x)
		if s.MinLength != nil {
			o.p("} else if n < %d {", *s.MinLength)
			o.p("d.failMinLength(%s, %d)", x, *s.MinLength)
		}
		if s.MaxLength != nil {
			o.p("} else if n > %d {", *s.MaxLength)
			o.p("d.failMaxLength(%s, %d)", x, *s.MaxLength)
		}
		o.p("}")
	}
	if s.Pattern != nil {
		o.p("if !%s(%s) {", g.matcher(s.Pattern.String()), x)
		o.p("d.failPattern(%s, %s)", x, q(s.Pattern.String()))
		o.p("}")
	}
	if s.Format != nil {
		if fn := nativeFormats[s.Format.Name]; fn != "" && s.Format.Name != "date-time" {
			o.p("if !%s(%s) {", fn, x)
			o.p("d.failFormat(%s, %s)", x, q(s.Format.Name))
			o.p("}")
		} else if s.Format.Name == "date-time" && !isTimeKind(s) {
			o.p("if _, ok := evtParseDateTime(%s); !ok {", x)
			o.p("d.failFormat(%s, \"date-time\")", x)
			o.p("}")
		}
	}
	if noEnum {
		return
	}
	if s.Const != nil {
		if c, ok := (*s.Const).(string); ok {
			o.p("if %s != %s {", x, q(c))
			o.p("d.failConst(strconv.Quote(%s), %s)", x, q(jsonText(c)))
			o.p("}")
		} else {
			o.p("d.failConst(strconv.Quote(%s), %s)", x, q(jsonText(*s.Const)))
		}
	}
	if s.Enum != nil {
		vals, shown := stringEnum(s)
		if len(vals) == 0 {
			o.p("d.failEnum(strconv.Quote(%s), %s)", x, q(enumList(shown)))
			return
		}
		o.p("switch %s {", x)
		o.p("case %s:", strings.Join(vals, ", "))
		o.p("default:")
		o.p("d.failEnum(strconv.Quote(%s), %s)", x, q(enumList(shown)))
		o.p("}")
	}
}

// isTimeKind: a date-time string decoded as time.Time checks its format
// while decoding.
func isTimeKind(s *jsonschema.Schema) bool {
	return s.Format != nil && s.Format.Name == "date-time" && !(s.Enum != nil && s.Const == nil)
}

func stringEnum(s *jsonschema.Schema) (vals, shown []string) {
	seen := map[string]bool{}
	for _, v := range s.Enum.Values {
		shown = append(shown, jsonText(v))
		if str, ok := v.(string); ok && !seen[str] {
			seen[str] = true
			vals = append(vals, q(str))
		}
	}
	return vals, shown
}

// numText returns the text of a numeric keyword as the schema writes it,
// so that huge exponents never go through big arithmetic twice.
func (g *gen) numText(s *jsonschema.Schema, kw string, r *big.Rat) string {
	if f, ptr := g.cs.split(s.Location); f != nil {
		// a number there is the keyword's value (draft 4's boolean
		// exclusiveMinimum/Maximum are not numbers: they fall through)
		if n, ok := docAt(f.doc, ptr+"/"+kw).(json.Number); ok {
			return string(n)
		}
	}
	return ratDecimal(r)
}

// intBound is an integer bound of an int64 value: lo/hi inclusive, or
// never when no int64 satisfies it.
func intBounds(s *jsonschema.Schema) (lo, hi *big.Int) {
	ceil := func(r *big.Rat) *big.Int {
		q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
		if m.Sign() != 0 {
			q.Add(q, big.NewInt(1))
		}
		return q
	}
	floor := func(r *big.Rat) *big.Int {
		q, _ := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
		return q
	}
	max := func(a, b *big.Int) *big.Int {
		if a == nil || b.Cmp(a) > 0 {
			return b
		}
		return a
	}
	min := func(a, b *big.Int) *big.Int {
		if a == nil || b.Cmp(a) < 0 {
			return b
		}
		return a
	}
	if s.Minimum != nil {
		lo = max(lo, ceil(s.Minimum))
	}
	if s.ExclusiveMinimum != nil {
		lo = max(lo, new(big.Int).Add(floor(s.ExclusiveMinimum), big.NewInt(1)))
	}
	if s.Maximum != nil {
		hi = min(hi, floor(s.Maximum))
	}
	if s.ExclusiveMaximum != nil {
		hi = min(hi, new(big.Int).Sub(ceil(s.ExclusiveMaximum), big.NewInt(1)))
	}
	return lo, hi
}

var (
	minInt64 = big.NewInt(-1 << 63)
	maxInt64 = big.NewInt(1<<63 - 1)
)

func (g *gen) intChecks(o *w, s *jsonschema.Schema, x, lit string, noEnum bool) {
	used := false
	lo, hi := intBounds(s)
	kwLo, kwHi := "minimum", "maximum"
	boundLo, boundHi := "", ""
	if s.Minimum != nil {
		boundLo = g.numText(s, "minimum", s.Minimum)
	}
	if s.ExclusiveMinimum != nil && (s.Minimum == nil || s.ExclusiveMinimum.Cmp(s.Minimum) >= 0) {
		kwLo, boundLo = "exclusiveMinimum", g.numText(s, "exclusiveMinimum", s.ExclusiveMinimum)
	}
	if s.Maximum != nil {
		boundHi = g.numText(s, "maximum", s.Maximum)
	}
	if s.ExclusiveMaximum != nil && (s.Maximum == nil || s.ExclusiveMaximum.Cmp(s.Maximum) <= 0) {
		kwHi, boundHi = "exclusiveMaximum", g.numText(s, "exclusiveMaximum", s.ExclusiveMaximum)
	}
	relLo, relHi := "less than", "greater than"
	if kwLo == "exclusiveMinimum" {
		relLo = "not greater than"
	}
	if kwHi == "exclusiveMaximum" {
		relHi = "not less than"
	}
	if lo != nil && lo.Cmp(minInt64) > 0 {
		used = true
		if lo.Cmp(maxInt64) > 0 {
			o.p("d.failBound(%s, %s, %s, %s)", lit, q(relLo), q(kwLo), q(boundLo))
		} else {
			o.p("if %s < %s {", x, lo.String())
			o.p("d.failBound(%s, %s, %s, %s)", lit, q(relLo), q(kwLo), q(boundLo))
			o.p("}")
		}
	}
	if hi != nil && hi.Cmp(maxInt64) < 0 {
		used = true
		if hi.Cmp(minInt64) < 0 {
			o.p("d.failBound(%s, %s, %s, %s)", lit, q(relHi), q(kwHi), q(boundHi))
		} else {
			o.p("if %s > %s {", x, hi.String())
			o.p("d.failBound(%s, %s, %s, %s)", lit, q(relHi), q(kwHi), q(boundHi))
			o.p("}")
		}
	}
	if m := s.MultipleOf; m != nil {
		// x/m is an integer iff the numerator of m (in lowest terms) divides x
		p := m.Num()
		used = true
		if p.Cmp(maxInt64) > 0 {
			o.p("if %s != 0 {", x)
		} else {
			o.p("if %s%%%s != 0 {", x, p.String())
		}
		o.p("d.failMultipleOf(%s, %s)", lit, q(g.numText(s, "multipleOf", m)))
		o.p("}")
	}
	if !noEnum && (s.Const != nil || s.Enum != nil) {
		used = true
		var vals []string
		var shown []string
		var list []any
		if s.Const != nil {
			list = []any{*s.Const}
		} else {
			list = s.Enum.Values
		}
		seen := map[string]bool{}
		for _, v := range list {
			shown = append(shown, jsonText(v))
			if kindOfValue(v) != ksInt {
				continue
			}
			n, st := rt.ParseIntLit(jsonText(v))
			if st != 0 || seen[strconv.FormatInt(n, 10)] {
				continue
			}
			seen[strconv.FormatInt(n, 10)] = true
			vals = append(vals, strconv.FormatInt(n, 10))
		}
		fail := fmt.Sprintf("d.failEnum(string(%s), %s)", lit, q(enumList(shown)))
		if s.Const != nil {
			fail = fmt.Sprintf("d.failConst(string(%s), %s)", lit, q(jsonText(*s.Const)))
		}
		if len(vals) == 0 {
			o.p("%s", fail)
		} else {
			o.p("switch %s {", x)
			o.p("case %s:", strings.Join(vals, ", "))
			o.p("default:")
			o.p("%s", fail)
			o.p("}")
		}
	}
	if !used {
		o.p("_ = %s", lit)
	}
}

func (g *gen) floatChecks(o *w, s *jsonschema.Schema, x, lit string, noEnum bool) {
	used := false
	bound := func(r *big.Rat, kw, rel, cmpFast, cmpExact string, isMax, exclusive bool) {
		if r == nil {
			return
		}
		dec := g.numText(s, kw, r)
		f, _ := r.Float64()
		fs := strconv.FormatFloat(f, 'g', -1, 64)
		if strings.Contains(fs, "Inf") {
			// a bound beyond float64: every float64 is on one side of it
			if (r.Sign() > 0) == isMax {
				return // satisfied by every value: no code, lit unused
			}
			used = true
			o.p("d.failBound(%s, %s, %s, %s)", lit, q(rel), q(kw), q(dec))
			return
		}
		used = true
		if !strings.ContainsAny(fs, ".eE") {
			fs += ".0"
		}
		o.p("if %s %s %s || %s == %s && evtCmpLit(%s, %s) %s {", x, cmpFast, fs, x, fs, lit, q(dec), cmpExact)
		o.p("d.failBound(%s, %s, %s, %s)", lit, q(rel), q(kw), q(dec))
		if exclusive {
			// Within the bound as written, but the nearest float64 is
			// the bound itself: the Go value would break the schema.
			o.p("} else if %s == %s {", x, fs)
			o.p("d.rangeErr(%s, %s)", lit, q("float64 inside "+kw+" "+dec))
		}
		o.p("}")
	}
	bound(s.Minimum, "minimum", "less than", "<", "< 0", false, false)
	bound(s.ExclusiveMinimum, "exclusiveMinimum", "not greater than", "<", "<= 0", false, true)
	bound(s.Maximum, "maximum", "greater than", ">", "> 0", true, false)
	bound(s.ExclusiveMaximum, "exclusiveMaximum", "not less than", ">", ">= 0", true, true)
	if m := s.MultipleOf; m != nil {
		used = true
		g.pieces["big"] = true
		o.p("if !evtMultipleOf(%s, %s) {", lit, q(g.numText(s, "multipleOf", m)))
		o.p("d.failMultipleOf(%s, %s)", lit, q(g.numText(s, "multipleOf", m)))
		o.p("}")
	}
	if !noEnum && (s.Const != nil || s.Enum != nil) {
		used = true
		var list []any
		if s.Const != nil {
			list = []any{*s.Const}
		} else {
			list = s.Enum.Values
		}
		var keys, shown []string
		seen := map[string]bool{}
		for _, v := range list {
			shown = append(shown, jsonText(v))
			if kindOfValue(v)&ksNum == 0 {
				continue
			}
			k := rt.DecKey(jsonText(v))
			if !seen[k] {
				seen[k] = true
				keys = append(keys, q(k))
			}
		}
		fail := fmt.Sprintf("d.failEnum(string(%s), %s)", lit, q(enumList(shown)))
		if s.Const != nil {
			fail = fmt.Sprintf("d.failConst(string(%s), %s)", lit, q(jsonText(*s.Const)))
		}
		if len(keys) == 0 {
			o.p("%s", fail)
		} else {
			o.p("switch evtParseDec(string(%s)).key() {", lit)
			o.p("case %s:", strings.Join(keys, ", "))
			o.p("default:")
			o.p("%s", fail)
			o.p("}")
		}
	}
	if !used {
		o.p("_ = %s", lit)
	}
}

func (g *gen) boolChecks(o *w, s *jsonschema.Schema, x string) {
	var list []any
	switch {
	case s.Const != nil:
		list = []any{*s.Const}
	case s.Enum != nil:
		list = s.Enum.Values
	default:
		return
	}
	hasT, hasF := false, false
	var shown []string
	for _, v := range list {
		shown = append(shown, jsonText(v))
		if b, ok := v.(bool); ok {
			hasT = hasT || b
			hasF = hasF || !b
		}
	}
	msg := q(enumList(shown))
	if s.Const != nil {
		msg = q(jsonText(*s.Const))
	}
	switch {
	case hasT && hasF:
	case hasT:
		o.p("if !%s {", x)
		o.p("d.failEnum(\"false\", %s)", msg)
		o.p("}")
	case hasF:
		o.p("if %s {", x)
		o.p("d.failEnum(\"true\", %s)", msg)
		o.p("}")
	default:
		o.p("d.failEnum(strconv.FormatBool(%s), %s)", x, msg)
	}
}

// encode writes statements that encode expr (an addressable expression of
// n's Go type).
func (g *gen) encode(o *w, n *node, expr string) {
	switch n.kind {
	case kRaw, kNever, kNullOnly:
		o.p("e.raw(%s)", expr)
	case kString:
		o.p("e.str(%s)", expr)
	case kTime:
		o.p("e.time(%s)", expr)
	case kInt:
		o.p("e.int(%s)", expr)
	case kFloat:
		o.p("e.float(%s)", expr)
	case kBool:
		o.p("e.bool(%s)", expr)
	case kSlice:
		i := o.v("i")
		o.p("e.b = append(e.b, '[')")
		o.p("for %s := range %s {", i, expr)
		o.p("if %s > 0 {", i)
		o.p("e.b = append(e.b, ',')")
		o.p("}")
		g.encode(o, n.elem, expr+"["+i+"]")
		o.p("}")
		o.p("e.b = append(e.b, ']')")
	case kMap:
		start, x := o.v("start"), o.v("x")
		o.p("%s := len(e.b)", start)
		o.p("e.b = append(e.b, '{')")
		o.p("for _, k := range evtSortedKeys(%s) {", expr)
		o.p("e.dynKey(%s, k)", start)
		o.p("%s := %s[k]", x, expr)
		g.encode(o, n.elem, x)
		o.p("}")
		o.p("e.b = append(e.b, '}')")
	case kNull:
		o.p("if !%s.Valid {", expr)
		o.p("e.null()")
		o.p("} else {")
		g.encode(o, n.elem, expr+".V")
		o.p("}")
	default:
		if n.def.kind == kSealed {
			o.p("if %s == nil {", expr)
			o.p("e.null()")
			o.p("} else {")
			o.p("%s.encodeTo(e)", expr)
			o.p("}")
			return
		}
		o.p("%s.encodeTo(e)", expr)
	}
}

func (g *gen) emitEnum(o *w, d *def) {
	o.raw(g.docOf(d, "is an enumeration of the catalog."))
	o.p("type %s string", d.name)
	o.p("")
	o.p("// Values of %s.", d.name)
	o.p("const (")
	for i, v := range d.enumValues {
		o.p("%s %s = %s", d.enumNames[i], d.name, q(v))
	}
	o.p(")")
	o.p("")
	o.p("// Valid reports whether v is one of the values the schema allows.")
	o.p("func (v %s) Valid() bool {", d.name)
	o.p("switch v {")
	o.p("case %s:", strings.Join(d.enumNames, ", "))
	o.p("return true")
	o.p("}")
	o.p("return false")
	o.p("}")
	o.p("")
	g.emitCodec(o, d)
	o.p("func (v *%s) decodeFrom(d *evtDecoder) {", d.name)
	post := g.prePost(o, d.node, true)
	s := d.s
	other := s.MinLength != nil || s.MaxLength != nil || s.Pattern != nil || s.Format != nil
	o.p("if b, ok := d.strBytes(); ok {")
	o.p("switch string(b) {")
	for i, v := range d.enumValues {
		o.p("case %s:", q(v))
		o.p("*v = %s", d.enumNames[i])
	}
	var shown []string
	for _, v := range s.Enum.Values {
		shown = append(shown, jsonText(v))
	}
	o.p("default:")
	o.p("d.failEnum(strconv.Quote(string(b)), %s)", q(enumList(shown)))
	if other {
		o.p("ok = false")
	}
	o.p("}")
	if other {
		o.p("if ok {")
		o.p("x := string(*v)")
		g.stringChecks(o, s, "x", true)
		o.p("}")
	}
	o.p("}")
	post()
	o.p("}")
	o.p("")
	o.p("func (v *%s) encodeTo(e *evtEncoder) {", d.name)
	o.p("e.str(string(*v))")
	o.p("}")
	o.p("")
}

func (g *gen) emitSealed(o *w, d *def) {
	var names []string
	for _, b := range d.branches {
		names = append(names, "*"+b.name)
	}
	o.raw(g.docOf(d, fmt.Sprintf("is one of %s, told apart by the member %q.", strings.Join(names, ", "), d.disc)))
	o.p("type %s interface {", d.name)
	o.p("is%s()", d.name)
	o.p("encodeTo(e *evtEncoder)")
	o.p("}")
	o.p("")
	o.p("func decode%s(d *evtDecoder) %s {", d.name, d.name)
	o.p("tag, ok := d.tag(%s)", q(d.disc))
	o.p("if !ok {")
	o.p("return nil")
	o.p("}")
	o.p("switch tag {")
	var shown []string
	for i, b := range d.branches {
		o.p("case %s:", q(d.branchValues[i]))
		o.p("v := new(%s)", b.name)
		o.p("v.decodeFrom(d)")
		o.p("return v")
		shown = append(shown, q(d.branchValues[i]))
	}
	o.p("}")
	o.p("d.push(%s)", q(d.disc))
	o.p("d.failEnum(strconv.Quote(tag), %s)", q(enumList(shown)))
	o.p("d.pop()")
	o.p("d.skip()")
	o.p("return nil")
	o.p("}")
	o.p("")
}

func viewName(n *node) (method, what string) {
	switch n.kind {
	case kString, kTime:
		return "String", "a string"
	case kInt:
		return "Int64", "an integer"
	case kFloat:
		return "Float64", "a number"
	case kBool:
		return "Bool", "a boolean"
	case kSlice:
		return "Array", "an array"
	case kEnum:
		return "String", "a string"
	}
	return "Object", "an object"
}

func firstByte(n *node) string {
	switch n.kind {
	case kString, kTime, kEnum:
		return "'\"'"
	case kInt, kFloat:
		return "'-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'"
	case kBool:
		return "'t', 'f'"
	case kSlice:
		return "'['"
	}
	return "'{'"
}

func (g *gen) emitUnion(o *w, d *def) {
	var alts []string
	if d.kind == kKindUnion {
		for _, v := range d.views {
			_, what := viewName(v)
			alts = append(alts, what)
		}
	} else {
		for i := range d.options {
			alts = append(alts, d.optionNames[i])
		}
	}
	what := "holds a JSON value that is " + strings.Join(alts, " or ") + ", kept as it came; the As methods decode it."
	if d.kind == kBranchUnion {
		kw := "anyOf"
		if d.one {
			kw = "oneOf"
		}
		what = fmt.Sprintf("holds a JSON value valid for %s of: %s (%s), kept as it came; the As methods decode it.", map[bool]string{true: "exactly one", false: "at least one"}[d.one], strings.Join(alts, ", "), kw)
	}
	o.raw(g.docOf(d, what))
	o.p("type %s struct {", d.name)
	o.p("json.RawMessage")
	o.p("}")
	o.p("")
	g.emitCodec(o, d)
	o.p("func (v *%s) decodeFrom(d *evtDecoder) {", d.name)
	post := g.prePost(o, d.node, true)
	o.p("start := d.mark()")
	if d.kind == kKindUnion {
		o.p("switch d.peek() {")
		for _, view := range d.views {
			o.p("case %s:", firstByte(view))
			x := o.v("x")
			o.p("var %s %s", x, goType(view))
			g.decode(o, view, x)
			o.p("_ = %s", x)
		}
		var kinds []string
		for _, v := range d.views {
			_, w := viewName(v)
			kinds = append(kinds, strings.TrimPrefix(strings.TrimPrefix(w, "an "), "a "))
		}
		o.p("default:")
		o.p("d.typeErr(%s)", q(strings.Join(kinds, " or ")))
		o.p("}")
	} else {
		o.p("d.skip()")
		o.p("if !d.stop {")
		o.p("raw := d.data[start:d.pos]")
		g.emitTrials(o, d.one, d.options)
		o.p("}")
	}
	o.p("if !d.stop {")
	o.p("v.RawMessage = evtCopy(d.data[start:d.pos])")
	o.p("}")
	post()
	o.p("}")
	o.p("")
	o.p("func (v *%s) encodeTo(e *evtEncoder) {", d.name)
	o.p("e.raw(v.RawMessage)")
	o.p("}")
	o.p("")
	// accessors
	type acc struct {
		name string
		n    *node
		what string
		fb   string
	}
	var accs []acc
	if d.kind == kKindUnion {
		for _, v := range d.views {
			m, w := viewName(v)
			accs = append(accs, acc{m, v, w, firstByte(v)})
		}
	} else {
		for i, opt := range d.options {
			accs = append(accs, acc{d.optionNames[i], opt, "valid for alternative " + strconv.Itoa(i), ""})
		}
	}
	for _, a := range accs {
		t := goType(a.n)
		o.p("// As%s decodes the value as %s; it fails when the value is not %s.", a.name, t, a.what)
		o.p("func (v %s) As%s() (%s, error) {", d.name, a.name, t)
		o.p("var x %s", t)
		o.p("d := &evtDecoder{data: v.RawMessage}")
		if a.fb != "" {
			o.p("switch d.peek() {")
			o.p("case %s:", a.fb)
			o.p("default:")
			o.p("return x, errors.New(%s)", q(d.name+" does not hold "+a.what))
			o.p("}")
		}
		g.decode(o, a.n, "x")
		o.p("return x, d.finish()")
		o.p("}")
		o.p("")
		o.p("// Set%s stores x, failing when it is not valid here.", a.name)
		o.p("func (v *%s) Set%s(x %s) error {", d.name, a.name, t)
		o.p("e := &evtEncoder{}")
		g.encode(o, a.n, "x")
		o.p("if e.err != nil {")
		o.p("return e.err")
		o.p("}")
		o.p("return v.UnmarshalJSON(e.b)")
		o.p("}")
		o.p("")
	}
}

func (g *gen) emitWrapper(o *w, d *def) {
	o.raw(g.docOf(d, "wraps the data of an event."))
	o.p("type %s struct {", d.name)
	o.p("Value %s", goType(d.inner))
	o.p("}")
	o.p("")
	g.emitCodec(o, d)
	o.p("func (v *%s) decodeFrom(d *evtDecoder) {", d.name)
	g.decode(o, d.inner, "v.Value")
	o.p("}")
	o.p("")
	o.p("func (v *%s) encodeTo(e *evtEncoder) {", d.name)
	g.encode(o, d.inner, "v.Value")
	o.p("}")
	o.p("")
}

// emitUnionFns writes the oneOf/anyOf check functions the file's code
// calls that no earlier file has written.
func (g *gen) emitUnionFns(o *w) {
	for len(g.unionFns) > 0 {
		u := g.unionFns[0]
		g.unionFns = g.unionFns[1:]
		uc := u.uc
		o.p("func %s(d *evtDecoder, raw []byte) {", uc.fn)
		g.emitTrials(o, uc.one, uc.branches)
		o.p("}")
		o.p("")
	}
}

// emitTrials writes the decoding of raw with each alternative of a oneOf
// (all are tried: exactly one must match) or anyOf (until one matches).
func (g *gen) emitTrials(o *w, one bool, alts []*node) {
	o.p("n, ranged := 0, false")
	for i, b := range alts {
		x := o.v("x")
		if !one && i > 0 {
			o.p("if n == 0 {")
		}
		o.p("switch evtTry(raw, func(d *evtDecoder) {")
		o.p("var %s %s", x, goType(b))
		g.decode(o, b, x)
		o.p("_ = %s", x)
		o.p("}) {")
		o.p("case 0:")
		o.p("n++")
		o.p("case 2:")
		o.p("ranged = true")
		o.p("}")
		if !one && i > 0 {
			o.p("}")
		}
	}
	o.p("d.union(%v, n, %d, ranged)", one, len(alts))
}

// matcher returns an expression of a function matching pattern: a
// generated matcher for simple patterns, else a compiled regexp's
// MatchString.
func (g *gen) matcher(pattern string) string {
	if _, ok := compileSimple(pattern); ok {
		if g.simple == nil {
			g.simple = map[string]string{}
		}
		name := "match" + shortHash(pattern)
		g.simple[pattern] = name
		return name
	}
	return g.regexpVar(pattern) + ".MatchString"
}

// regexpVar returns the package-level variable holding the compiled
// pattern.
func (g *gen) regexpVar(pattern string) string {
	if v, ok := g.regexps[pattern]; ok {
		return v
	}
	v := "re" + shortHash(pattern)
	for _, other := range g.regexps {
		if other == v {
			v += shortHash(pattern + "#")
		}
	}
	g.regexps[pattern] = v
	return v
}

func (g *gen) schemaVar(loc string) string {
	if v, ok := g.schemas[loc]; ok {
		return v
	}
	v := "schema" + shortHash(loc)
	g.schemas[loc] = v
	g.pieces["schema"] = true
	return v
}

// emitVars writes the package-level regexps and embedded schemas.
func (g *gen) emitVars(o *w) {
	if len(g.regexps) > 0 {
		o.p("// Patterns of the catalog's schemas, compiled once.")
		o.p("var (")
		pats := slices.Sorted(maps.Keys(g.regexps))
		sort.Slice(pats, func(i, j int) bool { return g.regexps[pats[i]] < g.regexps[pats[j]] })
		for _, p := range pats {
			if _, err := regexp.Compile(p); err != nil {
				g.errs = append(g.errs, fmt.Errorf("pattern %q: %v", p, err))
			}
			o.p("%s = regexp.MustCompile(%s)", g.regexps[p], q(p))
		}
		o.p(")")
		o.p("")
	}
	for _, p := range sortedKeysByValue(g.simple) {
		sp, _ := compileSimple(p)
		emitMatcher(o, g.simple[p], p, sp)
	}
	if len(g.schemas) == 0 {
		return
	}
	o.p("// Schema locations with keywords the generator does not translate: values there are also validated with the embedded schemas.")
	o.p("var (")
	locs := slices.Sorted(maps.Keys(g.schemas))
	sort.Slice(locs, func(i, j int) bool { return g.schemas[locs[i]] < g.schemas[locs[j]] })
	for _, l := range locs {
		o.p("%s = evtSchema{loc: %s}", g.schemas[l], q(l))
	}
	o.p(")")
	o.p("")
	// embed every file the fallback locations reach
	files := map[string]*schemaFile{}
	seen := map[*jsonschema.Schema]bool{}
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if f, _ := g.cs.split(s.Location); f != nil {
			files[f.url] = f
		}
		for _, c := range schemawalk.Children(s) {
			walk(c)
		}
	}
	for _, l := range locs {
		var s *jsonschema.Schema
		for _, n := range g.nodes {
			if n.loc == l {
				s = n.s
				break
			}
		}
		if s == nil {
			for _, vi := range g.versionFiles {
				if vi.s.Location == l {
					s = vi.s
				}
			}
		}
		walk(s)
		if f, _ := g.cs.split(l); f != nil {
			files[f.url] = f
		}
	}
	o.p("// The catalog files the schema locations above need, by URL.")
	o.p("var evtSchemaFiles = map[string]string{")
	for _, u := range slices.Sorted(maps.Keys(files)) {
		o.p("%s: %s,", q(u), q(string(files[u].text)))
	}
	o.p("}")
	o.p("")
	o.p("// The files above by $id.")
	o.p("var evtSchemaIDs = map[string]string{")
	for _, u := range slices.Sorted(maps.Keys(files)) {
		if id := files[u].id; id != "" && id != u {
			o.p("%s: %s,", q(id), q(files[u].url))
		}
	}
	o.p("}")
	o.p("")
}

func sortedKeysByValue(m map[string]string) []string {
	keys := slices.Sorted(maps.Keys(m))
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] < m[keys[j]] })
	return keys
}

// emitRuntime copies the runtime pieces into the shared file.
func (g *gen) emitRuntime(o *w) {
	names := []string{"core", "events"}
	if len(g.avroTypes) > 0 {
		names = append(names, "avro")
	}
	g.pieces["formats"] = true // small, and date-time is everywhere
	for _, p := range []string{"big", "formats", "schema"} {
		if g.pieces[p] {
			names = append(names, p)
		}
	}
	for _, name := range names {
		o.raw(runtimePiece(name))
		o.p("")
	}
}
