package jsoncompat

import (
	"fmt"
	"maps"
	"math/big"
	"strconv"
	"strings"

	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// effectiveMask narrows a branch's types to those it can really produce:
// an empty number interval, contradictory string lengths and so on remove
// their type, and numbers that are all whole lose the fraction bit.
func (c *checker) effectiveMask(b branch) typeMask {
	m := b.mask &^ excludedTypes(b)
	for _, n := range b.neg {
		// not {required} and not {properties} reject every non-object:
		// those keywords hold on anything else.
		if _, ok := c.requiredOnly(n); ok {
			m &= tObject
		} else if _, _, ok := c.propertyOnly(n); ok {
			m &= tObject
		}
	}
	if len(b.neg) > 0 {
		// null and booleans are few: try them (not: {enum: [null]}).
		if m.has(tNull) && !c.writerAccepts(b.restrict(tNull), nil) {
			m &^= tNull
		}
		if m.has(tBoolean) && !c.writerAccepts(b.restrict(tBoolean), true) && !c.writerAccepts(b.restrict(tBoolean), false) {
			m &^= tBoolean
		}
	}
	if m&tNumber != 0 && len(b.neg) > 0 {
		// Negative atoms may cut every number out (not: {minimum: 0}
		// over integers >= 0).
		for _, t := range []typeMask{tInteger, tFraction} {
			if m.has(t) {
				if _, dec := c.pickNumber(b, t, nil, nil); dec == decideNo {
					m &^= t
				}
			}
		}
	}
	if m&tNumber != 0 {
		d := c.numDomain(b, m)
		switch {
		case d.empty():
			m &^= tNumber
		case d.integral():
			m &^= tFraction
		}
		if m.has(tInteger) && d.step == nil && d.lo != nil && d.hi != nil && d.lo.v.Cmp(d.hi.v) == 0 && !d.lo.v.IsInt() {
			m &^= tInteger
		}
		if m.has(tInteger) && !m.has(tFraction) {
			if dd := c.numDomain(b, tInteger); dd.empty() {
				m &^= tInteger
			}
		}
	}
	if m.has(tString) {
		sp := c.stringSpec(b)
		if sp.acc.hi >= 0 && sp.acc.lo > sp.acc.hi {
			m &^= tString
		}
	}
	if m.has(tArray) {
		v := c.arrView(b)
		if v.max >= 0 && v.min > v.max {
			m &^= tArray
		}
	}
	if m.has(tObject) {
		v := c.objView(b)
		for _, n := range sortedKeys(v.required) {
			if _, forbidden, _, _ := c.wprop(v, n); forbidden {
				m &^= tObject
				break
			}
		}
		for _, a := range b.pos {
			if mp := a.s.MaxProperties; mp != nil && *mp < len(v.required) {
				m &^= tObject // more required names than members allowed
			}
		}
	}
	return m
}

// local checks a reader atom's own validation keywords.
func (c *checker) local(b branch, ra *jsonschema.Schema, ip ipath) []*Finding {
	wm := c.effectiveMask(b)
	if wm == 0 {
		return nil
	}
	var out []*Finding
	if ra.ContentEncoding != nil || ra.ContentMediaType != nil || ra.ContentSchema != nil || len(ra.Extensions) > 0 {
		f := c.warnf(KindIncomplete, locOf(b.pos), ra.Location, nil, nil, ip, nil,
			"the reader asserts contentEncoding/contentMediaType or a custom vocabulary, which the rules do not compare")
		out = append(out, f)
	}
	rm := maskOfTypes(ra.Types)
	if miss := wm &^ rm; miss != 0 {
		out = append(out, c.typeFinding(b, miss, ra, ip))
	}
	common := wm & rm
	if ra.Enum != nil || ra.Const != nil {
		out = append(out, c.readerEnum(b, common, ra, ip)...)
	}
	if common&tNumber != 0 {
		out = append(out, c.checkNumbers(b, common&tNumber, ra, ip)...)
	}
	if common.has(tString) {
		out = append(out, c.checkStrings(b, ra, ip)...)
	}
	if common.has(tObject) {
		out = append(out, c.checkObject(b, ra, ip)...)
	}
	if common.has(tArray) {
		out = append(out, c.checkArray(b, ra, ip)...)
	}
	return out
}

func typeLoc(b branch) string {
	for _, a := range b.pos {
		if !a.borrowed && a.s.Types != nil {
			return loc(a.s, "type")
		}
	}
	return locOf(b.pos)
}

func writerTypeValue(b branch) any {
	for _, a := range b.pos {
		if !a.borrowed && a.s.Types != nil {
			return typeNames(a.s.Types)
		}
	}
	return nil
}

func typeNames(t *jsonschema.Types) any {
	names := t.ToStrings()
	if len(names) == 1 {
		return names[0]
	}
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = n
	}
	return out
}

