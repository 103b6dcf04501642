package sample

import (
	"errors"
	"math/rand/v2"
	"sort"

	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// gen is the state of one Generate call.
type gen struct {
	sp     *Sampler
	rng    *rand.Rand
	opts   Options
	steps  int
	dyn    int // dynamic references resolved away from their static target
	only   int // if non-zero, the JSON types allowed for the root value (tests)
	budget *UnsatisfiableError
	// lastFail is the most recent local failure, reported when the budget
	// runs out
	lastFail *UnsatisfiableError
}

func newGen(sp *Sampler, rng *rand.Rand, opts Options) *gen {
	return &gen{sp: sp, rng: rng, opts: opts}
}

func (g *gen) tick() error {
	g.steps++
	if g.steps > g.opts.Budget {
		if g.budget == nil {
			g.budget = &UnsatisfiableError{Location: g.sp.root.Location, Keyword: "budget",
				Reason: "step budget exhausted", exhausted: true}
		}
		return g.budget
	}
	return nil
}

func (g *gen) exhausted() bool { return g.steps > g.opts.Budget }

// deep reports whether the generator should build the smallest value it
// can: below MaxDepth, or once a third of the step budget is spent (wide
// recursive schemas would otherwise grow instances exponentially).
func (g *gen) deep(depth int) bool {
	return depth >= g.opts.MaxDepth || g.steps > g.opts.Budget/3
}

func isBudget(err error) bool {
	var ue *UnsatisfiableError
	return errors.As(err, &ue) && ue.exhausted
}

func unsat(s *jsonschema.Schema, kw, reason string) *UnsatisfiableError {
	loc := ""
	if s != nil {
		loc = s.Location
	}
	return &UnsatisfiableError{Location: loc, Keyword: kw, Reason: reason}
}

// conj is a conjunction: a value must validate under every pos schema and
// under no neg schema.
type conj struct {
	pos, neg []node
}

// leaf is a schema in the expansion of a conjunction whose own keywords
// apply to the value. parent is the index of the leaf it was reached from
// (-1 for a schema of the conjunction itself); unevaluated* use it.
type leaf struct {
	n      node
	parent int
}

// neg is a schema the value must not match, with the keyword that says so.
type neg struct {
	node
	kw string
	at *jsonschema.Schema
}

// flat is one expansion of a conjunction, with anyOf/oneOf/if choices made.
type flat struct {
	leaves  []leaf
	nots    []neg
	falseAt *jsonschema.Schema
	seen    map[*jsonschema.Schema]bool
	choices int // anyOf/oneOf/if choices made (a retry may choose differently)
}

// flatten expands c with fresh random choices.
func (g *gen) flatten(c conj, depth int) *flat {
	f := &flat{seen: map[*jsonschema.Schema]bool{}}
	for _, n := range c.pos {
		g.expand(f, n, -1, depth)
	}
	for _, n := range c.neg {
		f.nots = append(f.nots, neg{n, "contains", n.s})
	}
	return f
}

// expand adds n, and the schemas that apply to the same value through
// in-place applicators, to f.
func (g *gen) expand(f *flat, n node, parent, depth int) {
	if g.tick() != nil {
		return
	}
	s := n.s
	if f.seen[s] {
		return
	}
	f.seen[s] = true
	if s.Bool != nil {
		if !*s.Bool && f.falseAt == nil {
			f.falseAt = s
		}
		return
	}
	idx := len(f.leaves)
	f.leaves = append(f.leaves, leaf{n: n, parent: parent})
	if s.Ref != nil {
		g.expand(f, n.child(s.Ref), idx, depth)
	}
	if s.DynamicRef != nil {
		t := resolveDynamic(n)
		if t != s.DynamicRef.Ref {
			g.dyn++
		}
		g.expand(f, n.child(t), idx, depth)
	}
	if s.RecursiveRef != nil {
		t := resolveRecursive(n)
		if t != s.RecursiveRef {
			g.dyn++
		}
		g.expand(f, n.child(t), idx, depth)
	}
	for _, a := range s.AllOf {
		g.expand(f, n.child(a), idx, depth)
	}
	if len(s.AnyOf) > 1 || len(s.OneOf) > 1 || s.If != nil && s.If.Bool == nil {
		f.choices++
	}
	if len(s.AnyOf) > 0 {
		if i := g.pickBranch(s.AnyOf, depth); i >= 0 {
			g.expand(f, n.child(s.AnyOf[i]), idx, depth)
		} else {
			f.falseAt = s.AnyOf[0]
		}
	}
	if len(s.OneOf) > 0 {
		i := g.pickBranch(s.OneOf, depth)
		if i < 0 {
			f.falseAt = s.OneOf[0]
		} else {
			g.expand(f, n.child(s.OneOf[i]), idx, depth)
			for j, o := range s.OneOf {
				if j != i {
					f.nots = append(f.nots, neg{n.child(o), "oneOf", s})
				}
			}
		}
	}
	if s.Not != nil {
		if inner := s.Not; inner.Not != nil && onlyNot(inner) {
			g.expand(f, n.child(inner).child(inner.Not), idx, depth) // not not X is X
		} else {
			f.nots = append(f.nots, neg{n.child(s.Not), "not", s})
		}
	}
	if s.If != nil {
		then := g.rng.IntN(2) == 0
		if s.If.Bool != nil {
			then = *s.If.Bool
		} else if s.Then == nil && s.Else != nil {
			then = g.rng.IntN(3) > 0 // satisfying if is usually the cheaper path
		}
		if then {
			g.expand(f, n.child(s.If), idx, depth)
			if s.Then != nil {
				g.expand(f, n.child(s.Then), idx, depth)
			}
		} else {
			f.nots = append(f.nots, neg{n.child(s.If), "if", s})
			if s.Else != nil {
				g.expand(f, n.child(s.Else), idx, depth)
			}
		}
	}
}

// pickBranch chooses an anyOf/oneOf branch that is not the false schema;
// deep in the instance it prefers branches that do not recurse.
func (g *gen) pickBranch(bs []*jsonschema.Schema, depth int) int {
	var ok, simple []int
	for i, b := range bs {
		if b.Bool != nil && !*b.Bool {
			continue
		}
		ok = append(ok, i)
		if !recursive(b) {
			simple = append(simple, i)
		}
	}
	if len(ok) == 0 {
		return -1
	}
	if g.deep(depth) && len(simple) > 0 && g.rng.IntN(5) > 0 {
		return simple[g.rng.IntN(len(simple))]
	}
	return ok[g.rng.IntN(len(ok))]
}

// recursive reports whether b refers elsewhere or nests schemas for
// properties or items (a cheap "may grow" test).
func recursive(b *jsonschema.Schema) bool {
	return b.Ref != nil || b.DynamicRef != nil || b.RecursiveRef != nil ||
		len(b.Properties) > 0 || b.Items != nil || b.Items2020 != nil || len(b.PrefixItems) > 0 ||
		len(b.AllOf) > 0 || len(b.AnyOf) > 0 || len(b.OneOf) > 0
}

// check validates v against c.
func (g *gen) check(c conj, v any) error {
	for _, n := range c.pos {
		if err := n.s.Validate(v); err != nil {
			return fromValidationError(n.s, err)
		}
	}
	for _, n := range c.neg {
		if n.s.Validate(v) == nil {
			return unsat(n.s, "not", "value matches a schema it must not match")
		}
	}
	return nil
}

// value generates a value valid under c. depth is the nesting depth of
// the value in the instance.
func (g *gen) value(c conj, depth int) (any, error) {
	if depth > g.opts.MaxDepth+12+g.sp.nest {
		var s *jsonschema.Schema
		if len(c.pos) > 0 {
			s = c.pos[0].s
		}
		e := unsat(s, "$ref", "instance nesting exceeds the depth limit (recursive schema without a finite instance?)")
		e.noRetry = true
		return nil, e
	}
	tries := 4
	if depth > g.opts.MaxDepth {
		tries = 2
	}
	var lastErr error
	for t := 0; t < tries; t++ {
		if err := g.tick(); err != nil {
			return nil, err
		}
		dyn0 := g.dyn
		f := g.flatten(c, depth)
		if t == 0 && len(f.nots) > 0 && depth < 2 {
			tries *= 2 // negations are met by rejection: try more often
		}
		if g.exhausted() {
			return nil, g.budget
		}
		if f.falseAt != nil {
			g.lastFail = unsat(f.falseAt, "false", "the false schema accepts nothing")
			lastErr = g.lastFail
			continue
		}
		boundary := g.opts.Boundary
		if len(f.nots) > 0 && t%2 == 1 {
			// values that escape a negation are often at the edges
			g.opts.Boundary = !boundary
		}
		v, err := g.build(c, f, depth, g.dyn != dyn0)
		g.opts.Boundary = boundary
		if err == nil {
			return v, nil
		}
		if isBudget(err) || isNoRetry(err) && f.choices == 0 {
			return nil, err
		}
		lastErr = err
		if ue, ok := err.(*UnsatisfiableError); ok {
			g.lastFail = ue
		}
	}
	return nil, lastErr
}

func isNoRetry(err error) bool {
	var ue *UnsatisfiableError
	return errors.As(err, &ue) && ue.noRetry
}

// JSON type bits; tNum means "a number that is not an integer".
const (
	tNull = 1 << iota
	tBool
	tInt
	tNum
	tStr
	tArr
	tObj
	tAll = tNull | tBool | tInt | tNum | tStr | tArr | tObj
)

func typeMask(t *jsonschema.Types) int {
	if t == nil || t.IsEmpty() {
		return tAll
	}
	m := 0
	for _, s := range t.ToStrings() {
		switch s {
		case "null":
			m |= tNull
		case "boolean":
			m |= tBool
		case "integer":
			m |= tInt
		case "number":
			m |= tInt | tNum
		case "string":
			m |= tStr
		case "array":
			m |= tArr
		case "object":
			m |= tObj
		}
	}
	return m
}

// intended guesses the types a schema's keywords are about.
func intended(s *jsonschema.Schema) int {
	m := 0
	if s.Minimum != nil || s.Maximum != nil || s.ExclusiveMinimum != nil || s.ExclusiveMaximum != nil || s.MultipleOf != nil {
		m |= tInt | tNum
	}
	if s.MinLength != nil || s.MaxLength != nil || s.Pattern != nil || s.Format != nil || s.ContentEncoding != nil || s.ContentMediaType != nil {
		m |= tStr
	}
	if s.Items != nil || s.Items2020 != nil || len(s.PrefixItems) > 0 || s.AdditionalItems != nil || s.Contains != nil ||
		s.MinItems != nil || s.MaxItems != nil || s.UniqueItems || s.UnevaluatedItems != nil {
		m |= tArr
	}
	if len(s.Properties) > 0 || len(s.PatternProperties) > 0 || s.AdditionalProperties != nil || len(s.Required) > 0 ||
		s.MinProperties != nil || s.MaxProperties != nil || s.PropertyNames != nil || len(s.DependentRequired) > 0 ||
		len(s.DependentSchemas) > 0 || len(s.Dependencies) > 0 || s.UnevaluatedProperties != nil {
		m |= tObj
	}
	return m
}

// onlyTypes reports whether s asserts nothing but its type.
func onlyTypes(s *jsonschema.Schema) bool {
	return s.Bool == nil && s.Types != nil && intended(s) == 0 && s.Enum == nil && s.Const == nil &&
		s.Ref == nil && s.DynamicRef == nil && s.RecursiveRef == nil && s.Not == nil &&
		len(s.AllOf) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 && s.If == nil
}

// build generates a value for one expansion f of c and checks it against c.
// When unreliable is set (a dynamic reference resolved through the outer
// scope), a failed local check is not trusted: the caller's check decides.
func (g *gen) build(c conj, f *flat, depth int, unreliable bool) (any, error) {
	mask := tAll
	if depth == 0 && g.only != 0 {
		mask = g.only
	}
	var typeAt *jsonschema.Schema
	typeKw := "type"
	var enumAt *jsonschema.Schema
	for _, l := range f.leaves {
		s := l.n.s
		if s.Types != nil {
			mask &= typeMask(s.Types)
			if mask == 0 && typeAt == nil {
				typeAt = s
			}
		}
		if enumAt == nil && (s.Const != nil || s.Enum != nil) {
			enumAt = s
		}
	}
	for _, n := range f.nots {
		if n.s.Bool != nil && *n.s.Bool {
			return nil, unsat(n.at, n.kw, "a schema that accepts everything is negated")
		}
		if onlyTypes(n.s) {
			m := typeMask(n.s.Types)
			if m&tNum != 0 {
				m |= tInt
			}
			mask &^= m
			if mask == 0 && typeAt == nil {
				typeAt, typeKw = n.at, n.kw
			}
		} else if fam := typeFamily(n.s); fam != 0 {
			// a schema of keywords for one type accepts every other type
			mask &= fam
			if mask == 0 && typeAt == nil {
				typeAt, typeKw = n.at, n.kw
			}
		}
	}
	if mask == 0 {
		return nil, unsat(typeAt, typeKw, "no JSON type satisfies every type constraint")
	}

	if enumAt != nil {
		if depth == 0 && g.only != 0 {
			return g.fromEnum(c, enumAt, unreliable, mask)
		}
		return g.fromEnum(c, enumAt, unreliable, tAll)
	}

	// exactness holds for the leaves known now; generators may add leaves
	// (dependentSchemas), in which case the value is checked.
	exact := f.exact() && !f.enumOrConst()
	nLeaves := len(f.leaves)
	var lastErr error
	var last any
	haveLast := false
	for _, t := range g.typeOrder(f, mask, depth) {
		if err := g.tick(); err != nil {
			return nil, err
		}
		v, err := g.genType(t, mask, f, depth)
		if err != nil {
			if isBudget(err) {
				return nil, err
			}
			if lastErr == nil || !haveLast {
				lastErr = err
			}
			continue
		}
		if exact && len(f.leaves) == nLeaves {
			return v, nil
		}
		cerr := g.check(c, v)
		if cerr == nil {
			return v, nil
		}
		if !haveLast {
			last, haveLast = v, true
			lastErr = cerr
		}
	}
	if haveLast && unreliable {
		return last, nil
	}
	return nil, lastErr
}

// fromEnum picks a const/enum value that satisfies c.
func (g *gen) fromEnum(c conj, s *jsonschema.Schema, unreliable bool, mask int) (any, error) {
	var cands []any
	kw := "enum"
	if s.Const != nil {
		cands = []any{*s.Const}
		kw = "const"
	} else {
		cands = s.Enum.Values
	}
	order := g.rng.Perm(len(cands))
	if g.opts.Boundary && len(order) > 1 && g.rng.IntN(2) == 0 {
		// boundary: first or last declared value
		order[0], order[1] = 0, len(cands)-1
	}
	for _, i := range order {
		if err := g.tick(); err != nil {
			return nil, err
		}
		v := jsonvalue.Normalize(cands[i])
		if mask != tAll && valueType(v)&mask == 0 {
			continue
		}
		if g.check(c, v) == nil {
			return v, nil
		}
	}
	if unreliable && len(cands) > 0 {
		return jsonvalue.Normalize(cands[order[0]]), nil
	}
	return nil, unsat(s, kw, "no value of "+kw+" satisfies the other constraints")
}

// typeOrder lists the types to try: those the keywords are about first,
// scalars first when deep.
func (g *gen) typeOrder(f *flat, mask, depth int) []int {
	want := 0
	for _, l := range f.leaves {
		want |= intended(l.n.s)
	}
	var pool []int
	for _, t := range []int{tNull, tBool, tInt, tNum, tStr, tArr, tObj} {
		if mask&t == 0 {
			continue
		}
		if t == tInt && mask&tNum != 0 {
			continue // the number generator covers integers too
		}
		pool = append(pool, t)
	}
	g.rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	deep := g.deep(depth)
	rank := func(t int) int {
		r := 0
		if want&t == 0 && !(t == tNum && want&tInt != 0) {
			r += 2
		}
		if deep && (t == tArr || t == tObj) {
			r += 4
		}
		if want == 0 && !deep && (t == tArr || t == tObj) && g.rng.IntN(3) > 0 {
			r++ // unconstrained values: mostly scalars
		}
		return r
	}
	ranks := make(map[int]int, len(pool))
	for _, t := range pool {
		ranks[t] = rank(t)
	}
	sort.SliceStable(pool, func(i, j int) bool { return ranks[pool[i]] < ranks[pool[j]] })
	return pool
}

func (g *gen) genType(t, mask int, f *flat, depth int) (any, error) {
	switch t {
	case tNull:
		return nil, nil
	case tBool:
		return g.rng.IntN(2) == 0, nil
	case tInt:
		return g.genNumber(f, true, false)
	case tNum:
		return g.genNumber(f, mask&tInt != 0, true)
	case tStr:
		return g.genString(f, depth)
	case tArr:
		return g.genArray(f, depth)
	case tObj:
		return g.genObject(f, depth)
	}
	return nil, nil
}

// valueType returns the type bit of a generated value.
func valueType(v any) int {
	switch v.(type) {
	case nil:
		return tNull
	case bool:
		return tBool
	case string:
		return tStr
	case []any:
		return tArr
	case map[string]any:
		return tObj
	}
	if r := numRat(v); r != nil {
		if r.IsInt() {
			return tInt
		}
		return tNum
	}
	return 0
}

// exact reports whether the typed generators satisfy every assertion of f by
// construction, so that the local check can be skipped. Negations,
// unevaluated*, dynamic references, content and vocabulary extensions are
// not exact. (Values of nested properties and items are checked at their
// own level, and Generate always validates the whole instance.)
func (f *flat) exact() bool {
	if len(f.nots) > 0 {
		return false
	}
	for _, l := range f.leaves {
		s := l.n.s
		if s.UnevaluatedProperties != nil || s.UnevaluatedItems != nil || s.DynamicRef != nil || s.RecursiveRef != nil ||
			s.ContentEncoding != nil || s.ContentMediaType != nil || len(s.Extensions) > 0 {
			return false
		}
	}
	return true
}

// typeFamily returns the types a schema's keywords apply to when they all
// apply to one type (numbers, strings, arrays or objects) and nothing else
// (no type, enum, const, references or combinators) is asserted; else 0.
func typeFamily(s *jsonschema.Schema) int {
	if s.Bool != nil || s.Types != nil || s.Enum != nil || s.Const != nil || s.Ref != nil || s.DynamicRef != nil ||
		s.RecursiveRef != nil || s.Not != nil || len(s.AllOf) > 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0 ||
		s.If != nil || s.Format != nil || len(s.Extensions) > 0 {
		return 0
	}
	switch m := intended(s); m {
	case tInt | tNum, tStr, tArr, tObj:
		return m
	}
	return 0
}

// soleKeyword returns the name of the only assertion of s among the
// bounds the generators can negate, or "".
func soleKeyword(s *jsonschema.Schema) string {
	if typeFamily(s) == 0 {
		return ""
	}
	kw, n := "", 0
	set := func(ok bool, name string) {
		if ok {
			kw = name
			n++
		}
	}
	set(s.Minimum != nil, "minimum")
	set(s.Maximum != nil, "maximum")
	set(s.ExclusiveMinimum != nil, "exclusiveMinimum")
	set(s.ExclusiveMaximum != nil, "exclusiveMaximum")
	set(s.MultipleOf != nil, "multipleOf")
	set(s.MinLength != nil, "minLength")
	set(s.MaxLength != nil, "maxLength")
	set(s.Pattern != nil, "pattern")
	set(s.ContentEncoding != nil || s.ContentMediaType != nil, "content")
	set(s.MinItems != nil, "minItems")
	set(s.MaxItems != nil, "maxItems")
	set(s.UniqueItems, "uniqueItems")
	set(s.Items != nil || s.Items2020 != nil || len(s.PrefixItems) > 0 || s.AdditionalItems != nil || s.Contains != nil || s.UnevaluatedItems != nil, "items")
	set(len(s.Required) > 0, "required")
	set(s.MinProperties != nil, "minProperties")
	set(s.MaxProperties != nil, "maxProperties")
	set(len(s.Properties) > 0 || len(s.PatternProperties) > 0 || s.AdditionalProperties != nil || s.PropertyNames != nil ||
		len(s.DependentRequired) > 0 || len(s.DependentSchemas) > 0 || len(s.Dependencies) > 0 || s.UnevaluatedProperties != nil, "properties")
	if n != 1 {
		return ""
	}
	return kw
}

// onlyNot reports whether s asserts nothing but "not".
func onlyNot(s *jsonschema.Schema) bool {
	return s.Bool == nil && s.Not != nil && s.Types == nil && intended(s) == 0 && s.Enum == nil && s.Const == nil &&
		s.Ref == nil && s.DynamicRef == nil && s.RecursiveRef == nil && s.Format == nil &&
		len(s.AllOf) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 && s.If == nil && len(s.Extensions) == 0
}
