package sample

import (
	"encoding/json"
	"maps"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/internal/schemawalk"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// DefaultVariantLimit is the number of variants Variants returns when its
// limit is not positive.
const DefaultVariantLimit = 256

// Variants returns mutations of doc aimed at a reader schema, for the
// compatibility gate's witness search. doc is a decoded JSON value (numbers
// as json.Number or float64). Each variant is doc with one change at one
// location (locations nearer the root first):
//
//   - objects: each property the reader declares (or requires) and doc lacks,
//     added with a value generated from the reader's subschema, one from the
//     writer's view of that name, and, where the writer does not constrain the
//     name, values of types the reader does not expect; each present property
//     dropped; an undeclared property added;
//   - numbers: the writer's and reader's bounds (exclusive ones plus or minus
//     the smallest step, the reader's one step beyond), very large and very
//     small magnitudes, a non-integer, negative zero;
//   - strings: empty, long, non-ASCII, lengths just outside the reader's
//     bounds;
//   - arrays: empty, one item longer, a duplicated item, one item beyond the
//     reader's maxItems;
//   - every value: null, each enum/const value of either schema, a value of
//     each other type the writer allows, and boundary values generated from
//     the writer's subschema.
//
// Candidates need not be valid under the writer: the caller filters them.
// Variants is deterministic for a given rng state. limit caps the result
// (DefaultVariantLimit when limit <= 0); when there are more candidates, a
// random subset is returned, in location order. A variant shares the
// subtrees it does not change with doc and with other variants: treat
// variants as read-only (doc itself is never modified).
func Variants(doc any, writer, reader *jsonschema.Schema, rng *rand.Rand, limit int) []any {
	if limit <= 0 {
		limit = DefaultVariantLimit
	}
	vc := &vctx{
		rng:  rng,
		max:  16 * limit,
		wsp:  New(writer, Options{Budget: 3000, Attempts: 1}),
		seen: map[string]bool{},
	}
	type item struct {
		path []any
		v    any
		w, r []node
	}
	queue := []item{{nil, doc, rootNodes(writer), rootNodes(reader)}}
	for len(queue) > 0 && len(vc.specs) < vc.max {
		it := queue[0]
		queue = queue[1:]
		wl, rl := mayLeaves(it.w), mayLeaves(it.r)
		vc.mutate(it.path, it.v, it.w, wl, rl)
		switch v := it.v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				queue = append(queue, item{appendPath(it.path, k), v[k], childProp(wl, k), childProp(rl, k)})
			}
		case []any:
			for i, e := range v {
				queue = append(queue, item{appendPath(it.path, i), e, childItem(wl, i), childItem(rl, i)})
			}
		}
	}
	// Evaluate candidates in random order until limit distinct ones are
	// found; return them in location order.
	type chosen struct {
		idx int
		doc any
	}
	var picked []chosen
	for _, i := range rng.Perm(len(vc.specs)) {
		if len(picked) >= limit {
			break
		}
		sp := vc.specs[i]
		v, del := sp.val, sp.del
		if sp.gen != nil {
			var ok bool
			if v, ok = sp.gen(); !ok {
				continue
			}
		}
		if !del && sp.hasCur && jsonvalue.Equal(v, sp.cur) {
			continue
		}
		key := pathKey(sp.path)
		if del {
			key += "\x00-"
		} else {
			key += "\x00=" + canonical(v)
		}
		if vc.seen[key] {
			continue
		}
		vc.seen[key] = true
		picked = append(picked, chosen{i, setShared(doc, sp.path, v, del)})
	}
	sort.Slice(picked, func(a, b int) bool { return picked[a].idx < picked[b].idx })
	out := make([]any, len(picked))
	for i, p := range picked {
		out[i] = p.doc
	}
	return out
}

func rootNodes(s *jsonschema.Schema) []node {
	if s == nil {
		return nil
	}
	return []node{rootNode(s)}
}

func appendPath(p []any, step any) []any {
	q := make([]any, len(p), len(p)+1)
	copy(q, p)
	return append(q, step)
}

type vctx struct {
	rng   *rand.Rand
	specs []spec
	seen  map[string]bool
	max   int
	wsp   *Sampler
}

// spec is one candidate: the value at path replaced (or deleted). Values
// that need generation are produced lazily, only for candidates picked.
type spec struct {
	path   []any
	del    bool
	val    any
	gen    func() (any, bool)
	cur    any // the value at path in doc
	hasCur bool
}

