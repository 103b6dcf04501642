package jsoncompat

import (
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// itemsOf normalizes draft-7 and 2020-12 array keywords: the schemas of the
// leading positions and the schema of every later item (nil: any).
func itemsOf(s *jsonschema.Schema) (prefix []*jsonschema.Schema, rest *jsonschema.Schema) {
	switch it := s.Items.(type) {
	case []*jsonschema.Schema:
		prefix = it
		switch ai := s.AdditionalItems.(type) {
		case bool:
			if !ai {
				rest = falseSchema
			}
		case *jsonschema.Schema:
			rest = ai
		}
		return prefix, rest
	case *jsonschema.Schema:
		return nil, it
	}
	return s.PrefixItems, s.Items2020
}

// writerItemsOf is itemsOf for a writer: without items and contains,
// unevaluatedItems is the schema of every item past the prefix, unless a
// subschema applied in place (allOf, $ref, anyOf, ...) may evaluate some
// of them: then the writer is left wider than it is (never narrower,
// which could hide a break).
func writerItemsOf(s *jsonschema.Schema) (prefix []*jsonschema.Schema, rest *jsonschema.Schema) {
	prefix, rest = itemsOf(s)
	if rest != nil || s.Items != nil || s.Contains != nil || s.UnevaluatedItems == nil || !certainItemEvaluation(s, map[*jsonschema.Schema]bool{}) {
		return prefix, rest
	}
	// Which items the subschemas applied in place (allOf, $ref) evaluate
	// is known: unevaluatedItems is the schema of the items past them.
	n, all := evaluatedItems(s, map[*jsonschema.Schema]bool{})
	if all {
		return prefix, nil
	}
	prefix = slices.Clone(prefix)
	for len(prefix) < n {
		prefix = append(prefix, trueSchema) // constrained by the allOf member that evaluates it
	}
	return prefix, s.UnevaluatedItems
}

// alwaysApplied lists the subschemas s applies in place to every instance
// ($ref, $recursiveRef, $dynamicRef, allOf); entries may be nil.
func alwaysApplied(s *jsonschema.Schema) []*jsonschema.Schema {
	subs := append([]*jsonschema.Schema{s.Ref, s.RecursiveRef}, s.AllOf...)
	if s.DynamicRef != nil {
		subs = append(subs, s.DynamicRef.Ref)
	}
	return subs
}

// certainItemEvaluation reports whether the items s evaluates do not
// depend on the instance: s and the subschemas it always applies (allOf,
// $ref) use no anyOf, oneOf, if, contains or dependentSchemas, and no
// nested unevaluatedItems. Otherwise a writer's unevaluatedItems may not
// apply to an item evaluatedItems does not count, and taking it as the
// schema of those items would make the writer narrower than it is, which
// could hide a break.
func certainItemEvaluation(s *jsonschema.Schema, seen map[*jsonschema.Schema]bool) bool {
	if s == nil || seen[s] {
		return true
	}
	seen[s] = true
	if len(s.AnyOf) > 0 || len(s.OneOf) > 0 || s.If != nil || s.Contains != nil || len(s.DependentSchemas) > 0 {
		return false
	}
	subs := alwaysApplied(s)
	for _, sub := range subs {
		if sub != nil && (sub.UnevaluatedItems != nil || !certainItemEvaluation(sub, seen)) {
			return false
		}
	}
	return true
}

// evaluatedItems is how many leading items the reader s evaluates
// whatever the instance (prefixItems, or items for all of them), through
// its own keywords and those of the subschemas that always apply (allOf,
// $ref). Items that anyOf, oneOf, if or contains may evaluate are not
// counted: unevaluatedItems is then checked on more items than it applies
// to, which can only report a break that is not there, never hide one.
func evaluatedItems(s *jsonschema.Schema, seen map[*jsonschema.Schema]bool) (n int, all bool) {
	if s == nil || seen[s] {
		return 0, false
	}
	seen[s] = true
	prefix, rest := itemsOf(s)
	n, all = len(prefix), rest != nil
	subs := alwaysApplied(s)
	for _, sub := range subs {
		sn, sall := evaluatedItems(sub, seen)
		n, all = max(n, sn), all || sall
	}
	return n, all
}

// checkUnevaluatedItems checks the reader's unevaluatedItems against every
// writer item it may apply to: each position from the first item the
// reader may leave unevaluated to the end of the writer's prefix, then the
// writer's items past it.
func (c *checker) checkUnevaluatedItems(v *arrView, ra *jsonschema.Schema, ip ipath) []*Finding {
	ui := ra.UnevaluatedItems
	if ui == nil || (ui.Bool != nil && *ui.Bool) {
		return nil
	}
	start, all := evaluatedItems(ra, map[*jsonschema.Schema]bool{})
	if all {
		return nil
	}
	var out []*Finding
	last := max(v.prefixLen, start) // from here on the writer's items are alike
	for i := start; i <= last; i++ {
		if v.max >= 0 && i >= v.max {
			break
		}
		wat, forbidden := v.itemAt(i)
		if forbidden {
			break
		}
		seg := strconv.Itoa(i)
		if i == last {
			seg = anyIndex
		}
		h := &hint{extend: i + 1, itemFrom: firstSchema(wat)}
		if isFalse(ui) {
			return append(out, c.errorf(KindUnevaluatedItems, v.origin, loc(ra, "unevaluatedItems"), nil, false, ip, h, strconv.Itoa(i)))
		}
		res := c.sub(wat, nil, tAll, ui, ip.add(seg))
		if !hasErrors(res) {
			out = append(out, res...)
			continue
		}
		if v, ok := nestedValue(res, len(ip)+1); ok {
			h.value, h.hasValue = v, true
		}
		f := c.errorf(KindUnevaluatedItems, v.origin, loc(ra, "unevaluatedItems"), nil, nil, ip, h, strconv.Itoa(i))
		appendDetail(f, res)
		return append(out, f)
	}
	return out
}

var falseSchema = func() *jsonschema.Schema {
	f := false
	return &jsonschema.Schema{Bool: &f, Location: "false"}
}()

func isFalse(s *jsonschema.Schema) bool { return s != nil && s.Bool != nil && !*s.Bool }

// arrView is a writer branch seen as arrays.
type arrView struct {
	b                 branch
	prefixLen         int
	min, max          int // max < 0: unbounded
	minLoc, maxLoc    string
	unique            bool
	uniqueLoc, origin string
	contains          []containsRule
}

type containsRule struct {
	s           *jsonschema.Schema
	min, max    int // max < 0: unbounded
	loc, minLoc string
}

func (c *checker) arrView(b branch) *arrView {
	v := &arrView{b: b, max: -1, origin: locOf(b.pos)}
	for _, a := range b.pos {
		s := a.s
		prefix, rest := writerItemsOf(s)
		if len(prefix) > v.prefixLen {
			v.prefixLen = len(prefix)
		}
		if s.MinItems != nil && *s.MinItems > v.min {
			v.min, v.minLoc = *s.MinItems, loc(s, "minItems")
		}
		if s.MaxItems != nil && (v.max < 0 || *s.MaxItems < v.max) {
			v.max, v.maxLoc = *s.MaxItems, loc(s, "maxItems")
		}
		if isFalse(rest) && (v.max < 0 || len(prefix) < v.max) {
			v.max, v.maxLoc = len(prefix), loc(s, "items")
		}
		if s.UniqueItems {
			v.unique, v.uniqueLoc = true, loc(s, "uniqueItems")
		}
		if s.Contains != nil {
			cr := containsRule{s: s.Contains, min: 1, max: -1, loc: loc(s, "contains"), minLoc: loc(s, "contains")}
			if s.MinContains != nil {
				cr.min, cr.minLoc = *s.MinContains, loc(s, "minContains")
			}
			if s.MaxContains != nil {
				cr.max = *s.MaxContains
			}
			v.contains = append(v.contains, cr)
			if cr.min > v.min {
				// minContains matching items are items.
				v.min, v.minLoc = cr.min, cr.minLoc
			}
		}
	}
	return v
}

// itemAt returns the writer's constraint on the item at index i (i at or
// past prefixLen stands for every later item).
func (v *arrView) itemAt(i int) (atoms []atom, forbidden bool) {
	for _, a := range v.b.pos {
		prefix, rest := writerItemsOf(a.s)
		var s *jsonschema.Schema
		if i < len(prefix) {
			s = prefix[i]
		} else {
			s = rest
		}
		if s == nil {
			continue
		}
		if isFalse(s) {
			return nil, true
		}
		atoms = append(atoms, atom{s, a.borrowed})
	}
	return atoms, false
}

func (c *checker) checkArray(b branch, ra *jsonschema.Schema, ip ipath) []*Finding {
	v := c.arrView(b)
	var out []*Finding
	rprefix, rrest := itemsOf(ra)
	n := max(v.prefixLen, len(rprefix))
	closedAt := -1
	for i := 0; i < n; i++ {
		if v.max >= 0 && i >= v.max {
			break
		}
		wat, forbidden := v.itemAt(i)
		if forbidden {
			break
		}
		rc := rrest
		if i < len(rprefix) {
			rc = rprefix[i]
		}
		if rc == nil {
			continue
		}
		if isFalse(rc) {
			closedAt = i
			break
		}
		out = append(out, c.sub(wat, nil, tAll, rc, ip.add(strconv.Itoa(i)))...)
	}
	if closedAt < 0 && (v.max < 0 || v.max > n) {
		wat, forbidden := v.itemAt(n)
		rc := rrest
		if n < len(rprefix) {
			rc = nil
		}
		if !forbidden && rc != nil {
			if isFalse(rc) {
				closedAt = n
			} else {
				out = append(out, c.sub(wat, nil, tAll, rc, ip.add(anyIndex))...)
			}
		}
	}
	out = append(out, c.checkUnevaluatedItems(v, ra, ip)...)
	if closedAt >= 0 {
		rl := loc(ra, restKeyword(ra))
		if closedAt < len(rprefix) {
			rl = loc(ra, prefixKeyword(ra), strconv.Itoa(closedAt))
		}
		wat, _ := v.itemAt(closedAt)
		out = append(out, c.errorf(KindItemsClosed, v.origin, rl, nil, false, ip, &hint{extend: closedAt + 1, itemFrom: firstSchema(wat)}, strconv.Itoa(closedAt)))
	}
	if ra.MinItems != nil && *ra.MinItems > v.min {
		wl := v.minLoc
		var wv any = v.min
		if wl == "" {
			wl, wv = v.origin, nil
		}
		out = append(out, c.errorf(KindMinItems, wl, loc(ra, "minItems"), wv, *ra.MinItems, ip, &hint{truncate: v.min, truncSet: true}, strconv.Itoa(v.min), strconv.Itoa(*ra.MinItems)))
	}
	if ra.MaxItems != nil && (v.max < 0 || v.max > *ra.MaxItems) {
		wl := v.maxLoc
		var wv any = v.max
		shown := strconv.Itoa(v.max)
		if v.max < 0 {
			wl, wv, shown = v.origin, nil, "any number of"
		}
		wat, _ := v.itemAt(v.prefixLen)
		out = append(out, c.errorf(KindMaxItems, wl, loc(ra, "maxItems"), wv, *ra.MaxItems, ip, &hint{extend: *ra.MaxItems + 1, itemFrom: firstSchema(wat)}, shown, strconv.Itoa(*ra.MaxItems)))
	}
	if ra.UniqueItems && !v.unique && (v.max < 0 || v.max >= 2) {
		out = append(out, c.errorf(KindUniqueItems, v.origin, loc(ra, "uniqueItems"), nil, true, ip, &hint{dup: true}))
	}
	if ra.Contains != nil {
		out = append(out, c.checkContains(v, ra, ip)...)
	}
	return out
}

func prefixKeyword(s *jsonschema.Schema) string {
	if _, ok := s.Items.([]*jsonschema.Schema); ok {
		return "items"
	}
	return "prefixItems"
}

func restKeyword(s *jsonschema.Schema) string {
	if _, ok := s.Items.([]*jsonschema.Schema); ok {
		return "additionalItems"
	}
	return "items"
}

func (c *checker) checkContains(v *arrView, ra *jsonschema.Schema, ip ipath) []*Finding {
	var out []*Finding
	rmin := 1
	if ra.MinContains != nil {
		rmin = *ra.MinContains
	}
	rmax := -1
	if ra.MaxContains != nil {
		rmax = *ra.MaxContains
	}
	if rmin > 0 {
		guaranteed := 0
		gl := v.origin
		for _, cr := range v.contains {
			if cr.min > guaranteed && clean(c.subOne(cr.s, ra.Contains, ip.add(anyIndex))) {
				guaranteed, gl = cr.min, cr.minLoc
			}
		}
		// Leading positions every writer array has.
		fixed := 0
		for i := 0; i < v.min && i < v.prefixLen; i++ {
			wat, forbidden := v.itemAt(i)
			if forbidden {
				break
			}
			if len(wat) > 0 && clean(c.sub(wat, nil, tAll, ra.Contains, ip.add(strconv.Itoa(i)))) {
				fixed++
			}
		}
		if fixed > guaranteed {
			guaranteed = fixed
		}
		if guaranteed < rmin {
			if guaranteed == 0 && len(v.contains) == 0 {
				out = append(out, c.errorf(KindContains, v.origin, loc(ra, "contains"), nil, nil, ip, &hint{truncate: v.min, truncSet: true}))
			} else {
				// Without its own minContains (1 implied) the reader fails
				// at contains.
				rl := loc(ra, "contains")
				if ra.MinContains != nil {
					rl = loc(ra, "minContains")
				}
				out = append(out, c.errorf(KindMinContains, gl, rl, guaranteed, rmin, ip, &hint{truncate: v.min, truncSet: true}, strconv.Itoa(guaranteed), strconv.Itoa(rmin)))
			}
		}
	}
	if rmax >= 0 {
		bound := v.max
		bl := v.maxLoc
		for _, cr := range v.contains {
			if cr.max >= 0 && (bound < 0 || cr.max < bound) && clean(c.sub([]atom{{ra.Contains, true}}, nil, tAll, cr.s, ip.add(anyIndex))) {
				bound, bl = cr.max, strings.TrimSuffix(cr.loc, "/contains")+"/maxContains"
			}
		}
		if bound < 0 || bound > rmax {
			shown := "any number of"
			var wv any
			if bound >= 0 {
				shown, wv = strconv.Itoa(bound), bound
			}
			if bl == "" {
				bl = v.origin
			}
			h := &hint{extend: rmax + 1}
			if vals, finite := finiteValues(ra.Contains); finite && rmax < maxMemberWitness {
				// rmax+1 items the reader's contains counts.
				for _, x := range vals[:min(len(vals), 3)] {
					arr := make([]any, rmax+1)
					for i := range arr {
						arr[i] = x
					}
					h.cands = append(h.cands, arr)
				}
			}
			out = append(out, c.errorf(KindMaxContains, bl, loc(ra, "maxContains"), wv, rmax, ip, h, shown, strconv.Itoa(rmax)))
		}
	}
	return out
}
