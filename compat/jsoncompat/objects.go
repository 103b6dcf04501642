package jsoncompat

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/internal/schemawalk"
)

// place is a schema location built only when a finding needs it.
type place struct {
	s    *jsonschema.Schema
	toks []string
}

func (p place) str() string {
	if p.s == nil {
		return ""
	}
	return loc(p.s, p.toks...)
}

// objView is a writer branch seen as objects.
type objView struct {
	b        branch
	declared map[string]bool   // names the writer itself declares
	required map[string]string // name -> location of the `required` keyword
	pats     []jsonschema.Regexp
}

func (c *checker) objView(b branch) *objView {
	v := &objView{b: b, declared: map[string]bool{}, required: map[string]string{}}
	for _, a := range b.pos {
		s := a.s
		if !a.borrowed {
			for n := range s.Properties {
				v.declared[n] = true
			}
			v.pats = append(v.pats, schemawalk.Patterns(s)...)
		}
		for _, n := range s.Required {
			if _, ok := v.required[n]; !ok {
				v.required[n] = loc(s, "required")
			}
		}
	}
	// Lenient closes writers to their declared properties; a required
	// name counts as declared, wherever it is required (another allOf
	// member, say): the producer must send it.
	for n := range v.required {
		v.declared[n] = true
	}
	sort.Slice(v.pats, func(i, j int) bool { return v.pats[i].String() < v.pats[j].String() })
	c.forceRequired(v)
	return v
}

// forceRequired: a closed writer whose minProperties equals the number of
// names it may send sends them all (minProperties: 1 over one property).
func (c *checker) forceRequired(v *objView) {
	wmin, where := 0, ""
	for _, a := range v.b.pos {
		if mp := a.s.MinProperties; mp != nil && *mp > wmin {
			wmin, where = *mp, loc(a.s, "minProperties")
		}
	}
	if wmin <= len(v.required) || len(v.pats) > 0 || c.writerOpen(v) {
		return
	}
	names := maps.Clone(v.declared)
	for _, a := range v.b.pos {
		for n := range a.s.Properties {
			names[n] = true
		}
	}
	var allowed []string
	for _, n := range sortedKeys(names) {
		if _, forbidden, _, _ := c.wprop(v, n); !forbidden {
			allowed = append(allowed, n)
		}
	}
	if len(allowed) != wmin {
		return
	}
	for _, n := range allowed {
		if _, ok := v.required[n]; !ok {
			v.required[n] = where
		}
	}
}

func matchesAny(pats []jsonschema.Regexp, n string) bool {
	for _, re := range pats {
		if re.MatchString(n) {
			return true
		}
	}
	return false
}

// wprop returns the writer's constraint on property n: the atoms that
// apply to its value, whether the writer never sends n, whether it
// declares n, and where that is decided.
func (c *checker) wprop(v *objView, n string) (atoms []atom, forbidden, declared bool, where place) {
	for _, a := range v.b.pos {
		s := a.s
		if p, ok := s.Properties[n]; ok {
			atoms = append(atoms, atom{p, a.borrowed})
			if !a.borrowed {
				declared = true
				if where.s == nil {
					where = place{s, []string{"properties", n}}
				}
			}
			if p.Bool != nil && !*p.Bool {
				forbidden = true
			}
		}
		// patternProperties apply to declared names too; additionalProperties
		// only to names neither keyword covers.
		_, matched := s.Properties[n]
		for _, re := range schemawalk.Patterns(s) {
			if re.MatchString(n) {
				p := s.PatternProperties[re]
				atoms = append(atoms, atom{p, a.borrowed})
				matched = true
				if p.Bool != nil && !*p.Bool {
					forbidden = true
				}
			}
		}
		if matched {
			continue
		}
		switch ap := s.AdditionalProperties.(type) {
		case bool:
			if !ap {
				forbidden = true
			}
		case *jsonschema.Schema:
			atoms = append(atoms, atom{ap, a.borrowed})
			if ap.Bool != nil && !*ap.Bool {
				forbidden = true
			}
		case nil:
			if c.lenient && !a.borrowed && implicitlyClosed(s) {
				if !v.declared[n] && !matchesAny(v.pats, n) {
					forbidden = true
				}
			} else if s.UnevaluatedProperties != nil && !v.declared[n] && !matchesAny(v.pats, n) {
				atoms = append(atoms, atom{s.UnevaluatedProperties, a.borrowed})
				if u := s.UnevaluatedProperties; u.Bool != nil && !*u.Bool {
					forbidden = true
				}
			}
		}
	}
	if !forbidden {
		// A name the writer's propertyNames reject is never sent, nor a
		// name beyond the required ones when maxProperties counts only them.
		_, req := v.required[n]
		for _, a := range v.b.pos {
			if pn := a.s.PropertyNames; pn != nil && pn.Validate(n) != nil {
				forbidden = true
				break
			}
			if mp := a.s.MaxProperties; mp != nil && !req && *mp <= len(v.required) {
				forbidden = true
				break
			}
		}
	}
	if where.s == nil {
		where = place{origin(v.b), nil}
	}
	return atoms, forbidden, declared, where
}