// typeFinding reports writer types the reader's `type` does not accept,
// with a value of the first such type when one is easy to build.
func (c *checker) typeFinding(b branch, miss typeMask, ra *jsonschema.Schema, ip ipath) *Finding {
	var h *hint
	for _, t := range typeOrder {
		if !miss.has(t) {
			continue
		}
		h = c.valueOfType(b, t)
		if h != nil {
			break
		}
	}
	var rv any
	if ra.Types != nil {
		rv = typeNames(ra.Types)
	}
	what := miss.String()
	if miss == tFraction {
		what = "non-integer numbers"
	}
	return c.errorf(KindType, typeLoc(b), loc(ra, "type"), writerTypeValue(b), rv, ip, h, what)
}

// valueOfType builds a hint holding a writer value of type t.
func (c *checker) valueOfType(b branch, t typeMask) *hint {
	bt := b.restrict(t)
	switch t {
	case tNull:
		if c.writerAccepts(bt, nil) {
			return &hint{hasValue: true}
		}
	case tBoolean:
		for _, v := range []any{true, false} {
			if c.writerAccepts(bt, v) {
				return &hint{value: v, hasValue: true}
			}
		}
	case tInteger:
		d := c.numDomain(bt, tInteger)
		if x, ok := c.numberIn(bt, tInteger, d, nil, nil); ok {
			return &hint{value: jsonvalue.Number(x), hasValue: true}
		}
	case tFraction:
		if len(bt.neg) > 0 {
			if x, dec := c.pickNumber(bt, tFraction, nil, nil); dec == decideYes {
				return &hint{value: jsonvalue.Number(x), hasValue: true}
			}
			break
		}
		d := c.numDomain(bt, tNumber)
		if x, ok := d.nonInteger(); ok {
			return &hint{value: jsonvalue.Number(x), hasValue: true}
		}
	case tString:
		sp := c.stringSpec(bt)
		if s, dec := c.findString(strQuery{want: sp.acc}); dec == decideYes {
			return &hint{value: s, hasValue: true}
		}
	}
	if o := origin(b); o != nil {
		return &hint{from: o, fromMask: t}
	}
	return nil
}

// readerEnum checks an infinite writer against a reader's enum or const.
func (c *checker) readerEnum(b branch, common typeMask, ra *jsonschema.Schema, ip ipath) []*Finding {
	var vals []any
	k, kw := KindEnumAdded, "enum"
	if ra.Const != nil {
		vals, k, kw = []any{*ra.Const}, KindConstAdded, "const"
	} else {
		vals = ra.Enum.Values
	}
	rl := loc(ra, kw)
	var rv any = shownValues(vals)
	if kw == "const" {
		rv = vals[0]
	}
	desc := quoteList(vals, 8)
	if kw == "const" {
		desc = compactJSON(vals[0])
	}
	for _, t := range typeOrder {
		if !common.has(t) {
			continue
		}
		bt := b.restrict(t)
		switch t {
		case tNull, tBoolean:
			// finite writers are decided by checkFinite; a mixed writer
			// lands here with its null/boolean part.
			var cand []any
			if t == tNull {
				cand = []any{nil}
			} else {
				cand = []any{false, true}
			}
			for _, v := range cand {
				if c.writerAccepts(bt, v) && !containsValue(vals, v) {
					return []*Finding{c.errorf(k, locOf(b.pos), rl, nil, rv, ip, &hint{value: v, hasValue: true}, desc)}
				}
			}
		case tInteger, tFraction:
			d := c.numDomain(bt, t)
			if t == tFraction {
				d = c.numDomain(bt, tNumber)
			}
			if list, ok := d.enumerate(1024); ok {
				for _, x := range list {
					if (t == tInteger) != x.IsInt() {
						continue
					}
					if !containsValue(vals, jsonvalue.Number(x)) {
						return []*Finding{c.errorf(k, locOf(b.pos), rl, nil, rv, ip, &hint{value: jsonvalue.Number(x), hasValue: true}, desc)}
					}
				}
				continue
			}
			var h *hint
			for _, x := range d.candidates() {
				if (t == tInteger) == x.IsInt() && !containsValue(vals, jsonvalue.Number(x)) {
					h = &hint{value: jsonvalue.Number(x), hasValue: true}
					break
				}
			}
			return []*Finding{c.errorf(k, locOf(b.pos), rl, nil, rv, ip, h, desc)}
		case tString:
			sp := c.stringSpec(bt)
			var strs []string
			for _, v := range vals {
				if s, ok := v.(string); ok {
					strs = append(strs, s)
				}
			}
			s, dec := c.findString(strQuery{want: sp.acc, reject: &strAccept{hi: -1, enum: strs, hasEnum: true}})
			switch dec {
			case decideYes:
				return []*Finding{c.errorf(k, locOf(b.pos), rl, nil, rv, ip, &hint{value: s, hasValue: true}, desc)}
			case decideUnknown:
				f := c.warnf(k, locOf(b.pos), rl, nil, rv, ip, &hint{from: origin(b), fromMask: tString}, desc)
				f.Message = fmt.Sprintf("Could not decide whether every string the %s schema allows is one of %s (pattern too complex); witness search decides", c.dir.Writer(), desc)
				return []*Finding{f}
			}
		case tObject:
			objs, finite := c.finiteObjects(bt, 64)
			if !finite {
				return []*Finding{c.errorf(k, locOf(b.pos), rl, nil, rv, ip, &hint{from: origin(b), fromMask: t}, desc)}
			}
			for _, o := range objs {
				if !containsValue(vals, o) {
					return []*Finding{c.errorf(k, locOf(b.pos), rl, nil, rv, ip, &hint{value: o, hasValue: true}, desc)}
				}
			}
		default:
			return []*Finding{c.errorf(k, locOf(b.pos), rl, nil, rv, ip, &hint{from: origin(b), fromMask: t}, desc)}
		}
	}
	return nil
}

