package jsonschema

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/schemawalk"
	js "github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

var _ format.ExactProjector = Provider{}

// Project is format.Projector: Project on the compiled schema. The
// projection keeps s's canonical form: it is compared, never digested or
// registered.
func (Provider) Project(sch format.Schema, fields *format.Fields) (format.Schema, error) {
	s, ok := sch.(*Schema)
	if !ok {
		return nil, format.NotKind(sch, format.JSONSchema)
	}
	return New(Project(s.Compiled, fields), s.canonical), nil
}

var _ format.WriterProjector = Provider{}

// ProjectWriter is format.WriterProjector: the writer's projection keeps
// the values of the properties whose presence tells a union's branches
// apart (a reader's projection keeps only their names in required), so
// that every document witness search draws from it is one the writer
// really sends: with the value open, {"d": true} was printed as an old
// event where the old schema requires d to be null. reader is not needed:
// JSON Schema matches properties by name.
func (Provider) ProjectWriter(writer, _ format.Schema, fields *format.Fields) (format.Schema, error) {
	s, ok := writer.(*Schema)
	if !ok {
		return nil, format.NotKind(writer, format.JSONSchema)
	}
	return New(projectWithin(s.Compiled, fields, maxProjected, true), s.canonical), nil
}

// ProjectsExactly is true: a projection keeps what a read field's
// validation needs, and keeps whole what it cannot split (see Project).
func (Provider) ProjectsExactly() bool { return true }

// ResolvePointer checks that the data's JSON form can hold a value at ptr:
// each token is a property the schema declares (properties,
// patternProperties, or an additionalProperties schema) or an item of an
// array it declares, through $ref and the combinators.
func (s *Schema) ResolvePointer(ptr string) error { return Resolve(s.Compiled, ptr) }

// Resolve is ResolvePointer on a compiled schema.
func Resolve(s *js.Schema, ptr string) error {
	toks := jsonpos.Split(ptr)
	if (resolver{seen: map[resolveKey]bool{}}).resolves(s, toks) {
		return nil
	}
	// Name the first token that does not resolve (each prefix is its own
	// question: what a walk has seen is not shared between them). A
	// prefix of one that resolves resolves: a binary search asks log2(n)
	// of them (one walk per prefix made a deep pointer cost seconds).
	n := format.FirstFailing(len(toks), func(n int) bool {
		return (resolver{seen: map[resolveKey]bool{}}).resolves(s, toks[:n])
	})
	return fmt.Errorf("the schema declares no value at %s", jsonpos.Join(toks[:n]...))
}

type resolveKey struct {
	s *js.Schema
	n int
}

type resolver struct{ seen map[resolveKey]bool }

func (r resolver) resolves(s *js.Schema, toks []string) bool {
	if len(toks) == 0 {
		return true
	}
	if s == nil {
		return false
	}
	k := resolveKey{s, len(toks)}
	if r.seen[k] {
		return false // a cycle: another path decides
	}
	r.seen[k] = true
	if s.Bool != nil {
		return *s.Bool
	}
	for _, sub := range []*js.Schema{s.Ref, s.RecursiveRef, dynamicTarget(s), s.Then, s.Else} {
		if sub != nil && r.resolves(sub, toks) {
			return true
		}
	}
	for _, list := range [][]*js.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, sub := range list {
			if r.resolves(sub, toks) {
				return true
			}
		}
	}
	tok, rest := toks[0], toks[1:]
	if p, ok := s.Properties[tok]; ok && r.resolves(p, rest) {
		return true
	}
	for _, re := range schemawalk.Patterns(s) {
		if re.MatchString(tok) && r.resolves(s.PatternProperties[re], rest) {
			return true
		}
	}
	if ap, ok := s.AdditionalProperties.(*js.Schema); ok && r.resolves(ap, rest) {
		return true
	}
	if !format.IsIndex(tok) {
		return false
	}
	for _, item := range itemSchemas(s, tok) {
		if r.resolves(item, rest) {
			return true
		}
	}
	return false
}

