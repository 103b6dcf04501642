package gogen

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

	"github.com/evtool/evtool/codegen/gocode"
	"github.com/evtool/evtool/internal/schemawalk"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

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

func (g *gen) emitTypeHead(o *gocode.Writer, ti *typeInfo) {
	t := ti.t
	doc := fmt.Sprintf("%sType is the CloudEvents type of %s events.", ti.base, t.Name)
	if t.Description != "" {
		doc += "\n\n" + t.Description
	}
	o.Raw(gocode.Comment(doc))
	o.P("const %sType = %s", ti.base, gocode.Q(t.Name))
	o.P("")
	o.P("// The dataschema attribute of each version of %s events.", t.Name)
	o.P("const (")
	for _, vi := range ti.versions {
		o.P("%sDataSchema = %s", vi.name, gocode.Q(vi.v.DataSchema))
	}
	o.P(")")
	o.P("")
	var names []string
	for _, vi := range ti.versions {
		names = append(names, "*"+vi.name)
	}
	o.Raw(gocode.Comment(fmt.Sprintf("%sData is the data of a %s event, one of: %s.", ti.base, t.Name, strings.Join(names, ", "))))
	o.P("type %sData interface {", ti.base)
	o.P("is%sData()", ti.base)
	o.P("}")
	o.P("")
	for _, vi := range ti.versions {
		o.P("func (*%s) is%sData() {}", vi.name, ti.base)
	}
	o.P("")
	srcVar := ""
	if t.Source != "" {
		srcVar = g.pkg.RegexpVar(`^(?:` + t.Source + `)$`)
	}
	for _, vi := range ti.versions {
		n := vi.v.Number
		gocode.ConstructorHead(o, t, vi.v, vi.name, srcVar, "", "application/json", "is not valid for the version's schema")
		o.P("b, err := data.MarshalJSON()")
		o.P("if err != nil {")
		o.P("return event.Event{}, evtEncodeErr(%sType, %d, err)", ti.base, n)
		o.P("}")
		o.P("var check %s", vi.name)
		o.P("if err := check.UnmarshalJSON(b); err != nil {")
		o.P("return event.Event{}, evtEncodeErr(%sType, %d, err)", ti.base, n)
		o.P("}")
		o.P("return evtNewEvent(%sType, %sDataSchema, source, b, opts)", ti.base, vi.name)
		o.P("}")
		o.P("")
	}
	latest := ti.versions[len(ti.versions)-1]
	o.Raw(gocode.Comment(fmt.Sprintf("Decode%s decodes and validates the data of a %s event: %s, the version chosen by the event's dataschema (the latest version when it has none). It fails for another type, an unknown dataschema, data that is not JSON, and data the version's schema rejects (the error then holds a *ValidationError per problem, each with a JSON pointer).", ti.base, t.Name, strings.Join(names, " or "))))
	o.P("func Decode%s(e event.Event) (%sData, error) {", ti.base, ti.base)
	o.P("data, err := evtEventData(e, %sType)", ti.base)
	o.P("if err != nil {")
	o.P("return nil, err")
	o.P("}")
	o.P("switch e.DataSchema() {")
	for _, vi := range ti.versions {
		if vi == latest {
			o.P("case %sDataSchema, \"\":", vi.name)
		} else {
			o.P("case %sDataSchema:", vi.name)
		}
		o.P("v := new(%s)", vi.name)
		o.P("if err := v.UnmarshalJSON(data); err != nil {")
		o.P("return nil, evtDataErr(e, %sType, %d, err)", ti.base, vi.v.Number)
		o.P("}")
		o.P("return v, nil")
	}
	o.P("}")
	o.P("return nil, evtUnknownDataSchema(e, %sType)", ti.base)
	o.P("}")
	o.P("")
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
		if vi.v.Deprecated {
			text += fmt.Sprintf("\n\nDeprecated: version %d of %s is deprecated in the catalog.", vi.v.Number, vi.ti.t.Name)
		}
	}
	out := head
	if text != "" {
		out += "\n\n" + text
	}
	out += "\n\nSchema: " + g.cs.rel(d.loc)
	return gocode.Comment(out)
}