// otherOptions returns, for one writer atom, the schemas that may apply to
// a property name the branch does not declare (nil slice and closed=true:
// the atom forbids such names).
func (c *checker) otherOptions(v *objView, a atom) (opts []*jsonschema.Schema, closed bool) {
	s := a.s
	for _, re := range schemawalk.Patterns(s) {
		opts = append(opts, s.PatternProperties[re])
	}
	switch ap := s.AdditionalProperties.(type) {
	case bool:
		if ap {
			opts = append(opts, nil)
		}
	case *jsonschema.Schema:
		opts = append(opts, ap)
	case nil:
		switch {
		case c.lenient && !a.borrowed && implicitlyClosed(s):
			if len(v.pats) > 0 {
				opts = append(opts, nil) // names matching another atom's patterns
			}
		case s.UnevaluatedProperties != nil:
			opts = append(opts, s.UnevaluatedProperties)
		default:
			opts = append(opts, nil)
		}
	}
	live := opts[:0]
	for _, o := range opts {
		if o != nil && o.Bool != nil && !*o.Bool {
			continue
		}
		live = append(live, o)
	}
	return live, len(live) == 0
}

// otherOption returns the schema one writer atom applies to names none of
// its patterns match (nil schema: anything), and false when it forbids
// them.
func (c *checker) otherOption(v *objView, a atom) (*jsonschema.Schema, bool) {
	s := a.s
	var o *jsonschema.Schema
	switch ap := s.AdditionalProperties.(type) {
	case bool:
		if !ap {
			return nil, false
		}
	case *jsonschema.Schema:
		o = ap
	case nil:
		switch {
		case c.lenient && !a.borrowed && implicitlyClosed(s):
			if len(v.pats) == 0 {
				return nil, false
			}
		case s.UnevaluatedProperties != nil:
			o = s.UnevaluatedProperties
		}
	}
	if isFalse(o) {
		return nil, false
	}
	return o, true
}

// writerOpen reports whether the writer may send names it does not declare.
func (c *checker) writerOpen(v *objView) bool {
	for _, a := range v.b.pos {
		if _, closed := c.otherOptions(v, a); closed {
			return false
		}
	}
	return true
}

// othersWithin reports whether every value the writer may send under an
// undeclared name satisfies rc: some writer atom constrains all such
// values to rc. It returns the best failing findings otherwise.
//
// When outside is set, an atom's schema for names none of its patterns
// match counts only if outside(its patterns) says some name of the
// region escapes them.
func (c *checker) othersWithin(v *objView, rc *jsonschema.Schema, ip ipath, applies func(re string) bool, outside func(pats []string) bool) (bool, []*Finding, *jsonschema.Schema) {
	if isTrue(rc) {
		return true, nil, nil
	}
	var undecided []*Finding
	var best []*Finding
	var bestFrom *jsonschema.Schema
	for _, a := range v.b.pos {
		opts, closed := c.otherOptions(v, a)
		if closed {
			return true, nil, nil
		}
		// Pattern options whose names cannot fall in the region do not
		// count, nor the other names' option when the atom's patterns
		// cover the region.
		if applies != nil {
			var kept []*jsonschema.Schema
			var pats []string
			for _, re := range schemawalk.Patterns(a.s) {
				pats = append(pats, re.String())
				if p := a.s.PatternProperties[re]; !isFalse(p) && applies(re.String()) {
					kept = append(kept, p)
				}
			}
			if o, ok := c.otherOption(v, a); ok && (outside == nil || outside(pats)) {
				kept = append(kept, o)
			}
			opts = kept
			if len(opts) == 0 {
				return true, nil, nil
			}
		}
		ok := true
		for _, o := range opts {
			if o == nil {
				ok = false
				if best == nil {
					bestFrom = nil
				}
				break
			}
			res := c.sub([]atom{{o, a.borrowed}}, nil, tAll, rc, ip)
			if hasErrors(res) {
				ok = false
				if best == nil || countErrors(res) < countErrors(best) {
					best, bestFrom = res, o
				}
				break
			}
			undecided = append(undecided, res...)
		}
		if ok {
			// Undecided parts come back as warnings (ok with findings).
			return true, undecided, nil
		}
		undecided = nil
	}
	return false, best, bestFrom
}

