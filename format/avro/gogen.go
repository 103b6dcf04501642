package avro

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/evtool/evtool/codegen/gocode"
	"github.com/evtool/evtool/format"
)

// Avro event types get Go code from Avro's own schema tree (the Nodes a
// compiled Schema holds), here beside it: Provider is a format.GoGenerator
// and evtool gen go (package codegen, through codegen/gocode) asks it for
// the Go of every Avro type.
//
// Avro event types are generated differently from JSON Schema ones: the
// generated code embeds every version's schema and decodes with
// github.com/twmb/avro, resolving the writer's version to the reader's by
// the library's schema resolution (the same one evtool validate and compat
// use). A version without union sum types is decoded into and encoded
// from by the library itself, by reflection; the others, and whatever that
// path refuses, go
// through the library's generic value and generated, reflection-free
// converters. Per-field binary decoders would be faster but
// would be a second implementation of Avro's resolution rules (promotions,
// defaults, enum defaults, union branch matching) to keep right.

// GoTypes starts a run of the Avro generator (format.GoGenerator).
func (Provider) GoTypes(pkg gocode.Package) (format.GoTypes, error) {
	return &goTypes{pkg: pkg}, nil
}

// goTypes is one run of the Avro generator.
type goTypes struct {
	pkg   gocode.Package
	types []*avroType
}

// Type builds the Go types of every version of t at once: Avro's names
// are claimed in catalog order with the other formats' type names.
func (g *goTypes) Type(t gocode.EventType, schemas []format.Schema) error {
	if !g.pkg.Plain() {
		g.analyzeAvro(t, schemas)
	}
	return nil
}

// Analyze has nothing left to do: Type built each type.
func (g *goTypes) Analyze() {}