// strSpec is what a writer branch allows of strings.
type strSpec struct {
	acc          strAccept
	loLoc, hiLoc string
	patLocs      []string
	formats      map[string]bool
	origin       string
}

func (c *checker) stringSpec(b branch) strSpec {
	sp := strSpec{acc: strAccept{hi: -1}, formats: map[string]bool{}, origin: locOf(b.pos)}
	for _, a := range b.pos {
		s := a.s
		if s.MinLength != nil && *s.MinLength > sp.acc.lo {
			sp.acc.lo, sp.loLoc = *s.MinLength, loc(s, "minLength")
		}
		if s.MaxLength != nil && (sp.acc.hi < 0 || *s.MaxLength < sp.acc.hi) {
			sp.acc.hi, sp.hiLoc = *s.MaxLength, loc(s, "maxLength")
		}
		if s.Pattern != nil {
			sp.acc.pats = append(sp.acc.pats, s.Pattern.String())
			sp.patLocs = append(sp.patLocs, loc(s, "pattern"))
		}
		if s.Format != nil {
			sp.formats[s.Format.Name] = true
		}
	}
	return sp
}

func (c *checker) checkStrings(b branch, ra *jsonschema.Schema, ip ipath) []*Finding {
	sp := c.stringSpec(b)
	var out []*Finding
	r := strAccept{hi: -1}
	has := false
	if ra.MinLength != nil {
		r.lo, has = *ra.MinLength, true
	}
	if ra.MaxLength != nil {
		r.hi, has = *ra.MaxLength, true
	}
	if ra.Pattern != nil {
		r.pats, has = []string{ra.Pattern.String()}, true
	}
	if has && !covered(sp.acc, r) {
		s, n, dec := "", 0, decideNo
		if lo, hi, ok := lengthsOnly(sp.acc, r); ok {
			// Lengths alone decide, by arithmetic: no string is built
			// (minLength 1000000000 must not cost a gigabyte).
			n, dec = lengthBreak(lo, hi, r)
		} else {
			s, dec = c.findString(strQuery{want: sp.acc, reject: &r})
			n = len([]rune(s))
		}
		switch dec {
		case decideYes:
			h := &hint{value: s, hasValue: true}
			if s == "" && n > 0 {
				if n <= maxLengthWitness {
					h.value = strings.Repeat("a", n)
				} else {
					h = nil // a witness too long to show
				}
			}
			switch {
			case n < r.lo:
				wl, wv := sp.loLoc, any(nil)
				if wl == "" {
					wl = sp.origin
				} else {
					wv = sp.acc.lo
				}
				out = append(out, c.errorf(KindMinLength, wl, loc(ra, "minLength"), wv, r.lo, ip, h, strconv.Itoa(n), strconv.Itoa(r.lo)))
			case r.hi >= 0 && n > r.hi:
				wl, wv := sp.hiLoc, any(nil)
				if wl == "" {
					wl = sp.origin
				} else {
					wv = sp.acc.hi
				}
				out = append(out, c.errorf(KindMaxLength, wl, loc(ra, "maxLength"), wv, r.hi, ip, h, strconv.Itoa(n), strconv.Itoa(r.hi)))
			default:
				wl, wv := sp.origin, any(nil)
				if len(sp.patLocs) > 0 {
					wl, wv = sp.patLocs[0], sp.acc.pats[0]
				}
				out = append(out, c.errorf(KindPattern, wl, loc(ra, "pattern"), wv, r.pats[0], ip, h, strconv.Quote(s), strconv.Quote(r.pats[0])))
			}
		case decideUnknown:
			wl, wv := sp.origin, any(nil)
			if len(sp.patLocs) > 0 {
				wl, wv = sp.patLocs[0], sp.acc.pats[0]
			}
			rl, rv := loc(ra, "pattern"), any(nil)
			if ra.Pattern != nil {
				rv = ra.Pattern.String()
			} else {
				rl = locOf([]atom{{s: ra}})
			}
			f := c.warnf(KindPattern, wl, rl, wv, rv, ip, &hint{from: origin(b), fromMask: tString}, "", "")
			f.Message = fmt.Sprintf("Could not decide whether every string the %s schema allows matches the %s schema's pattern and lengths (the expressions are too large to compare); witness search decides", c.dir.Writer(), c.dir.Reader())
			out = append(out, f)
		}
	}
	if ra.Format != nil && !sp.formats[ra.Format.Name] {
		out = append(out, c.checkFormat(b, sp, ra, ip))
	}
	return out
}