func dynamicTarget(s *js.Schema) *js.Schema {
	if s.DynamicRef == nil {
		return nil
	}
	return s.DynamicRef.Ref
}

// itemSchemas are the schemas an array item at index tok ("-": any) may
// be checked against.
func itemSchemas(s *js.Schema, tok string) []*js.Schema {
	var out []*js.Schema
	idx, err := strconv.Atoi(tok)
	if err != nil {
		idx = -1
	}
	prefix := s.PrefixItems
	if list, ok := s.Items.([]*js.Schema); ok {
		prefix = list
	}
	for i, p := range prefix {
		if idx < 0 || i == idx {
			out = append(out, p)
		}
	}
	if idx < 0 || idx >= len(prefix) {
		if it, ok := s.Items.(*js.Schema); ok {
			out = append(out, it)
		}
		if s.Items2020 != nil {
			out = append(out, s.Items2020)
		}
		if ai, ok := s.AdditionalItems.(*js.Schema); ok && len(prefix) > 0 {
			out = append(out, ai)
		}
	}
	return out
}

// Project returns a schema that constrains only what fields reads: the
// schema's object keywords keep the properties on a read path (required
// among them) and leave every other property open, so that comparing
// two projections with the same engines tells whether a reader of those
// fields reads a writer's data. The original is not changed; projected
// schemas share the compiled parts not on a read path. A keyword is
// dropped only when it cannot constrain a read value (patternProperties
// over a read property, propertyNames, dependent schemas stay on it); the
// projection errs toward findings: what it cannot split (not, if, enum
// and const of objects, dynamic references) it keeps whole. The one
// exception is oneOf, projected as anyOf when a branch's projection is
// lossy (exclusivity that unread fields decide cannot be kept for the
// writer); a oneOf whose branches read only what is read stays one.
//
// A projection that would copy more than maxProjected schemas (a
// recursive schema unrolled along thousands of deep pointers) is given up
// and s returned whole: the consumer is then taken to read everything,
// which errs toward findings and keeps the cost bounded by the limit.
func Project(s *js.Schema, fields *format.Fields) *js.Schema {
	return projectWithin(s, fields, maxProjected, false)
}

// maxProjected bounds the schemas one projection copies (each a few
// hundred bytes): tens of MB at most.
const maxProjected = 50_000

func projectWithin(s *js.Schema, fields *format.Fields, limit int, writer bool) *js.Schema {
	left := limit
	p := projector{memo: map[projectKey]*js.Schema{}, branch: map[projectKey]*format.Fields{}, left: &left, present: &format.Fields{},
		lossy: map[projectKey]bool{}, unions: map[unionKey]bool{}, writer: writer}
	out := p.project(s, fields)
	if left < 0 {
		return s
	}
	return out
}

type projectKey struct {
	s *js.Schema
	f *format.Fields
}

type projector struct {
	memo map[projectKey]*js.Schema
	// branch holds a branch's fields with its discriminators added, one
	// value per (fields, branch) so that memo keys stay stable.
	branch map[projectKey]*format.Fields
	// left counts down the schemas the projection may still copy; below
	// zero it stops and Project returns the schema whole.
	left *int
	// present marks a branch's presence tag (see withDiscriminators): a
	// child of a branch's fields that keeps the name in required, and its
	// value whole for a writer, without counting as read. Compared by
	// identity: it is this projection's own.
	present *format.Fields
	// writer is set for ProjectWriter's projection.
	writer bool
	// lossy marks the projections whose verdict on a document may depend
	// on what no pointer reaches: they dropped a constraint on an unread
	// value, or kept whole one that may constrain one. A projection in
	// progress (a $ref cycle) counts as lossy until it is done.
	lossy map[projectKey]bool
	// unions says, per union and fields, whether a branch constrains
	// what is read (branchFields).
	unions map[unionKey]bool
}

