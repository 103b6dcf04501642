package jsoncompat

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// combinators checks a reader atom's anyOf, oneOf, not and if/then/else.
func (c *checker) combinators(b branch, ra *jsonschema.Schema, ip ipath) []*Finding {
	var out []*Finding
	if len(ra.AnyOf) > 0 {
		out = append(out, c.disjunction(b, ra, ra.AnyOf, false, ip)...)
	}
	if len(ra.OneOf) > 0 {
		out = append(out, c.disjunction(b, ra, ra.OneOf, true, ip)...)
	}
	if ra.Not != nil {
		out = append(out, c.checkNot(b, ra, ip)...)
	}
	if ra.If != nil && (ra.Then != nil || ra.Else != nil) {
		out = append(out, c.checkIf(b, ra, ip)...)
	}
	return out
}

type fit struct {
	ok    bool
	index int
	res   []*Finding // warnings when ok; the closest branch's findings when not
}

// fitBranch finds a reader alternative that holds the whole writer branch.
func (c *checker) fitBranch(b branch, alts []*jsonschema.Schema, ip ipath) fit {
	for j, alt := range alts {
		if c.equalsAny(b, alt) {
			return fit{ok: true, index: j}
		}
	}
	best := fit{index: -1}
	bestScore := -1
	for j, alt := range alts {
		res := c.subBranch(b, alt, ip)
		if !hasErrors(res) {
			return fit{ok: true, index: j, res: res}
		}
		// The closest branch: one whose types overlap the writer's, with
		// the fewest errors; of those, the one at the writer branch's
		// own place (the reader's oneOf/2 for a writer branch from the
		// writer's oneOf/2), whose findings name what changed there (a
		// property's type at /b, with a counterexample) rather than what
		// tells another branch apart (its required discriminator).
		score := 2 * (1000 - countErrors(res))
		if atomMask(alt)&b.mask != 0 {
			score += 2000
			if samePlace(b, alt) {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = fit{index: j, res: res}, score
		}
	}
	return best
}

// samePlace reports whether the writer branch went through a schema at
// the place of reader alternative alt (the same JSON pointer in its own
// file, or one below it).
func samePlace(b branch, alt *jsonschema.Schema) bool {
	if alt == nil || alt.Location == "" {
		return false
	}
	_, rp := splitLocation(alt.Location)
	if rp == "" {
		return false
	}
	for _, a := range b.pos {
		if a.borrowed || a.s == nil {
			continue
		}
		if _, wp := splitLocation(a.s.Location); wp == rp || strings.HasPrefix(wp, rp+"/") {
			return true
		}
	}
	return false
}

func (c *checker) disjunction(b branch, ra *jsonschema.Schema, alts []*jsonschema.Schema, one bool, ip ipath) []*Finding {
	kw, k := "anyOf", KindAnyOf
	if one {
		kw, k = "oneOf", KindOneOf
	}
	wm := c.effectiveMask(b)
	if wm == 0 {
		return nil
	}
	try := func(bb branch) (fit, []*Finding) {
		f := c.fitBranch(bb, alts, ip)
		var extra []*Finding
		if f.ok && one {
			extra = c.overlaps(bb, ra, alts, f.index, ip)
		}
		return f, extra
	}
	f, extra := try(b)
	if f.ok {
		return append(warningsOf(f.res), extra...)
	}
	// Split the writer by type: a string-or-null writer fits a reader
	// anyOf of a string branch and a null branch.
	var parts []typeMask
	for _, t := range typeOrder {
		if wm.has(t) {
			parts = append(parts, t)
		}
	}
	if len(parts) > 0 {
		var collected []*Finding
		allOK := true
		var failed fit
		for _, t := range parts {
			bt := b.restrict(t)
			ft, ex := f, extra
			if len(parts) > 1 {
				ft, ex = try(bt)
			}
			if !ft.ok {
				// A range or length the alternatives cover only together:
				// cut it at their bounds and fit each piece.
				if res, ok := c.fitPieces(bt, t, alts, try); ok {
					collected = append(collected, res...)
					continue
				}
				allOK, failed = false, ft
				break
			}
			collected = append(collected, warningsOf(ft.res)...)
			collected = append(collected, ex...)
		}
		if allOK {
			return collected
		}
		f = failed
	}
	detail := "no branch accepts them"
	if f.index >= 0 {
		detail = fmt.Sprintf("closest is branch %d", f.index)
	}
	rl := loc(ra, kw)
	if f.index >= 0 {
		rl = loc(ra, kw, strconv.Itoa(f.index))
		if l := alts[f.index].Location; l != "" {
			// Where the branch is: a consumer's projection makes a oneOf's
			// branches an anyOf that keeps their places, and witness
			// search matches the reader's failures by place.
			rl = l
		}
	}
	fd := c.errorf(k, locOf(b.pos), rl, nil, nil, ip, nil, detail)
	appendDetail(fd, f.res)
	if fd.hint != nil && fd.hint.within == nil {
		h := *fd.hint // shared with the branch's finding
		for _, a := range b.pos {
			if !a.borrowed && a.s != nil {
				h.within = append(h.within, a.s)
			}
		}
		h.withinPath = ip
		fd.hint = &h
	}
	return []*Finding{fd}
}

// maxPieces bounds the pieces fitPieces cuts a writer into.
const maxPieces = 33

// fitPieces cuts the numbers (or strings, by length) of a writer branch of
// type t at every bound the alternatives set, and fits each piece on its
// own: the pieces cover the branch, so when each fits some alternative
// the branch does.
func (c *checker) fitPieces(b branch, t typeMask, alts []*jsonschema.Schema, try func(branch) (fit, []*Finding)) ([]*Finding, bool) {
	var pieces []*jsonschema.Schema
	switch t {
	case tInteger, tFraction:
		var pts []*big.Rat
		for _, alt := range alts {
			for _, a := range readerAtoms(alt) {
				for _, v := range []*big.Rat{a.Minimum, a.ExclusiveMinimum, a.Maximum, a.ExclusiveMaximum} {
					if v != nil {
						pts = append(pts, v)
					}
				}
			}
		}
		pieces = c.numberPieces(pts)
	case tString:
		var cuts []int
		for _, alt := range alts {
			for _, a := range readerAtoms(alt) {
				if a.MinLength != nil {
					cuts = append(cuts, *a.MinLength)
				}
				if a.MaxLength != nil {
					cuts = append(cuts, *a.MaxLength+1)
				}
			}
		}
		pieces = c.lengthPieces(cuts)
	}
	if len(pieces) < 2 || len(pieces) > maxPieces {
		return nil, false
	}
	var out []*Finding
	for _, p := range pieces {
		pb := b.with(atom{s: p, borrowed: true})
		if c.effectiveMask(pb) == 0 {
			continue
		}
		ft, ex := try(pb)
		if !ft.ok {
			return nil, false
		}
		out = append(out, warningsOf(ft.res)...)
		out = append(out, ex...)
	}
	return out, true
}

// numberPieces partitions the numbers at the points: (-inf, p1), [p1],
// (p1, p2), ..., (pk, inf). Pieces are shared per comparison.
func (c *checker) numberPieces(pts []*big.Rat) []*jsonschema.Schema {
	sort.Slice(pts, func(i, j int) bool { return pts[i].Cmp(pts[j]) < 0 })
	var uniq []*big.Rat
	for _, p := range pts {
		if len(uniq) == 0 || uniq[len(uniq)-1].Cmp(p) != 0 {
			uniq = append(uniq, p)
		}
	}
	if len(uniq) == 0 {
		return nil
	}
	piece := func(lo, hi *big.Rat, point bool) *jsonschema.Schema {
		key := synthKey{synthNumberPiece, fmt.Sprintf("%v|%v|%t", lo, hi, point)}
		if s, ok := c.requires[key]; ok {
			return s
		}
		s := &jsonschema.Schema{}
		switch {
		case point:
			s.Minimum, s.Maximum = lo, lo
		default:
			s.ExclusiveMinimum, s.ExclusiveMaximum = lo, hi
		}
		c.requires[key] = s
		return s
	}
	out := []*jsonschema.Schema{piece(nil, uniq[0], false)}
	for i, p := range uniq {
		out = append(out, piece(p, nil, true))
		var next *big.Rat
		if i+1 < len(uniq) {
			next = uniq[i+1]
		}
		out = append(out, piece(p, next, false))
	}
	return out
}

// lengthPieces partitions string lengths at the cuts (a cut starts a
// piece): [0, c1-1], [c1, c2-1], ..., [ck, inf).
func (c *checker) lengthPieces(cuts []int) []*jsonschema.Schema {
	sort.Ints(cuts)
	starts := []int{0}
	for _, x := range cuts {
		if x > starts[len(starts)-1] {
			starts = append(starts, x)
		}
	}
	if len(starts) < 2 {
		return nil
	}
	var out []*jsonschema.Schema
	for i, lo := range starts {
		hi := -1
		if i+1 < len(starts) {
			hi = starts[i+1] - 1
		}
		key := synthKey{synthLengthPiece, fmt.Sprintf("%d|%d", lo, hi)}
		s, ok := c.requires[key]
		if !ok {
			l := lo
			s = &jsonschema.Schema{MinLength: &l}
			if hi >= 0 {
				h := hi
				s.MaxLength = &h
			}
			c.requires[key] = s
		}
		out = append(out, s)
	}
	return out
}

// overlaps checks that a writer branch that fits reader branch j matches
// no other branch of a reader oneOf.
func (c *checker) overlaps(b branch, ra *jsonschema.Schema, alts []*jsonschema.Schema, j int, ip ipath) []*Finding {
	var out []*Finding
	for k, alt := range alts {
		if k == j || c.disjoint(b, alt, 0) {
			continue
		}
		wl := locOf(b.pos)
		rl := loc(ra, "oneOf", strconv.Itoa(k))
		if v, ok := c.commonValue(b, alt); ok && ra.Validate(v) != nil {
			out = append(out, c.errorf(KindOneOfOverlap, wl, rl, nil, nil, ip, &hint{value: v, hasValue: true}, strconv.Itoa(j), strconv.Itoa(k)))
			continue
		}
		if v, ok := c.commonString(b, alt); ok && ra.Validate(v) != nil {
			// Patterns on both sides: the string search finds a value of
			// both (^a and x$: "ax"), which random witnesses rarely do.
			out = append(out, c.errorf(KindOneOfOverlap, wl, rl, nil, nil, ip, &hint{value: v, hasValue: true}, strconv.Itoa(j), strconv.Itoa(k)))
			continue
		}
		if clean(c.subBranch(b, alt, ip)) {
			// Every writer value matches both branches.
			out = append(out, c.errorf(KindOneOfOverlap, wl, rl, nil, nil, ip, &hint{from: origin(b), fromMask: b.mask}, strconv.Itoa(j), strconv.Itoa(k)))
			continue
		}
		f := c.warnf(KindOneOfOverlap, wl, rl, nil, nil, ip, &hint{from: alt}, strconv.Itoa(j), strconv.Itoa(k))
		f.Message = fmt.Sprintf("Could not show that values the %s schema allows in branch %d of the %s schema's oneOf never match branch %d too (a value matching both is rejected); witness search decides",
			c.dir.Writer(), j, c.dir.Reader(), k)
		out = append(out, f)
	}
	return out
}

func (c *checker) checkNot(b branch, ra *jsonschema.Schema, ip ipath) []*Finding {
	n := ra.Not
	if isFalse(n) {
		return nil
	}
	for _, x := range b.neg {
		if x == n || c.eq.equal(x, n) {
			return nil
		}
	}
	if c.disjoint(b, n, 0) {
		return nil
	}
	wl := locOf(b.pos)
	rl := loc(ra, "not")
	if sn, ok := asSimpleNeg(n); ok {
		return c.checkSimpleNot(b, sn, wl, rl, ip)
	}
	if names, ok := c.requiredOnly(n); ok {
		return c.checkRequiredNot(b, names, wl, rl, ip)
	}
	if name, ps, ok := c.propertyOnly(n); ok {
		return c.checkPropertyNot(b, name, ps, wl, rl, ip)
	}
	if v, ok := c.commonValue(b, n); ok {
		f := c.errorf(KindNot, wl, rl, nil, nil, ip, &hint{value: v, hasValue: true})
		f.Message += fmt.Sprintf(" (e.g. %s)", compactJSON(v))
		return []*Finding{f}
	}
	if clean(c.subBranch(b, n, ip)) {
		return []*Finding{c.errorf(KindNot, wl, rl, nil, nil, ip, &hint{from: origin(b), fromMask: b.mask})}
	}
	f := c.warnf(KindNot, wl, rl, nil, nil, ip, &hint{from: n})
	f.Message = fmt.Sprintf("Could not show that no value the %s schema allows matches the %s schema's `not` schema; witness search decides", c.dir.Writer(), c.dir.Reader())
	return []*Finding{f}
}

// checkSimpleNot decides a reader's `not` made of a type set and numeric
// bounds exactly: the writer breaks it with any value of a type the `not`
// takes whole, or a number inside its bounds.
func (c *checker) checkSimpleNot(b branch, sn simpleNeg, wl, rl string, ip ipath) []*Finding {
	wm := c.effectiveMask(b)
	broken := func(v any) []*Finding {
		f := c.errorf(KindNot, wl, rl, nil, nil, ip, &hint{value: v, hasValue: true})
		f.Message += fmt.Sprintf(" (e.g. %s)", compactJSON(v))
		return []*Finding{f}
	}
	var undecided typeMask
	for _, t := range typeOrder {
		if !(wm & sn.types).has(t) {
			continue
		}
		if t == tInteger || t == tFraction {
			x, dec := c.pickNumber(b, t, sn.lo, sn.hi)
			switch dec {
			case decideYes:
				return broken(jsonvalue.Number(x))
			case decideUnknown:
				undecided |= t
			}
			continue
		}
		if h := c.valueOfType(b, t); h != nil && h.hasValue && c.writerAccepts(b, h.value) {
			return broken(h.value)
		}
		if t != tNull && t != tBoolean { // those are tried value by value
			undecided |= t
		}
	}
	if undecided == 0 {
		return nil
	}
	if undecided&(tArray|tObject) != 0 && undecided&^(tArray|tObject) == 0 {
		// Every writer object (array) matches the `not`: a break as soon as
		// the writer has one, which witness search samples.
		return []*Finding{c.errorf(KindNot, wl, rl, nil, nil, ip, &hint{from: origin(b), fromMask: undecided})}
	}
	f := c.warnf(KindNot, wl, rl, nil, nil, ip, &hint{from: origin(b), fromMask: undecided})
	f.Message = fmt.Sprintf("Could not show that no value the %s schema allows matches the %s schema's `not` schema; witness search decides", c.dir.Writer(), c.dir.Reader())
	return []*Finding{f}
}

func (c *checker) checkIf(b branch, ra *jsonschema.Schema, ip ipath) []*Finding {
	I, T, E := ra.If, ra.Then, ra.Else
	if I.Bool != nil {
		if *I.Bool {
			return c.subBranchOpt(b, T, ip)
		}
		return c.subBranchOpt(b, E, ip)
	}
	if clean(c.subBranch(b, I, ip)) {
		return c.subBranchOpt(b, T, ip)
	}
	if c.disjoint(b, I, 0) {
		return c.subBranchOpt(b, E, ip)
	}
	var out []*Finding
	if T != nil {
		out = append(out, c.subExtend(b, []atom{{I, true}}, T, ip)...)
	}
	if E != nil {
		out = append(out, c.subBranch(b.withNeg(I), E, ip)...)
	}
	return out
}

func (c *checker) subBranchOpt(b branch, r *jsonschema.Schema, ip ipath) []*Finding {
	if r == nil {
		return nil
	}
	return c.subBranch(b, r, ip)
}

// commonValue finds a value of a finite schema n (enum/const) that the
// writer branch allows: a proof that they overlap.
func (c *checker) commonValue(b branch, n *jsonschema.Schema) (any, bool) {
	for _, a := range readerAtoms(n) {
		vals, ok := ownValues(a)
		if !ok {
			continue
		}
		for _, v := range vals {
			if c.accepts(n, v) && c.writerAccepts(b, v) {
				return v, true
			}
		}
		return nil, false
	}
	return nil, false
}

// commonString finds a string that writer branch b and n both allow,
// searched on their patterns and lengths together: a proof that they
// overlap.
func (c *checker) commonString(b branch, n *jsonschema.Schema) (string, bool) {
	natoms := readerAtoms(n)
	nm := tAll
	for _, a := range natoms {
		nm &= atomMask(a)
	}
	if !(c.effectiveMask(b) & nm).has(tString) {
		return "", false
	}
	s, dec := c.findString(strQuery{want: c.bothStrings(b.restrict(tString), natoms)})
	if dec != decideYes || !c.writerAccepts(b, s) || !c.accepts(n, s) {
		return "", false
	}
	return s, true
}

// bothStrings is the query of the strings writer branch b (its string
// slice) and the atoms natoms all allow, as their patterns and lengths
// say.
func (c *checker) bothStrings(b branch, natoms []*jsonschema.Schema) strAccept {
	sp := c.stringSpec(b)
	nb := branch{mask: tString}
	for _, a := range natoms {
		nb.pos = append(nb.pos, atom{a, true})
	}
	ns := c.stringSpec(nb)
	q := strAccept{pats: append(append([]string(nil), sp.acc.pats...), ns.acc.pats...), lo: max(sp.acc.lo, ns.acc.lo), hi: sp.acc.hi}
	if ns.acc.hi >= 0 && (q.hi < 0 || ns.acc.hi < q.hi) {
		q.hi = ns.acc.hi
	}
	return q
}

// disjoint reports whether no value of writer branch b validates against
// n. It only answers true when it can show it.
func (c *checker) disjoint(b branch, n *jsonschema.Schema, depth int) bool {
	if n == nil {
		return c.branchEmpty(b)
	}
	if n.Bool != nil {
		return !*n.Bool || c.branchEmpty(b)
	}
	if depth > 6 || c.overBudget || !c.step() {
		return false
	}
	for _, x := range b.neg {
		if x == n || c.eq.equal(x, n) {
			return true
		}
	}
	wm := c.effectiveMask(b)
	if wm == 0 {
		return true
	}
	natoms := readerAtoms(n)
	nm := tAll
	for _, a := range natoms {
		nm &= atomMask(a)
	}
	if wm&nm == 0 {
		return true
	}
	if vals, finite := c.writerValues(b); finite {
		for _, v := range vals {
			if c.accepts(n, v) {
				return false
			}
		}
		return true
	}
	for _, a := range natoms {
		var nv []any
		if a.Const != nil {
			nv = []any{*a.Const}
		} else if a.Enum != nil {
			nv = a.Enum.Values
		} else {
			continue
		}
		all := true
		for _, v := range nv {
			if c.writerAccepts(b, v) && c.accepts(n, v) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	// Combinators of n.
	for _, a := range natoms {
		if len(a.AnyOf) > 0 {
			all := true
			for _, x := range a.AnyOf {
				if !c.disjoint(b, x, depth+1) {
					all = false
					break
				}
			}
			if all {
				return true
			}
		}
		if len(a.OneOf) > 0 {
			all := true
			for _, x := range a.OneOf {
				if !c.disjoint(b, x, depth+1) {
					all = false
					break
				}
			}
			if all {
				return true
			}
		}
		if a.Not != nil && clean(c.subBranch(b, a.Not, nil)) {
			return true
		}
	}
	// Type by type.
	for _, t := range typeOrder {
		if !(wm & nm).has(t) {
			continue
		}
		if !c.sliceDisjoint(b.restrict(t), natoms, t, depth) {
			return false
		}
	}
	return true
}

func (c *checker) sliceDisjoint(b branch, natoms []*jsonschema.Schema, t typeMask, depth int) bool {
	switch t {
	case tInteger, tFraction:
		m := t
		if t == tFraction {
			m = tNumber
		}
		d := c.numDomain(b, m)
		nb := branch{mask: m}
		for _, a := range natoms {
			nb.pos = append(nb.pos, atom{a, true})
		}
		nd := c.numDomain(nb, m)
		_, ok := d.pick(nd.lo, nd.hi)
		return !ok
	case tString:
		_, dec := c.findString(strQuery{want: c.bothStrings(b, natoms)})
		return dec == decideNo
	case tArray:
		v := c.arrView(b)
		nb := branch{mask: tArray}
		for _, a := range natoms {
			nb.pos = append(nb.pos, atom{a, true})
		}
		nv := c.arrView(nb)
		if (v.max >= 0 && v.max < nv.min) || (nv.max >= 0 && nv.max < v.min) {
			return true
		}
		return false
	case tObject:
		v := c.objView(b)
		for _, a := range natoms {
			for _, p := range a.Required {
				if _, forbidden, _, _ := c.wprop(v, p); forbidden {
					return true
				}
			}
			for _, p := range sortedKeys(a.Properties) {
				_, wreq := v.required[p]
				nreq := false
				for _, r := range a.Required {
					if r == p {
						nreq = true
					}
				}
				if !wreq && !nreq {
					continue
				}
				wat, forbidden, _, _ := c.wprop(v, p)
				if forbidden {
					if nreq {
						return true
					}
					continue
				}
				bs, ok := c.expand(wat, nil, tAll)
				if !ok {
					continue
				}
				all := true
				for _, pb := range bs {
					if !c.disjoint(pb, a.Properties[p], depth+1) {
						all = false
						break
					}
				}
				if all {
					return true
				}
			}
		}
		return false
	}
	return false
}