// writerNamePatterns returns the patterns that bound the names a writer
// may send without declaring them (nil, false: any name).
func (c *checker) writerNamePatterns(v *objView) ([]string, bool) {
	for _, a := range v.b.pos {
		s := a.s
		closedAP := false
		switch ap := s.AdditionalProperties.(type) {
		case bool:
			closedAP = !ap
		case *jsonschema.Schema:
			closedAP = isFalse(ap)
		case nil:
			closedAP = (c.lenient && !a.borrowed && implicitlyClosed(s)) || isFalse(s.UnevaluatedProperties)
		}
		if !closedAP {
			continue
		}
		var pats []string
		for _, re := range schemawalk.Patterns(s) {
			if !isFalse(s.PatternProperties[re]) {
				pats = append(pats, re.String())
			}
		}
		if c.lenient && !a.borrowed && implicitlyClosed(s) {
			for _, re := range v.pats {
				pats = append(pats, re.String())
			}
		}
		return pats, true
	}
	return nil, false
}

// escapingName finds a name the writer may send undeclared that matches
// none of the reader's patterns and is not one of names.
func (c *checker) escapingName(v *objView, readerPats []string, names map[string]bool) (string, decision) {
	var lits []string
	for n := range names {
		lits = append(lits, n)
	}
	sort.Strings(lits)
	reject := &strAccept{hi: -1}
	var alts []string
	for _, p := range readerPats {
		alts = append(alts, "(?:"+p+")")
	}
	if len(lits) > 0 {
		q := make([]string, len(lits))
		for i, l := range lits {
			q[i] = regexpQuote(l)
		}
		alts = append(alts, `\A(?:`+strings.Join(q, "|")+`)\z`)
	}
	if len(alts) > 0 {
		reject.pats = []string{strings.Join(alts, "|")}
	} else {
		reject = &strAccept{hi: -1, pats: []string{`[^\x00-\x{10FFFF}]`}}
	}
	wpats, bounded := c.writerNamePatterns(v)
	want := c.nameAccept(v)
	if !bounded {
		return c.findString(strQuery{want: want, reject: reject})
	}
	unknown := false
	for _, q := range wpats {
		w := want
		w.pats = append(append([]string(nil), want.pats...), q)
		s, dec := c.findString(strQuery{want: w, reject: reject})
		switch dec {
		case decideYes:
			return s, decideYes
		case decideUnknown:
			unknown = true
		}
	}
	if unknown {
		return "", decideUnknown
	}
	return "", decideNo
}

// nameAccept is what the writer's propertyNames allow of a name: their
// patterns, lengths and enum or const (other keywords are not used, which
// only lets more names through).
func (c *checker) nameAccept(v *objView) strAccept {
	acc := strAccept{hi: -1}
	for _, a := range v.b.pos {
		for _, s := range readerAtoms(a.s.PropertyNames) {
			if s.Bool != nil {
				continue
			}
			if s.Pattern != nil {
				acc.pats = append(acc.pats, s.Pattern.String())
			}
			if s.MinLength != nil && *s.MinLength > acc.lo {
				acc.lo = *s.MinLength
			}
			if s.MaxLength != nil && (acc.hi < 0 || *s.MaxLength < acc.hi) {
				acc.hi = *s.MaxLength
			}
			vals, ok := ownValues(s)
			if !ok {
				continue
			}
			var names []string
			for _, x := range vals {
				if n, ok := x.(string); ok && (!acc.hasEnum || slices.Contains(acc.enum, n)) {
					names = append(names, n)
				}
			}
			acc.enum, acc.hasEnum = names, true
		}
	}
	return acc
}

// mayOverlap reports whether two name patterns can match a common name.
func (c *checker) mayOverlap(p, q string) bool {
	_, dec := c.findString(strQuery{want: strAccept{pats: []string{p, q}, hi: -1}})
	return dec != decideNo
}

func hasObjectKeywords(s *jsonschema.Schema) bool {
	return s.Properties != nil || s.PatternProperties != nil || s.AdditionalProperties != nil || len(s.Required) > 0 ||
		s.PropertyNames != nil || s.MinProperties != nil || s.MaxProperties != nil || len(s.DependentRequired) > 0 ||
		len(s.DependentSchemas) > 0 || len(s.Dependencies) > 0 || s.UnevaluatedProperties != nil
}