func (p projector) project(s *js.Schema, f *format.Fields) *js.Schema {
	if s == nil || f == nil || f.All || s.Bool != nil {
		return s
	}
	k := projectKey{s, f}
	if out, ok := p.memo[k]; ok {
		return out
	}
	if unevaluatedUnsure(s, f) {
		p.memo[k] = s
		p.lossy[k] = true
		return s
	}
	if *p.left--; *p.left < 0 {
		return s
	}
	cp := *s
	out := &cp
	p.memo[k] = out // before recursing: $ref cycles meet it
	p.lossy[k] = true
	out.Ref = p.project(s.Ref, f)
	out.RecursiveRef = p.project(s.RecursiveRef, f)
	out.Then = p.project(s.Then, f)
	out.Else = p.project(s.Else, f)
	out.AllOf = p.list(s.AllOf, f)
	oneOf, anyOf := p.branches(s.OneOf, f), p.branches(s.AnyOf, f)
	switch {
	case len(oneOf) > 0 && !p.branchesLossy(s.OneOf, f):
		// Every branch passes or fails a document by what is read (and
		// its discriminators) alone: so does "exactly one of", which
		// stays. As anyOf, a reader whose branches overlap on a read
		// value would take the values it rejects.
		out.AnyOf, out.OneOf = anyOf, oneOf
	case len(anyOf) > 0 && len(oneOf) > 0:
		// Both at once: each stays its own disjunction.
		one := empty(s)
		one.AnyOf = oneOf
		out.AnyOf = anyOf
		out.OneOf = nil
		out.AllOf = append(out.AllOf, one)
	default:
		// The projection of "exactly one of" is within the union of the
		// branches' projections, which may overlap: any of them.
		out.AnyOf = append(anyOf, oneOf...)
		out.OneOf = nil
	}

	// Objects: the read properties, each projected on what is read of it.
	// Every keyword that can constrain a read property stays (as a
	// constraint on that property, or whole); only what constrains unread
	// properties alone is dropped.
	props := map[string]*js.Schema{}
	var required []string
	keepNames := false
	read := 0 // the children read, presence tags left out
	for tok, child := range f.Children {
		subs, unsure := readSchemas(s, tok)
		if child == p.present {
			// The name stays required; a writer keeps the value whole too
			// (see ProjectWriter), a reader leaves it open: the value of
			// a property no consumer reads is no break.
			if slices.Contains(s.Required, tok) {
				required = append(required, tok)
			}
			switch {
			case !p.writer || len(subs) == 0:
			case len(subs) == 1:
				props[tok] = subs[0]
			default:
				all := empty(s)
				all.AllOf = subs
				props[tok] = all
			}
			continue
		}
		read++
		keepNames = keepNames || unsure
		for _, r := range s.Required {
			if r == tok {
				required = append(required, tok)
			}
		}
		switch len(subs) {
		case 0:
			continue
		case 1:
			props[tok] = p.project(subs[0], child)
		default:
			all := empty(s)
			all.AllOf = p.list(subs, child)
			props[tok] = all
		}
	}
	sort.Strings(required)
	out.Properties = nil
	if len(props) > 0 {
		out.Properties = props
	}
	out.Required = required
	out.PatternProperties = nil
	out.AdditionalProperties = nil
	out.UnevaluatedProperties = nil
	if !keepNames {
		out.PropertyNames = nil
	}
	if read == 0 {
		// Nothing read here: the count of properties constrains no read value.
		out.MinProperties, out.MaxProperties = nil, nil
	}
	out.DependentRequired = p.dependentRequired(s.DependentRequired, f)
	out.Dependencies = nil
	for k, v := range s.Dependencies {
		switch v := v.(type) {
		case *js.Schema:
			if out.Dependencies == nil {
				out.Dependencies = map[string]any{}
			}
			out.Dependencies[k] = p.project(v, f)
		case []string:
			if kept := p.dependentRequired(map[string][]string{k: v}, f); kept != nil {
				if out.Dependencies == nil {
					out.Dependencies = map[string]any{}
				}
				out.Dependencies[k] = v
			}
		}
	}
	out.DependentSchemas = nil
	for k, v := range s.DependentSchemas {
		if out.DependentSchemas == nil {
			out.DependentSchemas = map[string]*js.Schema{}
		}
		// The dependent schema applies to this same object: what it says
		// of the read properties stays.
		out.DependentSchemas[k] = p.project(v, f)
	}

	// Arrays: every item schema projected on what is read of any item
	// (array-level keywords stay: they are not per field).
	items := itemFields(f)
	if items != nil {
		if it, ok := s.Items.(*js.Schema); ok {
			out.Items = p.project(it, items)
		} else if list, ok := s.Items.([]*js.Schema); ok {
			out.Items = p.list(list, items)
		}
		if ai, ok := s.AdditionalItems.(*js.Schema); ok {
			out.AdditionalItems = p.project(ai, items)
		}
		out.PrefixItems = p.list(s.PrefixItems, items)
		out.Items2020 = p.project(s.Items2020, items)
	} else if hasItems(s) {
		// Nothing read inside the items: any item will do.
		out.Items, out.AdditionalItems, out.PrefixItems, out.Items2020 = nil, nil, nil, nil
		out.Contains, out.MinContains, out.MaxContains = nil, nil, nil
	}
	// unevaluatedItems constrains the items no items keyword evaluates;
	// the projected item keywords evaluate the same indexes.
	out.UnevaluatedItems = nil
	if items != nil {
		out.UnevaluatedItems = p.project(s.UnevaluatedItems, items)
	}
	p.lossy[k] = keptWhole(s) || p.dropsUnread(s, f, items, keepNames) || p.anyLossy(s, f, items)
	return out
}

