package jsoncompat

import (
	"math/big"

	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// bound is one end of a number interval.
type bound struct {
	v    *big.Rat
	excl bool
	loc  string
}

// numDomain is the set of numbers a writer branch allows: an interval,
// optionally restricted to the multiples of step (integers are the
// multiples of 1).
type numDomain struct {
	lo, hi  *bound
	step    *big.Rat
	stepLoc string
	origin  string
}

func ratLCM(a, b *big.Rat) *big.Rat {
	// lcm(p1/q1, p2/q2) = lcm(p1, p2) / gcd(q1, q2) for reduced fractions.
	p1, q1 := new(big.Int).Abs(a.Num()), a.Denom()
	p2, q2 := new(big.Int).Abs(b.Num()), b.Denom()
	g := new(big.Int).GCD(nil, nil, p1, p2)
	l := new(big.Int).Mul(p1, p2)
	l.Quo(l, g)
	d := new(big.Int).GCD(nil, nil, q1, q2)
	return new(big.Rat).SetFrac(l, d)
}

func (c *checker) numDomain(b branch, m typeMask) numDomain {
	d := numDomain{origin: locOf(b.pos)}
	tighterLo := func(nb *bound) {
		if d.lo == nil {
			d.lo = nb
			return
		}
		switch nb.v.Cmp(d.lo.v) {
		case 1:
			d.lo = nb
		case 0:
			if nb.excl {
				d.lo = nb
			}
		}
	}
	tighterHi := func(nb *bound) {
		if d.hi == nil {
			d.hi = nb
			return
		}
		switch nb.v.Cmp(d.hi.v) {
		case -1:
			d.hi = nb
		case 0:
			if nb.excl {
				d.hi = nb
			}
		}
	}
	for _, a := range b.pos {
		s := a.s
		if s.Minimum != nil {
			tighterLo(&bound{v: s.Minimum, loc: loc(s, "minimum")})
		}
		if s.ExclusiveMinimum != nil {
			tighterLo(&bound{v: s.ExclusiveMinimum, excl: true, loc: loc(s, "exclusiveMinimum")})
		}
		if s.Maximum != nil {
			tighterHi(&bound{v: s.Maximum, loc: loc(s, "maximum")})
		}
		if s.ExclusiveMaximum != nil {
			tighterHi(&bound{v: s.ExclusiveMaximum, excl: true, loc: loc(s, "exclusiveMaximum")})
		}
		// not with a single numeric bound is, for numbers, the opposite
		// half-line: not {minimum: 10} allows x < 10. Exact, so the
		// writer's interval may narrow by it.
		if nb, isLo, ok := negatedBound(s.Not); ok {
			if isLo {
				tighterLo(nb)
			} else {
				tighterHi(nb)
			}
		}
		if s.MultipleOf != nil && s.MultipleOf.Sign() > 0 {
			if d.step == nil {
				d.step, d.stepLoc = s.MultipleOf, loc(s, "multipleOf")
			} else {
				d.step = ratLCM(d.step, s.MultipleOf)
			}
		}
	}
	if m.has(tInteger) && !m.has(tFraction) {
		one := big.NewRat(1, 1)
		if d.step == nil {
			d.step = one
		} else {
			d.step = ratLCM(d.step, one)
		}
	}
	return d
}

// negatedBound reads not: {<one numeric bound>} (and nothing else) as the
// bound of its complement for numbers: isLo when it is a lower bound.
func negatedBound(n *jsonschema.Schema) (*bound, bool, bool) {
	if n == nil || n.Bool != nil {
		return nil, false, false
	}
	// Nothing but the bounds (up to annotations): the same schema with
	// only them set is equal to it.
	only := &jsonschema.Schema{Minimum: n.Minimum, ExclusiveMinimum: n.ExclusiveMinimum, Maximum: n.Maximum, ExclusiveMaximum: n.ExclusiveMaximum}
	if !newEqualizer().equal(n, only) {
		return nil, false, false
	}
	var set []*bound
	var lo []bool
	if n.Minimum != nil { // not x >= m: x < m
		set, lo = append(set, &bound{v: n.Minimum, excl: true, loc: loc(n, "minimum")}), append(lo, false)
	}
	if n.ExclusiveMinimum != nil { // not x > m: x <= m
		set, lo = append(set, &bound{v: n.ExclusiveMinimum, loc: loc(n, "exclusiveMinimum")}), append(lo, false)
	}
	if n.Maximum != nil { // not x <= m: x > m
		set, lo = append(set, &bound{v: n.Maximum, excl: true, loc: loc(n, "maximum")}), append(lo, true)
	}
	if n.ExclusiveMaximum != nil { // not x < m: x >= m
		set, lo = append(set, &bound{v: n.ExclusiveMaximum, loc: loc(n, "exclusiveMaximum")}), append(lo, true)
	}
	if len(set) != 1 {
		return nil, false, false // two bounds: the complement is not an interval
	}
	return set[0], lo[0], true
}

// pick returns a value of the domain inside [lo, hi] (nil: unbounded), or
// false when there is none.
func (d numDomain) pick(lo, hi *bound) (*big.Rat, bool) {
	L, H := d.lo, d.hi
	if lo != nil && (L == nil || lo.v.Cmp(L.v) > 0 || (lo.v.Cmp(L.v) == 0 && lo.excl)) {
		L = lo
	}
	if hi != nil && (H == nil || hi.v.Cmp(H.v) < 0 || (hi.v.Cmp(H.v) == 0 && hi.excl)) {
		H = hi
	}
	if d.step != nil {
		var x *big.Rat
		switch {
		case L == nil && H == nil:
			x = new(big.Rat)
		case L == nil:
			x = floorTo(H.v, d.step)
			if H.excl && x.Cmp(H.v) == 0 {
				x.Sub(x, d.step)
			}
			return x, true
		default:
			x = ceilTo(L.v, d.step)
			if L.excl && x.Cmp(L.v) == 0 {
				x.Add(x, d.step)
			}
		}
		if H != nil && (x.Cmp(H.v) > 0 || (H.excl && x.Cmp(H.v) == 0)) {
			return nil, false
		}
		return x, true
	}
	one := big.NewRat(1, 1)
	switch {
	case L == nil && H == nil:
		return new(big.Rat), true
	case L == nil:
		if H.excl {
			return new(big.Rat).Sub(H.v, one), true
		}
		return H.v, true
	case H == nil:
		if L.excl {
			return new(big.Rat).Add(L.v, one), true
		}
		return L.v, true
	}
	switch L.v.Cmp(H.v) {
	case 1:
		return nil, false
	case 0:
		if L.excl || H.excl {
			return nil, false
		}
		return L.v, true
	}
	if !L.excl {
		return L.v, true
	}
	if !H.excl {
		return H.v, true
	}
	mid := new(big.Rat).Add(L.v, H.v)
	return mid.Quo(mid, big.NewRat(2, 1)), true
}

func (d numDomain) contains(x *big.Rat) bool {
	if d.lo != nil && (x.Cmp(d.lo.v) < 0 || (d.lo.excl && x.Cmp(d.lo.v) == 0)) {
		return false
	}
	if d.hi != nil && (x.Cmp(d.hi.v) > 0 || (d.hi.excl && x.Cmp(d.hi.v) == 0)) {
		return false
	}
	if d.step != nil && !new(big.Rat).Quo(x, d.step).IsInt() {
		return false
	}
	return true
}

func (d numDomain) empty() bool {
	_, ok := d.pick(nil, nil)
	return !ok
}

// integral reports whether every value of the domain is an integer.
func (d numDomain) integral() bool {
	if d.step != nil && d.step.IsInt() {
		return true
	}
	if d.lo != nil && d.hi != nil && d.lo.v.Cmp(d.hi.v) == 0 {
		return d.lo.v.IsInt()
	}
	if d.step != nil {
		// A finite grid may happen to hold only integers.
		if vals, ok := d.enumerate(64); ok {
			for _, v := range vals {
				if !v.IsInt() {
					return false
				}
			}
			return true
		}
	}
	return false
}

// enumerate lists the domain when it has at most n values.
func (d numDomain) enumerate(n int) ([]*big.Rat, bool) {
	if d.step == nil {
		if d.lo != nil && d.hi != nil && d.lo.v.Cmp(d.hi.v) == 0 && !d.lo.excl && !d.hi.excl {
			return []*big.Rat{d.lo.v}, true
		}
		return nil, false
	}
	if d.lo == nil || d.hi == nil {
		return nil, false
	}
	x, ok := d.pick(nil, nil)
	var out []*big.Rat
	for ok && d.contains(x) {
		out = append(out, x)
		if len(out) > n {
			return nil, false
		}
		x = new(big.Rat).Add(x, d.step)
	}
	return out, true
}

func floorTo(v, step *big.Rat) *big.Rat {
	q := new(big.Rat).Quo(v, step)
	f := new(big.Int).Div(q.Num(), q.Denom()) // Euclidean: floor for positive denominators
	return new(big.Rat).Mul(new(big.Rat).SetInt(f), step)
}

func ceilTo(v, step *big.Rat) *big.Rat {
	x := floorTo(v, step)
	if x.Cmp(v) < 0 {
		x.Add(x, step)
	}
	return x
}

// candidates yields a few values of the domain to try as witnesses.
func (d numDomain) candidates() []*big.Rat {
	var out []*big.Rat
	add := func(x *big.Rat) {
		if x != nil && d.contains(x) {
			for _, y := range out {
				if y.Cmp(x) == 0 {
					return
				}
			}
			out = append(out, x)
		}
	}
	x, ok := d.pick(nil, nil)
	if !ok {
		return nil
	}
	add(x)
	if d.step != nil {
		y := x
		for i := 0; i < 64; i++ {
			y = new(big.Rat).Add(y, d.step)
			add(y)
		}
		if d.hi != nil {
			add(floorTo(d.hi.v, d.step))
		}
		return out
	}
	for _, delta := range []*big.Rat{big.NewRat(1, 2), big.NewRat(1, 3), big.NewRat(1, 10), big.NewRat(1, 1000), big.NewRat(7, 3), big.NewRat(-1, 2), big.NewRat(-1, 3)} {
		add(new(big.Rat).Add(x, delta))
	}
	if d.lo != nil && d.hi != nil {
		mid := new(big.Rat).Add(d.lo.v, d.hi.v)
		mid.Quo(mid, big.NewRat(2, 1))
		add(mid)
		third := new(big.Rat).Sub(d.hi.v, d.lo.v)
		third.Quo(third, big.NewRat(3, 1))
		add(third.Add(third, d.lo.v))
	}
	return out
}

// positiveLength reports whether a continuous domain is more than a point.
func (d numDomain) positiveLength() bool {
	if d.step != nil {
		return false
	}
	return d.lo == nil || d.hi == nil || d.lo.v.Cmp(d.hi.v) < 0
}

func (d numDomain) lowLoc() (string, any) {
	if d.lo != nil {
		return d.lo.loc, jsonvalue.Number(d.lo.v)
	}
	return d.origin, nil
}

func (d numDomain) highLoc() (string, any) {
	if d.hi != nil {
		return d.hi.loc, jsonvalue.Number(d.hi.v)
	}
	return d.origin, nil
}

// checkNumbers compares a writer's number domain with a reader's bounds.
func (c *checker) checkNumbers(b branch, m typeMask, ra *jsonschema.Schema, ip ipath) []*Finding {
	d := c.numDomain(b, m)
	if _, ok := c.numberIn(b, m, d, nil, nil); !ok {
		return nil
	}
	var out []*Finding
	val := func(x *big.Rat) *hint { return &hint{value: jsonvalue.Number(x), hasValue: true} }
	if ra.Minimum != nil {
		if x, ok := c.numberIn(b, m, d, nil, &bound{v: ra.Minimum, excl: true}); ok {
			wl, wv := d.lowLoc()
			out = append(out, c.errorf(KindMinimum, wl, loc(ra, "minimum"), wv, jsonvalue.Number(ra.Minimum), ip, val(x), string(jsonvalue.Number(x)), string(jsonvalue.Number(ra.Minimum))))
		}
	}
	if ra.ExclusiveMinimum != nil {
		if x, ok := c.numberIn(b, m, d, nil, &bound{v: ra.ExclusiveMinimum}); ok {
			wl, wv := d.lowLoc()
			out = append(out, c.errorf(KindExclusiveMinimum, wl, loc(ra, "exclusiveMinimum"), wv, jsonvalue.Number(ra.ExclusiveMinimum), ip, val(x), string(jsonvalue.Number(x)), string(jsonvalue.Number(ra.ExclusiveMinimum))))
		}
	}
	if ra.Maximum != nil {
		if x, ok := c.numberIn(b, m, d, &bound{v: ra.Maximum, excl: true}, nil); ok {
			wl, wv := d.highLoc()
			out = append(out, c.errorf(KindMaximum, wl, loc(ra, "maximum"), wv, jsonvalue.Number(ra.Maximum), ip, val(x), string(jsonvalue.Number(x)), string(jsonvalue.Number(ra.Maximum))))
		}
	}
	if ra.ExclusiveMaximum != nil {
		if x, ok := c.numberIn(b, m, d, &bound{v: ra.ExclusiveMaximum}, nil); ok {
			wl, wv := d.highLoc()
			out = append(out, c.errorf(KindExclusiveMaximum, wl, loc(ra, "exclusiveMaximum"), wv, jsonvalue.Number(ra.ExclusiveMaximum), ip, val(x), string(jsonvalue.Number(x)), string(jsonvalue.Number(ra.ExclusiveMaximum))))
		}
	}
	if q := ra.MultipleOf; q != nil && q.Sign() > 0 {
		if d.step == nil || !new(big.Rat).Quo(d.step, q).IsInt() {
			wl := d.stepLoc
			var wv any
			if d.step != nil && wl != "" {
				wv = jsonvalue.Number(d.step)
			}
			if wl == "" {
				wl = d.origin
			}
			var witness *big.Rat
			for _, x := range d.candidates() {
				if !new(big.Rat).Quo(x, q).IsInt() {
					witness = x
					break
				}
			}
			switch {
			case witness != nil:
				out = append(out, c.errorf(KindMultipleOf, wl, loc(ra, "multipleOf"), wv, jsonvalue.Number(q), ip, val(witness), string(jsonvalue.Number(witness)), string(jsonvalue.Number(q))))
			case d.positiveLength():
				out = append(out, c.errorf(KindMultipleOf, wl, loc(ra, "multipleOf"), wv, jsonvalue.Number(q), ip, nil, "numbers", string(jsonvalue.Number(q))))
			default:
				if vals, ok := d.enumerate(4096); !ok {
					out = append(out, c.errorf(KindMultipleOf, wl, loc(ra, "multipleOf"), wv, jsonvalue.Number(q), ip, nil, "numbers", string(jsonvalue.Number(q))))
				} else {
					for _, x := range vals {
						if !new(big.Rat).Quo(x, q).IsInt() {
							out = append(out, c.errorf(KindMultipleOf, wl, loc(ra, "multipleOf"), wv, jsonvalue.Number(q), ip, val(x), string(jsonvalue.Number(x)), string(jsonvalue.Number(q))))
							break
						}
					}
				}
			}
		}
	}
	return out
}

// nonInteger finds a non-integer value of the domain.
func (d numDomain) nonInteger() (*big.Rat, bool) {
	for _, x := range d.candidates() {
		if !x.IsInt() {
			return x, true
		}
	}
	return nil, false
}
