package gogen

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/codegen/gocode"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

type typeInfo struct {
	t        gocode.EventType
	base     string // OrderPlaced
	file     string // order_placed_gen.go
	versions []*verInfo
}

type verInfo struct {
	ti   *typeInfo
	v    gocode.Version
	s    *jsonschema.Schema
	name string // OrderPlacedV1
	root *def
}

// emptySchema stands for "any value" where a schema has no subschema.
var emptySchema = &jsonschema.Schema{}

type nodeKey struct {
	loc    string
	mask   kindSet
	noEnum bool
}

// Type takes an event type: it compiles its versions and declares the
// names made from the type's name (the Go types are built by Analyze).
func (g *gen) Type(t gocode.EventType, _ []format.Schema) error {
	compiled := make([]*jsonschema.Schema, len(t.Versions))
	for i, v := range t.Versions {
		s, err := g.compile(v)
		if err != nil {
			return err
		}
		compiled[i] = s
	}
	ti := &typeInfo{t: t, base: t.Base}
	g.pkg.Decodes(ti.base)
	ti.file = gocode.Snake(ti.base) + "_gen.go"
	origin := "event type " + t.Name
	g.declare(ti.base+"Type", origin)
	g.declare(ti.base+"Data", origin)
	g.declare("Decode"+ti.base, origin)
	g.pkg.OwnFile(ti.file, t.Name)
	for i, v := range t.Versions {
		vi := &verInfo{ti: ti, v: v, s: compiled[i], name: ti.base + "V" + strconv.Itoa(v.Number)}
		ti.versions = append(ti.versions, vi)
		g.versionFiles[fileURL(v.RelPath)] = vi
		vorigin := fmt.Sprintf("%s v%d", t.Name, v.Number)
		g.declare(vi.name+"DataSchema", vorigin)
		g.declare("New"+vi.name+"Event", vorigin)
	}
	g.types = append(g.types, ti)
	return nil
}

// Analyze builds the Go types of every version of every event type.
func (g *gen) Analyze() {
	for _, ti := range g.types {
		for _, vi := range ti.versions {
			g.versionRoot(vi)
		}
	}
	g.markCycles()
}

func (g *gen) declare(name, origin string) { g.pkg.Declare(name, origin) }

// versionRoot makes the named type of a version: a struct when its data is
// an object, else a struct wrapping the value.
func (g *gen) versionRoot(vi *verInfo) {
	s := vi.s
	rs := resolveAlias(s)
	if rs == s {
		n := g.node(s, ksAll, false)
		if n.kind == kStruct {
			vi.root = n.def
		}
	} else if g.structShaped(rs) {
		// the version is an alias of another object schema: it still gets
		// its own struct (the target keeps its own name where it is used)
		d := g.newDefNamed(vi.name, g.cs.display(s.Location), rs, kStruct, g.fileKeyOf(s.Location))
		n := &node{s: rs, loc: rs.Location, mask: ksAll, kind: kStruct, def: d}
		d.node = n
		if un := untranslated(rs); len(un) > 0 {
			n.fallback = true
			g.note(rs, un)
		}
		g.buildStruct(d, rs)
		g.addUnions(n, rs)
		vi.root = d
	}
	if vi.root == nil {
		d := g.newDefNamed(vi.name, g.cs.display(s.Location), s, kWrapper, g.fileKeyOf(s.Location))
		d.inner = g.node(s, ksAll, false)
		vi.root = d
	}
	vi.root.dataOf = vi.ti.base + "Data"
}

// structShaped reports whether values of s are always objects that get a
// struct.
func (g *gen) structShaped(s *jsonschema.Schema) bool {
	if s.Bool != nil || kindsOf(s, map[*jsonschema.Schema]bool{}) != ksObj {
		return false
	}
	return g.structShapedIgnoringType(s)
}