// Files writes a file per Avro event type.
func (g *goTypes) Files() ([]gocode.File, error) {
	var files []gocode.File
	for _, at := range g.types {
		f, err := g.emitAvroType(at)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// SharedDefs: Avro types are all in their type's file.
func (g *goTypes) SharedDefs(*gocode.Writer) {}

// SharedVars: each type's schemas are in its file.
func (g *goTypes) SharedVars(*gocode.Writer) {}

// PackageDoc says how Avro types decode, when there are any.
func (g *goTypes) PackageDoc() string {
	if len(g.types) == 0 {
		return ""
	}
	return "//\n// Avro types are decoded from Avro's binary or JSON encoding instead, with Avro's schema\n" +
		"// resolution from the writer's version to the reader's.\n"
}

// Notes: every Avro schema is translated whole.
func (g *goTypes) Notes() []gocode.Note { return nil }

// avroType is one Avro event type.
type avroType struct {
	t        gocode.EventType
	base     string
	file     string
	varName  string // the package-level *evtAvroType
	versions []*avroVersion
}

type avroVersion struct {
	at   *avroType
	v    gocode.Version
	s    *Schema
	name string
	root *avroDef
	defs []*avroDef // in order of first use
	// generic is set when a Go type of the version is one the library
	// cannot decode into by reflection (a union's sum type, struct{} for
	// null): binary data then goes through the generic decode and the
	// converters.
	generic bool
	byN     map[*Node]*avroDef
}

type avroDefKind int

const (
	avroRecord avroDefKind = iota
	avroEnum
	avroFixed
	avroUnion
)

type avroDef struct {
	kind   avroDefKind
	node   *Node
	name   string
	fields []avroField
	consts []string  // enum: the constant of each symbol
	arms   []avroArm // union: the branches other than null
	null   bool      // union: has a null branch
}

type avroField struct {
	f      *Field
	goName string
	typ    string // Go type
	from   string // expression of type func(any, string) (T, error)
	to     string // expression of type func(T) (any, error)
}

type avroArm struct {
	branch string // the branch name in tagged unions
	goName string
	typ    string
	from   string
	to     string
}

// avroMethods are the methods of a generated record, which fields may not
// be named.
var avroMethods = map[string]bool{"MarshalAvro": true, "UnmarshalAvro": true, "MarshalAvroJSON": true,
	"UnmarshalAvroJSON": true, "MarshalAvroFramed": true, "Valid": true}

// analyzeAvro builds the Go types of every version of an Avro event type.
func (g *goTypes) analyzeAvro(t gocode.EventType, schemas []format.Schema) {
	at := &avroType{t: t, base: gocode.TypeBaseName(t.Name)}
	at.file = gocode.Snake(at.base) + "_gen.go"
	// Not "avro"+base: that is a runtime function's name for a type
	// called branch, as or type.err.
	at.varName = "avroSchemasOf" + at.base
	origin := "event type " + t.Name
	for _, n := range []string{at.base + "Type", at.base + "Data", "Decode" + at.base, "Decode" + at.base + "Avro", "Decode" + at.base + "Framed"} {
		g.pkg.Declare(n, origin)
	}
	g.pkg.OwnFile(at.file, t.Name)
	g.pkg.UseRuntime("avro")
	for i, v := range t.Versions {
		s, ok := schemas[i].(*Schema)
		if !ok {
			g.pkg.Fail(fmt.Errorf("%s: not a compiled Avro schema", v.File))
			continue
		}
		av := &avroVersion{at: at, v: v, s: s, name: at.base + "V" + strconv.Itoa(v.Number), byN: map[*Node]*avroDef{}}
		vorigin := fmt.Sprintf("%s v%d", t.Name, v.Number)
		g.pkg.Declare(av.name+"DataSchema", vorigin)
		g.pkg.Declare("New"+av.name+"Event", vorigin)
		if s.Root.Kind != "record" {
			g.pkg.Fail(fmt.Errorf("%s: the top-level schema is %s, not a record: Go code is generated for record event data only", v.File, s.Root.Describe()))
			continue
		}
		// A record that contains itself through record fields only
		// (no Go type: the struct would contain itself) never gets here:
		// the loader refuses it as having no finite datum.
		av.root = g.avroNamed(av, s.Root, av.name)
		at.versions = append(at.versions, av)
	}
	g.types = append(g.types, at)
	g.pkg.Decodes(at.base)
}

// avroNamed returns the definition of a record, enum or fixed node; name
// is the Go name it gets when it has none yet. Nodes are shared by every
// reference, so recursive types end here.
func (g *goTypes) avroNamed(av *avroVersion, n *Node, name string) *avroDef {
	if d := av.byN[n]; d != nil {
		return d
	}
	if name == "" {
		short := n.Name
		if i := strings.LastIndexByte(short, '.'); i >= 0 {
			short = short[i+1:]
		}
		name = av.name + gocode.ExportedName(short)
	}
	name = g.pkg.Claim(name, "Avro "+n.Describe())
	d := &avroDef{node: n, name: name}
	av.byN[n] = d
	av.defs = append(av.defs, d)
	switch n.Kind {
	case "record":
		d.kind = avroRecord
		raw := make([]string, len(n.Fields))
		base := make([]string, len(n.Fields))
		for i, f := range n.Fields {
			raw[i], base[i] = f.Name, gocode.ExportedName(f.Name)
		}
		names := gocode.Disambiguate(raw, base, avroMethods)
		for i, f := range n.Fields {
			typ, from, to := g.avroExpr(av, f.Type, name+names[i])
			d.fields = append(d.fields, avroField{f: f, goName: names[i], typ: typ, from: from, to: to})
		}
	case "enum":
		d.kind = avroEnum
		base := make([]string, len(n.Symbols))
		for i, s := range n.Symbols {
			base[i] = name + gocode.ExportedName(strings.ToLower(s))
		}
		d.consts = gocode.Disambiguate(n.Symbols, base, nil)
		for i, c := range d.consts {
			// Numbered like type names when another Avro type already has
			// the name (record SFoo beside enum S's symbol FOO).
			d.consts[i] = g.pkg.Claim(c, fmt.Sprintf("enum constant %s of %s", n.Symbols[i], n.Describe()))
		}
	case "fixed":
		d.kind = avroFixed
	}
	return d
}

// avroExpr returns the Go type of values of n and the converters from and
// to decoded Avro values; hint names a union's sum type.
func (g *goTypes) avroExpr(av *avroVersion, n *Node, hint string) (typ, from, to string) {
	prim := func(t string) (string, string, string) {
		return t, "avroAs[" + t + "]", "avroTo[" + t + "]"
	}
	switch n.Kind {
	case "null":
		av.generic = true
		return "struct{}", "avroNullFrom", "avroNullTo"
	case "boolean":
		return prim("bool")
	case "int":
		switch n.Logical {
		case "date":
			return prim("time.Time")
		case "time-millis":
			return prim("time.Duration")
		}
		return prim("int32")
	case "long":
		switch n.Logical {
		case "timestamp-millis", "timestamp-micros", "timestamp-nanos", "local-timestamp-millis", "local-timestamp-micros", "local-timestamp-nanos":
			return prim("time.Time")
		case "time-micros":
			return prim("time.Duration")
		}
		return prim("int64")
	case "float":
		return prim("float32")
	case "double":
		return prim("float64")
	case "string":
		return prim("string")
	case "bytes":
		if n.Logical == "decimal" || n.Logical == "big-decimal" {
			return "*big.Rat", "avroAs[*big.Rat]", "avroDecimalTo[*big.Rat]"
		}
		return prim("[]byte")
	case "fixed":
		switch n.Logical {
		case "decimal":
			return "*big.Rat", "avroAs[*big.Rat]", "avroDecimalTo[*big.Rat]"
		case "duration":
			return prim("avro.Duration")
		}
		d := g.avroNamed(av, n, "")
		return d.name, "avroFrom" + d.name, "avroTo" + d.name
	case "record", "enum":
		d := g.avroNamed(av, n, "")
		return d.name, "avroFrom" + d.name, "avroTo" + d.name
	case "array":
		t, f, o := g.avroExpr(av, n.Items, hint+"Item")
		return "[]" + t, "avroSliceFrom(" + f + ")", "avroSliceTo(" + o + ")"
	case "map":
		t, f, o := g.avroExpr(av, n.Values, hint+"Value")
		return "map[string]" + t, "avroMapFrom(" + f + ")", "avroMapTo(" + o + ")"
	case "union":
		var other []*Node
		hasNull := false
		for _, b := range n.Branches {
			if b.Kind == "null" {
				hasNull = true
			} else {
				other = append(other, b)
			}
		}
		if hasNull && len(other) == 1 {
			t, f, o := g.avroExpr(av, other[0], hint)
			br := gocode.Q(other[0].BranchName())
			if strings.HasPrefix(t, "*") {
				// Already nil-able (a decimal): nil is null.
				return t, "avroNilFrom(" + br + ", " + f + ")", "avroNilTo(" + br + ", " + o + ")"
			}
			return "*" + t, "avroPtrFrom(" + br + ", " + f + ")", "avroPtrTo(" + br + ", " + o + ")"
		}
		av.generic = true
		if len(other) == 0 {
			return "struct{}", "avroNullFrom", "avroNullTo"
		}
		d := g.avroUnionDef(av, n, other, hasNull, hint)
		if hasNull {
			return "*" + d.name, "avroOptFrom(avroFrom" + d.name + ")", "avroOptTo(avroTo" + d.name + ")"
		}
		return d.name, "avroFrom" + d.name, "avroTo" + d.name
	}
	g.pkg.Fail(fmt.Errorf("%s: %s: Avro type %q has no Go mapping", n.File, n.Pointer, n.Kind))
	return "struct{}", "avroNullFrom", "avroNullTo"
}

func (g *goTypes) avroUnionDef(av *avroVersion, n *Node, other []*Node, hasNull bool, hint string) *avroDef {
	if d := av.byN[n]; d != nil {
		return d
	}
	name := g.pkg.Claim(hint, "Avro union at "+n.File+"#"+n.Pointer)
	d := &avroDef{kind: avroUnion, node: n, name: name, null: hasNull}
	av.byN[n] = d
	av.defs = append(av.defs, d)
	raw := make([]string, len(other))
	base := make([]string, len(other))
	for i, b := range other {
		raw[i] = b.BranchName()
		short := raw[i]
		if j := strings.LastIndexByte(short, '.'); j >= 0 {
			short = short[j+1:]
		}
		base[i] = gocode.ExportedName(short)
	}
	names := gocode.Disambiguate(raw, base, nil)
	for i, b := range other {
		t, f, o := g.avroExpr(av, b, name+names[i])
		d.arms = append(d.arms, avroArm{branch: raw[i], goName: names[i], typ: t, from: f, to: o})
	}
	return d
}

// avroTag is the struct tag of a field: the library's avro tag, so that
// the structs also work with github.com/twmb/avro directly.
func avroTag(name string) string {
	tag := `avro:"` + name + `"`
	if plainTagName().MatchString(name) {
		return "`" + tag + "`"
	}
	return gocode.Q(tag)
}

var plainTagName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

func (g *goTypes) emitAvroType(at *avroType) (gocode.File, error) {
	o := &gocode.Writer{}
	t := at.t
	doc := fmt.Sprintf("%sType is the CloudEvents type of %s events (Avro).", at.base, t.Name)
	if t.Description != "" {
		doc += "\n\n" + t.Description
	}
	o.Raw(gocode.Comment(doc))
	o.P("const %sType = %s", at.base, gocode.Q(t.Name))
	o.P("")
	o.P("// The dataschema attribute of each version of %s events.", t.Name)
	o.P("const (")
	for _, av := range at.versions {
		o.P("%sDataSchema = %s", av.name, gocode.Q(av.v.DataSchema))
	}
	o.P(")")
	o.P("")
	if len(at.versions) == 0 {
		return g.pkg.Finish(at.file, "", o.String())
	}
	latest := at.versions[len(at.versions)-1]
	var names []string
	for _, av := range at.versions {
		names = append(names, "*"+av.name)
	}
	o.Raw(gocode.Comment(fmt.Sprintf("%sData is the data of a %s event, one of: %s. Decode%s always returns *%s: Avro's schema resolution reads every version's data as the latest version.", at.base, t.Name, strings.Join(names, ", "), at.base, latest.name)))
	o.P("type %sData interface {", at.base)
	o.P("is%sData()", at.base)
	o.P("}")
	o.P("")
	for _, av := range at.versions {
		o.P("func (*%s) is%sData() {}", av.name, at.base)
	}
	o.P("")
	o.Raw(gocode.Comment(fmt.Sprintf("%s holds the Avro schema of each version of %s (self-contained, named types inlined) and resolves one version's data to another's.", at.varName, t.Name)))
	o.P("var %s = newEvtAvroType(%s,", at.varName, gocode.Q(t.Name))
	for _, av := range at.versions {
		o.P("%s,", gocode.Q(string(av.s.JSON())))
	}
	o.P(")")
	o.P("")
	var dataschemas []string
	for _, av := range at.versions {
		dataschemas = append(dataschemas, av.name+"DataSchema")
	}
	srcVar := ""
	if t.Source != "" {
		srcVar = g.pkg.RegexpVar(`^(?:` + t.Source + `)$`)
	}
	for _, av := range at.versions {
		gocode.ConstructorHead(o, t, av.v, av.name, srcVar, " in Avro's binary encoding", "application/avro (data_base64 in the structured format)", "does not encode under the version's schema")
		o.P("b, err := data.MarshalAvro()")
		o.P("if err != nil {")
		o.P("return event.Event{}, err")
		o.P("}")
		o.P("return evtNewAvroEvent(%sType, %sDataSchema, source, b, opts)", at.base, av.name)
		o.P("}")
		o.P("")
	}
	o.Raw(gocode.Comment(fmt.Sprintf("Decode%s decodes the data of a %s event into the latest version, *%s, whatever version wrote it: the writer is the version the event's dataschema names (the latest when it has none), and Avro's schema resolution maps its data to the latest version (promotions, defaults for added fields, enum defaults). The data is Avro's binary encoding for datacontenttype application/avro (a Confluent header, magic byte 0 and a 4-byte schema id, is skipped when present) and Avro's JSON encoding for a JSON datacontenttype. It fails for another type, an unknown dataschema and data the writer's schema rejects.", at.base, t.Name, latest.name)))
	o.P("func Decode%s(e event.Event) (%sData, error) {", at.base, at.base)
	o.P("data, writer, isJSON, err := evtAvroEventData(e, %sType, []string{%s})", at.base, strings.Join(dataschemas, ", "))
	o.P("if err != nil {")
	o.P("return nil, err")
	o.P("}")
	if !latest.generic {
		// The library fills the struct, as in UnmarshalAvro; the generic
		// value and the converters serve what that path hands back.
		o.P("v, d, err := evtAvroDecodeFast[%s](%s, data, writer, %d, isJSON)", latest.name, at.varName, latest.v.Number)
		o.P("if err == nil && v != nil {")
		o.P("return v, nil")
		o.P("}")
	} else {
		o.P("var d any")
		o.P("if isJSON {")
		o.P("d, err = %s.decodeJSON(data, writer, %d)", at.varName, latest.v.Number)
		o.P("} else {")
		o.P("d, err = %s.decodeAuto(data, writer, %d)", at.varName, latest.v.Number)
		o.P("}")
	}
	o.P("if err != nil {")
	o.P("return nil, evtDataErr(e, %sType, writer, err)", at.base)
	o.P("}")
	o.P("x, err := avroFrom%s(d)", latest.name)
	o.P("if err != nil {")
	o.P("return nil, fmt.Errorf(\"event %%q: %%w\", e.ID(), avroDataErr(%sType, %d, err))", at.base, latest.v.Number)
	o.P("}")
	o.P("return &x, nil")
	o.P("}")
	o.P("")
	o.Raw(gocode.Comment(fmt.Sprintf("Decode%sAvro reads one Avro binary datum (no Confluent header) written with version writerVersion of %s into the latest version, *%s.", at.base, t.Name, latest.name)))
	o.P("func Decode%sAvro(data []byte, writerVersion int) (*%s, error) {", at.base, latest.name)
	o.P("v := new(%s)", latest.name)
	o.P("if err := v.UnmarshalAvro(data, writerVersion); err != nil {")
	o.P("return nil, err")
	o.P("}")
	o.P("return v, nil")
	o.P("}")
	o.P("")
	o.Raw(gocode.Comment(fmt.Sprintf("Decode%sFramed reads a Confluent-framed record value (magic byte 0, 4-byte schema id, binary datum) of %s into the latest version, *%s; versionOf maps a registry schema id to the version it was registered as (from evtool registry push or pull).", at.base, t.Name, latest.name)))
	o.P("func Decode%sFramed(data []byte, versionOf func(id uint32) (version int, ok bool)) (*%s, error) {", at.base, latest.name)
	if !latest.generic {
		o.P("v, d, err := evtAvroDecodeFramedFast[%s](%s, data, versionOf, %d)", latest.name, at.varName, latest.v.Number)
		o.P("if err != nil || v != nil {")
		o.P("return v, err")
		o.P("}")
	} else {
		o.P("d, _, err := %s.decodeFramed(data, versionOf, %d)", at.varName, latest.v.Number)
		o.P("if err != nil {")
		o.P("return nil, err")
		o.P("}")
	}
	o.P("x, err := avroFrom%s(d)", latest.name)
	o.P("if err != nil {")
	o.P("return nil, avroDataErr(%sType, %d, err)", at.base, latest.v.Number)
	o.P("}")
	o.P("return &x, nil")
	o.P("}")
	o.P("")
	for _, av := range at.versions {
		for _, d := range av.defs {
			g.emitAvroDef(o, av, d)
		}
	}
	return g.pkg.Finish(at.file, "", o.String())
}

func (g *goTypes) emitAvroDef(o *gocode.Writer, av *avroVersion, d *avroDef) {
	n := d.node
	switch d.kind {
	case avroRecord:
		if d == av.root {
			doc := fmt.Sprintf("%s is the data of version %d of %s events: Avro %s.", d.name, av.v.Number, av.at.t.Name, n.Describe())
			if av.v.Deprecated {
				doc += fmt.Sprintf("\n\nDeprecated: version %d of %s is deprecated in the catalog.", av.v.Number, av.at.t.Name)
			}
			o.Raw(gocode.Comment(doc + "\n\nSchema: " + av.v.RelPath))
		} else {
			o.Raw(gocode.Comment(fmt.Sprintf("%s is Avro %s.", d.name, n.Describe())))
		}
		o.P("type %s struct {", d.name)
		for _, f := range d.fields {
			o.P("%s %s %s", f.goName, f.typ, avroTag(f.f.Name))
		}
		o.P("}")
		o.P("")
		o.P("func avroFrom%s(d any) (%s, error) {", d.name, d.name)
		o.P("var v %s", d.name)
		if len(d.fields) == 0 {
			o.P("_, ok := d.(map[string]any)")
		} else {
			o.P("m, ok := d.(map[string]any)")
		}
		o.P("if !ok {")
		o.P("return v, avroTypeErr(d, %s)", gocode.Q(n.Describe()))
		o.P("}")
		if len(d.fields) > 0 {
			o.P("var err error")
		}
		for _, f := range d.fields {
			o.P("if v.%s, err = %s(m[%s]); err != nil {", f.goName, f.from, gocode.Q(f.f.Name))
			o.P("return v, avroFieldErr(%s, err)", gocode.Q(f.f.Name))
			o.P("}")
		}
		o.P("return v, nil")
		o.P("}")
		o.P("")
		o.P("func avroTo%s(v %s) (any, error) {", d.name, d.name)
		o.P("m := make(map[string]any, %d)", len(d.fields))
		if len(d.fields) > 0 {
			o.P("var err error")
		}
		for _, f := range d.fields {
			o.P("if m[%s], err = %s(v.%s); err != nil {", gocode.Q(f.f.Name), f.to, f.goName)
			o.P("return nil, avroFieldErr(%s, err)", gocode.Q(f.f.Name))
			o.P("}")
		}
		o.P("return m, nil")
		o.P("}")
		o.P("")
		if d == av.root {
			g.emitAvroRootMethods(o, av)
		}
	case avroEnum:
		o.Raw(gocode.Comment(fmt.Sprintf("%s is Avro %s; the constants below are its symbols.", d.name, n.Describe())))
		o.P("type %s string", d.name)
		o.P("")
		o.P("const (")
		for i, c := range d.consts {
			o.P("%s %s = %s", c, d.name, gocode.Q(n.Symbols[i]))
		}
		o.P(")")
		o.P("")
		o.P("// Valid reports whether v is one of the enum's symbols.")
		o.P("func (v %s) Valid() bool {", d.name)
		o.P("switch v {")
		o.P("case %s:", strings.Join(d.consts, ", "))
		o.P("return true")
		o.P("}")
		o.P("return false")
		o.P("}")
		o.P("")
		o.P("func avroFrom%s(d any) (%s, error) {", d.name, d.name)
		o.P("s, err := avroAs[string](d)")
		o.P("return %s(s), err", d.name)
		o.P("}")
		o.P("")
		o.P("func avroTo%s(v %s) (any, error) {", d.name, d.name)
		o.P("if !v.Valid() {")
		o.P("return nil, fmt.Errorf(\": %%q is not a symbol of %%s\", string(v), %s)", gocode.Q(n.Describe()))
		o.P("}")
		o.P("return string(v), nil")
		o.P("}")
		o.P("")
	case avroFixed:
		o.Raw(gocode.Comment(fmt.Sprintf("%s is Avro %s of %d bytes.", d.name, n.Describe(), n.Size)))
		o.P("type %s [%d]byte", d.name, n.Size)
		o.P("")
		o.P("func avroFrom%s(d any) (%s, error) {", d.name, d.name)
		if n.Logical == "uuid" {
			// The library decodes a uuid fixed as [16]byte.
			o.P("a, err := avroAs[[16]byte](d)")
			o.P("return %s(a), err", d.name)
		} else {
			o.P("var v %s", d.name)
			o.P("b, err := avroAs[[]byte](d)")
			o.P("if err == nil && len(b) != len(v) {")
			o.P("err = avroTypeErr(d, %s)", gocode.Q(fmt.Sprintf("%d bytes", n.Size)))
			o.P("}")
			o.P("copy(v[:], b)")
			o.P("return v, err")
		}
		o.P("}")
		o.P("")
		o.P("func avroTo%s(v %s) (any, error) { return v[:], nil }", d.name, d.name)
		o.P("")
	case avroUnion:
		var arms []string
		for _, a := range d.arms {
			arms = append(arms, a.branch)
		}
		doc := fmt.Sprintf("%s is an Avro union of %s: exactly one field is set.", d.name, strings.Join(arms, ", "))
		if d.null {
			doc += " The union also has null, which a nil *" + d.name + " stands for."
		}
		o.Raw(gocode.Comment(doc))
		o.P("type %s struct {", d.name)
		for _, a := range d.arms {
			o.P("%s *%s", a.goName, a.typ)
		}
		o.P("}")
		o.P("")
		desc := "union of " + strings.Join(arms, ", ")
		o.P("func avroFrom%s(d any) (%s, error) {", d.name, d.name)
		o.P("var v %s", d.name)
		o.P("branch, x, err := avroBranch(d, %s)", gocode.Q(desc))
		o.P("if err != nil {")
		o.P("return v, err")
		o.P("}")
		o.P("switch branch {")
		for _, a := range d.arms {
			o.P("case %s:", gocode.Q(a.branch))
			o.P("b, err := %s(x)", a.from)
			o.P("if err != nil {")
			o.P("return v, err")
			o.P("}")
			o.P("v.%s = &b", a.goName)
			o.P("return v, nil")
		}
		o.P("}")
		o.P("return v, avroTypeErr(d, %s)", gocode.Q(desc))
		o.P("}")
		o.P("")
		o.P("func avroTo%s(v %s) (any, error) {", d.name, d.name)
		o.P("var out any")
		o.P("set := 0")
		for _, a := range d.arms {
			o.P("if v.%s != nil {", a.goName)
			o.P("x, err := %s(*v.%s)", a.to, a.goName)
			o.P("if err != nil {")
			o.P("return nil, err")
			o.P("}")
			o.P("out = map[string]any{%s: x}", gocode.Q(a.branch))
			o.P("set++")
			o.P("}")
		}
		o.P("if set != 1 {")
		o.P("return nil, avroUnionErr(%s, set)", gocode.Q(desc))
		o.P("}")
		o.P("return out, nil")
		o.P("}")
		o.P("")
	}
}

func (g *goTypes) emitAvroRootMethods(o *gocode.Writer, av *avroVersion) {
	at, name, n := av.at, av.name, av.v.Number
	for _, m := range []struct{ method, decode, doc string }{
		{"UnmarshalAvro", "decode", "UnmarshalAvro reads one Avro binary datum (no Confluent header) written with version writerVersion of %s into v, by Avro's schema resolution from the writer's schema to version %d's."},
		{"UnmarshalAvroJSON", "decodeJSON", "UnmarshalAvroJSON reads a datum in Avro's JSON encoding written with version writerVersion of %s into v, resolved to version %d."},
	} {
		o.Raw(gocode.Comment(fmt.Sprintf(m.doc, at.t.Name, n)))
		o.P("func (v *%s) %s(data []byte, writerVersion int) error {", name, m.method)
		if m.decode == "decode" && !av.generic {
			// No sum type below: the library fills the struct itself,
			// without the generic value in between (about 1.4 times
			// faster).
			o.P("var x %s", name)
			o.P("if err := %s.decodeInto(data, writerVersion, %d, &x); err != nil {", at.varName, n)
			o.P("return err")
			o.P("}")
			o.P("*v = x")
			o.P("return nil")
			o.P("}")
			o.P("")
			continue
		}
		if m.decode == "decodeJSON" && !av.generic {
			// Data of another version is resolved through its binary
			// encoding, which the library decodes into the struct; data
			// of this version goes through the converters, cheaper than
			// encoding it again; so does data the first way refuses, for
			// the generic path's answer.
			o.P("var x %s", name)
			o.P("if writerVersion != %d {", n)
			o.P("if err := %s.decodeJSONInto(data, writerVersion, %d, &x); err == nil {", at.varName, n)
			o.P("*v = x")
			o.P("return nil")
			o.P("}")
			o.P("}")
		}
		o.P("d, err := %s.%s(data, writerVersion, %d)", at.varName, m.decode, n)
		o.P("if err != nil {")
		o.P("return err")
		o.P("}")
		if m.decode == "decodeJSON" && !av.generic {
			o.P("x, err = avroFrom%s(d)", name)
		} else {
			o.P("x, err := avroFrom%s(d)", name)
		}
		o.P("if err != nil {")
		o.P("return avroDataErr(%sType, %d, err)", at.base, n)
		o.P("}")
		o.P("*v = x")
		o.P("return nil")
		o.P("}")
		o.P("")
	}
	o.Raw(gocode.Comment(fmt.Sprintf("MarshalAvro writes v in Avro's binary encoding under version %d's schema; it fails for a value the schema does not accept (an unknown enum symbol, a union with no or several branches set, a nil decimal, a decimal beyond its precision).", n)))
	o.P("func (v %s) MarshalAvro() ([]byte, error) {", name)
	if !av.generic {
		// No sum type: the library encodes the struct itself; what it
		// refuses gets the converters' error.
		o.P("if b, ok := %s.encodeFast(%d, &v); ok {", at.varName, n)
		o.P("return b, nil")
		o.P("}")
	}
	o.P("d, err := avroTo%s(v)", name)
	o.P("if err != nil {")
	o.P("return nil, avroDataErr(%sType, %d, err)", at.base, n)
	o.P("}")
	o.P("return %s.encode(%d, d)", at.varName, n)
	o.P("}")
	o.P("")
	o.Raw(gocode.Comment(fmt.Sprintf("MarshalAvroJSON writes v in Avro's JSON encoding (unions tagged with their branch) under version %d's schema.", n)))
	o.P("func (v %s) MarshalAvroJSON() ([]byte, error) {", name)
	o.P("d, err := avroTo%s(v)", name)
	o.P("if err != nil {")
	o.P("return nil, avroDataErr(%sType, %d, err)", at.base, n)
	o.P("}")
	o.P("return %s.encodeJSON(%d, d)", at.varName, n)
	o.P("}")
	o.P("")
	o.Raw(gocode.Comment("MarshalAvroFramed writes v in the Confluent wire format: magic byte 0, the 4-byte big-endian registry schema id, then the binary encoding."))
	o.P("func (v %s) MarshalAvroFramed(id uint32) ([]byte, error) {", name)
	o.P("b, err := v.MarshalAvro()")
	o.P("if err != nil {")
	o.P("return nil, err")
	o.P("}")
	o.P("return evtAvroFrame(id, b), nil")
	o.P("}")
	o.P("")
}
