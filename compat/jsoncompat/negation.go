package jsoncompat

import (
	"math/big"
	"sort"

	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// A writer's `not` (and the other branches of a oneOf) are negative atoms.
// Most are simple: a type set, numeric bounds, or both (`not: {}`,
// `not: {type: number}`, `not: {minimum: 0, maximum: 10}`). Their
// complements are decided exactly here: the types they remove entirely,
// and for numbers a union of excluded intervals.

// simpleNeg is a schema made only of `type` and numeric bounds.
type simpleNeg struct {
	types  typeMask
	lo, hi *bound // nil: no bound on that side
	bounds bool   // some bound is set (it only constrains numbers)
}

// asSimpleNeg reads n as type + bounds (up to annotations); false when n
// has any other assertion. `true` and `{}` are simple: every type, no
// bound.
func asSimpleNeg(n *jsonschema.Schema) (simpleNeg, bool) {
	if n == nil {
		return simpleNeg{types: tAll}, true
	}
	if n.Bool != nil {
		if *n.Bool {
			return simpleNeg{types: tAll}, true
		}
		return simpleNeg{}, true // false excludes nothing
	}
	only := &jsonschema.Schema{Types: n.Types, Minimum: n.Minimum, ExclusiveMinimum: n.ExclusiveMinimum, Maximum: n.Maximum, ExclusiveMaximum: n.ExclusiveMaximum}
	if !newEqualizer().equal(n, only) {
		return simpleNeg{}, false
	}
	sn := simpleNeg{types: maskOfTypes(n.Types)}
	tighten := func(cur **bound, nb *bound, lower bool) {
		sn.bounds = true
		if *cur == nil {
			*cur = nb
			return
		}
		c := nb.v.Cmp((*cur).v)
		if (lower && c > 0) || (!lower && c < 0) || (c == 0 && nb.excl) {
			*cur = nb
		}
	}
	if n.Minimum != nil {
		tighten(&sn.lo, &bound{v: n.Minimum}, true)
	}
	if n.ExclusiveMinimum != nil {
		tighten(&sn.lo, &bound{v: n.ExclusiveMinimum, excl: true}, true)
	}
	if n.Maximum != nil {
		tighten(&sn.hi, &bound{v: n.Maximum}, false)
	}
	if n.ExclusiveMaximum != nil {
		tighten(&sn.hi, &bound{v: n.ExclusiveMaximum, excl: true}, false)
	}
	return sn, true
}

// whole is the set of types every value of which the schema accepts.
func (sn simpleNeg) whole() typeMask {
	if sn.bounds {
		return sn.types &^ tNumber
	}
	return sn.types
}

// inInterval reports whether x lies within the bounds.
func (sn simpleNeg) inInterval(x *big.Rat) bool {
	if sn.lo != nil && (x.Cmp(sn.lo.v) < 0 || (sn.lo.excl && x.Cmp(sn.lo.v) == 0)) {
		return false
	}
	if sn.hi != nil && (x.Cmp(sn.hi.v) > 0 || (sn.hi.excl && x.Cmp(sn.hi.v) == 0)) {
		return false
	}
	return true
}

// excludedTypes is the set of types a branch's negative atoms remove
// entirely (not: {} removes every type, not: {type: number} the numbers).
func excludedTypes(b branch) typeMask {
	var m typeMask
	for _, n := range b.neg {
		if sn, ok := asSimpleNeg(n); ok {
			m |= sn.whole()
		}
	}
	return m
}

// pickNumber looks for a number of the writer branch b within [lo, hi]
// (nil: unbounded), of the slice t (tInteger: whole numbers, tFraction:
// the others). Every candidate is validated against the writer, so a
// value found is one; decideNo is exact when every negative atom of b is
// simple (then the candidates meet every piece of the set), else the
// answer is decideUnknown.
func (c *checker) pickNumber(b branch, t typeMask, lo, hi *bound) (*big.Rat, decision) {
	m := t
	if t == tFraction {
		m = tNumber
	}
	d := c.numDomain(b, m)
	region := d
	if lo != nil && (region.lo == nil || lo.v.Cmp(region.lo.v) > 0 || (lo.v.Cmp(region.lo.v) == 0 && lo.excl)) {
		region.lo = lo
	}
	if hi != nil && (region.hi == nil || hi.v.Cmp(region.hi.v) < 0 || (hi.v.Cmp(region.hi.v) == 0 && hi.excl)) {
		region.hi = hi
	}
	if region.empty() {
		return nil, decideNo
	}
	if vals, ok := region.enumerate(256); ok {
		// Few numbers: try them all (not: {const: 1} over 1..1).
		for _, x := range vals {
			if (t == tInteger) == x.IsInt() && c.writerAccepts(b.restrict(t), jsonvalue.Number(x)) {
				return x, decideYes
			}
		}
		return nil, decideNo
	}
	exact := true
	var cuts []simpleNeg
	for _, n := range b.neg {
		sn, ok := asSimpleNeg(n)
		if !ok {
			exact = false
			continue
		}
		if sn.types&t == 0 {
			continue // excludes no number of this slice
		}
		if sn.types&tNumber != tNumber && t == tFraction {
			continue // not {type: integer} excludes no fraction
		}
		cuts = append(cuts, sn)
	}
	if t == tFraction && region.step != nil && !region.step.IsInt() {
		exact = false // a grid's non-integer points are not near its bounds
	}
	// Boundary values: the region's and every cut's.
	var pts []*big.Rat
	addB := func(bd *bound) {
		if bd != nil {
			pts = append(pts, bd.v)
		}
	}
	addB(region.lo)
	addB(region.hi)
	for _, sn := range cuts {
		addB(sn.lo)
		addB(sn.hi)
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].Cmp(pts[j]) < 0 })
	var cand []*big.Rat
	half, one := big.NewRat(1, 2), big.NewRat(1, 1)
	add := func(x *big.Rat) { cand = append(cand, x) }
	if region.step != nil {
		s := region.step
		if len(pts) == 0 {
			add(new(big.Rat))
		}
		for _, p := range pts {
			f := floorTo(p, s)
			add(f)
			add(new(big.Rat).Sub(f, s))
			cl := ceilTo(p, s)
			add(cl)
			add(new(big.Rat).Add(cl, s))
		}
	} else {
		if len(pts) == 0 {
			add(new(big.Rat))
			add(half)
		}
		for i, p := range pts {
			add(p)
			if i == 0 {
				add(new(big.Rat).Sub(p, half))
				add(new(big.Rat).Sub(p, one))
			}
			if i == len(pts)-1 {
				add(new(big.Rat).Add(p, half))
				add(new(big.Rat).Add(p, one))
				continue
			}
			q := pts[i+1]
			if p.Cmp(q) == 0 {
				continue
			}
			// Points strictly between p and q, one of them not whole.
			mid := new(big.Rat).Add(p, q)
			mid.Quo(mid, big.NewRat(2, 1))
			quarter := new(big.Rat).Add(p, mid)
			quarter.Quo(quarter, big.NewRat(2, 1))
			fl := floorTo(p, one)
			add(mid)
			add(quarter)
			add(new(big.Rat).Add(fl, half))
			add(new(big.Rat).Add(fl, big.NewRat(3, 2)))
		}
	}
	for _, x := range cand {
		if (t == tInteger) != x.IsInt() || !region.contains(x) {
			continue
		}
		cut := false
		for _, sn := range cuts {
			if sn.inInterval(x) {
				cut = true
				break
			}
		}
		if cut {
			continue
		}
		if c.writerAccepts(b.restrict(t), jsonvalue.Number(x)) {
			return x, decideYes
		}
		exact = false // a constraint the model does not see
	}
	if exact {
		return nil, decideNo
	}
	return nil, decideUnknown
}

// numberIn picks a writer number of the types m within [lo, hi]: exactly
// when the branch has negative atoms (pickNumber), else from the interval.
// false means there is none, or none the model can show (never a number
// the writer rejects when a yes comes from pickNumber).
func (c *checker) numberIn(b branch, m typeMask, d numDomain, lo, hi *bound) (*big.Rat, bool) {
	if len(b.neg) == 0 {
		return d.pick(lo, hi)
	}
	unknown := false
	for _, t := range []typeMask{tInteger, tFraction} {
		if !m.has(t) {
			continue
		}
		switch x, dec := c.pickNumber(b, t, lo, hi); dec {
		case decideYes:
			return x, true
		case decideUnknown:
			unknown = true
		}
	}
	if unknown {
		return d.pick(lo, hi) // the interval's answer: at worst a false alarm
	}
	return nil, false
}