// node returns the value view of s restricted to the JSON types in mask.
func (g *gen) node(s *jsonschema.Schema, mask kindSet, noEnum bool) *node {
	s = resolveAlias(s)
	key := nodeKey{s.Location, mask, noEnum}
	if n := g.nodes[key]; n != nil {
		if n.busy {
			// a cycle through types without names: validate it with the
			// embedded schema
			g.note(s, []string{"a recursive reference through an unnamed type"})
			return &node{s: s, loc: s.Location, mask: mask, kind: kRaw, fallback: true}
		}
		return n
	}
	n := &node{s: s, loc: s.Location, mask: mask, noEnum: noEnum, busy: true}
	g.nodes[key] = n
	g.build(n)
	n.busy = false
	return n
}

func (g *gen) build(n *node) {
	s := n.s
	top := n.mask == ksAll
	if s.Bool != nil {
		n.kind = kRaw
		if !*s.Bool {
			n.kind = kNever
		}
		return
	}
	if top {
		if un := untranslated(s); len(un) > 0 {
			n.fallback = true
			g.note(s, un)
		}
	}
	kinds := kindsOf(s, map[*jsonschema.Schema]bool{}) & n.mask

	// union forms that decide the Go type
	if top && (len(s.OneOf) > 0) != (len(s.AnyOf) > 0) {
		list, one := s.OneOf, true
		if len(list) == 0 {
			list, one = s.AnyOf, false
		}
		onlyObjType := true
		for _, kw := range assertionsOf(s) {
			if kw != "oneOf" && kw != "anyOf" && !(kw == "type" && kinds == ksObj) {
				onlyObjType = false
			}
		}
		if onlyObjType {
			if disc, vals, ok := discriminator(list); ok {
				g.buildSealed(n, list, disc, vals)
				return
			}
		}
		if !hasShapeKeywords(s) {
			if len(list) == 2 && (isNullOnly(list[0]) || isNullOnly(list[1])) {
				other := list[1]
				if isNullOnly(list[1]) {
					other = list[0]
				}
				if kindsOf(other, map[*jsonschema.Schema]bool{})&ksNull == 0 {
					n.kind = kNull
					n.elem = g.node(other, ksAll, false)
					return
				}
			}
			g.buildBranchUnion(n, list, one)
			return
		}
	}

	nonNull := kinds &^ ksNull
	if kinds&ksNull != 0 && nonNull != 0 {
		n.kind = kNull
		n.elem = g.node(s, nonNull, n.noEnum)
		if top {
			g.addUnions(n, s)
		}
		return
	}
	groups := 0
	for _, gm := range []kindSet{ksBool, ksNum, ksStr, ksArr, ksObj} {
		if nonNull&gm != 0 {
			groups++
		}
	}
	switch {
	case nonNull == 0 && kinds == ksNull:
		n.kind = kNullOnly
	case nonNull == 0:
		n.kind = kNever
	case groups > 1:
		g.buildKindUnion(n, nonNull)
	case nonNull == ksStr:
		switch {
		case !n.noEnum && s.Enum != nil && s.Const == nil:
			g.buildEnum(n)
		case s.Format != nil && s.Format.Name == "date-time" && s.Pattern == nil && s.MinLength == nil && s.MaxLength == nil && s.Not == nil:
			// time.Time re-encodes in its own spelling (RFC 3339, no
			// trailing zeros, Z for UTC): a schema that also constrains
			// the spelling keeps the string, or a decoded value would
			// encode to data the schema rejects.
			n.kind = kTime
		default:
			n.kind = kString
		}
	case nonNull == ksInt:
		n.kind = kInt
	case nonNull&ksNum != 0:
		n.kind = kFloat
	case nonNull == ksBool:
		n.kind = kBool
	case nonNull == ksArr:
		n.kind = kSlice
		items := s.Items2020
		if it, ok := s.Items.(*jsonschema.Schema); ok {
			items = it
		}
		if items == nil || len(s.PrefixItems) > 0 {
			n.elem = &node{s: emptySchema, kind: kRaw, mask: ksAll}
		} else {
			n.elem = g.node(items, ksAll, false)
		}
	case nonNull == ksObj:
		switch {
		case g.structShapedIgnoringType(s):
			d := g.newDef(n, kStruct, "")
			g.buildStruct(d, s)
		case s.AdditionalProperties != nil && s.AdditionalProperties != true && len(s.PatternProperties) == 0:
			n.kind = kMap
			n.elem = g.node(s.AdditionalProperties.(*jsonschema.Schema), ksAll, false)
		default:
			n.kind = kMap
			n.elem = &node{s: emptySchema, kind: kRaw, mask: ksAll}
		}
	}
	if top {
		g.addUnions(n, s)
	}
}

