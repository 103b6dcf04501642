package avro

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/internal/jsonpos"
)

// Node is one schema of an .avsc document with the place it was written:
// the positioned view that lint, compatibility findings and the sampler
// walk. Named types are shared: every reference to a record, enum or fixed
// points at the Node of its definition, so recursive types are cycles.
type Node struct {
	// Kind is a primitive type name or record, enum, fixed, array, map,
	// union.
	Kind string
	// Logical is the logicalType when it applies to Kind (lint rejects the
	// others); Precision and Scale belong to decimal.
	Logical          string
	Precision, Scale int

	// Name is the full name of a record, enum or fixed; Aliases are full
	// names too.
	Name    string
	Aliases []string

	Fields         []*Field
	Symbols        []string
	EnumDefault    string
	HasEnumDefault bool
	Size           int
	Items, Values  *Node
	Branches       []*Node

	// File is the display path of the file that defines the node and
	// Pointer the JSON pointer of its definition there.
	File, Pointer string
}

// Field is one field of a record.
type Field struct {
	Name    string
	Aliases []string
	Type    *Node
	// Default is the default value as written (JSON), when HasDefault.
	Default    json.RawMessage
	HasDefault bool
	// Pointer is where the field's object is in the record's file.
	Pointer string
}

// Named reports whether the node is a record, enum or fixed.
func (n *Node) Named() bool {
	return n.Kind == "record" || n.Kind == "enum" || n.Kind == "fixed"
}

// BranchName is the name a union uses for this branch in Avro's JSON
// encoding: the full name of a named type, else the type name.
func (n *Node) BranchName() string {
	if n.Named() {
		return n.Name
	}
	return n.Kind
}

// Describe is a short human name: "record com.x.Order", "int
// (timestamp-millis)", "array".
func (n *Node) Describe() string {
	s := n.Kind
	if n.Named() {
		s += " " + n.Name
	}
	if n.Logical != "" {
		if n.Logical == "decimal" {
			return fmt.Sprintf("%s (decimal(%d,%d))", s, n.Precision, n.Scale)
		}
		s += " (" + n.Logical + ")"
	}
	return s
}

// Field returns the record field named name, or nil.
func (n *Node) Field(name string) *Field {
	for _, f := range n.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

var primitives = map[string]bool{
	"null": true, "boolean": true, "int": true, "long": true,
	"float": true, "double": true, "bytes": true, "string": true,
}

// logicalBase lists the base types a logical type may annotate.
var logicalBase = map[string][]string{
	"decimal":                {"bytes", "fixed"},
	"big-decimal":            {"bytes"},
	"uuid":                   {"string", "fixed"},
	"date":                   {"int"},
	"time-millis":            {"int"},
	"time-micros":            {"long"},
	"timestamp-millis":       {"long"},
	"timestamp-micros":       {"long"},
	"timestamp-nanos":        {"long"},
	"local-timestamp-millis": {"long"},
	"local-timestamp-micros": {"long"},
	"local-timestamp-nanos":  {"long"},
	"duration":               {"fixed"},
}

// validName reports whether s is an Avro name: [A-Za-z_][A-Za-z0-9_]*.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case i > 0 && c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return true
}

// validFullName checks every dot-separated part of a full name or
// namespace.
func validFullName(s string) bool {
	for part := range strings.SplitSeq(s, ".") {
		if !validName(part) {
			return false
		}
	}
	return true
}

// fullName applies the specification's naming rules: a dotted name is
// already full; otherwise the explicit namespace, else the enclosing one.
func fullName(name string, namespace *string, enclosing string) string {
	if strings.Contains(name, ".") {
		return name
	}
	ns := enclosing
	if namespace != nil {
		ns = *namespace
	}
	if ns == "" {
		return name
	}
	return ns + "." + name
}

func namespaceOf(full string) string {
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		return full[:i]
	}
	return ""
}