// lengthsOnly reports whether only lengths constrain both sides (no
// pattern, no enum), and returns the writer's length range.
func lengthsOnly(w, r strAccept) (lo, hi int, ok bool) {
	if len(w.pats) > 0 || len(r.pats) > 0 || w.hasEnum || r.hasEnum {
		return 0, 0, false
	}
	return w.lo, w.hi, true
}

// lengthBreak returns a length the writer allows ([lo, hi], hi < 0: no
// bound) and the reader r does not, if there is one.
func lengthBreak(lo, hi int, r strAccept) (int, decision) {
	if hi >= 0 && lo > hi {
		return 0, decideNo
	}
	if lo < r.lo {
		return lo, decideYes
	}
	if r.hi >= 0 && (hi < 0 || hi > r.hi) {
		return max(lo, r.hi+1), decideYes
	}
	return 0, decideNo
}

// covered is the quick yes: the reader's pattern is one of the writer's and
// its lengths are no stricter.
func covered(w, r strAccept) bool {
	if r.lo > w.lo || (r.hi >= 0 && (w.hi < 0 || w.hi > r.hi)) {
		return false
	}
	for _, p := range r.pats {
		found := false
		for _, q := range w.pats {
			if p == q {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (c *checker) checkFormat(b branch, sp strSpec, ra *jsonschema.Schema, ip ipath) *Finding {
	name := ra.Format.Name
	var witness *string
	try := func(s string) {
		if witness == nil && sp.acc.accepts(s) && ra.Format.Validate(s) != nil {
			witness = &s
		}
	}
	if s, dec := c.findString(strQuery{want: sp.acc}); dec == decideYes {
		try(s)
	}
	for _, s := range []string{"x", "not a " + name, "", "(", "0", "-", "a b c"} {
		try(s)
	}
	wl := sp.origin
	if witness != nil {
		return c.errorf(KindFormat, wl, loc(ra, "format"), nil, name, ip, &hint{value: *witness, hasValue: true}, strconv.Quote(name))
	}
	if len(sp.acc.pats) > 0 {
		f := c.warnf(KindFormat, wl, loc(ra, "format"), nil, name, ip, &hint{from: origin(b), fromMask: tString}, strconv.Quote(name))
		f.Message += " (could not decide whether the writer's pattern guarantees it)"
		return f
	}
	return c.errorf(KindFormat, wl, loc(ra, "format"), nil, name, ip, nil, strconv.Quote(name))
}

var _ = big.NewRat

// finiteObjects lists the objects of a writer branch when there are at
// most limit of them: closed to its declared names, each value from a
// finite set (const, enum, booleans, null). Every object listed is
// validated against the branch.
func (c *checker) finiteObjects(b branch, limit int) ([]any, bool) {
	v := c.objView(b)
	if c.writerOpen(v) || len(v.pats) > 0 {
		return nil, false
	}
	// Every name some atom declares (a borrowed atom may allow a name the
	// writer does not declare).
	names := maps.Clone(v.declared)
	for _, a := range b.pos {
		for n := range a.s.Properties {
			names[n] = true
		}
	}
	objs := []map[string]any{{}}
	for _, n := range sortedKeys(names) {
		wat, forbidden, _, _ := c.wprop(v, n)
		if forbidden {
			continue
		}
		bs, ok := c.expand(wat, nil, tAll)
		if !ok {
			return nil, false
		}
		var opts []any
		for _, pb := range bs {
			vals, finite := c.writerValues(pb)
			if !finite {
				return nil, false
			}
			opts = append(opts, vals...)
		}
		_, required := v.required[n]
		var next []map[string]any
		for _, o := range objs {
			if !required {
				next = append(next, o)
			}
			for _, x := range opts {
				no := maps.Clone(o)
				no[n] = x
				next = append(next, no)
			}
			if len(next) > limit {
				return nil, false
			}
		}
		objs = next
	}
	var out []any
	for _, o := range objs {
		if c.writerAccepts(b, o) {
			out = append(out, o)
		}
	}
	return out, true
}