func (vc *vctx) emit(path []any, cur any, hasCur bool, v any, del bool) {
	if len(vc.specs) < vc.max {
		vc.specs = append(vc.specs, spec{path: path, del: del, val: v, cur: cur, hasCur: hasCur})
	}
}

func (vc *vctx) emitGen(path []any, cur any, hasCur bool, gen func() (any, bool)) {
	if len(vc.specs) < vc.max {
		vc.specs = append(vc.specs, spec{path: path, gen: gen, cur: cur, hasCur: hasCur})
	}
}

func pathKey(path []any) string {
	var sb strings.Builder
	for _, p := range path {
		switch p := p.(type) {
		case string:
			sb.WriteString("/" + jsonpos.Escape(p))
		case int:
			sb.WriteString("/" + strconv.Itoa(p))
		}
	}
	return sb.String()
}

// setShared returns doc with the value at path replaced by v (or deleted),
// copying only the containers along path.
func setShared(doc any, path []any, v any, del bool) any {
	if len(path) == 0 {
		return v
	}
	switch d := doc.(type) {
	case map[string]any:
		m := make(map[string]any, len(d)+1)
		for k, e := range d {
			m[k] = e
		}
		k := path[0].(string)
		if len(path) == 1 {
			if del {
				delete(m, k)
			} else {
				m[k] = v
			}
			return m
		}
		m[k] = setShared(d[k], path[1:], v, del)
		return m
	case []any:
		i := path[0].(int)
		if len(path) == 1 && del {
			a := make([]any, 0, len(d)-1)
			a = append(a, d[:i]...)
			return append(a, d[i+1:]...)
		}
		a := make([]any, len(d))
		copy(a, d)
		if len(path) == 1 {
			a[i] = v
		} else {
			a[i] = setShared(d[i], path[1:], v, del)
		}
		return a
	}
	return doc
}

// mayLeaves expands nodes through every applicator that may apply to the
// same value (all branches of anyOf/oneOf/if, dependent schemas; not not).
func mayLeaves(nodes []node) []node {
	var out []node
	seen := map[*jsonschema.Schema]bool{}
	var walk func(n node, depth int)
	walk = func(n node, depth int) {
		s := n.s
		if s == nil || seen[s] || depth > 64 || len(out) > 512 {
			return
		}
		seen[s] = true
		if s.Bool != nil {
			return
		}
		out = append(out, n)
		if s.Ref != nil {
			walk(n.child(s.Ref), depth+1)
		}
		if s.DynamicRef != nil {
			walk(n.child(resolveDynamic(n)), depth+1)
		}
		if s.RecursiveRef != nil {
			walk(n.child(resolveRecursive(n)), depth+1)
		}
		for _, group := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, {s.If, s.Then, s.Else}} {
			for _, b := range group {
				if b != nil {
					walk(n.child(b), depth+1)
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
			walk(n.child(s.DependentSchemas[k]), depth+1)
		}
		for _, k := range slices.Sorted(maps.Keys(s.Dependencies)) {
			if d, ok := s.Dependencies[k].(*jsonschema.Schema); ok {
				walk(n.child(d), depth+1)
			}
		}
	}
	for _, n := range nodes {
		walk(n, 0)
	}
	return out
}

// childProp returns the schemas of the leaves that may apply to property k.
func childProp(leaves []node, k string) []node {
	var out []node
	for _, n := range leaves {
		s := n.s
		matched := false
		if p, ok := s.Properties[k]; ok {
			out = append(out, n.child(p))
			matched = true
		}
		for _, re := range schemawalk.Patterns(s) {
			if re.MatchString(k) {
				out = append(out, n.child(s.PatternProperties[re]))
				matched = true
			}
		}
		if a, ok := s.AdditionalProperties.(*jsonschema.Schema); ok && !matched {
			out = append(out, n.child(a))
		}
		if s.UnevaluatedProperties != nil && !matched {
			out = append(out, n.child(s.UnevaluatedProperties))
		}
	}
	return out
}

// childItem returns the schemas of the leaves that may apply to item i.
func childItem(leaves []node, i int) []node {
	var out []node
	for _, n := range leaves {
		s := n.s
		if is2020(s) {
			if i < len(s.PrefixItems) {
				out = append(out, n.child(s.PrefixItems[i]))
			} else if s.Items2020 != nil {
				out = append(out, n.child(s.Items2020))
			}
		} else {
			switch it := s.Items.(type) {
			case *jsonschema.Schema:
				out = append(out, n.child(it))
			case []*jsonschema.Schema:
				if i < len(it) {
					out = append(out, n.child(it[i]))
				} else if a, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
					out = append(out, n.child(a))
				}
			}
		}
		if s.UnevaluatedItems != nil {
			out = append(out, n.child(s.UnevaluatedItems))
		}
	}
	return out
}