// branchesLossy reports whether the projection of a branch of ss (with
// its discriminators) is lossy.
func (p projector) branchesLossy(ss []*js.Schema, f *format.Fields) bool {
	for _, s := range ss {
		if p.isLossy(s, p.branchFields(ss, s, f)) {
			return true
		}
	}
	return false
}

// isLossy reports whether the projection of s on f is lossy (see
// projector.lossy); a schema kept whole because all of it is read is not.
func (p projector) isLossy(s *js.Schema, f *format.Fields) bool {
	if s == nil || f == nil || f.All || s.Bool != nil {
		return false
	}
	lossy, ok := p.lossy[projectKey{s, f}]
	return !ok || lossy
}

// keptWhole reports whether s has a keyword the projection keeps whole
// that may constrain an unread value: not, if, a dynamic reference, an
// object or array in const or enum.
func keptWhole(s *js.Schema) bool {
	if s.Not != nil || s.If != nil || s.DynamicRef != nil || s.RecursiveRef != nil {
		return true
	}
	composite := func(v any) bool {
		switch v.(type) {
		case map[string]any, []any:
			return true
		}
		return false
	}
	if s.Const != nil && composite(*s.Const) {
		return true
	}
	if s.Enum != nil {
		for _, v := range s.Enum.Values {
			if composite(v) {
				return true
			}
		}
	}
	return false
}

// dropsUnread reports whether s constrains a property or item that f does
// not read (the projection drops the constraint, or keeps one that
// counts or names unread ones).
func (p projector) dropsUnread(s *js.Schema, f *format.Fields, items *format.Fields, keepNames bool) bool {
	if len(s.PatternProperties) > 0 || s.AdditionalProperties != nil || s.UnevaluatedProperties != nil || s.PropertyNames != nil || keepNames ||
		s.MinProperties != nil || s.MaxProperties != nil || len(s.DependentRequired) > 0 || len(s.Dependencies) > 0 || len(s.DependentSchemas) > 0 {
		return true
	}
	for name := range s.Properties {
		if c, ok := f.Children[name]; !ok || c == p.present {
			return true
		}
	}
	for _, name := range s.Required {
		if _, ok := f.Children[name]; !ok {
			return true
		}
	}
	arrays := hasItems(s) || s.MinItems != nil || s.MaxItems != nil || s.UniqueItems || s.UnevaluatedItems != nil
	if arrays && (items == nil || !items.All) {
		return true
	}
	if arrays {
		for tok := range f.Children {
			if format.IsIndex(tok) && tok != "-" {
				return true // some items read, the others constrained unread
			}
		}
	}
	return false
}