// extraName finds a property name the writer does not declare and the
// reader's patterns do not match, for counterexamples.
func extraName(v *objView, ra *jsonschema.Schema, names map[string]bool) string {
	for i := 0; i < 100; i++ {
		n := "extraField"
		if i > 0 {
			n += strconv.Itoa(i)
		}
		if names[n] || v.declared[n] || matchesAny(schemawalk.Patterns(ra), n) {
			continue
		}
		return n
	}
	return "extraField"
}

func (c *checker) checkObject(b branch, ra *jsonschema.Schema, ip ipath) []*Finding {
	if !hasObjectKeywords(ra) {
		return nil
	}
	v := c.objView(b)
	var out []*Finding
	objLoc := locOf(b.pos)

	names := map[string]bool{}
	for n := range v.declared {
		names[n] = true
	}
	for n := range ra.Properties {
		names[n] = true
	}
	for _, n := range ra.Required {
		names[n] = true
	}
	for k, deps := range ra.DependentRequired {
		names[k] = true
		for _, d := range deps {
			names[d] = true
		}
	}
	for k := range ra.DependentSchemas {
		names[k] = true
	}
	for k := range ra.Dependencies {
		names[k] = true
	}
	sorted := sortedKeys(names)

	// Properties one by one.
	for _, n := range sorted {
		wat, forbidden, declared, where := c.wprop(v, n)
		if forbidden {
			continue
		}
		res := c.checkName(v, ra, n, wat, declared, where, ip)
		if hasErrors(res) && c.atomsEmpty(wat) {
			continue // a schema that accepts nothing: the writer never sends n
		}
		out = append(out, res...)
	}

	// required
	for i, n := range ra.Required {
		if _, ok := v.required[n]; ok {
			continue
		}
		_, forbidden, _, _ := c.wprop(v, n)
		f := c.errorf(KindRequired, objLoc, loc(ra, "required", strconv.Itoa(i)), nil, n, ip, &hint{drop: n}, strconv.Quote(n))
		if forbidden {
			f.Message += fmt.Sprintf(" (the %s schema never sends it)", c.dir.Writer())
		}
		out = append(out, f)
	}

	// Undeclared names.
	open := c.writerOpen(v)
	var rpats []string
	for _, re := range schemawalk.Patterns(ra) {
		rpats = append(rpats, re.String())
	}
	if open {
		wpats, bounded := c.writerNamePatterns(v)
		for _, re := range schemawalk.Patterns(ra) {
			rc := ra.PatternProperties[re]
			if bounded {
				overlap := false
				for _, q := range wpats {
					if c.mayOverlap(q, re.String()) {
						overlap = true
						break
					}
				}
				if !overlap {
					continue
				}
			}
			rs := re.String()
			escapes := func(pats []string) bool {
				for _, n := range sortedKeys(names) {
					pats = append(pats, `\A`+regexpQuote(n)+`\z`)
				}
				_, dec := c.findString(strQuery{want: strAccept{pats: []string{rs}, hi: -1}, reject: &strAccept{hi: -1, pats: orPatterns(c.autos.withoutDisjoint(pats, rs))}})
				return dec != decideNo
			}
			ok, best, from := c.othersWithin(v, rc, ip.add("("+re.String()+")"), func(p string) bool { return c.mayOverlap(p, rs) }, escapes)
			if ok {
				out = append(out, best...)
			} else {
				name, dec := c.findString(strQuery{want: strAccept{pats: []string{re.String()}, hi: -1}})
				h := &hint{}
				if dec == decideYes && !names[name] {
					h = propHint(name, from, best, len(ip)+1)
				}
				f := c.errorf(KindPatternProperties, objLoc, loc(ra, "patternProperties", re.String()), nil, nil, ip, h, strconv.Quote(re.String()))
				appendDetail(f, best)
				out = append(out, f)
			}
		}
		escName, esc := "", decideUnknown
		if ra.AdditionalProperties != nil {
			escName, esc = c.escapingName(v, rpats, names)
		}
		notReader := func(p string) bool {
			_, dec := c.findString(strQuery{want: strAccept{pats: []string{p}, hi: -1}, reject: &strAccept{hi: -1, pats: orPatterns(c.autos.withoutDisjoint(rpats, p))}})
			return dec != decideNo
		}
		switch ap := ra.AdditionalProperties.(type) {
		case bool:
			if !ap && esc != decideNo {
				name := escName
				if esc != decideYes {
					name = extraName(v, ra, names)
				}
				out = append(out, c.errorf(KindAdditionalProperties, objLoc, loc(ra, "additionalProperties"), nil, false, ip,
					propHint(name, nil, nil, 0)))
			}
		case *jsonschema.Schema:
			if esc == decideNo {
				break
			}
			ok, best, from := c.othersWithin(v, ap, ip.add(anyIndex), notReader, nil)
			if ok {
				out = append(out, best...)
			} else {
				name := escName
				if esc != decideYes {
					name = extraName(v, ra, names)
				}
				f := c.errorf(KindAdditionalProperties, objLoc, loc(ra, "additionalProperties"), nil, nil, ip, propHint(name, from, best, len(ip)+1))
				appendDetail(f, best)
				out = append(out, f)
			}
		}
	}

	// unevaluatedProperties of the reader.
	if up := ra.UnevaluatedProperties; up != nil && ra.AdditionalProperties == nil {
		out = append(out, c.checkUnevaluated(v, ra, up, names, sorted, open, ip)...)
	}

	// propertyNames
	if pn := ra.PropertyNames; pn != nil && !isTrue(pn) {
		for _, n := range sorted {
			if !v.declared[n] {
				continue
			}
			if _, forbidden, _, _ := c.wprop(v, n); forbidden {
				continue
			}
			if err := pn.Validate(n); err != nil {
				wat, _, _, where := c.wprop(v, n)
				out = append(out, c.errorf(KindPropertyNames, where.str(), loc(ra, "propertyNames"), n, nil, ip, &hint{setProp: n, propFrom: firstSchema(wat)}, strconv.Quote(n)))
			}
		}
		if open {
			var pnAtoms []atom
			for _, a := range b.pos {
				if a.s.PropertyNames != nil {
					pnAtoms = append(pnAtoms, atom{a.s.PropertyNames, a.borrowed})
				}
			}
			res := c.sub(pnAtoms, nil, tString, pn, ip)
			if hasErrors(res) {
				name := "?"
				h := &hint{}
				for _, f := range res {
					if f.hint != nil && f.hint.hasValue {
						if s, ok := f.hint.value.(string); ok {
							name = strconv.Quote(s)
							h.setProp = s
							break
						}
					}
				}
				f := c.errorf(KindPropertyNames, objLoc, loc(ra, "propertyNames"), nil, nil, ip, h, name)
				appendDetail(f, res)
				out = append(out, f)
			} else {
				out = append(out, warningsOf(res)...)
			}
		}
	}

	// minProperties / maxProperties
	if ra.MinProperties != nil {
		wmin, wl := 0, objLoc
		for _, a := range b.pos {
			if a.s.MinProperties != nil && *a.s.MinProperties > wmin {
				wmin, wl = *a.s.MinProperties, loc(a.s, "minProperties")
			}
		}
		nreq := 0
		need := map[string]*jsonschema.Schema{}
		for n := range v.required {
			if wat, forbidden, _, _ := c.wprop(v, n); !forbidden {
				nreq++
				need[n] = firstSchema(wat)
			}
		}
		if nreq > wmin {
			wmin = nreq
		}
		if *ra.MinProperties > wmin {
			// The witness: a writer object cut down to wmin members, the
			// required ones kept.
			h := &hint{need: need, trim: wmin, trimSet: true}
			out = append(out, c.errorf(KindMinProperties, wl, loc(ra, "minProperties"), wmin, *ra.MinProperties, ip, h, strconv.Itoa(wmin), strconv.Itoa(*ra.MinProperties)))
		}
	}
	if ra.MaxProperties != nil {
		wmax, wl := -1, objLoc
		for _, a := range b.pos {
			if a.s.MaxProperties != nil && (wmax < 0 || *a.s.MaxProperties < wmax) {
				wmax, wl = *a.s.MaxProperties, loc(a.s, "maxProperties")
			}
		}
		if !open && len(v.pats) == 0 {
			n := 0
			for name := range v.declared {
				if _, forbidden, _, _ := c.wprop(v, name); !forbidden {
					n++
				}
			}
			if wmax < 0 || n < wmax {
				wmax = n
			}
		}
		if na := c.nameAccept(v); na.hasEnum {
			n := 0
			for _, name := range na.enum {
				if _, forbidden, _, _ := c.wprop(v, name); !forbidden && na.accepts(name) {
					n++
				}
			}
			if wmax < 0 || n < wmax {
				wmax = n
			}
		}
		if wmax < 0 || wmax > *ra.MaxProperties {
			shown := "any number of"
			if wmax >= 0 {
				shown = strconv.Itoa(wmax)
			}
			var wv any
			if wmax >= 0 {
				wv = wmax
			}
			h := &hint{}
			if members, ok := c.memberNames(v, *ra.MaxProperties+1); ok {
				h.need = members
			}
			out = append(out, c.errorf(KindMaxProperties, wl, loc(ra, "maxProperties"), wv, *ra.MaxProperties, ip, h, shown, strconv.Itoa(*ra.MaxProperties)))
		}
	}

	// dependentRequired and draft-7 dependencies
	type dep struct {
		key   string
		req   []string
		sch   *jsonschema.Schema
		where string
	}
	var deps []dep
	for _, k := range sortedKeys(ra.DependentRequired) {
		deps = append(deps, dep{key: k, req: ra.DependentRequired[k], where: loc(ra, "dependentRequired", k)})
	}
	for _, k := range sortedKeys(ra.DependentSchemas) {
		deps = append(deps, dep{key: k, sch: ra.DependentSchemas[k], where: loc(ra, "dependentSchemas", k)})
	}
	for _, k := range sortedKeys(ra.Dependencies) {
		switch d := ra.Dependencies[k].(type) {
		case []string:
			deps = append(deps, dep{key: k, req: d, where: loc(ra, "dependencies", k)})
		case *jsonschema.Schema:
			deps = append(deps, dep{key: k, sch: d, where: loc(ra, "dependencies", k)})
		}
	}
	for _, d := range deps {
		wat, forbidden, _, _ := c.wprop(v, d.key)
		if forbidden {
			continue
		}
		// The objects of the writer that have the trigger, with the
		// writer's own dependents applied.
		tbs, _ := c.applyDependents(b.restrict(tObject).with(c.requireAtom([]string{d.key})))
		need := map[string]*jsonschema.Schema{d.key: firstSchema(wat)}
		for _, r := range d.req {
			for _, tb := range tbs {
				if _, ok := c.objView(tb).required[r]; !ok {
					out = append(out, c.errorf(KindDependentRequired, objLoc, d.where, nil, d.req, ip, &hint{drop: r, need: need}, strconv.Quote(r), strconv.Quote(d.key)))
					break
				}
			}
		}
		if d.sch != nil && !isTrue(d.sch) {
			var res []*Finding
			for _, tb := range tbs {
				res = append(res, c.subBranch(tb, d.sch, ip)...)
			}
			if hasErrors(res) {
				// At least an object with the trigger (witness search
				// samples the rest); better, the nested break's document.
				f := c.errorf(KindDependentSchemas, objLoc, d.where, nil, nil, ip,
					&hint{path: ip, need: map[string]*jsonschema.Schema{d.key: firstSchema(wat)}}, strconv.Quote(d.key))
				appendDetail(f, res)
				if h := firstHint(res); h != nil {
					hh := *h
					if len(hh.path) == len(ip)+1 && hh.hasValue && hh.setProp == "" && hh.extend == 0 {
						// A member's value: set it on the object, next to the trigger.
						hh = hint{path: ip, setProp: hh.path[len(ip)], value: hh.value, hasValue: true}
					}
					if hh.need == nil {
						hh.need = map[string]*jsonschema.Schema{}
					} else {
						hh.need = maps.Clone(hh.need)
					}
					hh.need[d.key] = firstSchema(wat)
					f.hint = &hh
				}
				out = append(out, f)
			} else {
				out = append(out, warningsOf(res)...)
			}
		}
	}
	return out
}