// typesOf is the union of the types the leaves declare (tAll when none does).
func typesOf(leaves []node) int {
	m := 0
	for _, n := range leaves {
		if n.s.Types != nil {
			m |= typeMask(n.s.Types)
		}
	}
	if m == 0 {
		return tAll
	}
	return m
}

// generateAt generates a value for the conjunction nodes, of a type in mask.
func (vc *vctx) generateAt(nodes []node, mask int, boundary bool) (any, bool) {
	opts := vc.wsp.opts
	opts.Boundary = boundary
	g := newGen(vc.wsp, vc.rng, opts)
	g.only = mask
	v, err := g.value(conj{pos: nodes}, 0)
	return v, err == nil
}

var (
	extremeNumbers = []string{"1e300", "-1e300", "9007199254740993", "-9007199254740993", "1e-300", "-0", "0", "-1"}
	oddStrings     = []string{"", "ü😀中文 ñ", " ", "0", "null"}
)

func (vc *vctx) mutate(path []any, v any, w, wl, rl []node) {
	put := func(x any) { vc.emit(path, v, true, x, false) }
	gen := func(nodes []node, mask int, boundary bool) {
		vc.emitGen(path, v, true, func() (any, bool) { return vc.generateAt(nodes, mask, boundary) })
	}
	// null, enum and const values of either side
	if v != nil && typesOf(wl)&tNull != 0 {
		put(nil)
	}
	for _, side := range [][]node{wl, rl} {
		for _, n := range side {
			if n.s.Const != nil {
				put(jsonvalue.Normalize(*n.s.Const))
			}
			if n.s.Enum != nil {
				for i, e := range n.s.Enum.Values {
					if i >= 32 {
						break
					}
					put(jsonvalue.Normalize(e))
				}
			}
		}
	}
	// boundary values of the writer's subschema
	if len(w) > 0 {
		gen(w, tAll, true)
		gen(w, tAll, true)
	}
	// each other type the writer allows
	vt := valueType(v)
	wt := typesOf(wl)
	if wt&tNum != 0 {
		wt |= tInt
	}
	for _, t := range []int{tBool, tInt, tNum, tStr, tArr, tObj} {
		if wt&t != 0 && t != vt {
			gen(w, t, false)
		}
	}

	switch x := v.(type) {
	case json.Number, float64, int, int64:
		vc.mutateNumber(put, numRat(x), wl, rl)
	case string:
		vc.mutateString(put, x, rl)
	case []any:
		vc.mutateArray(path, put, x, wl, rl)
	case map[string]any:
		vc.mutateObject(path, x, wl, rl)
	}
}

func (vc *vctx) mutateNumber(put func(any), r *big.Rat, wl, rl []node) {
	if r == nil {
		return
	}
	var cands []*big.Rat
	step := func(x *big.Rat) *big.Rat {
		n := 0
		if d, ok := decimalPlaces(x); ok {
			n = d
		}
		return pow10(-(n + 1))
	}
	add := func(x *big.Rat, d *big.Rat, sign int) {
		if x == nil {
			return
		}
		y := new(big.Rat).Set(x)
		if sign > 0 {
			y.Add(y, d)
		} else if sign < 0 {
			y.Sub(y, d)
		}
		cands = append(cands, y)
	}
	one := big.NewRat(1, 1)
	for _, n := range wl {
		s := n.s
		add(s.Minimum, nil, 0)
		add(s.Maximum, nil, 0)
		if s.ExclusiveMinimum != nil {
			add(s.ExclusiveMinimum, step(s.ExclusiveMinimum), 1)
			add(s.ExclusiveMinimum, one, 1)
		}
		if s.ExclusiveMaximum != nil {
			add(s.ExclusiveMaximum, step(s.ExclusiveMaximum), -1)
			add(s.ExclusiveMaximum, one, -1)
		}
		if s.MultipleOf != nil {
			add(r, s.MultipleOf, 1)
		}
	}
	for _, n := range rl {
		s := n.s
		for _, b := range []*big.Rat{s.Minimum, s.ExclusiveMinimum} {
			if b != nil {
				add(b, nil, 0)
				add(b, one, -1)
				add(b, step(b), -1)
			}
		}
		for _, b := range []*big.Rat{s.Maximum, s.ExclusiveMaximum} {
			if b != nil {
				add(b, nil, 0)
				add(b, one, 1)
				add(b, step(b), 1)
			}
		}
	}
	add(r, big.NewRat(1, 2), 1)
	for _, c := range cands {
		put(jsonvalue.Number(c))
	}
	for _, e := range extremeNumbers {
		put(json.Number(e))
	}
}