// addUnions attaches oneOf/anyOf checks that did not decide the Go type.
func (g *gen) addUnions(n *node, s *jsonschema.Schema) {
	for _, u := range []struct {
		list []*jsonschema.Schema
		one  bool
	}{{s.OneOf, true}, {s.AnyOf, false}} {
		if len(u.list) == 0 {
			continue
		}
		uc := &unionCheck{one: u.one}
		for _, b := range u.list {
			uc.branches = append(uc.branches, g.node(b, ksAll, false))
		}
		kw := "AnyOf"
		if u.one {
			kw = "OneOf"
		}
		uc.fn = "check" + kw + gocode.ShortHash(n.loc)
		n.unions = append(n.unions, uc)
	}
	if n.def != nil {
		// named types check their own unions and fallback
		n.def.node = n
	}
}

// newDef names and registers the named type of n.
func (g *gen) newDef(n *node, k kind, suffix string) *def {
	name := g.nameFor(n.loc, n.s, suffix)
	if vi := g.versionFiles[locFile(n.loc)]; vi != nil && locPtr(n.loc) == "" && (k != kStruct || n.mask != ksAll) {
		// the version's own name goes to the version's struct or wrapper
		name = vi.name + "Value" + suffix
	}
	origin := g.cs.display(n.loc)
	if suffix != "" {
		origin += " (" + strings.ToLower(suffix) + " values)"
	}
	d := g.newDefNamed(name, origin, n.s, k, g.fileKeyOf(n.loc))
	d.node = n
	d.mask = n.mask
	n.kind = k
	n.def = d
	n.busy = false
	return d
}

func (g *gen) newDefNamed(name, origin string, s *jsonschema.Schema, k kind, file string) *def {
	d := &def{name: name, loc: s.Location, s: s, kind: k, file: file, order: len(g.defs)}
	g.declare(name, origin)
	g.defs = append(g.defs, d)
	return d
}

func locFile(loc string) string {
	base, _, _ := strings.Cut(loc, "#")
	return base
}

func locPtr(loc string) string {
	_, frag, _ := strings.Cut(loc, "#")
	return frag
}

// fileKeyOf returns the event type whose file holds the type defined at
// loc ("" for the shared file).
func (g *gen) fileKeyOf(loc string) string {
	f, _ := g.cs.split(loc)
	if f == nil {
		return ""
	}
	if vi := g.versionFiles[f.url]; vi != nil {
		return vi.ti.t.Name
	}
	return ""
}

// nameFor derives the Go name of the type defined at loc: the version's
// name for a version's root; a $defs key; a title; else the name of the
// enclosing schema followed by the path (property names, Item, Value,
// OneOf0, ...). Types inside a version's file are prefixed with the
// version's name; types in shared files are not.
func (g *gen) nameFor(loc string, s *jsonschema.Schema, suffix string) string {
	f, ptr := g.cs.split(loc)
	if f == nil {
		return gocode.ExportedName(s.Title+" "+loc) + suffix
	}
	return g.nameAt(f, ptr, s.Title) + suffix
}