func (g *gen) emitDef(o *gocode.Writer, d *def) {
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
func (g *gen) emitCodec(o *gocode.Writer, d *def) {
	o.Raw(gocode.Comment("UnmarshalJSON decodes b into v and validates it against the schema in the same pass. It reports every problem, each as a *ValidationError with a JSON pointer (joined with errors.Join). v is reset first."))
	o.P("func (v *%s) UnmarshalJSON(b []byte) error {", d.name)
	o.P("var path [16]evtSeg")
	o.P("d := evtDecoder{data: b, path: path[:0]}")
	o.P("var zero %s", d.name)
	o.P("*v = zero")
	o.P("v.decodeFrom(&d)")
	o.P("return d.finish()")
	o.P("}")
	o.P("")
	o.P("// MarshalJSON encodes v; it does not validate (see Validate).")
	o.P("func (v %s) MarshalJSON() ([]byte, error) {", d.name)
	o.P("e := evtEncoder{}")
	o.P("v.encodeTo(&e)")
	o.P("return e.b, e.err")
	o.P("}")
	o.P("")
	o.P("// Validate reports every way v fails its schema, as UnmarshalJSON would.")
	o.P("func (v *%s) Validate() error {", d.name)
	o.P("b, err := v.MarshalJSON()")
	o.P("if err != nil {")
	o.P("return err")
	o.P("}")
	o.P("var check %s", d.name)
	o.P("return check.UnmarshalJSON(b)")
	o.P("}")
	o.P("")
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
	return " `json:" + gocode.Q(v) + "`"
}

func (g *gen) emitStruct(o *gocode.Writer, d *def) {
	o.Raw(g.docOf(d, "is an object of the catalog."))
	o.P("type %s struct {", d.name)
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
		o.Raw(gocode.Comment(doc))
		o.P("%s %s%s", f.name, g.fieldType(f), jsonTag(f.json, !f.required))
	}
	switch {
	case d.extra != nil:
		o.P("// AdditionalProperties holds the members the schema does not declare (additionalProperties).")
		o.P("AdditionalProperties map[string]%s `json:\"-\"`", goType(d.extra))
	case d.keepExtra:
		o.P("// AdditionalProperties holds members the schema does not declare: the object is open, so they are kept (and written back) as they came.")
		o.P("AdditionalProperties map[string]json.RawMessage `json:\"-\"`")
	}
	o.P("}")
	o.P("")
	var consts []string
	for _, f := range d.fields {
		if f.constRaw != nil {
			consts = append(consts, fmt.Sprintf("%q is always %s", f.json, *f.constRaw))
		}
	}
	if len(consts) > 0 {
		o.Raw(gocode.Comment(fmt.Sprintf("(%s has no field for the constant members: %s.)", d.name, strings.Join(consts, "; "))))
		o.P("")
	}
	for _, s := range d.seals {
		o.P("func (*%s) is%s() {}", d.name, s.name)
		o.P("")
	}
	g.emitCodec(o, d)

	// decode
	o.P("func (v *%s) decodeFrom(d *evtDecoder) {", d.name)
	post := g.prePost(o, d.node, true)
	o.P("if d.objBegin() {")
	nbits := len(d.fields) + len(d.undeclared)
	words := (nbits + 63) / 64
	if nbits > 0 {
		if words == 1 {
			o.P("var seen uint64")
		} else {
			o.P("var seen [%d]uint64", words)
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
	o.P("i := 0")
	o.P("for ; d.objMore(i); i++ {")
	o.P("k := d.objKey()")
	o.P("switch string(k) {")
	for i, f := range d.fields {
		o.P("case %s:", gocode.Q(f.json))
		o.P("if %s != 0 {", bit(i))
		o.P("d.dup(%s)", gocode.Q(f.json))
		o.P("}")
		o.P("%s", set(i))
		o.P("d.push(%s)", gocode.Q(f.json))
		switch {
		case f.constRaw != nil:
			// The value is the const or wrong: compared as JSON, never
			// decoded into a Go type it might not fit (const 1e400).
			raw := o.V("raw")
			o.P("if %s := d.raw(); !d.stop {", raw)
			o.P("if c := evtCanon(%s); c != %s {", raw, gocode.Q(gocode.RuntimeCanon([]byte(*f.constRaw))))
			o.P("d.failConst(string(%s), %s)", raw, gocode.Q(*f.constRaw))
			o.P("}")
			o.P("}")
		case f.ptr:
			o.P("v.%s = new(%s)", f.name, goType(f.n))
			g.decode(o, f.n, "(*v."+f.name+")")
		default:
			g.decode(o, f.n, "v."+f.name)
		}
		o.P("d.pop()")
	}
	for _, name := range d.forbidden {
		o.P("case %s:", gocode.Q(name))
		o.P("d.notAllowed(%s)", gocode.Q(name))
		o.P("d.skip()")
	}
	for i, name := range d.undeclared {
		o.P("case %s:", gocode.Q(name))
		o.P("%s", set(len(d.fields)+i))
		g.emitExtraMember(o, d)
	}
	o.P("default:")
	g.emitExtraMember(o, d)
	o.P("}")
	o.P("}")
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
			o.P("d.missing(%s)", gocode.Q(r)) // forbidden and required: never valid
			continue
		}
		o.P("if %s == 0 {", bit(idx))
		o.P("d.missing(%s)", gocode.Q(r))
		o.P("}")
	}
	if s := d.s; s.MinProperties != nil || s.MaxProperties != nil {
		if s.MinProperties != nil {
			o.P("if i < %d {", *s.MinProperties)
			o.P("d.failProps(i, \"fewer than\", \"minProperties\", %d)", *s.MinProperties)
			o.P("}")
		}
		if s.MaxProperties != nil {
			o.P("if i > %d {", *s.MaxProperties)
			o.P("d.failProps(i, \"more than\", \"maxProperties\", %d)", *s.MaxProperties)
			o.P("}")
		}
	} else {
		o.P("_ = i")
	}
	o.P("}")
	post()
	o.P("}")
	o.P("")

	// encode
	o.P("func (v *%s) encodeTo(e *evtEncoder) {", d.name)
	if len(d.fields) > 0 || d.extra != nil || d.keepExtra {
		o.P("start := len(e.b)")
	}
	o.P("e.b = append(e.b, '{')")
	for _, f := range d.fields {
		key := gocode.Q(jsonQuote(f.json) + ":")
		switch {
		case f.constRaw != nil:
			o.P("e.key(start, %s)", key)
			o.P("e.b = append(e.b, %s...)", gocode.Q(*f.constRaw))
		case f.ptr || (!f.required && nilable(f.n)):
			o.P("if v.%s != nil {", f.name)
			o.P("e.key(start, %s)", key)
			if f.ptr {
				g.encode(o, f.n, "(*v."+f.name+")")
			} else {
				g.encode(o, f.n, "v."+f.name)
			}
			if f.required {
				o.P("} else {")
				o.P("e.key(start, %s)", key)
				o.P("e.null()")
			}
			o.P("}")
		default:
			o.P("e.key(start, %s)", key)
			g.encode(o, f.n, "v."+f.name)
		}
	}
	if d.extra != nil || d.keepExtra {
		o.P("for _, k := range evtSortedKeys(v.AdditionalProperties) {")
		var declared []string
		for _, f := range d.fields {
			declared = append(declared, gocode.Q(f.json))
		}
		if len(declared) > 0 {
			o.P("switch k {")
			o.P("case %s:", strings.Join(declared, ", "))
			o.P("e.fail(\"%s.AdditionalProperties holds the declared property \" + strconv.Quote(k))", d.name)
			o.P("continue")
			o.P("}")
		}
		o.P("e.dynKey(start, k)")
		o.P("x := v.AdditionalProperties[k]")
		if d.extra != nil {
			g.encode(o, d.extra, "x")
		} else {
			o.P("e.raw(x)")
		}
		o.P("}")
	}
	o.P("e.b = append(e.b, '}')")
	o.P("}")
	o.P("")
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
func (g *gen) emitExtraMember(o *gocode.Writer, d *def) {
	switch {
	case d.closed:
		o.P("d.notAllowed(string(k))")
		o.P("d.skip()")
	case d.extra != nil:
		o.P("name := string(k)")
		o.P("if _, dup := v.AdditionalProperties[name]; dup {")
		o.P("d.dup(name)")
		o.P("}")
		o.P("d.push(name)")
		x := o.V("x")
		o.P("var %s %s", x, goType(d.extra))
		g.decode(o, d.extra, x)
		o.P("if v.AdditionalProperties == nil {")
		o.P("v.AdditionalProperties = map[string]%s{}", goType(d.extra))
		o.P("}")
		o.P("v.AdditionalProperties[name] = %s", x)
		o.P("d.pop()")
	default:
		o.P("name := string(k)")
		o.P("if _, dup := v.AdditionalProperties[name]; dup {")
		o.P("d.dup(name)")
		o.P("}")
		o.P("if r := d.raw(); r != nil {")
		o.P("if v.AdditionalProperties == nil {")
		o.P("v.AdditionalProperties = map[string]json.RawMessage{}")
		o.P("}")
		o.P("v.AdditionalProperties[name] = evtCopy(r)")
		o.P("}")
	}
}

// prePost writes what a value's decoding needs first (the start offset and
// error count) and returns a function writing the checks after it: enum
// and const over the whole value, oneOf/anyOf, and the embedded schema.
// named: n is a named type's own node (its checks live in decodeFrom).
func (g *gen) prePost(o *gocode.Writer, n *node, named bool) func() {
	if n == nil {
		return func() {}
	}
	canon := !n.noEnum && (n.s.Enum != nil || n.s.Const != nil) && canonChecked(n)
	fb := n.fallback && n.mask == ksAll
	if !canon && !fb && len(n.unions) == 0 {
		return func() {}
	}
	start, nerr := o.V("start"), o.V("nerr")
	o.P("%s, %s := d.mark(), len(d.errs)", start, nerr)
	return func() {
		o.P("if !d.stop {")
		if canon {
			g.canonCheck(o, n.s, "d.data["+start+":d.pos]")
		}
		for _, uc := range n.unions {
			if !g.unionSeen[uc] {
				g.unionSeen[uc] = true
				g.unionFns = append(g.unionFns, &unionFn{uc: uc})
			}
			o.P("%s(d, d.data[%s:d.pos])", uc.fn, start)
		}
		if fb {
			o.P("if len(d.errs) == %s {", nerr)
			o.P("d.schema(&%s, %s)", g.schemaVar(n.loc), start)
			o.P("}")
		} else {
			o.P("_ = %s", nerr)
		}
		o.P("}")
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
func (g *gen) canonCheck(o *gocode.Writer, s *jsonschema.Schema, raw string) {
	if s.Const != nil {
		want := gocode.RuntimeCanon([]byte(jsonText(*s.Const)))
		o.P("if c := evtCanon(%s); c != %s {", raw, gocode.Q(want))
		o.P("d.failConst(string(%s), %s)", raw, gocode.Q(jsonText(*s.Const)))
		o.P("}")
	}
	if s.Enum != nil {
		var keys, shown []string
		seen := map[string]bool{}
		for _, v := range s.Enum.Values {
			k := gocode.RuntimeCanon([]byte(jsonText(v)))
			if !seen[k] {
				seen[k] = true
				keys = append(keys, gocode.Q(k))
				shown = append(shown, jsonText(v))
			}
		}
		o.P("switch evtCanon(%s) {", raw)
		o.P("case %s:", strings.Join(keys, ", "))
		o.P("default:")
		o.P("d.failEnum(string(%s), %s)", raw, gocode.Q(enumList(shown)))
		o.P("}")
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
func (g *gen) decode(o *gocode.Writer, n *node, target string) {
	if n.def != nil {
		switch n.def.kind {
		case kSealed:
			o.P("%s = decode%s(d)", target, n.def.name)
		default:
			o.P("%s.decodeFrom(d)", target)
		}
		return
	}
	post := g.prePost(o, n, false)
	g.decodeKind(o, n, target)
	post()
}

func (g *gen) decodeKind(o *gocode.Writer, n *node, target string) {
	s := n.s
	switch n.kind {
	case kRaw:
		o.P("if r := d.raw(); r != nil {")
		o.P("%s = evtCopy(r)", target)
		o.P("}")
	case kNever:
		o.P("d.fail(\"no value is valid here (the schema is false)\")")
		o.P("d.skip()")
	case kNullOnly:
		o.P("if d.nullv() {")
		o.P("%s = json.RawMessage(\"null\")", target)
		o.P("}")
	case kString:
		x := o.V("x")
		o.P("if %s, ok := d.str(); ok {", x)
		g.stringChecks(o, s, x, n.noEnum)
		o.P("%s = %s", target, x)
		o.P("}")
	case kTime:
		x := o.V("x")
		o.P("if %s, ok := d.str(); ok {", x)
		o.P("if t, ok := evtParseDateTime(%s); ok {", x)
		o.P("%s = t", target)
		o.P("} else {")
		o.P("d.failFormat(%s, \"date-time\")", x)
		o.P("}")
		g.stringChecks(o, s, x, n.noEnum)
		o.P("}")
	case kInt:
		x, lit := o.V("x"), o.V("lit")
		o.P("if %s, %s, ok := d.int64v(); ok {", x, lit)
		g.intChecks(o, s, x, lit, n.noEnum)
		o.P("%s = %s", target, x)
		o.P("}")
	case kFloat:
		x, lit := o.V("x"), o.V("lit")
		o.P("if %s, %s, ok := d.float64v(); ok {", x, lit)
		g.floatChecks(o, s, x, lit, n.noEnum)
		o.P("%s = %s", target, x)
		o.P("}")
	case kBool:
		x := o.V("x")
		o.P("if %s, ok := d.boolv(); ok {", x)
		if !n.noEnum {
			g.boolChecks(o, s, x)
		}
		o.P("%s = %s", target, x)
		o.P("}")
	case kSlice:
		xs, i, z := o.V("xs"), o.V("i"), o.V("z")
		o.P("if d.arrBegin() {")
		o.P("%s := %s{}", xs, goType(n))
		o.P("var %s %s", z, goType(n.elem))
		spans := ""
		if s.UniqueItems && !comparableKind(n.elem) {
			spans = o.V("spans")
			o.P("var %s []int", spans)
		}
		o.P("for %s := 0; d.arrMore(%s); %s++ {", i, i, i)
		o.P("d.pushIdx(%s)", i)
		o.P("%s = append(%s, %s)", xs, xs, z)
		if spans != "" {
			o.P("%s = append(%s, d.mark())", spans, spans)
		}
		g.decode(o, n.elem, xs+"[len("+xs+")-1]")
		if spans != "" {
			o.P("%s = append(%s, d.pos)", spans, spans)
		}
		o.P("d.pop()")
		o.P("}")
		if s.MinItems != nil {
			o.P("if len(%s) < %d {", xs, *s.MinItems)
			o.P("d.failItems(len(%s), \"fewer than\", \"minItems\", %d)", xs, *s.MinItems)
			o.P("}")
		}
		if s.MaxItems != nil {
			o.P("if len(%s) > %d {", xs, *s.MaxItems)
			o.P("d.failItems(len(%s), \"more than\", \"maxItems\", %d)", xs, *s.MaxItems)
			o.P("}")
		}
		if s.UniqueItems {
			if spans != "" {
				o.P("if i, j, dup := evtDupRaw(d.data, %s); dup {", spans)
			} else {
				o.P("if i, j, dup := evtDup(%s); dup {", xs)
			}
			o.P("d.failUnique(i, j)")
			o.P("}")
		}
		o.P("%s = %s", target, xs)
		o.P("}")
	case kMap:
		m, i, x := o.V("m"), o.V("i"), o.V("x")
		o.P("if d.objBegin() {")
		o.P("%s := %s{}", m, goType(n))
		o.P("%s := 0", i)
		o.P("for ; d.objMore(%s); %s++ {", i, i)
		o.P("k := string(d.objKey())")
		o.P("if _, dup := %s[k]; dup {", m)
		o.P("d.dup(k)")
		o.P("}")
		o.P("d.push(k)")
		o.P("var %s %s", x, goType(n.elem))
		g.decode(o, n.elem, x)
		o.P("%s[k] = %s", m, x)
		o.P("d.pop()")
		o.P("}")
		if s.MinProperties != nil {
			o.P("if %s < %d {", i, *s.MinProperties)
			o.P("d.failProps(%s, \"fewer than\", \"minProperties\", %d)", i, *s.MinProperties)
			o.P("}")
		}
		if s.MaxProperties != nil {
			o.P("if %s > %d {", i, *s.MaxProperties)
			o.P("d.failProps(%s, \"more than\", \"maxProperties\", %d)", i, *s.MaxProperties)
			o.P("}")
		}
		o.P("%s = %s", target, m)
		o.P("}")
	case kNull:
		o.P("if d.isNull() {")
		o.P("%s = %s{}", target, goType(n))
		if !nullAllowed(s) && !n.noEnum {
			o.P("d.fail(\"null is not one of the allowed values\")")
		}
		o.P("} else {")
		o.P("%s.Valid = true", target)
		g.decode(o, n.elem, target+".V")
		o.P("}")
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

func (g *gen) stringChecks(o *gocode.Writer, s *jsonschema.Schema, x string, noEnum bool) {
	if s.MinLength != nil || s.MaxLength != nil {
		o.P("if n := evtRuneCount(%s); false {", x)
		if s.MinLength != nil {
			o.P("} else if n < %d {", *s.MinLength)
			o.P("d.failMinLength(%s, %d)", x, *s.MinLength)
		}
		if s.MaxLength != nil {
			o.P("} else if n > %d {", *s.MaxLength)
			o.P("d.failMaxLength(%s, %d)", x, *s.MaxLength)
		}
		o.P("}")
	}
	if s.Pattern != nil {
		o.P("if !%s(%s) {", g.matcher(s.Pattern.String()), x)
		o.P("d.failPattern(%s, %s)", x, gocode.Q(s.Pattern.String()))
		o.P("}")
	}
	if s.Format != nil {
		if fn := nativeFormats[s.Format.Name]; fn != "" && s.Format.Name != "date-time" {
			o.P("if !%s(%s) {", fn, x)
			o.P("d.failFormat(%s, %s)", x, gocode.Q(s.Format.Name))
			o.P("}")
		} else if s.Format.Name == "date-time" && !isTimeKind(s) {
			o.P("if _, ok := evtParseDateTime(%s); !ok {", x)
			o.P("d.failFormat(%s, \"date-time\")", x)
			o.P("}")
		}
	}
	if noEnum {
		return
	}
	if s.Const != nil {
		if c, ok := (*s.Const).(string); ok {
			o.P("if %s != %s {", x, gocode.Q(c))
			o.P("d.failConst(strconv.Quote(%s), %s)", x, gocode.Q(jsonText(c)))
			o.P("}")
		} else {
			o.P("d.failConst(strconv.Quote(%s), %s)", x, gocode.Q(jsonText(*s.Const)))
		}
	}
	if s.Enum != nil {
		vals, shown := stringEnum(s)
		if len(vals) == 0 {
			o.P("d.failEnum(strconv.Quote(%s), %s)", x, gocode.Q(enumList(shown)))
			return
		}
		o.P("switch %s {", x)
		o.P("case %s:", strings.Join(vals, ", "))
		o.P("default:")
		o.P("d.failEnum(strconv.Quote(%s), %s)", x, gocode.Q(enumList(shown)))
		o.P("}")
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
			vals = append(vals, gocode.Q(str))
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

func (g *gen) intChecks(o *gocode.Writer, s *jsonschema.Schema, x, lit string, noEnum bool) {
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
			o.P("d.failBound(%s, %s, %s, %s)", lit, gocode.Q(relLo), gocode.Q(kwLo), gocode.Q(boundLo))
		} else {
			o.P("if %s < %s {", x, lo.String())
			o.P("d.failBound(%s, %s, %s, %s)", lit, gocode.Q(relLo), gocode.Q(kwLo), gocode.Q(boundLo))
			o.P("}")
		}
	}
	if hi != nil && hi.Cmp(maxInt64) < 0 {
		used = true
		if hi.Cmp(minInt64) < 0 {
			o.P("d.failBound(%s, %s, %s, %s)", lit, gocode.Q(relHi), gocode.Q(kwHi), gocode.Q(boundHi))
		} else {
			o.P("if %s > %s {", x, hi.String())
			o.P("d.failBound(%s, %s, %s, %s)", lit, gocode.Q(relHi), gocode.Q(kwHi), gocode.Q(boundHi))
			o.P("}")
		}
	}
	if m := s.MultipleOf; m != nil {
		// x/m is an integer iff the numerator of m (in lowest terms) divides x
		p := m.Num()
		used = true
		if p.Cmp(maxInt64) > 0 {
			o.P("if %s != 0 {", x)
		} else {
			o.P("if %s%%%s != 0 {", x, p.String())
		}
		o.P("d.failMultipleOf(%s, %s)", lit, gocode.Q(g.numText(s, "multipleOf", m)))
		o.P("}")
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
			n, st := gocode.RuntimeParseIntLit(jsonText(v))
			if st != 0 || seen[strconv.FormatInt(n, 10)] {
				continue
			}
			seen[strconv.FormatInt(n, 10)] = true
			vals = append(vals, strconv.FormatInt(n, 10))
		}
		fail := fmt.Sprintf("d.failEnum(string(%s), %s)", lit, gocode.Q(enumList(shown)))
		if s.Const != nil {
			fail = fmt.Sprintf("d.failConst(string(%s), %s)", lit, gocode.Q(jsonText(*s.Const)))
		}
		if len(vals) == 0 {
			o.P("%s", fail)
		} else {
			o.P("switch %s {", x)
			o.P("case %s:", strings.Join(vals, ", "))
			o.P("default:")
			o.P("%s", fail)
			o.P("}")
		}
	}
	if !used {
		o.P("_ = %s", lit)
	}
}

func (g *gen) floatChecks(o *gocode.Writer, s *jsonschema.Schema, x, lit string, noEnum bool) {
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
			o.P("d.failBound(%s, %s, %s, %s)", lit, gocode.Q(rel), gocode.Q(kw), gocode.Q(dec))
			return
		}
		used = true
		if !strings.ContainsAny(fs, ".eE") {
			fs += ".0"
		}
		o.P("if %s %s %s || %s == %s && evtCmpLit(%s, %s) %s {", x, cmpFast, fs, x, fs, lit, gocode.Q(dec), cmpExact)
		o.P("d.failBound(%s, %s, %s, %s)", lit, gocode.Q(rel), gocode.Q(kw), gocode.Q(dec))
		if exclusive {
			// Within the bound as written, but the nearest float64 is
			// the bound itself: the Go value would break the schema.
			o.P("} else if %s == %s {", x, fs)
			o.P("d.rangeErr(%s, %s)", lit, gocode.Q("float64 inside "+kw+" "+dec))
		}
		o.P("}")
	}
	bound(s.Minimum, "minimum", "less than", "<", "< 0", false, false)
	bound(s.ExclusiveMinimum, "exclusiveMinimum", "not greater than", "<", "<= 0", false, true)
	bound(s.Maximum, "maximum", "greater than", ">", "> 0", true, false)
	bound(s.ExclusiveMaximum, "exclusiveMaximum", "not less than", ">", ">= 0", true, true)
	if m := s.MultipleOf; m != nil {
		used = true
		g.pkg.UseRuntime("big")
		o.P("if !evtMultipleOf(%s, %s) {", lit, gocode.Q(g.numText(s, "multipleOf", m)))
		o.P("d.failMultipleOf(%s, %s)", lit, gocode.Q(g.numText(s, "multipleOf", m)))
		o.P("}")
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
			k := gocode.RuntimeDecKey(jsonText(v))
			if !seen[k] {
				seen[k] = true
				keys = append(keys, gocode.Q(k))
			}
		}
		fail := fmt.Sprintf("d.failEnum(string(%s), %s)", lit, gocode.Q(enumList(shown)))
		if s.Const != nil {
			fail = fmt.Sprintf("d.failConst(string(%s), %s)", lit, gocode.Q(jsonText(*s.Const)))
		}
		if len(keys) == 0 {
			o.P("%s", fail)
		} else {
			o.P("switch evtParseDec(string(%s)).key() {", lit)
			o.P("case %s:", strings.Join(keys, ", "))
			o.P("default:")
			o.P("%s", fail)
			o.P("}")
		}
	}
	if !used {
		o.P("_ = %s", lit)
	}
}

func (g *gen) boolChecks(o *gocode.Writer, s *jsonschema.Schema, x string) {
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
	msg := gocode.Q(enumList(shown))
	if s.Const != nil {
		msg = gocode.Q(jsonText(*s.Const))
	}
	switch {
	case hasT && hasF:
	case hasT:
		o.P("if !%s {", x)
		o.P("d.failEnum(\"false\", %s)", msg)
		o.P("}")
	case hasF:
		o.P("if %s {", x)
		o.P("d.failEnum(\"true\", %s)", msg)
		o.P("}")
	default:
		o.P("d.failEnum(strconv.FormatBool(%s), %s)", x, msg)
	}
}

// encode writes statements that encode expr (an addressable expression of
// n's Go type).
func (g *gen) encode(o *gocode.Writer, n *node, expr string) {
	switch n.kind {
	case kRaw, kNever, kNullOnly:
		o.P("e.raw(%s)", expr)
	case kString:
		o.P("e.str(%s)", expr)
	case kTime:
		o.P("e.time(%s)", expr)
	case kInt:
		o.P("e.int(%s)", expr)
	case kFloat:
		o.P("e.float(%s)", expr)
	case kBool:
		o.P("e.bool(%s)", expr)
	case kSlice:
		i := o.V("i")
		o.P("e.b = append(e.b, '[')")
		o.P("for %s := range %s {", i, expr)
		o.P("if %s > 0 {", i)
		o.P("e.b = append(e.b, ',')")
		o.P("}")
		g.encode(o, n.elem, expr+"["+i+"]")
		o.P("}")
		o.P("e.b = append(e.b, ']')")
	case kMap:
		start, x := o.V("start"), o.V("x")
		o.P("%s := len(e.b)", start)
		o.P("e.b = append(e.b, '{')")
		o.P("for _, k := range evtSortedKeys(%s) {", expr)
		o.P("e.dynKey(%s, k)", start)
		o.P("%s := %s[k]", x, expr)
		g.encode(o, n.elem, x)
		o.P("}")
		o.P("e.b = append(e.b, '}')")
	case kNull:
		o.P("if !%s.Valid {", expr)
		o.P("e.null()")
		o.P("} else {")
		g.encode(o, n.elem, expr+".V")
		o.P("}")
	default:
		if n.def.kind == kSealed {
			o.P("if %s == nil {", expr)
			o.P("e.null()")
			o.P("} else {")
			o.P("%s.encodeTo(e)", expr)
			o.P("}")
			return
		}
		o.P("%s.encodeTo(e)", expr)
	}
}

func (g *gen) emitEnum(o *gocode.Writer, d *def) {
	o.Raw(g.docOf(d, "is an enumeration of the catalog."))
	o.P("type %s string", d.name)
	o.P("")
	o.P("// Values of %s.", d.name)
	o.P("const (")
	for i, v := range d.enumValues {
		o.P("%s %s = %s", d.enumNames[i], d.name, gocode.Q(v))
	}
	o.P(")")
	o.P("")
	o.P("// Valid reports whether v is one of the values the schema allows.")
	o.P("func (v %s) Valid() bool {", d.name)
	o.P("switch v {")
	o.P("case %s:", strings.Join(d.enumNames, ", "))
	o.P("return true")
	o.P("}")
	o.P("return false")
	o.P("}")
	o.P("")
	g.emitCodec(o, d)
	o.P("func (v *%s) decodeFrom(d *evtDecoder) {", d.name)
	post := g.prePost(o, d.node, true)
	s := d.s
	other := s.MinLength != nil || s.MaxLength != nil || s.Pattern != nil || s.Format != nil
	o.P("if b, ok := d.strBytes(); ok {")
	o.P("switch string(b) {")
	for i, v := range d.enumValues {
		o.P("case %s:", gocode.Q(v))
		o.P("*v = %s", d.enumNames[i])
	}
	var shown []string
	for _, v := range s.Enum.Values {
		shown = append(shown, jsonText(v))
	}
	o.P("default:")
	o.P("d.failEnum(strconv.Quote(string(b)), %s)", gocode.Q(enumList(shown)))
	if other {
		o.P("ok = false")
	}
	o.P("}")
	if other {
		o.P("if ok {")
		o.P("x := string(*v)")
		g.stringChecks(o, s, "x", true)
		o.P("}")
	}
	o.P("}")
	post()
	o.P("}")
	o.P("")
	o.P("func (v *%s) encodeTo(e *evtEncoder) {", d.name)
	o.P("e.str(string(*v))")
	o.P("}")
	o.P("")
}

func (g *gen) emitSealed(o *gocode.Writer, d *def) {
	var names []string
	for _, b := range d.branches {
		names = append(names, "*"+b.name)
	}
	o.Raw(g.docOf(d, fmt.Sprintf("is one of %s, told apart by the member %q.", strings.Join(names, ", "), d.disc)))
	o.P("type %s interface {", d.name)
	o.P("is%s()", d.name)
	o.P("encodeTo(e *evtEncoder)")
	o.P("}")
	o.P("")
	o.P("func decode%s(d *evtDecoder) %s {", d.name, d.name)
	o.P("tag, ok := d.tag(%s)", gocode.Q(d.disc))
	o.P("if !ok {")
	o.P("return nil")
	o.P("}")
	o.P("switch tag {")
	var shown []string
	for i, b := range d.branches {
		o.P("case %s:", gocode.Q(d.branchValues[i]))
		o.P("v := new(%s)", b.name)
		o.P("v.decodeFrom(d)")
		o.P("return v")
		shown = append(shown, gocode.Q(d.branchValues[i]))
	}
	o.P("}")
	o.P("d.push(%s)", gocode.Q(d.disc))
	o.P("d.failEnum(strconv.Quote(tag), %s)", gocode.Q(enumList(shown)))
	o.P("d.pop()")
	o.P("d.skip()")
	o.P("return nil")
	o.P("}")
	o.P("")
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

func (g *gen) emitUnion(o *gocode.Writer, d *def) {
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
	o.Raw(g.docOf(d, what))
	o.P("type %s struct {", d.name)
	o.P("json.RawMessage")
	o.P("}")
	o.P("")
	g.emitCodec(o, d)
	o.P("func (v *%s) decodeFrom(d *evtDecoder) {", d.name)
	post := g.prePost(o, d.node, true)
	o.P("start := d.mark()")
	if d.kind == kKindUnion {
		o.P("switch d.peek() {")
		for _, view := range d.views {
			o.P("case %s:", firstByte(view))
			x := o.V("x")
			o.P("var %s %s", x, goType(view))
			g.decode(o, view, x)
			o.P("_ = %s", x)
		}
		var kinds []string
		for _, v := range d.views {
			_, w := viewName(v)
			kinds = append(kinds, strings.TrimPrefix(strings.TrimPrefix(w, "an "), "a "))
		}
		o.P("default:")
		o.P("d.typeErr(%s)", gocode.Q(strings.Join(kinds, " or ")))
		o.P("}")
	} else {
		o.P("d.skip()")
		o.P("if !d.stop {")
		o.P("raw := d.data[start:d.pos]")
		g.emitTrials(o, d.one, d.options)
		o.P("}")
	}
	o.P("if !d.stop {")
	o.P("v.RawMessage = evtCopy(d.data[start:d.pos])")
	o.P("}")
	post()
	o.P("}")
	o.P("")
	o.P("func (v *%s) encodeTo(e *evtEncoder) {", d.name)
	o.P("e.raw(v.RawMessage)")
	o.P("}")
	o.P("")
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
		o.P("// As%s decodes the value as %s; it fails when the value is not %s.", a.name, t, a.what)
		o.P("func (v %s) As%s() (%s, error) {", d.name, a.name, t)
		o.P("var x %s", t)
		o.P("d := &evtDecoder{data: v.RawMessage}")
		if a.fb != "" {
			o.P("switch d.peek() {")
			o.P("case %s:", a.fb)
			o.P("default:")
			o.P("return x, errors.New(%s)", gocode.Q(d.name+" does not hold "+a.what))
			o.P("}")
		}
		g.decode(o, a.n, "x")
		o.P("return x, d.finish()")
		o.P("}")
		o.P("")
		o.P("// Set%s stores x, failing when it is not valid here.", a.name)
		o.P("func (v *%s) Set%s(x %s) error {", d.name, a.name, t)
		o.P("e := &evtEncoder{}")
		g.encode(o, a.n, "x")
		o.P("if e.err != nil {")
		o.P("return e.err")
		o.P("}")
		o.P("return v.UnmarshalJSON(e.b)")
		o.P("}")
		o.P("")
	}
}

func (g *gen) emitWrapper(o *gocode.Writer, d *def) {
	o.Raw(g.docOf(d, "wraps the data of an event."))
	o.P("type %s struct {", d.name)
	o.P("Value %s", goType(d.inner))
	o.P("}")
	o.P("")
	g.emitCodec(o, d)
	o.P("func (v *%s) decodeFrom(d *evtDecoder) {", d.name)
	g.decode(o, d.inner, "v.Value")
	o.P("}")
	o.P("")
	o.P("func (v *%s) encodeTo(e *evtEncoder) {", d.name)
	g.encode(o, d.inner, "v.Value")
	o.P("}")
	o.P("")
}

// emitUnionFns writes the oneOf/anyOf check functions the file's code
// calls that no earlier file has written.
func (g *gen) emitUnionFns(o *gocode.Writer) {
	for len(g.unionFns) > 0 {
		u := g.unionFns[0]
		g.unionFns = g.unionFns[1:]
		uc := u.uc
		o.P("func %s(d *evtDecoder, raw []byte) {", uc.fn)
		g.emitTrials(o, uc.one, uc.branches)
		o.P("}")
		o.P("")
	}
}

// emitTrials writes the decoding of raw with each alternative of a oneOf
// (all are tried: exactly one must match) or anyOf (until one matches).
func (g *gen) emitTrials(o *gocode.Writer, one bool, alts []*node) {
	o.P("n, ranged := 0, false")
	for i, b := range alts {
		x := o.V("x")
		if !one && i > 0 {
			o.P("if n == 0 {")
		}
		o.P("switch evtTry(raw, func(d *evtDecoder) {")
		o.P("var %s %s", x, goType(b))
		g.decode(o, b, x)
		o.P("_ = %s", x)
		o.P("}) {")
		o.P("case 0:")
		o.P("n++")
		o.P("case 2:")
		o.P("ranged = true")
		o.P("}")
		if !one && i > 0 {
			o.P("}")
		}
	}
	o.P("d.union(%v, n, %d, ranged)", one, len(alts))
}

// matcher returns an expression of a function matching pattern: a
// generated matcher for simple patterns, else a compiled regexp's
// MatchString.
func (g *gen) matcher(pattern string) string {
	if _, ok := compileSimple(pattern); ok {
		if g.simple == nil {
			g.simple = map[string]string{}
		}
		name := "match" + gocode.ShortHash(pattern)
		g.simple[pattern] = name
		return name
	}
	return g.pkg.RegexpVar(pattern) + ".MatchString"
}

func (g *gen) schemaVar(loc string) string {
	if v, ok := g.schemas[loc]; ok {
		return v
	}
	v := "schema" + gocode.ShortHash(loc)
	g.schemas[loc] = v
	g.pkg.UseRuntime("schema")
	return v
}

// emitVars writes the generated matchers and the embedded schemas (the
// compiled patterns are the package's, gocode.Package.RegexpVar).
func (g *gen) emitVars(o *gocode.Writer) {
	for _, p := range sortedKeysByValue(g.simple) {
		sp, _ := compileSimple(p)
		emitMatcher(o, g.simple[p], p, sp)
	}
	if len(g.schemas) == 0 {
		return
	}
	o.P("// Schema locations with keywords the generator does not translate: values there are also validated with the embedded schemas.")
	o.P("var (")
	locs := slices.Sorted(maps.Keys(g.schemas))
	sort.Slice(locs, func(i, j int) bool { return g.schemas[locs[i]] < g.schemas[locs[j]] })
	for _, l := range locs {
		o.P("%s = evtSchema{loc: %s}", g.schemas[l], gocode.Q(l))
	}
	o.P(")")
	o.P("")
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
	o.P("// The catalog files the schema locations above need, by URL.")
	o.P("var evtSchemaFiles = map[string]string{")
	for _, u := range slices.Sorted(maps.Keys(files)) {
		o.P("%s: %s,", gocode.Q(u), gocode.Q(string(files[u].text)))
	}
	o.P("}")
	o.P("")
	o.P("// The files above by $id.")
	o.P("var evtSchemaIDs = map[string]string{")
	for _, u := range slices.Sorted(maps.Keys(files)) {
		if id := files[u].id; id != "" && id != u {
			o.P("%s: %s,", gocode.Q(id), gocode.Q(files[u].url))
		}
	}
	o.P("}")
	o.P("")
}

func sortedKeysByValue(m map[string]string) []string {
	keys := slices.Sorted(maps.Keys(m))
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] < m[keys[j]] })
	return keys
}