// builder turns the raw JSON of one schema (and the definitions it pulls
// from other files) into Nodes, collecting every lint error.
type builder struct {
	loader *loader
	defs   map[string]*Node
	errs   Errors
	// files lists the files the schema uses, root first.
	files []string
	// depth bounds nesting of anonymous types, which cannot recurse but
	// can be deep.
	depth int
	// broken holds the nodes whose definition had an error: their shape is
	// a guess, so a default written for them is not checked against it.
	broken map[*Node]bool
	// annotationErrs counts the errors in logical type annotations, which
	// leave the physical type (the one defaults are checked against) known.
	annotationErrs int
}

func (b *builder) fail(file, ptr, format string, args ...any) {
	b.errs = append(b.errs, b.loader.errorAt(file, ptr, fmt.Sprintf(format, args...)))
}

// failAnnotation reports an error in a logical type annotation.
func (b *builder) failAnnotation(file, ptr, format string, args ...any) {
	b.fail(file, ptr, format, args...)
	b.annotationErrs++
}

func (b *builder) useFile(file string) {
	if !slices.Contains(b.files, file) {
		b.files = append(b.files, file)
	}
}

// build turns raw into a Node, marking it broken when its definition (or
// a type inside it) had an error.
func (b *builder) build(raw any, file, ptr, ns string) *Node {
	before := len(b.errs) - b.annotationErrs
	n := b.buildNode(raw, file, ptr, ns)
	if len(b.errs)-b.annotationErrs > before {
		b.markBroken(n)
	}
	return n
}

func (b *builder) markBroken(n *Node) {
	if b.broken == nil {
		b.broken = map[*Node]bool{}
	}
	b.broken[n] = true
}

func (b *builder) buildNode(raw any, file, ptr, ns string) *Node {
	// A union is no level of its own: it cannot hold a union directly, so
	// ["null", {record}] is one level, as its writer counts it (a record
	// nested 120 deep through optional fields was "deeper than 200").
	if _, union := raw.([]any); !union {
		b.depth++
		defer func() { b.depth-- }()
	}
	if b.depth > maxNesting {
		b.fail(file, ptr, "schema nested deeper than %d levels", maxNesting)
		return &Node{Kind: "null", File: file, Pointer: ptr}
	}
	switch v := raw.(type) {
	case string:
		if primitives[v] {
			return &Node{Kind: v, File: file, Pointer: ptr}
		}
		return b.reference(v, file, ptr, ns)
	case []any:
		return b.union(v, file, ptr, ns)
	case map[string]any:
		return b.object(v, file, ptr, ns)
	default:
		b.fail(file, ptr, "a schema is a type name, an object or a union array, not %s", jsonKind(raw))
		return &Node{Kind: "null", File: file, Pointer: ptr}
	}
}

const maxNesting = 200

// MaxFixedSize is the largest fixed size lint accepts: 1 MiB, the default
// largest Kafka record.
const MaxFixedSize = 1 << 20

func (b *builder) reference(name, file, ptr, ns string) *Node {
	candidates := []string{name}
	if !strings.Contains(name, ".") && ns != "" {
		// A relative name means the enclosing namespace first, then the
		// null namespace (as Java resolves it).
		candidates = []string{ns + "." + name, name}
	}
	for _, c := range candidates {
		if n := b.defs[c]; n != nil {
			return n
		}
	}
	for _, c := range candidates {
		if n := b.external(c, file, ptr); n != nil {
			return n
		}
	}
	if slices.Contains([]string{"record", "error", "enum", "fixed", "array", "map"}, name) {
		b.fail(file, ptr, "%q is not a type by itself; write {\"type\": %q, ...}", name, name)
	} else if !validFullName(name) {
		b.fail(file, ptr, "invalid type name %q", name)
	} else {
		b.fail(file, ptr, "unknown type %q: no .avsc file in the schema's directory or the shared directories defines it", name)
	}
	return &Node{Kind: "null", File: file, Pointer: ptr}
}

// external builds a named type defined in another file.
func (b *builder) external(full, fromFile, ptr string) *Node {
	sites := b.loader.definitions(full, fromFile)
	switch len(sites) {
	case 0:
		return nil
	case 1:
	default:
		b.fail(fromFile, ptr, "type %q is defined in more than one file: %s and %s", full, sites[0].file, sites[1].file)
	}
	s := sites[0]
	b.useFile(s.file)
	return b.build(s.raw, s.file, s.ptr, s.ns)
}