func (g *gen) nameAt(f *schemaFile, ptr, title string) string {
	prefix := ""
	vi := g.versionFiles[f.url]
	if vi != nil {
		prefix = vi.name
	}
	if ptr == "" {
		if vi != nil {
			return vi.name
		}
		if title != "" {
			return gocode.ExportedName(title)
		}
		return gocode.ExportedName(strings.TrimSuffix(path.Base(f.rel), ".json"))
	}
	toks := jsonpos.Split(ptr)
	n := len(toks)
	if n == 2 && (toks[0] == "$defs" || toks[0] == "definitions") {
		return prefix + gocode.ExportedName(toks[1])
	}
	if title != "" {
		return prefix + gocode.ExportedName(title)
	}
	// the path below the enclosing schema
	var seg string
	cut := n - 1
	switch {
	case n >= 2 && (toks[n-2] == "properties" || toks[n-2] == "$defs" || toks[n-2] == "definitions" || toks[n-2] == "dependentSchemas"):
		seg, cut = gocode.ExportedName(toks[n-1]), n-2
	case n >= 2 && (toks[n-2] == "oneOf" || toks[n-2] == "anyOf" || toks[n-2] == "allOf"):
		seg, cut = gocode.ExportedName(toks[n-2])+toks[n-1], n-2
	case n >= 2 && (toks[n-2] == "prefixItems" || toks[n-2] == "items"):
		seg, cut = "Item"+toks[n-1], n-2
	case n >= 2 && toks[n-2] == "patternProperties":
		seg, cut = "Pattern", n-2
	case toks[n-1] == "items" || toks[n-1] == "additionalItems":
		seg = "Item"
	case toks[n-1] == "additionalProperties":
		seg = "Value"
	default:
		seg = gocode.ExportedName(toks[n-1])
	}
	parentPtr := ""
	if cut > 0 {
		parentPtr = jsonpos.Join(toks[:cut]...)
	}
	return g.nameAt(f, parentPtr, g.titleAt(f, parentPtr)) + seg
}

// titleAt returns the title of the schema at ptr in f.
func (g *gen) titleAt(f *schemaFile, ptr string) string {
	m, _ := docAt(f.doc, ptr).(map[string]any)
	if t, ok := m["title"].(string); ok {
		return t
	}
	return ""
}

func docAt(doc any, ptr string) any {
	v, _ := jsonpos.Get(doc, ptr)
	return v
}

func (g *gen) orderedOf(f *schemaFile) *ordered {
	o := g.ordered[f]
	if o == nil {
		o = parseOrdered(f.text)
		g.ordered[f] = o
	}
	return o
}

// propertyOrder returns the property names of s in the order the schema
// file lists them.
func (g *gen) propertyOrder(s *jsonschema.Schema) []string {
	var out []string
	if f, ptr := g.cs.split(s.Location); f != nil {
		for _, k := range g.orderedOf(f).memberKeys(ptr + "/properties") {
			if _, ok := s.Properties[k]; ok {
				out = append(out, k)
			}
		}
	}
	if len(out) != len(s.Properties) {
		out = slices.Sorted(maps.Keys(s.Properties))
	}
	return out
}

// conjuncts returns s and the schemas it requires besides itself (allOf
// members and a $ref next to other keywords), recursively: their
// properties all apply to the value.
func conjuncts(s *jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	seen := map[*jsonschema.Schema]bool{}
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		s = resolveAlias(s)
		if seen[s] || s.Bool != nil {
			return
		}
		seen[s] = true
		out = append(out, s)
		if s.Ref != nil {
			walk(s.Ref)
		}
		for _, a := range s.AllOf {
			walk(a)
		}
	}
	walk(s)
	return out
}

