package sample

import (
	"math/big"

	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// numBounds is the merged numeric constraints of a flat.
type numBounds struct {
	lo, hi     *big.Rat
	loEx, hiEx bool
	loAt, hiAt *jsonschema.Schema
	loKw, hiKw string
	mult       *big.Rat
	multAt     *jsonschema.Schema
}

func (b *numBounds) lower(r *big.Rat, ex bool, s *jsonschema.Schema, kw string) {
	if r == nil {
		return
	}
	if b.lo == nil || r.Cmp(b.lo) > 0 || (r.Cmp(b.lo) == 0 && ex && !b.loEx) {
		b.lo, b.loEx, b.loAt, b.loKw = r, ex, s, kw
	}
}

func (b *numBounds) upper(r *big.Rat, ex bool, s *jsonschema.Schema, kw string) {
	if r == nil {
		return
	}
	if b.hi == nil || r.Cmp(b.hi) < 0 || (r.Cmp(b.hi) == 0 && ex && !b.hiEx) {
		b.hi, b.hiEx, b.hiAt, b.hiKw = r, ex, s, kw
	}
}

// lcmRat returns the least common multiple of two positive rationals:
// lcm(a/b, c/d) = lcm(a, c) / gcd(b, d) for reduced fractions.
func lcmRat(x, y *big.Rat) *big.Rat {
	if x == nil {
		return y
	}
	if y == nil {
		return x
	}
	a, b := new(big.Int).Abs(x.Num()), x.Denom()
	c, d := new(big.Int).Abs(y.Num()), y.Denom()
	if a.Sign() == 0 || c.Sign() == 0 {
		return new(big.Rat)
	}
	g := new(big.Int).GCD(nil, nil, a, c)
	l := new(big.Int).Mul(a, c)
	l.Quo(l, g)
	return new(big.Rat).SetFrac(l, new(big.Int).GCD(nil, nil, b, d))
}

func ceilRat(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int)) // Euclidean: m >= 0
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

func floorRat(r *big.Rat) *big.Int {
	q, _ := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	return q
}

// randBig returns a uniform integer in [lo, hi].
func (g *gen) randBig(lo, hi *big.Int) *big.Int {
	span := new(big.Int).Sub(hi, lo)
	if span.Sign() <= 0 {
		return new(big.Int).Set(lo)
	}
	if span.IsInt64() && span.Int64() < 1<<62 {
		return new(big.Int).Add(lo, big.NewInt(g.rng.Int64N(span.Int64()+1)))
	}
	// big span: random bits, reduced
	n := span.BitLen() + 8
	r := new(big.Int)
	for i := 0; i < n; i += 62 {
		r.Lsh(r, 62)
		r.Or(r, big.NewInt(g.rng.Int64N(1<<62)))
	}
	r.Mod(r, new(big.Int).Add(span, big.NewInt(1)))
	return r.Add(r, lo)
}

var (
	interestingInts = []string{"0", "-1", "1", "2147483647", "-2147483648", "4294967296",
		"9007199254740991", "9007199254740993", "-9007199254740993",
		"9223372036854775807", "9223372036854775808", "-9223372036854775809",
		"18446744073709551616", "100000000000000000000000000000"}
	interestingFracs = []string{"0.5", "-0.5", "0.1", "1.0000000000000002", "0.0000001",
		"1e-300", "-1e-300", "1e308", "-1e308", "1.7976931348623157e308", "5e-324", "1e400"}
)