// maxMemberWitness bounds the objects built to break a reader's
// maxProperties (larger ones are left to the message).
const maxMemberWitness = 1000

// memberNames picks n property names the writer may send together, each
// with the writer schema its value is sampled from: required names, then
// declared ones, then names of the writer's patterns, then names no
// keyword of the writer mentions. Witness search checks the object.
func (c *checker) memberNames(v *objView, n int) (map[string]*jsonschema.Schema, bool) {
	if n > maxMemberWitness {
		return nil, false
	}
	out := map[string]*jsonschema.Schema{}
	try := func(name string) {
		if len(out) >= n {
			return
		}
		if _, dup := out[name]; dup {
			return
		}
		wat, forbidden, _, _ := c.wprop(v, name)
		if forbidden {
			return
		}
		for _, a := range v.b.pos {
			if pn := a.s.PropertyNames; pn != nil && pn.Validate(name) != nil {
				return
			}
		}
		out[name] = firstSchema(wat)
	}
	for _, name := range sortedKeys(v.required) {
		try(name)
	}
	for _, name := range sortedKeys(v.declared) {
		try(name)
	}
	for _, re := range v.pats {
		base, dec := c.findString(strQuery{want: strAccept{pats: []string{re.String()}, hi: -1}})
		if dec != decideYes {
			continue
		}
		for i := 0; i < 2*n && len(out) < n; i++ {
			if name := base + strconv.Itoa(i); re.MatchString(name) {
				try(name)
			}
		}
	}
	for i := 0; i < 2*n && len(out) < n; i++ {
		try("m" + strconv.Itoa(i))
	}
	return out, len(out) >= n
}