// anyLossy reports whether a subschema's projection of s on f is lossy.
func (p projector) anyLossy(s *js.Schema, f *format.Fields, items *format.Fields) bool {
	if p.isLossy(s.Ref, f) || p.isLossy(s.Then, f) || p.isLossy(s.Else, f) {
		return true
	}
	for _, sub := range s.AllOf {
		if p.isLossy(sub, f) {
			return true
		}
	}
	for _, list := range [][]*js.Schema{s.AnyOf, s.OneOf} {
		for _, sub := range list {
			if p.isLossy(sub, p.branchFields(list, sub, f)) {
				return true
			}
		}
	}
	for tok, child := range f.Children {
		if child == p.present {
			continue
		}
		subs, _ := readSchemas(s, tok)
		for _, sub := range subs {
			if p.isLossy(sub, child) {
				return true
			}
		}
	}
	if items != nil {
		for _, it := range itemSchemas(s, "-") {
			if p.isLossy(it, items) {
				return true
			}
		}
	}
	return false
}

// readSchemas lists the schemas s checks its property tok against:
// properties and every matching patternProperties (both apply), else
// additionalProperties, else unevaluatedProperties when nothing in place
// can evaluate tok; a false schema when propertyNames rejects the name.
// unsure is set when propertyNames cannot be decided for tok (it is then
// kept whole).
func readSchemas(s *js.Schema, tok string) (subs []*js.Schema, unsure bool) {
	ps, declared := s.Properties[tok]
	if declared {
		subs = append(subs, ps)
	}
	var pats []js.Regexp
	for re := range s.PatternProperties {
		if re.MatchString(tok) {
			pats = append(pats, re)
		}
	}
	// Map order is random; findings name schema places in a stable order.
	sort.Slice(pats, func(i, j int) bool { return pats[i].String() < pats[j].String() })
	for _, re := range pats {
		subs = append(subs, s.PatternProperties[re])
	}
	if !declared && len(pats) == 0 {
		if ap, ok := s.AdditionalProperties.(*js.Schema); ok {
			subs = append(subs, ap)
		}
		if b, ok := s.AdditionalProperties.(bool); ok && !b && len(s.Properties)+len(s.PatternProperties) > 0 {
			subs = append(subs, falseSchema(s))
		}
		if s.AdditionalProperties == nil && s.UnevaluatedProperties != nil && !mayEvaluate(s, tok, map[*js.Schema]bool{}) {
			subs = append(subs, s.UnevaluatedProperties)
		}
	}
	if s.PropertyNames != nil {
		// The name is known: whether propertyNames allows it is decided
		// here, exactly.
		err := s.PropertyNames.Validate(tok)
		var verr *js.ValidationError
		switch {
		case err == nil:
		case errors.As(err, &verr):
			subs = append(subs, falseSchema(s))
		default:
			unsure = true
		}
	}
	return subs, unsure
}

// unevaluatedUnsure reports whether s's unevaluatedProperties may or may
// not apply to a read property, depending on whether a conditional
// subschema (an anyOf or oneOf branch, then or else, a dependent schema)
// passes: the projection cannot split that, so s is kept whole.
func unevaluatedUnsure(s *js.Schema, f *format.Fields) bool {
	if s.UnevaluatedProperties == nil || s.AdditionalProperties != nil {
		return false
	}
	for tok := range f.Children {
		if _, ok := s.Properties[tok]; ok {
			continue
		}
		matched := false
		for re := range s.PatternProperties {
			matched = matched || re.MatchString(tok)
		}
		if !matched && mayEvaluate(s, tok, map[*js.Schema]bool{}) && !surelyEvaluates(s, tok, map[*js.Schema]bool{}) {
			return true
		}
	}
	return false
}