// genNumber generates a number for f. allowInt/allowFrac say whether the
// value may be an integer / a non-integer.
func (g *gen) genNumber(f *flat, allowInt, allowFrac bool) (any, error) {
	var b numBounds
	for _, l := range f.leaves {
		s := l.n.s
		for _, x := range []struct {
			r  *big.Rat
			kw string
		}{{s.Minimum, "minimum"}, {s.Maximum, "maximum"}, {s.ExclusiveMinimum, "exclusiveMinimum"},
			{s.ExclusiveMaximum, "exclusiveMaximum"}, {s.MultipleOf, "multipleOf"}} {
			if x.r != nil && (x.r.Num().BitLen() > maxRatBits || x.r.Denom().BitLen() > maxRatBits) {
				return nil, unsat(s, x.kw, "number too large or too precise for the sampler")
			}
		}
		b.lower(s.Minimum, false, s, "minimum")
		b.lower(s.ExclusiveMinimum, true, s, "exclusiveMinimum")
		b.upper(s.Maximum, false, s, "maximum")
		b.upper(s.ExclusiveMaximum, true, s, "exclusiveMaximum")
		if s.MultipleOf != nil && s.MultipleOf.Sign() > 0 {
			b.mult = lcmRat(b.mult, s.MultipleOf)
			if b.multAt == nil {
				b.multAt = s
			}
		}
	}
	// negated single bounds: not {minimum: m} is x < m, and so on
	for _, n := range f.nots {
		switch soleKeyword(n.s) {
		case "minimum":
			b.upper(n.s.Minimum, true, n.at, n.kw)
		case "exclusiveMinimum":
			b.upper(n.s.ExclusiveMinimum, false, n.at, n.kw)
		case "maximum":
			b.lower(n.s.Maximum, true, n.at, n.kw)
		case "exclusiveMaximum":
			b.lower(n.s.ExclusiveMaximum, false, n.at, n.kw)
		}
	}
	if b.lo != nil && b.hi != nil {
		c := b.lo.Cmp(b.hi)
		if c > 0 || (c == 0 && (b.loEx || b.hiEx)) {
			return nil, unsat(b.hiAt, b.hiKw, "bounds leave no number ("+string(jsonvalue.Number(b.lo))+" .. "+string(jsonvalue.Number(b.hi))+")")
		}
	}
	mult := b.mult
	if !allowFrac {
		mult = lcmRat(mult, big.NewRat(1, 1))
	}
	if mult != nil && mult.Sign() == 0 {
		mult = nil
	}
	if mult != nil {
		if !allowInt && mult.IsInt() {
			return nil, unsat(b.multAt, "multipleOf", "every multiple is an integer")
		}
		return g.genMultiple(&b, mult, allowInt)
	}
	return g.genReal(&b, allowInt)
}

// genMultiple picks k*mult within the bounds.
func (g *gen) genMultiple(b *numBounds, mult *big.Rat, allowInt bool) (any, error) {
	var kmin, kmax *big.Int
	if b.lo != nil {
		q := new(big.Rat).Quo(b.lo, mult)
		kmin = ceilRat(q)
		if b.loEx && q.IsInt() {
			kmin.Add(kmin, big.NewInt(1))
		}
	}
	if b.hi != nil {
		q := new(big.Rat).Quo(b.hi, mult)
		kmax = floorRat(q)
		if b.hiEx && q.IsInt() {
			kmax.Sub(kmax, big.NewInt(1))
		}
	}
	if kmin != nil && kmax != nil && kmin.Cmp(kmax) > 0 {
		at, kw := b.multAt, "multipleOf"
		if at == nil {
			at, kw = b.hiAt, b.hiKw
		}
		return nil, unsat(at, kw, "no multiple of "+string(jsonvalue.Number(mult))+" between the bounds")
	}
	var k *big.Int
	switch {
	case g.opts.Boundary && (kmin != nil || kmax != nil):
		if kmin != nil && (kmax == nil || g.rng.IntN(2) == 0) {
			k = kmin
		} else {
			k = kmax
		}
	case g.opts.Boundary && g.rng.IntN(3) > 0:
		var list []string
		list = append(list, interestingInts...)
		list = append(list, interestingFracs...)
		v, _ := new(big.Rat).SetString(list[g.rng.IntN(len(list))])
		k = floorRat(new(big.Rat).Quo(v, mult))
	default:
		// a window of width ~1000 around 0, clamped into the bounds
		wlo, whi := g.window(b)
		klo := ceilRat(new(big.Rat).Quo(wlo, mult))
		khi := floorRat(new(big.Rat).Quo(whi, mult))
		if kmin != nil && klo.Cmp(kmin) < 0 {
			klo = kmin
		}
		if kmax != nil && khi.Cmp(kmax) > 0 {
			khi = kmax
		}
		if klo.Cmp(khi) > 0 {
			// the window holds no multiple: take the nearest in bounds
			switch {
			case kmin != nil:
				khi = kmin
				klo = kmin
			case kmax != nil:
				klo = kmax
				khi = kmax
			default:
				klo, khi = big.NewInt(-1), big.NewInt(1)
			}
		}
		k = g.randBig(klo, khi)
	}
	v := new(big.Rat).Mul(new(big.Rat).SetInt(k), mult)
	if !allowInt && v.IsInt() {
		// step to a neighbouring multiple that is not an integer
		for _, d := range []int64{1, -1, 2, -2, 3, -3} {
			w := new(big.Rat).Add(v, new(big.Rat).Mul(big.NewRat(d, 1), mult))
			if !w.IsInt() && b.within(w) {
				return jsonvalue.Number(w), nil
			}
		}
	}
	return jsonvalue.Number(v), nil
}