// checkName compares what the writer sends under name n with what the
// reader's properties, patternProperties and additionalProperties allow.
func (c *checker) checkName(v *objView, ra *jsonschema.Schema, n string, wat []atom, declared bool, where place, ip ipath) []*Finding {
	var out []*Finding
	pip := ip.add(n)
	p, matched := ra.Properties[n]
	if matched {
		if p.Bool != nil && !*p.Bool {
			return append(out, c.closedProp(v, n, wat, where, declared, place{ra, []string{"properties", n}}, ip))
		}
		out = append(out, c.propCheck(v, n, wat, declared, where, p, place{ra, []string{"properties", n}}, KindPropertyOpen, pip, ip)...)
	}
	// The reader's patterns apply to its declared names too.
	for _, re := range schemawalk.Patterns(ra) {
		if !re.MatchString(n) {
			continue
		}
		matched = true
		p := ra.PatternProperties[re]
		if p.Bool != nil && !*p.Bool {
			out = append(out, c.closedProp(v, n, wat, where, declared, place{ra, []string{"patternProperties", re.String()}}, ip))
			continue
		}
		out = append(out, c.propCheck(v, n, wat, declared, where, p, place{ra, []string{"patternProperties", re.String()}}, KindPatternProperties, pip, ip)...)
	}
	if matched {
		return out
	}
	switch ap := ra.AdditionalProperties.(type) {
	case bool:
		if !ap {
			out = append(out, c.closedProp(v, n, wat, where, declared, place{ra, []string{"additionalProperties"}}, ip))
		}
	case *jsonschema.Schema:
		out = append(out, c.propCheck(v, n, wat, declared, where, ap, place{ra, []string{"additionalProperties"}}, KindAdditionalProperties, pip, ip)...)
	}
	return out
}