func (b *builder) union(v []any, file, ptr, ns string) *Node {
	n := &Node{Kind: "union", File: file, Pointer: ptr}
	seen := map[string]int{}
	for i, raw := range v {
		bp := ptr + "/" + strconv.Itoa(i)
		if _, inner := raw.([]any); inner {
			// Not built: a union inside a union inside a union... would
			// nest without a level counted.
			b.fail(file, bp, "a union may not directly contain another union")
			br := &Node{Kind: "union", File: file, Pointer: bp}
			b.markBroken(br)
			n.Branches = append(n.Branches, br)
			continue
		}
		br := b.build(raw, file, bp, ns)
		if br.Kind == "union" {
			b.fail(file, bp, "a union may not directly contain another union")
		}
		key := br.BranchName()
		if b.broken[br] && br.Kind == "null" {
			// A placeholder for a type that did not build (unknown, too
			// deep): its error is reported, and it is no second null.
			n.Branches = append(n.Branches, br)
			continue
		}
		if j, dup := seen[key]; dup {
			b.fail(file, bp, "union has two branches of type %s (branches %d and %d)", key, j, i)
		}
		seen[key] = i
		n.Branches = append(n.Branches, br)
	}
	// An empty union is legal (Java accepts it); it has no datum, which
	// the sampler reports.
	return n
}

func (b *builder) object(v map[string]any, file, ptr, ns string) *Node {
	t, ok := v["type"]
	if !ok {
		b.fail(file, ptr, "schema object has no \"type\"")
		return &Node{Kind: "null", File: file, Pointer: ptr}
	}
	ts, ok := t.(string)
	if !ok {
		return b.build(t, file, ptr+"/type", ns)
	}
	var n *Node
	switch ts {
	case "record", "error", "enum", "fixed":
		n = b.named(v, ts, file, ptr, ns)
	case "array":
		n = &Node{Kind: "array", File: file, Pointer: ptr}
		if items, ok := v["items"]; ok {
			n.Items = b.build(items, file, ptr+"/items", ns)
		} else {
			b.fail(file, ptr, "array has no \"items\"")
			n.Items = &Node{Kind: "null", File: file, Pointer: ptr}
		}
	case "map":
		n = &Node{Kind: "map", File: file, Pointer: ptr}
		if values, ok := v["values"]; ok {
			n.Values = b.build(values, file, ptr+"/values", ns)
		} else {
			b.fail(file, ptr, "map has no \"values\"")
			n.Values = &Node{Kind: "null", File: file, Pointer: ptr}
		}
	default:
		if !primitives[ts] {
			// {"type": "com.x.Name"} refers to a named type.
			return b.reference(ts, file, ptr+"/type", ns)
		}
		n = &Node{Kind: ts, File: file, Pointer: ptr}
	}
	b.logical(n, v, file, ptr)
	return n
}

func (b *builder) named(v map[string]any, kind, file, ptr, ns string) *Node {
	if kind == "error" {
		kind = "record"
	}
	n := &Node{Kind: kind, File: file, Pointer: ptr}
	name, _ := v["name"].(string)
	var nsAttr *string
	if raw, ok := v["namespace"]; ok {
		s, isStr := raw.(string)
		if !isStr {
			b.fail(file, ptr+"/namespace", "namespace must be a string")
		} else {
			if s != "" && !validFullName(s) {
				b.fail(file, ptr+"/namespace", "invalid namespace %q: each dot-separated part must match [A-Za-z_][A-Za-z0-9_]*", s)
			}
			nsAttr = &s
		}
	}
	switch {
	case name == "":
		b.fail(file, ptr, "%s has no \"name\"", kind)
		name = "_unnamed" + strconv.Itoa(len(b.defs))
	case !validFullName(name):
		b.fail(file, ptr+"/name", "invalid name %q: each dot-separated part must match [A-Za-z_][A-Za-z0-9_]*", name)
	case primitives[name]:
		b.fail(file, ptr+"/name", "name %q is a primitive type name", name)
	}
	n.Name = fullName(name, nsAttr, ns)
	inner := namespaceOf(n.Name)
	n.Aliases = b.aliases(v, file, ptr, inner)
	if prev := b.defs[n.Name]; prev != nil {
		b.fail(file, ptr+"/name", "duplicate name %q: already defined at %s", n.Name, b.loader.place(prev.File, prev.Pointer))
	} else {
		b.defs[n.Name] = n
	}
	switch kind {
	case "record":
		b.fields(n, v, file, ptr, inner)
	case "enum":
		b.enum(n, v, file, ptr)
	case "fixed":
		size, ok := intValue(v["size"])
		switch {
		case !ok || size < 0:
			b.fail(file, ptr+"/size", "fixed needs a \"size\" that is a non-negative integer")
			size = 0
		case size > MaxFixedSize:
			// Every datum holds all of a fixed's bytes, so sampling and
			// witness search would allocate gigabytes for a hostile size.
			b.fail(file, ptr+"/size", "fixed size %d is over evtool's limit of %d bytes (larger than a default Kafka record)", size, MaxFixedSize)
			size = 0
		}
		n.Size = int(size)
	}
	return n
}