// surelyEvaluates reports whether a subschema of s that applies whenever
// s passes ($ref, allOf) evaluates property tok.
func surelyEvaluates(s *js.Schema, tok string, seen map[*js.Schema]bool) bool {
	if s == nil || seen[s] {
		return false
	}
	seen[s] = true
	for _, sub := range append([]*js.Schema{s.Ref, s.RecursiveRef}, s.AllOf...) {
		if sub == nil {
			continue
		}
		if evaluatesItself(sub, tok) {
			return true
		}
		if surelyEvaluates(sub, tok, seen) {
			return true
		}
	}
	return false
}

// evaluatesItself reports whether s's own keywords evaluate property tok
// of an object s passes.
func evaluatesItself(s *js.Schema, tok string) bool {
	if _, ok := s.Properties[tok]; ok || s.AdditionalProperties != nil || s.UnevaluatedProperties != nil {
		return true
	}
	for re := range s.PatternProperties {
		if re.MatchString(tok) {
			return true
		}
	}
	return false
}

// mayEvaluate reports whether an in-place subschema of s can evaluate
// property tok (so that s's unevaluatedProperties may not apply to it).
func mayEvaluate(s *js.Schema, tok string, seen map[*js.Schema]bool) bool {
	if s == nil || seen[s] {
		return false
	}
	seen[s] = true
	if s.DynamicRef != nil {
		return true // resolved only while validating
	}
	subs := []*js.Schema{s.Ref, s.RecursiveRef, s.If, s.Then, s.Else}
	subs = append(subs, s.AllOf...)
	subs = append(subs, s.AnyOf...)
	subs = append(subs, s.OneOf...)
	for _, d := range s.DependentSchemas {
		subs = append(subs, d)
	}
	for _, d := range s.Dependencies {
		if d, ok := d.(*js.Schema); ok {
			subs = append(subs, d)
		}
	}
	for _, sub := range subs {
		if sub == nil {
			continue
		}
		if evaluatesItself(sub, tok) {
			return true
		}
		if mayEvaluate(sub, tok, seen) {
			return true
		}
	}
	return false
}

// dependentRequired keeps the entries that name a read property (as the
// condition or as a required one): they can decide whether a read
// property is present. The others concern unread properties alone.
func (p projector) dependentRequired(deps map[string][]string, f *format.Fields) map[string][]string {
	reads := func(name string) bool {
		c, ok := f.Children[name]
		return ok && c != p.present
	}
	var out map[string][]string
	for k, names := range deps {
		read := reads(k)
		for _, n := range names {
			if reads(n) {
				read = true
			}
		}
		if read {
			if out == nil {
				out = map[string][]string{}
			}
			out[k] = names
		}
	}
	return out
}

func (p projector) list(ss []*js.Schema, f *format.Fields) []*js.Schema {
	if len(ss) == 0 {
		return nil
	}
	out := make([]*js.Schema, len(ss))
	for i, s := range ss {
		out[i] = p.project(s, f)
	}
	return out
}

// branches projects the branches of anyOf or oneOf. A branch keeps its
// discriminators (properties with const or enum) beside what is read:
// which branch an event is in decides what a read field must be, so
// dropping the tag would let a reader's branch accept what the writer's
// branch of the same tag does not. A branch told apart by which
// properties are present (its required names) keeps them in required
// (and, projecting a writer, their values): dropped, a branch that does not constrain a
// read field would take every object, and a read field's change in a
// sibling branch ({"d": null, "b": 1} where b became a string) would
// reach no consumer of it. In a reader's projection, a union none of
// whose branches constrains what is read keeps no tags: which branch an
// event is in decides nothing read, and a tag's change (a const renamed)
// would reach every consumer of the type.
func (p projector) branches(ss []*js.Schema, f *format.Fields) []*js.Schema {
	if len(ss) == 0 {
		return nil
	}
	out := make([]*js.Schema, len(ss))
	for i, s := range ss {
		out[i] = p.project(s, p.branchFields(ss, s, f))
	}
	return out
}