// sides orders writer and reader values as old/new for the direction.
func (c *checker) sides(w, r any) (old, new any) {
	if c.dir == engine.Backward {
		return w, r
	}
	return r, w
}

func firstSchema(atoms []atom) *jsonschema.Schema {
	for _, a := range atoms {
		if !a.borrowed {
			return a.s
		}
	}
	if len(atoms) > 0 {
		return atoms[0].s
	}
	return nil
}

// nestedValue returns the value the first nested error proposes for a
// child of the current instance (depth is the child's path length).
func nestedValue(res []*Finding, depth int) (any, bool) {
	for _, f := range res {
		if f.Severity == "error" && f.hint != nil && f.hint.hasValue && f.hint.setProp == "" && len(f.hint.path) == depth {
			return f.hint.value, true
		}
	}
	return nil, false
}

// propHint builds a hint adding property name with a value from nested
// findings when they propose one, else sampled from the writer's schema.
func propHint(name string, from *jsonschema.Schema, res []*Finding, depth int) *hint {
	h := &hint{setProp: name, propFrom: from}
	if v, ok := nestedValue(res, depth); ok {
		h.value, h.hasValue = v, true
	}
	return h
}

func firstHint(fs []*Finding) *hint {
	for _, f := range fs {
		if f.Severity == "error" && f.hint != nil {
			return f.hint
		}
	}
	return nil
}

func warningsOf(fs []*Finding) []*Finding {
	var out []*Finding
	for _, f := range fs {
		if f.Severity != "error" {
			out = append(out, f)
		}
	}
	return out
}

// appendDetail adds the first nested error's message to a summary finding.
func appendDetail(f *Finding, nested []*Finding) {
	for _, n := range nested {
		if n.Severity == "error" {
			f.Message += ": " + lowerFirst(n.Message)
			if n.InstancePath != "" && n.InstancePath != f.InstancePath {
				f.Message += " at " + n.InstancePath
			}
			if f.hint == nil && n.hint != nil {
				f.hint = n.hint
			}
			return
		}
	}
}

func orPatterns(pats []string) []string {
	if len(pats) == 0 {
		return []string{`[^\x00-\x{10FFFF}]`}
	}
	alts := make([]string, len(pats))
	for i, p := range pats {
		alts[i] = "(?:" + p + ")"
	}
	return []string{strings.Join(alts, "|")}
}

func regexpQuote(s string) string { return regexp.QuoteMeta(s) }