func (b *builder) aliases(v map[string]any, file, ptr, ns string) []string {
	raw, ok := v["aliases"]
	if !ok {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		b.fail(file, ptr+"/aliases", "aliases must be an array of names")
		return nil
	}
	var out []string
	for i, a := range list {
		s, ok := a.(string)
		if !ok || !validFullName(s) {
			b.fail(file, ptr+"/aliases/"+strconv.Itoa(i), "invalid alias %v", a)
			continue
		}
		out = append(out, fullName(s, nil, ns))
	}
	return out
}

func (b *builder) fields(n *Node, v map[string]any, file, ptr, ns string) {
	list, ok := v["fields"].([]any)
	if !ok {
		b.fail(file, ptr, "record needs a \"fields\" array")
		return
	}
	seen := map[string]int{}
	// taken is every field name and alias: the library refuses a record
	// where one names two fields, so lint reports it at the alias.
	taken := map[string]bool{}
	for _, raw := range list {
		if fo, ok := raw.(map[string]any); ok {
			if name, ok := fo["name"].(string); ok {
				taken[name] = true
			}
		}
	}
	for i, raw := range list {
		fp := ptr + "/fields/" + strconv.Itoa(i)
		fo, ok := raw.(map[string]any)
		if !ok {
			b.fail(file, fp, "a field is an object with \"name\" and \"type\"")
			continue
		}
		f := &Field{Pointer: fp}
		f.Name, _ = fo["name"].(string)
		if !validName(f.Name) {
			b.fail(file, fp+"/name", "invalid field name %q: must match [A-Za-z_][A-Za-z0-9_]*", f.Name)
		}
		if j, dup := seen[f.Name]; dup {
			b.fail(file, fp+"/name", "duplicate field name %q (fields %d and %d)", f.Name, j, i)
		}
		seen[f.Name] = i
		if list, ok := fo["aliases"].([]any); ok {
			for k, a := range list {
				s, ok := a.(string)
				if !ok || !validName(s) {
					b.fail(file, fp+"/aliases/"+strconv.Itoa(k), "invalid field alias %v", a)
					continue
				}
				if taken[s] {
					b.fail(file, fp+"/aliases/"+strconv.Itoa(k), "field alias %q is already the name or an alias of a field of this record", s)
					continue
				}
				taken[s] = true
				f.Aliases = append(f.Aliases, s)
			}
		}
		if t, ok := fo["type"]; ok {
			f.Type = b.build(t, file, fp+"/type", ns)
			// A field may carry logicalType beside a primitive type name.
			if _, isStr := t.(string); isStr && f.Type.Named() == false && f.Type.Kind != "union" {
				if _, has := fo["logicalType"]; has {
					cp := *f.Type
					b.logical(&cp, fo, file, fp)
					f.Type = &cp
				}
			}
		} else {
			b.fail(file, fp, "field %q has no \"type\"", f.Name)
			f.Type = &Node{Kind: "null", File: file, Pointer: fp}
			b.markBroken(f.Type)
		}
		if d, ok := fo["default"]; ok {
			f.HasDefault = true
			f.Default, _ = json.Marshal(d)
		}
		n.Fields = append(n.Fields, f)
	}
}