// branchFields are the fields branch s of the union ss is projected on:
// f with s's discriminators when a branch of ss constrains what f reads.
func (p projector) branchFields(ss []*js.Schema, s *js.Schema, f *format.Fields) *format.Fields {
	if len(ss) == 0 || f == nil || f.All {
		return f
	}
	k := unionKey{ss[0], len(ss), f}
	reads, ok := p.unions[k]
	if !ok {
		reads = false
		for _, b := range ss {
			if p.constrainsRead(b, f, 0, map[*js.Schema]bool{}) {
				reads = true
				break
			}
		}
		p.unions[k] = reads
	}
	if !reads && !p.writer {
		return f
	}
	// A writer keeps its tags whatever is read: they are constraints the
	// writer's events meet, and dropped, its projection took events it
	// never sends ({} where kind is required) for counterexamples.
	return p.withDiscriminators(s, f)
}

type unionKey struct {
	first *js.Schema
	n     int
	f     *format.Fields
}

// constrainsRead reports whether s, or a schema it applies in place,
// may constrain a property or item f reads (or counts or names them);
// past a bounded depth, or where it cannot tell (not, a dynamic
// reference), it says it may.
func (p projector) constrainsRead(s *js.Schema, f *format.Fields, depth int, seen map[*js.Schema]bool) bool {
	if s == nil || s.Bool != nil || seen[s] {
		return false
	}
	if depth > 16 || keptWhole(s) {
		return true
	}
	seen[s] = true
	if s.AdditionalProperties != nil || s.UnevaluatedProperties != nil || s.PropertyNames != nil || s.MinProperties != nil || s.MaxProperties != nil ||
		len(s.DependentRequired) > 0 || len(s.Dependencies) > 0 || len(s.DependentSchemas) > 0 {
		return true
	}
	for name, c := range f.Children {
		if c == p.present {
			continue
		}
		if _, ok := s.Properties[name]; ok || slices.Contains(s.Required, name) {
			return true
		}
		for re := range s.PatternProperties {
			if re.MatchString(name) {
				return true
			}
		}
		if format.IsIndex(name) && (hasItems(s) || s.MinItems != nil || s.MaxItems != nil || s.UniqueItems || s.UnevaluatedItems != nil) {
			return true
		}
	}
	subs := append([]*js.Schema{s.Ref, s.RecursiveRef, s.Then, s.Else}, s.AllOf...)
	subs = append(subs, s.AnyOf...)
	subs = append(subs, s.OneOf...)
	for _, sub := range subs {
		if p.constrainsRead(sub, f, depth+1, seen) {
			return true
		}
	}
	return false
}

func (p projector) withDiscriminators(s *js.Schema, f *format.Fields) *format.Fields {
	k := projectKey{s, f}
	if g, ok := p.branch[k]; ok {
		return g
	}
	var tags []string
	for name, ps := range s.Properties {
		for hops := 0; hops < 8 && ps != nil && ps.Ref != nil && ps.Const == nil && ps.Enum == nil; hops++ {
			ps = ps.Ref // a $ref chain of bounded length: cycles end
		}
		if ps != nil && (ps.Const != nil || ps.Enum != nil) {
			if c, ok := f.Children[name]; !ok || !c.All {
				tags = append(tags, name)
			}
		}
	}
	var present []string
	for _, name := range branchRequired(s) {
		if _, ok := f.Children[name]; !ok && !slices.Contains(tags, name) && !format.IsIndex(name) {
			present = append(present, name)
		}
	}
	g := f
	if len(tags)+len(present) > 0 {
		g = &format.Fields{Children: make(map[string]*format.Fields, len(f.Children)+len(tags)+len(present))}
		for name, c := range f.Children {
			g.Children[name] = c
		}
		for _, name := range tags {
			g.Children[name] = &format.Fields{All: true}
		}
		for _, name := range present {
			g.Children[name] = p.present
		}
	}
	p.branch[k] = g
	return g
}

