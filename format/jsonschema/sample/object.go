package sample

import (
	"maps"
	"slices"
	"strings"

	"github.com/evtool/evtool/internal/schemawalk"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// inSubtree reports whether leaf j was reached from leaf u (or is u).
func (f *flat) inSubtree(j, u int) bool {
	for k := j; k >= 0; k = f.leaves[k].parent {
		if k == u {
			return true
		}
	}
	return false
}

// propCovered reports whether property name is evaluated by a schema in the
// subtree of leaf u (for u's unevaluatedProperties).
func (f *flat) propCovered(u int, name string) bool {
	for j, l := range f.leaves {
		if !f.inSubtree(j, u) {
			continue
		}
		s := l.n.s
		if _, ok := s.Properties[name]; ok {
			return true
		}
		if s.AdditionalProperties != nil {
			return true
		}
		if j != u && s.UnevaluatedProperties != nil {
			return true
		}
		for re := range s.PatternProperties {
			if re.MatchString(name) {
				return true
			}
		}
	}
	return false
}

// propSchemas returns the schemas a property's value must satisfy, or an
// error when some schema forbids the name.
func (g *gen) propSchemas(f *flat, name string) ([]node, *UnsatisfiableError) {
	var out []node
	add := func(l leaf, s *jsonschema.Schema, kw string) *UnsatisfiableError {
		if s.Bool != nil {
			if *s.Bool {
				return nil
			}
			return unsat(l.n.s, kw, "property "+quoteName(name)+" is not allowed")
		}
		out = append(out, l.n.child(s))
		return nil
	}
	for i, l := range f.leaves {
		s := l.n.s
		matched := false
		if p, ok := s.Properties[name]; ok {
			matched = true
			if e := add(l, p, "properties"); e != nil {
				return nil, e
			}
		}
		for _, re := range schemawalk.Patterns(s) {
			if re.MatchString(name) {
				matched = true
				if e := add(l, s.PatternProperties[re], "patternProperties"); e != nil {
					return nil, e
				}
			}
		}
		if !matched {
			switch a := s.AdditionalProperties.(type) {
			case bool:
				if !a {
					return nil, unsat(s, "additionalProperties", "property "+quoteName(name)+" is not allowed")
				}
			case *jsonschema.Schema:
				if e := add(l, a, "additionalProperties"); e != nil {
					return nil, e
				}
			}
		}
		if s.PropertyNames != nil && s.PropertyNames.Validate(name) != nil {
			return nil, unsat(s, "propertyNames", "property name "+quoteName(name)+" is not allowed")
		}
		if s.UnevaluatedProperties != nil && !f.propCovered(i, name) {
			if e := add(l, s.UnevaluatedProperties, "unevaluatedProperties"); e != nil {
				return nil, e
			}
		}
	}
	return out, nil
}

func quoteName(s string) string { return "\"" + strings.ReplaceAll(s, "\"", "\\\"") + "\"" }

type objPlan struct {
	names    []string
	has      map[string]bool
	required map[string]bool
}

func (p *objPlan) add(name string, req bool) bool {
	if req {
		p.required[name] = true
	}
	if p.has[name] {
		return false
	}
	p.has[name] = true
	p.names = append(p.names, name)
	return true
}

// closeDeps adds what present names require: dependentRequired and draft 7
// dependencies (names), dependentSchemas and dependencies (schemas, expanded
// into f as if they were allOf of the leaf that declares them), and the
// required names of any leaf added.
func (g *gen) closeDeps(f *flat, p *objPlan, depth int, done map[string]bool) {
	for round := 0; round < 32; round++ {
		changed := false
		for _, l := range f.leaves {
			for _, r := range l.n.s.Required {
				if p.add(r, true) {
					changed = true
				}
			}
		}
		for i := 0; i < len(f.leaves); i++ {
			l := f.leaves[i]
			s := l.n.s
			for _, name := range p.names {
				key := l.n.s.Location + "\x00" + name
				if done[key] {
					continue
				}
				trig := false
				if req, ok := s.DependentRequired[name]; ok {
					trig = true
					for _, r := range req {
						p.add(r, true)
					}
				}
				if ds, ok := s.DependentSchemas[name]; ok {
					trig = true
					g.expand(f, l.n.child(ds), i, depth)
				}
				if d, ok := s.Dependencies[name]; ok {
					trig = true
					switch d := d.(type) {
					case []string:
						for _, r := range d {
							p.add(r, true)
						}
					case *jsonschema.Schema:
						g.expand(f, l.n.child(d), i, depth)
					}
				}
				if trig {
					done[key] = true
					changed = true
				}
			}
		}
		if !changed {
			return
		}
	}
}

func (g *gen) genObject(f *flat, depth int) (any, error) {
	deep := g.deep(depth)
	p := &objPlan{has: map[string]bool{}, required: map[string]bool{}}
	done := map[string]bool{}
	g.closeDeps(f, p, depth, done)
	if f.falseAt != nil {
		return nil, unsat(f.falseAt, "false", "a dependent schema is false")
	}

	minP, maxP := 0, -1
	var minAt, maxAt *jsonschema.Schema
	limits := func() {
		for _, l := range f.leaves {
			s := l.n.s
			if s.MinProperties != nil && *s.MinProperties > minP {
				minP, minAt = *s.MinProperties, s
			}
			if s.MaxProperties != nil && (maxP < 0 || *s.MaxProperties < maxP) {
				maxP, maxAt = *s.MaxProperties, s
			}
		}
	}
	limits()
	forbidden := map[string]*neg{}
	negLimits := func() {
		for i := range f.nots {
			n := &f.nots[i]
			switch soleKeyword(n.s) {
			case "maxProperties":
				if m := *n.s.MaxProperties + 1; m > minP {
					minP, minAt = m, n.at
				}
			case "minProperties":
				if m := *n.s.MinProperties - 1; maxP < 0 || m < maxP {
					maxP, maxAt = max(m, 0), n.at
				}
			case "required":
				if len(n.s.Required) == 1 {
					forbidden[n.s.Required[0]] = n
				}
			}
		}
	}
	negLimits()
	for _, name := range slices.Sorted(maps.Keys(forbidden)) {
		if n := forbidden[name]; p.has[name] {
			return nil, unsat(n.at, n.kw, "property "+quoteName(name)+" is both required and excluded")
		}
	}
	for _, name := range p.names {
		if _, e := g.propSchemas(f, name); e != nil {
			return nil, e
		}
	}
	if maxP >= 0 && len(p.names) > maxP {
		return nil, unsat(maxAt, "maxProperties", "more properties are required than maxProperties allows")
	}
	if maxP >= 0 && minP > maxP {
		return nil, unsat(maxAt, "maxProperties", "maxProperties is below minProperties")
	}

	room := func() bool { return maxP < 0 || len(p.names) < maxP }
	allowed := func(name string) bool {
		if p.has[name] || forbidden[name] != nil {
			return false
		}
		nodes, e := g.propSchemas(f, name)
		if e != nil {
			return false
		}
		// A name whose schemas ask for types no value has (a declared
		// string property that a pattern's schema wants an integer) is
		// one no value can be generated for: not a name to add.
		mask := tAll
		for _, n := range nodes {
			mask &= typeMask(n.s.Types)
		}
		return mask != 0
	}
	// tryAdd adds an optional name unless its dependencies make the plan
	// exceed maxProperties or require a forbidden name.
	tryAdd := func(name string) {
		n0 := len(p.names)
		p.add(name, false)
		g.closeDeps(f, p, depth, done)
		limits()
		negLimits()
		bad := maxP >= 0 && len(p.names) > maxP
		for _, nm := range p.names[n0:] {
			if bad {
				break
			}
			if _, e := g.propSchemas(f, nm); e != nil || forbidden[nm] != nil {
				bad = true
			}
		}
		if bad {
			for _, nm := range p.names[n0:] {
				delete(p.has, nm)
				delete(p.required, nm)
			}
			p.names = p.names[:n0]
		}
	}

	// optional declared properties
	declared := map[string]bool{}
	for _, l := range f.leaves {
		for name := range l.n.s.Properties {
			declared[name] = true
		}
	}
	// names a negated schema talks about: adding them (with values drawn
	// from the positive schemas only) is how a value escapes the negation
	ownNames := len(declared)
	var negLeaves []node
	for _, n := range f.nots {
		negLeaves = append(negLeaves, n.node)
	}
	for _, n := range mayLeaves(negLeaves) {
		for name := range n.s.Properties {
			declared[name] = true
		}
		for _, name := range n.s.Required {
			declared[name] = true
		}
		for name := range n.s.DependentRequired {
			declared[name] = true
		}
		for name := range n.s.DependentSchemas {
			declared[name] = true
		}
		for _, re := range schemawalk.Patterns(n.s) {
			c := &strCons{maxL: -1, pats: []jsonschema.Regexp{re}}
			if name, ok, _ := g.patternString(c); ok {
				declared[name] = true
			}
		}
	}
	optional := slices.Sorted(maps.Keys(declared))
	g.rng.Shuffle(len(optional), func(i, j int) { optional[i], optional[j] = optional[j], optional[i] })
	prob := 2 // in 4
	if g.opts.Boundary {
		prob = 4 * g.rng.IntN(2) // none or all
	}
	if deep {
		prob = 0
	}
	var skipped []string
	for _, name := range optional {
		if !room() || !allowed(name) {
			continue
		}
		if g.rng.IntN(4) < prob {
			tryAdd(name)
		} else {
			skipped = append(skipped, name)
		}
	}

	// minProperties: more declared names, then pattern names, then free names
	for _, name := range skipped {
		if len(p.names) >= minP || !room() {
			break
		}
		if allowed(name) {
			tryAdd(name)
		}
	}
	// extras: sometimes a name matching patternProperties; for objects that
	// declare no properties, a few free names
	extra, free := 0, false
	if !deep && (!g.opts.Boundary || prob == 4) {
		if ownNames == 0 {
			extra, free = g.rng.IntN(3), true
		} else if g.rng.IntN(4) == 0 {
			extra = 1
		}
	}
	// Only attempts in a row that add no name count against the limit: a
	// minProperties of hundreds filled from patternProperties needs as many
	// successful draws, and draws collide more as names fill up (each one
	// ticks the step budget, which bounds them all).
	for tries, failed := 0, 0; (len(p.names) < minP || extra > 0) && room() && failed < 64; tries++ {
		if err := g.tick(); err != nil {
			return nil, err
		}
		n0 := len(p.names)
		name, ok := g.newName(f, tries, extra > 0 && !free && len(p.names) >= minP, func(n string) bool { return p.has[n] || !allowed(n) })
		if !ok {
			if extra > 0 && len(p.names) >= minP {
				break
			}
			failed++
			continue
		}
		if allowed(name) {
			tryAdd(name)
			if len(p.names) > minP || extra > 0 {
				extra = max(extra-1, 0)
			}
		}
		if len(p.names) == n0 {
			failed++
		} else {
			failed = 0
		}
	}
	if len(p.names) < minP {
		return nil, unsat(minAt, "minProperties", "not enough allowed property names")
	}

	obj := make(map[string]any, len(p.names))
	for _, name := range p.names {
		nodes, e := g.propSchemas(f, name)
		if e != nil {
			return nil, e
		}
		v, err := g.value(conj{pos: nodes}, depth+1)
		if err != nil {
			if isBudget(err) || p.required[name] || len(obj) < minP && len(p.names) <= minP {
				return nil, err
			}
			continue
		}
		obj[name] = v
	}
	return obj, nil
}

// newName proposes a property name: from a patternProperties regex, from the
// propertyNames schemas, or a plain word. patternOnly limits it to pattern
// names (used for optional extras).
func (g *gen) newName(f *flat, try int, patternOnly bool, taken func(string) bool) (string, bool) {
	var pats []jsonschema.Regexp
	var names []node
	for _, l := range f.leaves {
		pats = append(pats, schemawalk.Patterns(l.n.s)...)
		if l.n.s.PropertyNames != nil {
			names = append(names, l.n.child(l.n.s.PropertyNames))
		}
	}
	if len(pats) > 0 && (patternOnly || try%3 != 2) {
		re := pats[g.rng.IntN(len(pats))]
		c := &strCons{maxL: -1, pats: []jsonschema.Regexp{re}}
		s, ok, _ := g.patternString(c)
		if ok && taken(s) {
			// A pattern's shortest strings repeat (a literal prefix is all
			// "^p_" asks for), or are names that cannot be added (a
			// declared property whose schema contradicts the pattern's):
			// another name it matches has more around it.
			for range 4 {
				t := g.randAffix(s)
				if re.MatchString(t) && !taken(t) {
					return t, true
				}
			}
		}
		return s, ok
	}
	if patternOnly {
		return "", false
	}
	if len(names) > 0 {
		nf := g.flatten(conj{pos: names}, 0)
		if nf.falseAt != nil {
			return "", false
		}
		if nf.enumOrConst() {
			v, err := g.value(conj{pos: names}, 0)
			s, ok := v.(string)
			return s, err == nil && ok
		}
		v, err := g.genString(nf, 0)
		if err != nil {
			return "", false
		}
		return v.(string), true
	}
	return g.randWord(), true
}

func (f *flat) enumOrConst() bool {
	for _, l := range f.leaves {
		if l.n.s.Enum != nil || l.n.s.Const != nil {
			return true
		}
	}
	return false
}

var words = []string{"id", "name", "kind", "value", "note", "extra", "meta", "tag", "ref", "data", "info", "label"}

// randAffix puts one to three random letters or digits after s or, one
// time in three, before it.
func (g *gen) randAffix(s string) string {
	var b strings.Builder
	for range 1 + g.rng.IntN(3) {
		b.WriteByte(alnum[g.rng.IntN(len(alnum))])
	}
	if g.rng.IntN(3) == 0 {
		return b.String() + s
	}
	return s + b.String()
}

func (g *gen) randWord() string {
	w := words[g.rng.IntN(len(words))]
	if g.rng.IntN(2) == 0 {
		w += string(lower[g.rng.IntN(len(lower))]) + string(alnum[g.rng.IntN(len(alnum))])
	}
	return w
}