func lowerFirst(s string) string {
	if s == "" || strings.HasPrefix(s, "JSON") {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// closedProp reports a property the writer may send that the reader does
// not allow.
func (c *checker) closedProp(v *objView, n string, wat []atom, wp place, declared bool, rp place, ip ipath) *Finding {
	where, rl := wp.str(), rp.str()
	h := &hint{setProp: n, propFrom: firstSchema(wat)}
	if declared {
		return c.errorf(KindPropertyClosed, where, rl, nil, false, ip, h, strconv.Quote(n))
	}
	f := c.errorf(KindAdditionalProperties, locOf(v.b.pos), rl, nil, false, ip, h)
	f.Message += fmt.Sprintf(" (e.g. %q)", n)
	return f
}

// propCheck compares the writer's value of property n with a reader
// schema. Undeclared writer properties are summarized as one finding of
// kind k (property-added-open and friends) since the nested details are
// about "anything" against the reader's schema.
func (c *checker) propCheck(v *objView, n string, wat []atom, declared bool, wp place, rs *jsonschema.Schema, rp place, k Kind, pip, ip ipath) []*Finding {
	res := c.sub(wat, nil, tAll, rs, pip)
	if declared || !hasErrors(res) {
		return res
	}
	where, rl := wp.str(), rp.str()
	h := &hint{setProp: n, propFrom: firstSchema(wat)}
	if fh := firstHint(res); fh != nil && fh.hasValue && len(fh.path) == len(pip) {
		h = &hint{setProp: n, value: fh.value, hasValue: true}
	}
	var f *Finding
	switch k {
	case KindPropertyOpen:
		f = c.errorf(KindPropertyOpen, where, rl, nil, nil, ip, h, strconv.Quote(n))
	case KindPatternProperties:
		f = c.errorf(KindPatternProperties, where, rl, nil, nil, ip, h, strconv.Quote(n))
	default:
		f = c.errorf(KindAdditionalProperties, where, rl, nil, nil, ip, h)
	}
	appendDetail(f, res)
	return append([]*Finding{f}, warningsOf(res)...)
}

// checkUnevaluated applies a reader's unevaluatedProperties to writer
// properties no reader subschema evaluates for certain.
func (c *checker) checkUnevaluated(v *objView, ra, up *jsonschema.Schema, names map[string]bool, sorted []string, open bool, ip ipath) []*Finding {
	var out []*Finding
	certain := map[string]bool{}
	var pats []jsonschema.Regexp
	for _, s := range readerAtoms(ra) {
		if s.Bool != nil {
			continue
		}
		if s.AdditionalProperties != nil {
			return nil // everything is evaluated
		}
		for n := range s.Properties {
			certain[n] = true
		}
		pats = append(pats, schemawalk.Patterns(s)...)
	}
	for _, n := range sorted {
		if certain[n] || matchesAny(pats, n) {
			continue
		}
		wat, forbidden, declared, where := c.wprop(v, n)
		if forbidden {
			continue
		}
		res := c.sub(wat, nil, tAll, up, ip.add(n))
		if !hasErrors(res) {
			out = append(out, res...)
		} else {
			f := c.errorf(KindUnevaluatedProperties, where.str(), loc(ra, "unevaluatedProperties"), nil, nil, ip, propHint(n, firstSchema(wat), res, len(ip)+1), strconv.Quote(n))
			if !(up.Bool != nil && !*up.Bool) {
				appendDetail(f, res)
			}
			_ = declared
			out = append(out, f)
		}
	}
	if open {
		ok, best, from := c.othersWithin(v, up, ip.add(anyIndex), nil, nil)
		if ok {
			out = append(out, best...)
		} else {
			name := extraName(v, ra, names)
			f := c.errorf(KindUnevaluatedProperties, locOf(v.b.pos), loc(ra, "unevaluatedProperties"), nil, nil, ip, propHint(name, from, best, len(ip)+1), strconv.Quote(name))
			if !isFalse(up) {
				appendDetail(f, best)
			}
			out = append(out, f)
		}
	}
	return out
}

// subExtend checks a writer branch narrowed by extra (writer or borrowed)
// atoms against r.
func (c *checker) subExtend(b branch, extra []atom, r *jsonschema.Schema, ip ipath) []*Finding {
	if len(extra) == 0 {
		return c.subBranch(b, r, ip)
	}
	ebs, ok := c.expand(extra, nil, b.mask)
	var out []*Finding
	if !ok {
		out = append(out, c.warnf(KindIncomplete, locOf(b.pos), r.Location, nil, nil, ip, nil, "too many alternatives"))
	}
	for _, eb := range ebs {
		nb := branch{
			pos:  append(append([]atom(nil), b.pos...), eb.pos...),
			neg:  append(append([]*jsonschema.Schema(nil), b.neg...), eb.neg...),
			mask: b.mask & eb.mask,
		}
		if nb.mask == 0 {
			continue
		}
		out = append(out, c.subBranch(nb, r, ip)...)
	}
	return out
}