func (b *builder) enum(n *Node, v map[string]any, file, ptr string) {
	list, ok := v["symbols"].([]any)
	if !ok || len(list) == 0 {
		b.fail(file, ptr, "enum needs a \"symbols\" array with at least one symbol")
		return
	}
	seen := map[string]int{}
	for i, raw := range list {
		sp := ptr + "/symbols/" + strconv.Itoa(i)
		s, _ := raw.(string)
		if !validName(s) {
			b.fail(file, sp, "invalid enum symbol %v: must match [A-Za-z_][A-Za-z0-9_]*", raw)
		}
		if j, dup := seen[s]; dup {
			b.fail(file, sp, "duplicate enum symbol %q (symbols %d and %d)", s, j, i)
		}
		seen[s] = i
		n.Symbols = append(n.Symbols, s)
	}
	if raw, ok := v["default"]; ok {
		s, _ := raw.(string)
		if !slices.Contains(n.Symbols, s) {
			b.fail(file, ptr+"/default", "enum default %v is not one of the symbols; use one of %s", raw, symbolList(n.Symbols))
		}
		n.EnumDefault, n.HasEnumDefault = s, true
	}
}

func (b *builder) logical(n *Node, v map[string]any, file, ptr string) {
	raw, ok := v["logicalType"]
	if !ok {
		return
	}
	lt, _ := raw.(string)
	bases, known := logicalBase[lt]
	if !known {
		// The specification says unknown logical types are ignored.
		return
	}
	if !slices.Contains(bases, n.Kind) {
		b.failAnnotation(file, ptr+"/logicalType", "logical type %s applies to %s, not %s", lt, strings.Join(bases, " or "), n.Kind)
		return
	}
	switch lt {
	case "uuid":
		if n.Kind == "fixed" && n.Size != 16 {
			b.failAnnotation(file, ptr+"/logicalType", "uuid on fixed needs size 16, not %d", n.Size)
			return
		}
	case "duration":
		if n.Size != 12 {
			b.failAnnotation(file, ptr+"/logicalType", "duration needs fixed size 12, not %d", n.Size)
			return
		}
	case "decimal":
		p, okP := intValue(v["precision"])
		s, okS := int64(0), true
		if _, has := v["scale"]; has {
			s, okS = intValue(v["scale"])
		}
		switch {
		case !okP || p < 1 || p > maxDecimalPrecision:
			b.failAnnotation(file, ptr+"/precision", "decimal needs a \"precision\" that is an integer from 1 to %d", maxDecimalPrecision)
			return
		case !okS || s < 0 || s > p:
			b.failAnnotation(file, ptr+"/scale", "decimal scale must be an integer from 0 to the precision %d", p)
			return
		case n.Kind == "fixed" && p > maxFixedPrecision(n.Size):
			b.failAnnotation(file, ptr+"/precision", "decimal precision %d does not fit fixed size %d (at most %d digits)", p, n.Size, maxFixedPrecision(n.Size))
			return
		}
		n.Precision, n.Scale = int(p), int(s)
	}
	n.Logical = lt
}

// maxDecimalPrecision is the library's limit on decimal digits.
const maxDecimalPrecision = 1 << 16

// maxFixedPrecision is floor(log10(2^(8*size-1) - 1)), the most decimal
// digits a signed two's-complement number of size bytes holds, computed
// without the number (writing out 2^(8 MiB) took half a second per
// decimal): no power of two is a power of ten, so it is
// floor((8*size-1)*log10(2)), and float64 gets that floor right for every
// size whose bound is under maxDecimalPrecision, as k*log10(2) comes no
// closer than 1e-6 to an integer for k below 325,147.
func maxFixedPrecision(size int) int64 {
	if size <= 0 {
		return 0
	}
	return int64(float64(8*size-1) * math.Log10(2))
}

func intValue(raw any) (int64, bool) {
	num, ok := raw.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := num.Int64()
	return i, err == nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// ptrJoin appends tokens to a JSON pointer.
func ptrJoin(ptr string, tokens ...string) string {
	return ptr + jsonpos.Join(tokens...)
}

// Place is a JSON pointer in a file: where a schema construct is written.
type Place struct {
	File, Pointer string
}