func (b *numBounds) within(r *big.Rat) bool {
	if b.lo != nil {
		c := r.Cmp(b.lo)
		if c < 0 || c == 0 && b.loEx {
			return false
		}
	}
	if b.hi != nil {
		c := r.Cmp(b.hi)
		if c > 0 || c == 0 && b.hiEx {
			return false
		}
	}
	return true
}

// window returns a "typical" range: width 1000 around 0, shifted to touch
// the bounds when 0 is outside them, and clamped into them.
func (g *gen) window(b *numBounds) (*big.Rat, *big.Rat) {
	w := big.NewRat(1000, 1)
	lo, hi := big.NewRat(-500, 1), big.NewRat(500, 1)
	if g.rng.IntN(2) == 0 {
		lo, hi = big.NewRat(-50, 1), big.NewRat(100, 1)
	}
	if b.lo != nil && lo.Cmp(b.lo) < 0 {
		lo = new(big.Rat).Set(b.lo)
		if hi.Cmp(lo) <= 0 {
			hi = new(big.Rat).Add(lo, w)
		}
	}
	if b.hi != nil && hi.Cmp(b.hi) > 0 {
		hi = new(big.Rat).Set(b.hi)
		if lo.Cmp(hi) >= 0 {
			lo = new(big.Rat).Sub(hi, w)
			if b.lo != nil && lo.Cmp(b.lo) < 0 {
				lo = new(big.Rat).Set(b.lo)
			}
		}
	}
	return lo, hi
}

// step is a small positive decimal below the precision of r.
func (g *gen) step(r *big.Rat) *big.Rat {
	n := 0
	if d, ok := decimalPlaces(r); ok {
		n = d
	}
	extra := 1
	if g.rng.IntN(3) == 0 {
		extra = 1 + g.rng.IntN(12)
	}
	return pow10(-(n + extra))
}

// genReal picks a number (integer or not) within the bounds.
func (g *gen) genReal(b *numBounds, allowInt bool) (any, error) {
	if b.lo != nil && b.hi != nil && b.lo.Cmp(b.hi) == 0 {
		if !allowInt && b.lo.IsInt() {
			return nil, unsat(b.hiAt, b.hiKw, "the only number in bounds is an integer")
		}
		return jsonvalue.Number(b.lo), nil
	}
	var v *big.Rat
	switch {
	case g.opts.Boundary && (b.lo != nil || b.hi != nil):
		useLo := b.lo != nil && (b.hi == nil || g.rng.IntN(2) == 0)
		if useLo {
			v = new(big.Rat).Set(b.lo)
			if b.loEx {
				v.Add(v, g.smallStep(b, b.lo))
			}
		} else {
			v = new(big.Rat).Set(b.hi)
			if b.hiEx {
				v.Sub(v, g.smallStep(b, b.hi))
			}
		}
	case g.opts.Boundary && g.rng.IntN(3) > 0:
		list := interestingFracs
		if allowInt && g.rng.IntN(2) == 0 {
			list = interestingInts
		}
		v, _ = new(big.Rat).SetString(list[g.rng.IntN(len(list))])
	default:
		lo, hi := g.window(b)
		if allowInt && g.rng.IntN(3) == 0 {
			klo, khi := ceilRat(lo), floorRat(hi)
			if klo.Cmp(khi) <= 0 {
				v = new(big.Rat).SetInt(g.randBig(klo, khi))
				if b.within(v) {
					break
				}
			}
		}
		// lo + (hi-lo)*j/1000, strictly inside for exclusive bounds
		j := int64(1 + g.rng.IntN(999))
		if g.rng.IntN(4) == 0 {
			j = int64(1+g.rng.IntN(99)) * 10
		}
		span := new(big.Rat).Sub(hi, lo)
		v = new(big.Rat).Add(lo, new(big.Rat).Mul(span, big.NewRat(j, 1000)))
	}
	if !allowInt && v.IsInt() {
		for _, d := range []*big.Rat{big.NewRat(1, 2), big.NewRat(-1, 2), big.NewRat(1, 10), big.NewRat(-1, 10), g.step(v), new(big.Rat).Neg(g.step(v))} {
			w := new(big.Rat).Add(v, d)
			if b.within(w) {
				return jsonvalue.Number(w), nil
			}
		}
	}
	return jsonvalue.Number(v), nil
}

// smallStep is a step away from bound r that stays inside the bounds.
func (g *gen) smallStep(b *numBounds, r *big.Rat) *big.Rat {
	st := g.step(r)
	if b.lo != nil && b.hi != nil {
		half := new(big.Rat).Sub(b.hi, b.lo)
		half.Quo(half, big.NewRat(2, 1))
		if st.Cmp(half) >= 0 {
			return half
		}
	}
	return st
}
