package codegen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/evtool/evtool/catalog"
	favro "github.com/evtool/evtool/format/avro"
)

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

// avroType is one Avro event type.
type avroType struct {
	t        *catalog.EventType
	base     string
	file     string
	varName  string // the package-level *evtAvroType
	versions []*avroVersion
}

type avroVersion struct {
	at   *avroType
	v    *catalog.Version
	s    *favro.Schema
	name string
	root *avroDef
	defs []*avroDef // in order of first use
	// generic is set when a Go type of the version is one the library
	// cannot decode into by reflection (a union's sum type, struct{} for
	// null): binary data then goes through the generic decode and the
	// converters.
	generic bool
	byN     map[*favro.Node]*avroDef
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
	node   *favro.Node
	name   string
	fields []avroField
	consts []string  // enum: the constant of each symbol
	arms   []avroArm // union: the branches other than null
	null   bool      // union: has a null branch
}

type avroField struct {
	f      *favro.Field
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
func (g *gen) analyzeAvro(t *catalog.EventType) {
	at := &avroType{t: t, base: typeBaseName(t.Name)}
	at.file = snake(at.base) + "_gen.go"
	// Not "avro"+base: that is a runtime function's name for a type
	// called branch, as or type.err.
	at.varName = "avroSchemasOf" + at.base
	origin := "event type " + t.Name
	for _, n := range []string{at.base + "Type", at.base + "Data", "Decode" + at.base, "Decode" + at.base + "Avro", "Decode" + at.base + "Framed"} {
		g.declare(n, origin)
	}
	if prev, ok := g.fileOwners[at.file]; ok {
		g.errs = append(g.errs, fmt.Errorf("event types %s and %s would both be generated into %s: rename one of them", prev, t.Name, at.file))
	}
	g.fileOwners[at.file] = t.Name
	for _, v := range t.Versions {
		s, ok := v.Compiled.(*favro.Schema)
		if !ok {
			g.errs = append(g.errs, fmt.Errorf("%s: not a compiled Avro schema", v.File))
			continue
		}
		av := &avroVersion{at: at, v: v, s: s, name: at.base + "V" + strconv.Itoa(v.Number), byN: map[*favro.Node]*avroDef{}}
		vorigin := fmt.Sprintf("%s v%d", t.Name, v.Number)
		g.declare(av.name+"DataSchema", vorigin)
		g.declare("New"+av.name+"Event", vorigin)
		if s.Root.Kind != "record" {
			g.errs = append(g.errs, fmt.Errorf("%s: the top-level schema is %s, not a record: Go code is generated for record event data only", v.File, s.Root.Describe()))
			continue
		}
		av.root = g.avroNamed(av, s.Root, av.name)
		if err := avroSelfContained(av); err != nil {
			g.errs = append(g.errs, err)
			continue
		}
		at.versions = append(at.versions, av)
	}
	g.avroTypes = append(g.avroTypes, at)
	g.decodeOrder = append(g.decodeOrder, at.base)
}

// avroNamed returns the definition of a record, enum or fixed node; name
// is the Go name it gets when it has none yet. Nodes are shared by every
// reference, so recursive types end here.
func (g *gen) avroNamed(av *avroVersion, n *favro.Node, name string) *avroDef {
	if d := av.byN[n]; d != nil {
		return d
	}
	if name == "" {
		short := n.Name
		if i := strings.LastIndexByte(short, '.'); i >= 0 {
			short = short[i+1:]
		}
		name = av.name + exportedName(short)
	}
	name = g.avroClaim(av, name, "Avro "+n.Describe())
	d := &avroDef{node: n, name: name}
	av.byN[n] = d
	av.defs = append(av.defs, d)
	switch n.Kind {
	case "record":
		d.kind = avroRecord
		raw := make([]string, len(n.Fields))
		base := make([]string, len(n.Fields))
		for i, f := range n.Fields {
			raw[i], base[i] = f.Name, exportedName(f.Name)
		}
		names := disambiguate(raw, base, avroMethods)
		for i, f := range n.Fields {
			typ, from, to := g.avroExpr(av, f.Type, name+names[i])
			d.fields = append(d.fields, avroField{f: f, goName: names[i], typ: typ, from: from, to: to})
		}
	case "enum":
		d.kind = avroEnum
		base := make([]string, len(n.Symbols))
		for i, s := range n.Symbols {
			base[i] = name + exportedName(strings.ToLower(s))
		}
		d.consts = disambiguate(n.Symbols, base, nil)
		for i, c := range d.consts {
			// Numbered like type names when another Avro type already has
			// the name (record SFoo beside enum S's symbol FOO).
			d.consts[i] = g.avroClaim(av, c, fmt.Sprintf("enum constant %s of %s", n.Symbols[i], n.Describe()))
		}
	case "fixed":
		d.kind = avroFixed
	}
	return d
}

// avroSelfContained fails for a record that contains itself through
// record fields only: such a schema has no finite datum, and the Go
// struct would contain itself. A union, array or map in between breaks
// the cycle (a pointer or a slice in Go).
func avroSelfContained(av *avroVersion) error {
	const (
		visiting = 1
		done     = 2
	)
	state := map[*avroDef]int{}
	var visit func(d *avroDef) error
	visit = func(d *avroDef) error {
		state[d] = visiting
		for _, f := range d.fields {
			if f.f.Type.Kind != "record" {
				continue
			}
			next := av.byN[f.f.Type]
			switch state[next] {
			case visiting:
				return fmt.Errorf("%s: %s: record %s contains itself through field %q with no union, array or map in between: it has no finite datum and no Go type", d.node.File, f.f.Pointer, f.f.Type.Name, f.f.Name)
			case 0:
				if err := visit(next); err != nil {
					return err
				}
			}
		}
		state[d] = done
		return nil
	}
	for _, d := range av.defs {
		if d.kind == avroRecord && state[d] == 0 {
			if err := visit(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// avroClaim declares a Go type name, adding a number when another Avro
// type of the same version already has it (two namespaces with the same
// short name).
func (g *gen) avroClaim(av *avroVersion, name, origin string) string {
	try := name
	for i := 2; ; i++ {
		if _, taken := g.scope.names[try]; !taken {
			g.declare(try, origin)
			return try
		}
		try = name + strconv.Itoa(i)
	}
}

// avroExpr returns the Go type of values of n and the converters from and
// to decoded Avro values; hint names a union's sum type.
func (g *gen) avroExpr(av *avroVersion, n *favro.Node, hint string) (typ, from, to string) {
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
		var other []*favro.Node
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
			br := q(other[0].BranchName())
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
	g.errs = append(g.errs, fmt.Errorf("%s: %s: Avro type %q has no Go mapping", n.File, n.Pointer, n.Kind))
	return "struct{}", "avroNullFrom", "avroNullTo"
}

func (g *gen) avroUnionDef(av *avroVersion, n *favro.Node, other []*favro.Node, hasNull bool, hint string) *avroDef {
	if d := av.byN[n]; d != nil {
		return d
	}
	name := g.avroClaim(av, hint, "Avro union at "+n.File+"#"+n.Pointer)
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
		base[i] = exportedName(short)
	}
	names := disambiguate(raw, base, nil)
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
	if plainTagName.MatchString(name) {
		return "`" + tag + "`"
	}
	return q(tag)
}

var plainTagName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (g *gen) emitAvroType(at *avroType) (File, error) {
	o := &w{}
	t := at.t
	doc := fmt.Sprintf("%sType is the CloudEvents type of %s events (Avro).", at.base, t.Name)
	if t.Meta.Description != "" {
		doc += "\n\n" + t.Meta.Description
	}
	o.raw(comment(doc))
	o.p("const %sType = %s", at.base, q(t.Name))
	o.p("")
	o.p("// The dataschema attribute of each version of %s events.", t.Name)
	o.p("const (")
	for _, av := range at.versions {
		o.p("%sDataSchema = %s", av.name, q(g.cat.DataSchema(t.Name, av.v.Number)))
	}
	o.p(")")
	o.p("")
	if len(at.versions) == 0 {
		return g.finish(at.file, "", o.b.String())
	}
	latest := at.versions[len(at.versions)-1]
	var names []string
	for _, av := range at.versions {
		names = append(names, "*"+av.name)
	}
	o.raw(comment(fmt.Sprintf("%sData is the data of a %s event, one of: %s. Decode%s always returns *%s: Avro's schema resolution reads every version's data as the latest version.", at.base, t.Name, strings.Join(names, ", "), at.base, latest.name)))
	o.p("type %sData interface {", at.base)
	o.p("is%sData()", at.base)
	o.p("}")
	o.p("")
	for _, av := range at.versions {
		o.p("func (*%s) is%sData() {}", av.name, at.base)
	}
	o.p("")
	o.raw(comment(fmt.Sprintf("%s holds the Avro schema of each version of %s (self-contained, named types inlined) and resolves one version's data to another's.", at.varName, t.Name)))
	o.p("var %s = newEvtAvroType(%s,", at.varName, q(t.Name))
	for _, av := range at.versions {
		o.p("%s,", q(string(av.s.JSON())))
	}
	o.p(")")
	o.p("")
	var dataschemas []string
	for _, av := range at.versions {
		dataschemas = append(dataschemas, av.name+"DataSchema")
	}
	srcVar := ""
	if t.Meta.Source != "" {
		srcVar = g.regexpVar(`^(?:` + t.Meta.Source + `)$`)
	}
	for _, av := range at.versions {
		g.emitConstructorHead(o, t, at.base, av.name, av.v.Number, srcVar, " in Avro's binary encoding", "application/avro (data_base64 in the structured format)", "does not encode under the version's schema")
		o.p("b, err := data.MarshalAvro()")
		o.p("if err != nil {")
		o.p("return event.Event{}, err")
		o.p("}")
		o.p("return evtNewAvroEvent(%sType, %sDataSchema, source, b, opts)", at.base, av.name)
		o.p("}")
		o.p("")
	}
	o.raw(comment(fmt.Sprintf("Decode%s decodes the data of a %s event into the latest version, *%s, whatever version wrote it: the writer is the version the event's dataschema names (the latest when it has none), and Avro's schema resolution maps its data to the latest version (promotions, defaults for added fields, enum defaults). The data is Avro's binary encoding for datacontenttype application/avro (a Confluent header, magic byte 0 and a 4-byte schema id, is skipped when present) and Avro's JSON encoding for a JSON datacontenttype. It fails for another type, an unknown dataschema and data the writer's schema rejects.", at.base, t.Name, latest.name)))
	o.p("func Decode%s(e event.Event) (%sData, error) {", at.base, at.base)
	o.p("data, writer, isJSON, err := evtAvroEventData(e, %sType, []string{%s})", at.base, strings.Join(dataschemas, ", "))
	o.p("if err != nil {")
	o.p("return nil, err")
	o.p("}")
	if !latest.generic {
		// The library fills the struct, as in UnmarshalAvro; the generic
		// value and the converters serve what that path hands back.
		o.p("v, d, err := evtAvroDecodeFast[%s](%s, data, writer, %d, isJSON)", latest.name, at.varName, latest.v.Number)
		o.p("if err == nil && v != nil {")
		o.p("return v, nil")
		o.p("}")
	} else {
		o.p("var d any")
		o.p("if isJSON {")
		o.p("d, err = %s.decodeJSON(data, writer, %d)", at.varName, latest.v.Number)
		o.p("} else {")
		o.p("d, err = %s.decodeAuto(data, writer, %d)", at.varName, latest.v.Number)
		o.p("}")
	}
	o.p("if err != nil {")
	o.p("return nil, evtDataErr(e, %sType, writer, err)", at.base)
	o.p("}")
	o.p("x, err := avroFrom%s(d)", latest.name)
	o.p("if err != nil {")
	o.p("return nil, fmt.Errorf(\"event %%q: %%w\", e.ID(), avroDataErr(%sType, %d, err))", at.base, latest.v.Number)
	o.p("}")
	o.p("return &x, nil")
	o.p("}")
	o.p("")
	o.raw(comment(fmt.Sprintf("Decode%sAvro reads one Avro binary datum (no Confluent header) written with version writerVersion of %s into the latest version, *%s.", at.base, t.Name, latest.name)))
	o.p("func Decode%sAvro(data []byte, writerVersion int) (*%s, error) {", at.base, latest.name)
	o.p("v := new(%s)", latest.name)
	o.p("if err := v.UnmarshalAvro(data, writerVersion); err != nil {")
	o.p("return nil, err")
	o.p("}")
	o.p("return v, nil")
	o.p("}")
	o.p("")
	o.raw(comment(fmt.Sprintf("Decode%sFramed reads a Confluent-framed record value (magic byte 0, 4-byte schema id, binary datum) of %s into the latest version, *%s; versionOf maps a registry schema id to the version it was registered as (from evtool registry push or pull).", at.base, t.Name, latest.name)))
	o.p("func Decode%sFramed(data []byte, versionOf func(id uint32) (version int, ok bool)) (*%s, error) {", at.base, latest.name)
	if !latest.generic {
		o.p("v, d, err := evtAvroDecodeFramedFast[%s](%s, data, versionOf, %d)", latest.name, at.varName, latest.v.Number)
		o.p("if err != nil || v != nil {")
		o.p("return v, err")
		o.p("}")
	} else {
		o.p("d, _, err := %s.decodeFramed(data, versionOf, %d)", at.varName, latest.v.Number)
		o.p("if err != nil {")
		o.p("return nil, err")
		o.p("}")
	}
	o.p("x, err := avroFrom%s(d)", latest.name)
	o.p("if err != nil {")
	o.p("return nil, avroDataErr(%sType, %d, err)", at.base, latest.v.Number)
	o.p("}")
	o.p("return &x, nil")
	o.p("}")
	o.p("")
	for _, av := range at.versions {
		for _, d := range av.defs {
			g.emitAvroDef(o, av, d)
		}
	}
	return g.finish(at.file, "", o.b.String())
}

func (g *gen) emitAvroDef(o *w, av *avroVersion, d *avroDef) {
	n := d.node
	switch d.kind {
	case avroRecord:
		if d == av.root {
			doc := fmt.Sprintf("%s is the data of version %d of %s events: Avro %s.", d.name, av.v.Number, av.at.t.Name, n.Describe())
			if av.at.t.Deprecated(av.v.Number) {
				doc += fmt.Sprintf("\n\nDeprecated: version %d of %s is deprecated in the catalog.", av.v.Number, av.at.t.Name)
			}
			o.raw(comment(doc + "\n\nSchema: " + av.v.RelPath))
		} else {
			o.raw(comment(fmt.Sprintf("%s is Avro %s.", d.name, n.Describe())))
		}
		o.p("type %s struct {", d.name)
		for _, f := range d.fields {
			o.p("%s %s %s", f.goName, f.typ, avroTag(f.f.Name))
		}
		o.p("}")
		o.p("")
		o.p("func avroFrom%s(d any) (%s, error) {", d.name, d.name)
		o.p("var v %s", d.name)
		if len(d.fields) == 0 {
			o.p("_, ok := d.(map[string]any)")
		} else {
			o.p("m, ok := d.(map[string]any)")
		}
		o.p("if !ok {")
		o.p("return v, avroTypeErr(d, %s)", q(n.Describe()))
		o.p("}")
		if len(d.fields) > 0 {
			o.p("var err error")
		}
		for _, f := range d.fields {
			o.p("if v.%s, err = %s(m[%s]); err != nil {", f.goName, f.from, q(f.f.Name))
			o.p("return v, avroFieldErr(%s, err)", q(f.f.Name))
			o.p("}")
		}
		o.p("return v, nil")
		o.p("}")
		o.p("")
		o.p("func avroTo%s(v %s) (any, error) {", d.name, d.name)
		o.p("m := make(map[string]any, %d)", len(d.fields))
		if len(d.fields) > 0 {
			o.p("var err error")
		}
		for _, f := range d.fields {
			o.p("if m[%s], err = %s(v.%s); err != nil {", q(f.f.Name), f.to, f.goName)
			o.p("return nil, avroFieldErr(%s, err)", q(f.f.Name))
			o.p("}")
		}
		o.p("return m, nil")
		o.p("}")
		o.p("")
		if d == av.root {
			g.emitAvroRootMethods(o, av)
		}
	case avroEnum:
		o.raw(comment(fmt.Sprintf("%s is Avro %s; the constants below are its symbols.", d.name, n.Describe())))
		o.p("type %s string", d.name)
		o.p("")
		o.p("const (")
		for i, c := range d.consts {
			o.p("%s %s = %s", c, d.name, q(n.Symbols[i]))
		}
		o.p(")")
		o.p("")
		o.p("// Valid reports whether v is one of the enum's symbols.")
		o.p("func (v %s) Valid() bool {", d.name)
		o.p("switch v {")
		o.p("case %s:", strings.Join(d.consts, ", "))
		o.p("return true")
		o.p("}")
		o.p("return false")
		o.p("}")
		o.p("")
		o.p("func avroFrom%s(d any) (%s, error) {", d.name, d.name)
		o.p("s, err := avroAs[string](d)")
		o.p("return %s(s), err", d.name)
		o.p("}")
		o.p("")
		o.p("func avroTo%s(v %s) (any, error) {", d.name, d.name)
		o.p("if !v.Valid() {")
		o.p("return nil, fmt.Errorf(\": %%q is not a symbol of %%s\", string(v), %s)", q(n.Describe()))
		o.p("}")
		o.p("return string(v), nil")
		o.p("}")
		o.p("")
	case avroFixed:
		o.raw(comment(fmt.Sprintf("%s is Avro %s of %d bytes.", d.name, n.Describe(), n.Size)))
		o.p("type %s [%d]byte", d.name, n.Size)
		o.p("")
		o.p("func avroFrom%s(d any) (%s, error) {", d.name, d.name)
		if n.Logical == "uuid" {
			// The library decodes a uuid fixed as [16]byte.
			o.p("a, err := avroAs[[16]byte](d)")
			o.p("return %s(a), err", d.name)
		} else {
			o.p("var v %s", d.name)
			o.p("b, err := avroAs[[]byte](d)")
			o.p("if err == nil && len(b) != len(v) {")
			o.p("err = avroTypeErr(d, %s)", q(fmt.Sprintf("%d bytes", n.Size)))
			o.p("}")
			o.p("copy(v[:], b)")
			o.p("return v, err")
		}
		o.p("}")
		o.p("")
		o.p("func avroTo%s(v %s) (any, error) { return v[:], nil }", d.name, d.name)
		o.p("")
	case avroUnion:
		var arms []string
		for _, a := range d.arms {
			arms = append(arms, a.branch)
		}
		doc := fmt.Sprintf("%s is an Avro union of %s: exactly one field is set.", d.name, strings.Join(arms, ", "))
		if d.null {
			doc += " The union also has null, which a nil *" + d.name + " stands for."
		}
		o.raw(comment(doc))
		o.p("type %s struct {", d.name)
		for _, a := range d.arms {
			o.p("%s *%s", a.goName, a.typ)
		}
		o.p("}")
		o.p("")
		desc := "union of " + strings.Join(arms, ", ")
		o.p("func avroFrom%s(d any) (%s, error) {", d.name, d.name)
		o.p("var v %s", d.name)
		o.p("branch, x, err := avroBranch(d, %s)", q(desc))
		o.p("if err != nil {")
		o.p("return v, err")
		o.p("}")
		o.p("switch branch {")
		for _, a := range d.arms {
			o.p("case %s:", q(a.branch))
			o.p("b, err := %s(x)", a.from)
			o.p("if err != nil {")
			o.p("return v, err")
			o.p("}")
			o.p("v.%s = &b", a.goName)
			o.p("return v, nil")
		}
		o.p("}")
		o.p("return v, avroTypeErr(d, %s)", q(desc))
		o.p("}")
		o.p("")
		o.p("func avroTo%s(v %s) (any, error) {", d.name, d.name)
		o.p("var out any")
		o.p("set := 0")
		for _, a := range d.arms {
			o.p("if v.%s != nil {", a.goName)
			o.p("x, err := %s(*v.%s)", a.to, a.goName)
			o.p("if err != nil {")
			o.p("return nil, err")
			o.p("}")
			o.p("out = map[string]any{%s: x}", q(a.branch))
			o.p("set++")
			o.p("}")
		}
		o.p("if set != 1 {")
		o.p("return nil, avroUnionErr(%s, set)", q(desc))
		o.p("}")
		o.p("return out, nil")
		o.p("}")
		o.p("")
	}
}

func (g *gen) emitAvroRootMethods(o *w, av *avroVersion) {
	at, name, n := av.at, av.name, av.v.Number
	for _, m := range []struct{ method, decode, doc string }{
		{"UnmarshalAvro", "decode", "UnmarshalAvro reads one Avro binary datum (no Confluent header) written with version writerVersion of %s into v, by Avro's schema resolution from the writer's schema to version %d's."},
		{"UnmarshalAvroJSON", "decodeJSON", "UnmarshalAvroJSON reads a datum in Avro's JSON encoding written with version writerVersion of %s into v, resolved to version %d."},
	} {
		o.raw(comment(fmt.Sprintf(m.doc, at.t.Name, n)))
		o.p("func (v *%s) %s(data []byte, writerVersion int) error {", name, m.method)
		if m.decode == "decode" && !av.generic {
			// No sum type below: the library fills the struct itself,
			// without the generic value in between (about 1.4 times
			// faster).
			o.p("var x %s", name)
			o.p("if err := %s.decodeInto(data, writerVersion, %d, &x); err != nil {", at.varName, n)
			o.p("return err")
			o.p("}")
			o.p("*v = x")
			o.p("return nil")
			o.p("}")
			o.p("")
			continue
		}
		if m.decode == "decodeJSON" && !av.generic {
			// Data of another version is resolved through its binary
			// encoding, which the library decodes into the struct; data
			// of this version goes through the converters, cheaper than
			// encoding it again; so does data the first way refuses, for
			// the generic path's answer.
			o.p("var x %s", name)
			o.p("if writerVersion != %d {", n)
			o.p("if err := %s.decodeJSONInto(data, writerVersion, %d, &x); err == nil {", at.varName, n)
			o.p("*v = x")
			o.p("return nil")
			o.p("}")
			o.p("}")
		}
		o.p("d, err := %s.%s(data, writerVersion, %d)", at.varName, m.decode, n)
		o.p("if err != nil {")
		o.p("return err")
		o.p("}")
		if m.decode == "decodeJSON" && !av.generic {
			o.p("x, err = avroFrom%s(d)", name)
		} else {
			o.p("x, err := avroFrom%s(d)", name)
		}
		o.p("if err != nil {")
		o.p("return avroDataErr(%sType, %d, err)", at.base, n)
		o.p("}")
		o.p("*v = x")
		o.p("return nil")
		o.p("}")
		o.p("")
	}
	o.raw(comment(fmt.Sprintf("MarshalAvro writes v in Avro's binary encoding under version %d's schema; it fails for a value the schema does not accept (an unknown enum symbol, a union with no or several branches set, a nil decimal, a decimal beyond its precision).", n)))
	o.p("func (v %s) MarshalAvro() ([]byte, error) {", name)
	if !av.generic {
		// No sum type: the library encodes the struct itself; what it
		// refuses gets the converters' error.
		o.p("if b, ok := %s.encodeFast(%d, &v); ok {", at.varName, n)
		o.p("return b, nil")
		o.p("}")
	}
	o.p("d, err := avroTo%s(v)", name)
	o.p("if err != nil {")
	o.p("return nil, avroDataErr(%sType, %d, err)", at.base, n)
	o.p("}")
	o.p("return %s.encode(%d, d)", at.varName, n)
	o.p("}")
	o.p("")
	o.raw(comment(fmt.Sprintf("MarshalAvroJSON writes v in Avro's JSON encoding (unions tagged with their branch) under version %d's schema.", n)))
	o.p("func (v %s) MarshalAvroJSON() ([]byte, error) {", name)
	o.p("d, err := avroTo%s(v)", name)
	o.p("if err != nil {")
	o.p("return nil, avroDataErr(%sType, %d, err)", at.base, n)
	o.p("}")
	o.p("return %s.encodeJSON(%d, d)", at.varName, n)
	o.p("}")
	o.p("")
	o.raw(comment("MarshalAvroFramed writes v in the Confluent wire format: magic byte 0, the 4-byte big-endian registry schema id, then the binary encoding."))
	o.p("func (v %s) MarshalAvroFramed(id uint32) ([]byte, error) {", name)
	o.p("b, err := v.MarshalAvro()")
	o.p("if err != nil {")
	o.p("return nil, err")
	o.p("}")
	o.p("return evtAvroFrame(id, b), nil")
	o.p("}")
	o.p("")
}