// branchRequired lists the names a branch requires of an object: its own
// required and those of the schemas it always applies ($ref, allOf),
// along chains of bounded length (cycles end).
func branchRequired(s *js.Schema) []string {
	var out []string
	seen := map[*js.Schema]bool{}
	var walk func(s *js.Schema, depth int)
	walk = func(s *js.Schema, depth int) {
		if s == nil || seen[s] || depth > 8 {
			return
		}
		seen[s] = true
		for _, n := range s.Required {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		walk(s.Ref, depth+1)
		for _, a := range s.AllOf {
			walk(a, depth+1)
		}
	}
	walk(s, 0)
	return out
}

func hasItems(s *js.Schema) bool {
	return s.Items != nil || s.AdditionalItems != nil || len(s.PrefixItems) > 0 || s.Items2020 != nil || s.Contains != nil
}

// itemFields merges what is read of array items (index tokens), nil when
// nothing is.
func itemFields(f *format.Fields) *format.Fields {
	var out *format.Fields
	for tok, c := range f.Children {
		if !format.IsIndex(tok) {
			continue
		}
		if c.All {
			return c
		}
		if out == nil {
			out = &format.Fields{Children: map[string]*format.Fields{}}
		}
		for k, v := range c.Children {
			if prev, ok := out.Children[k]; ok {
				v = merge(prev, v)
			}
			out.Children[k] = v
		}
	}
	return out
}

// merge is the union of two field sets. What only one of them reads is
// shared, not copied: a deep contract merges at every array it crosses,
// and copying made that cost the tree's size times its depth.
func merge(a, b *format.Fields) *format.Fields {
	switch {
	case a == b || a.All:
		return a
	case b.All:
		return b
	}
	out := &format.Fields{Children: make(map[string]*format.Fields, len(a.Children)+len(b.Children))}
	for k, v := range a.Children {
		out.Children[k] = v
	}
	for k, v := range b.Children {
		if p, ok := out.Children[k]; ok {
			v = merge(p, v)
		}
		out.Children[k] = v
	}
	return out
}

// empty is a schema at s's place that constrains nothing (copied from s
// so that it carries the compiled context the validator needs).
func empty(s *js.Schema) *js.Schema {
	e := &js.Schema{}
	*e = *s
	// Every keyword zeroed; the unexported compiled context of s kept.
	e.Bool, e.ID, e.Ref, e.Anchor, e.RecursiveRef, e.RecursiveAnchor, e.DynamicRef, e.DynamicAnchor = nil, "", nil, "", nil, false, nil, ""
	e.Types, e.Enum, e.Const, e.Not, e.AllOf, e.AnyOf, e.OneOf, e.If, e.Then, e.Else, e.Format = nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil
	e.MaxProperties, e.MinProperties, e.Required, e.PropertyNames, e.Properties, e.PatternProperties, e.AdditionalProperties = nil, nil, nil, nil, nil, nil, nil
	e.Dependencies, e.DependentRequired, e.DependentSchemas, e.UnevaluatedProperties = nil, nil, nil, nil
	e.MinItems, e.MaxItems, e.UniqueItems, e.Contains, e.MinContains, e.MaxContains = nil, nil, false, nil, nil, nil
	e.Items, e.AdditionalItems, e.PrefixItems, e.Items2020, e.UnevaluatedItems = nil, nil, nil, nil, nil
	e.MinLength, e.MaxLength, e.Pattern, e.ContentEncoding, e.ContentMediaType, e.ContentSchema = nil, nil, nil, nil, nil, nil
	e.Maximum, e.Minimum, e.ExclusiveMaximum, e.ExclusiveMinimum, e.MultipleOf = nil, nil, nil, nil, nil
	e.Extensions = nil
	return e
}

// falseSchema is a schema at s's place that accepts nothing: a read
// property a closed object cannot have.
func falseSchema(s *js.Schema) *js.Schema {
	e := empty(s)
	f := false
	e.Bool = &f
	return e
}