func (vc *vctx) mutateString(put func(any), s string, rl []node) {
	for _, o := range oddStrings {
		put(o)
	}
	put(strings.Repeat("a", 1000))
	if s != "" {
		put(s + "ü😀")
	}
	for _, n := range rl {
		if n.s.MinLength != nil && *n.s.MinLength > 0 && *n.s.MinLength <= 1<<16 {
			put(strings.Repeat("a", *n.s.MinLength-1))
		}
		if n.s.MaxLength != nil && *n.s.MaxLength < 1<<16 {
			put(strings.Repeat("a", *n.s.MaxLength+1))
		}
	}
}

func (vc *vctx) mutateArray(path []any, put func(any), a []any, wl, rl []node) {
	put([]any{})
	if len(a) > 0 {
		put(append(append([]any(nil), a...), a[len(a)-1]))
		put(append(append([]any(nil), a...), a[0]))
	}
	// one generated item longer
	next := childItem(wl, len(a))
	vc.emitGen(path, a, true, func() (any, bool) {
		x, ok := vc.generateAt(next, tAll, false)
		if !ok {
			return nil, false
		}
		return append(append([]any(nil), a...), x), true
	})
	for _, n := range rl {
		if n.s.MaxItems != nil && len(a) > 0 && *n.s.MaxItems >= len(a) && *n.s.MaxItems < 1024 {
			b := append([]any(nil), a...)
			for len(b) <= *n.s.MaxItems {
				b = append(b, a[len(b)%len(a)])
			}
			put(b)
		}
	}
}

func (vc *vctx) mutateObject(path []any, o map[string]any, wl, rl []node) {
	// properties the reader declares or requires that doc lacks
	names := map[string]bool{}
	for _, n := range rl {
		for k := range n.s.Properties {
			names[k] = true
		}
		for _, k := range n.s.Required {
			names[k] = true
		}
		for k, req := range n.s.DependentRequired {
			names[k] = true
			for _, r := range req {
				names[r] = true
			}
		}
	}
	add := func(k string, nodes []node, mask int) {
		vc.emitGen(appendPath(path, k), nil, false, func() (any, bool) { return vc.generateAt(nodes, mask, false) })
	}
	for _, k := range slices.Sorted(maps.Keys(names)) {
		if _, ok := o[k]; ok {
			continue
		}
		rn := childProp(rl, k)
		add(k, rn, tAll)
		if wn := childProp(wl, k); len(wn) > 0 {
			add(k, wn, tAll)
			continue
		}
		// the writer says nothing about k: values the reader does not expect
		rt := typesOf(mayLeaves(rn))
		if rt&tNum != 0 {
			rt |= tInt
		}
		var others []int
		for _, t := range []int{tNull, tBool, tInt, tNum, tStr, tArr, tObj} {
			if rt == tAll || rt&t == 0 {
				others = append(others, t)
			}
		}
		vc.rng.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
		for _, t := range others[:min(2, len(others))] {
			add(k, nil, t)
		}
	}
	// each present property dropped
	for _, k := range slices.Sorted(maps.Keys(o)) {
		vc.emit(appendPath(path, k), o[k], true, nil, true)
	}
	// an undeclared property
	extra := "evtoolExtra"
	for i := 0; ; i++ {
		if _, ok := o[extra]; !ok && !names[extra] {
			break
		}
		extra = "evtoolExtra" + string(rune('a'+i%26))
	}
	vc.emit(appendPath(path, extra), nil, false, "x", false)
}