func (g *gen) buildStruct(d *def, s *jsonschema.Schema) {
	required := map[string]bool{}
	var reqOrder []string
	props := map[string]*jsonschema.Schema{}
	var order []string
	// the properties of allOf members and of a $ref beside other keywords
	// apply too; those nodes are validated with the embedded schema as
	// well, so each merged property check is a necessary condition
	for _, c := range conjuncts(s) {
		for _, r := range c.Required {
			if !required[r] {
				required[r] = true
				reqOrder = append(reqOrder, r)
			}
		}
		for _, p := range g.propertyOrder(c) {
			if _, ok := props[p]; !ok {
				props[p] = c.Properties[p]
				order = append(order, p)
			}
		}
	}
	d.required = reqOrder
	var raw, base []string
	var fields []*field
	for _, p := range order {
		ps := props[p]
		rs := resolveAlias(ps)
		if rs.Bool != nil && !*rs.Bool {
			d.forbidden = append(d.forbidden, p)
			continue
		}
		f := &field{json: p, required: required[p], doc: describe(ps)}
		f.n = g.node(ps, ksAll, false)
		if f.required {
			var only *any
			switch {
			case rs.Const != nil:
				only = rs.Const
			case rs.Enum != nil && len(rs.Enum.Values) == 1:
				only = &rs.Enum.Values[0]
			}
			if only != nil && kindOfValue(*only)&(ksArr|ksObj) == 0 {
				c := jsonText(*only)
				f.constRaw = &c
			}
		}
		fields = append(fields, f)
	}
	for _, r := range reqOrder {
		if _, ok := props[r]; !ok {
			d.undeclared = append(d.undeclared, r)
		}
	}
	merged := len(conjuncts(s)) > 1
	hasPattern := len(s.PatternProperties) > 0 || merged
	switch ap := s.AdditionalProperties.(type) {
	case bool:
		d.closed = !ap && !hasPattern
		d.keepExtra = ap || hasPattern
	case *jsonschema.Schema:
		if hasPattern {
			d.keepExtra = true
		} else {
			d.extra = g.node(ap, ksAll, false)
		}
	default:
		d.keepExtra = true
	}
	reserved := map[string]bool{"UnmarshalJSON": true, "MarshalJSON": true, "Validate": true}
	if d.keepExtra || d.extra != nil {
		reserved["AdditionalProperties"] = true
	}
	for _, f := range fields {
		if f.constRaw != nil {
			continue
		}
		raw = append(raw, f.json)
		base = append(base, gocode.ExportedName(f.json))
	}
	names := gocode.Disambiguate(raw, base, reserved)
	i := 0
	for _, f := range fields {
		if f.constRaw != nil {
			continue
		}
		f.name = names[i]
		i++
		f.ptr = !f.required && needsPtr(f.n)
	}
	d.fields = fields
}

// needsPtr reports whether an optional value of n needs a pointer to
// tell absent from zero.
func needsPtr(n *node) bool {
	switch n.kind {
	case kRaw, kNever, kNullOnly, kMap, kSlice, kSealed:
		return false
	}
	return true
}

func (g *gen) buildEnum(n *node) {
	d := g.newDef(n, kEnum, "")
	var raw, base []string
	seen := map[string]bool{}
	for _, v := range n.s.Enum.Values {
		str, ok := v.(string)
		if !ok || seen[str] {
			continue
		}
		seen[str] = true
		raw = append(raw, str)
		b := gocode.ExportedName(str)
		if str == "" {
			b = "Empty"
		}
		base = append(base, d.name+strings.TrimPrefix(b, "X"))
		if b == "X" {
			base[len(base)-1] = d.name + "X"
		}
	}
	d.enumValues = raw
	d.enumNames = gocode.Disambiguate(raw, base, map[string]bool{})
	for i, name := range d.enumNames {
		g.declare(name, fmt.Sprintf("enum value %q of %s", raw[i], d.name))
	}
}

func (g *gen) buildSealed(n *node, list []*jsonschema.Schema, disc string, vals []string) {
	d := g.newDef(n, kSealed, "")
	d.disc = disc
	d.branchValues = vals
	for _, b := range list {
		bn := g.node(b, ksAll, false)
		if bn.kind != kStruct {
			// cannot happen for object branches with a required property;
			// keep the generator honest anyway
			g.pkg.Fail(fmt.Errorf("%s: oneOf branch %s is not an object type", g.cs.display(n.loc), g.cs.display(b.Location)))
			continue
		}
		bn.def.seals = append(bn.def.seals, d)
		d.branches = append(d.branches, bn.def)
	}
}

func (g *gen) buildBranchUnion(n *node, list []*jsonschema.Schema, one bool) {
	d := g.newDef(n, kBranchUnion, "")
	d.one = one
	kw := "AnyOf"
	if one {
		kw = "OneOf"
	}
	var raw, base []string
	for i, b := range list {
		bn := g.node(b, ksAll, false)
		d.options = append(d.options, bn)
		name := kw + strconv.Itoa(i)
		if bn.def != nil {
			name = bn.def.name
			// drop the version prefix the naming scheme put there: AsCircle
			if vi := g.versionFiles[locFile(bn.loc)]; vi != nil {
				if rest := strings.TrimPrefix(name, vi.name); rest != name && rest != "" {
					name = rest
				}
			}
		}
		raw = append(raw, strconv.Itoa(i))
		base = append(base, name)
	}
	d.optionNames = gocode.Disambiguate(raw, base, map[string]bool{})
}

func (g *gen) buildKindUnion(n *node, kinds kindSet) {
	d := g.newDef(n, kKindUnion, "")
	for _, gm := range []kindSet{ksBool, ksNum, ksStr, ksArr, ksObj} {
		if kinds&gm == 0 {
			continue
		}
		view := &node{s: n.s, loc: n.loc, mask: kinds & gm, noEnum: true}
		switch gm {
		case ksObj:
			if g.structShapedIgnoringType(n.s) {
				// the object view is a struct of its own
				sd := g.newDef(view, kStruct, "Object")
				g.buildStruct(sd, n.s)
			} else {
				view = g.node(n.s, kinds&gm, true)
			}
		default:
			view = g.node(n.s, kinds&gm, true)
		}
		d.views = append(d.views, view)
	}
}

func (g *gen) structShapedIgnoringType(s *jsonschema.Schema) bool {
	for _, c := range conjuncts(s) {
		if len(c.Properties) > 0 || c.AdditionalProperties == false || len(c.Required) > 0 {
			return true
		}
	}
	return false
}

// markCycles makes required struct fields pointers where structs would
// otherwise contain themselves.
func (g *gen) markCycles() {
	embeds := func(f *field) *def {
		if f.n == nil || f.constRaw != nil {
			return nil
		}
		n := f.n
		if n.kind == kNull {
			n = n.elem
		}
		if n.def != nil && (n.def.kind == kStruct) {
			return n.def
		}
		return nil
	}
	var reaches func(from, to *def, seen map[*def]bool) bool
	reaches = func(from, to *def, seen map[*def]bool) bool {
		if from == to {
			return true
		}
		if seen[from] {
			return false
		}
		seen[from] = true
		for _, f := range from.fields {
			if f.ptr {
				continue
			}
			if t := embeds(f); t != nil && reaches(t, to, seen) {
				return true
			}
		}
		return false
	}
	for _, d := range g.defs {
		for _, f := range d.fields {
			if f.ptr {
				continue
			}
			if t := embeds(f); t != nil && reaches(t, d, map[*def]bool{}) {
				f.ptr = true
			}
		}
	}
}

// note records that s is validated with the embedded schema because of the
// listed keywords.
func (g *gen) note(s *jsonschema.Schema, keywords []string) {
	if g.noted[s.Location] {
		return
	}
	g.noted[s.Location] = true
	g.notes = append(g.notes, gocode.Note{Location: g.cs.display(s.Location), Keywords: keywords})
}

// describe returns the doc text of a schema: its description, else its
// title (following aliases when it has neither).
func describe(s *jsonschema.Schema) string {
	for i := 0; i < 8 && s != nil; i++ {
		if s.Description != "" {
			return s.Description
		}
		if s.Title != "" {
			return s.Title
		}
		t, ok := isAlias(s)
		if !ok {
			break
		}
		s = t
	}
	return ""
}
