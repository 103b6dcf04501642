package jsoncompat

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// dependentRequired, dependentSchemas and draft-7 dependencies are
// constraints on the objects that have the trigger property. They are
// decided in context: a writer branch that requires the trigger (its own
// `required`, an `if` it is under, a reader's trigger being checked)
// gets the writer's dependent requirements and schemas as atoms, and a
// negative atom that only requires names the branch now requires (the
// `else` side of `if: {required: [a]}`) makes the object part empty.

// requireAtom is a borrowed schema {required: names}, one per name list
// per comparison (memo keys compare atoms by identity).
func (c *checker) requireAtom(names []string) atom {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	key := synthKey{synthRequired, strings.Join(quoted, ",")}
	s, ok := c.requires[key]
	if !ok {
		s = &jsonschema.Schema{Required: append([]string(nil), names...)}
		c.requires[key] = s
	}
	return atom{s: s, borrowed: true}
}

// hasDependents reports whether applyDependents may change b: it has
// dependents, or negates a list of required names.
func (c *checker) hasDependents(b branch) bool {
	for _, a := range b.pos {
		if len(a.s.DependentRequired) > 0 || len(a.s.DependentSchemas) > 0 || len(a.s.Dependencies) > 0 {
			return true
		}
	}
	for _, n := range b.neg {
		if _, ok := c.requiredOnly(n); ok {
			return true
		}
		if _, _, ok := c.propertyOnly(n); ok {
			return true
		}
	}
	return false
}

// nonObjectMatch is the break of a reader's not of an object-only
// keyword (required, properties): every non-object value the writer may
// send matches that keyword, so the `not` rejects it.
func (c *checker) nonObjectMatch(b branch, wl, rl string, ip ipath) *Finding {
	wm := c.effectiveMask(b)
	for _, t := range typeOrder {
		if t == tObject || !wm.has(t) {
			continue
		}
		h := c.valueOfType(b, t)
		if h == nil {
			h = &hint{from: origin(b), fromMask: t}
		}
		return c.errorf(KindNot, wl, rl, nil, nil, ip, h)
	}
	return nil
}

// checkRequiredNot decides a reader's not: {required: names}: it rejects
// every non-object (required applies to objects only) and every object
// with all of the names.
func (c *checker) checkRequiredNot(b branch, names []string, wl, rl string, ip ipath) []*Finding {
	if f := c.nonObjectMatch(b, wl, rl, ip); f != nil {
		return []*Finding{f}
	}
	if !c.effectiveMask(b).has(tObject) {
		return nil
	}
	tbs, _ := c.applyDependents(b.restrict(tObject).with(c.requireAtom(names)))
	for _, tb := range tbs {
		if c.effectiveMask(tb) == 0 {
			continue
		}
		v := c.objView(tb)
		need := map[string]*jsonschema.Schema{}
		for _, n := range names {
			wat, _, _, _ := c.wprop(v, n)
			need[n] = firstSchema(wat)
		}
		return []*Finding{c.errorf(KindNot, wl, rl, nil, nil, ip, &hint{need: need})}
	}
	return nil
}

// maxDependentRounds bounds chains of dependents (a requires b, whose
// dependent schema requires c...).
const maxDependentRounds = 4

// applyDependents returns the object branches of b with the writer's
// dependents of every required name applied (b itself, unchanged and
// alone, when none fires). Empty branches are dropped.
func (c *checker) applyDependents(b branch) (bs []branch, changed bool) {
	cur := []branch{b}
	for round := 0; round < maxDependentRounds; round++ {
		var next []branch
		grew := false
		for _, x := range cur {
			extra := c.firedDependents(x)
			if len(extra) == 0 {
				if !c.requiredNegated(x) {
					next = append(next, x)
				} else {
					grew = true
				}
				continue
			}
			grew = true
			ebs, ok := c.expand(extra, nil, x.mask)
			if !ok {
				return []branch{b}, false // too many alternatives: keep the plain branch
			}
			for _, eb := range ebs {
				nb := branch{
					pos:  append(append([]atom(nil), x.pos...), eb.pos...),
					neg:  append(append([]*jsonschema.Schema(nil), x.neg...), eb.neg...),
					mask: x.mask & eb.mask,
				}
				if nb.mask != 0 && !c.requiredNegated(nb) {
					next = append(next, nb)
				}
			}
		}
		cur = next
		changed = changed || grew
		if !grew {
			break
		}
	}
	return cur, changed
}

// firedDependents lists the writer's dependent atoms whose trigger the
// branch requires and that the branch does not hold yet.
func (c *checker) firedDependents(b branch) []atom {
	v := c.objView(b)
	have := map[*jsonschema.Schema]bool{}
	for _, a := range b.pos {
		have[a.s] = true
	}
	var extra []atom
	addReq := func(names []string) {
		var missing []string
		for _, n := range names {
			if _, ok := v.required[n]; !ok {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			sort.Strings(missing)
			extra = append(extra, c.requireAtom(missing))
		}
	}
	// A dependent schema is the writer's own (the lenient profile closes
	// it, as Close does), unless its owner was borrowed.
	addSchema := func(s *jsonschema.Schema, borrowed bool) {
		if s != nil && !have[s] {
			have[s] = true
			extra = append(extra, atom{s: s, borrowed: borrowed})
		}
	}
	for _, a := range b.pos {
		s := a.s
		for _, k := range sortedKeys(v.required) {
			if req, ok := s.DependentRequired[k]; ok {
				addReq(req)
			}
			addSchema(s.DependentSchemas[k], a.borrowed)
			switch d := s.Dependencies[k].(type) {
			case []string:
				addReq(d)
			case *jsonschema.Schema:
				addSchema(d, a.borrowed)
			}
		}
	}
	// not: {required: [a, b]} with a required leaves b absent.
	for _, n := range b.neg {
		names, ok := c.requiredOnly(n)
		if !ok {
			continue
		}
		var missing []string
		for _, r := range names {
			if _, ok := v.required[r]; !ok {
				missing = append(missing, r)
			}
		}
		if len(missing) == 1 {
			if _, forbidden, _, _ := c.wprop(v, missing[0]); !forbidden {
				extra = append(extra, c.forbidAtom(missing[0]))
			}
		}
	}
	// not: {properties: {a: S}} holds for objects that have a, valued
	// outside S.
	for _, n := range b.neg {
		name, ps, ok := c.propertyOnly(n)
		if !ok {
			continue
		}
		if _, req := v.required[name]; !req {
			extra = append(extra, c.requireAtom([]string{name}))
		}
		if na := c.negPropAtom(n, name, ps); !have[na.s] {
			have[na.s] = true
			extra = append(extra, na)
		}
	}
	return extra
}

// propertyOnly reads n as {properties: {name: S}} and nothing else.
func (c *checker) propertyOnly(n *jsonschema.Schema) (string, *jsonschema.Schema, bool) {
	if n == nil || n.Bool != nil || len(n.Properties) != 1 {
		return "", nil, false
	}
	if !newEqualizer().equal(n, &jsonschema.Schema{Properties: n.Properties}) {
		return "", nil, false
	}
	for name, ps := range n.Properties {
		return name, ps, true
	}
	return "", nil, false
}

// negPropAtom is a borrowed {properties: {name: {not: S}}}, one per n.
func (c *checker) negPropAtom(n *jsonschema.Schema, name string, ps *jsonschema.Schema) atom {
	key := synthKey{synthNegProp, strconv.Itoa(c.id(n))}
	s, ok := c.requires[key]
	if !ok {
		s = &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{name: {Not: ps}}}
		c.requires[key] = s
	}
	return atom{s: s, borrowed: true}
}

// requiredOnly reads n as {required: names} and nothing else.
func (c *checker) requiredOnly(n *jsonschema.Schema) ([]string, bool) {
	if n == nil || n.Bool != nil || len(n.Required) == 0 {
		return nil, false
	}
	if !newEqualizer().equal(n, &jsonschema.Schema{Required: n.Required}) {
		return nil, false
	}
	return n.Required, true
}

// forbidAtom is a borrowed schema {properties: {name: false}}.
func (c *checker) forbidAtom(name string) atom {
	key := synthKey{synthForbid, name}
	s, ok := c.requires[key]
	if !ok {
		f := false
		s = &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{name: {Bool: &f}}}
		c.requires[key] = s
	}
	return atom{s: s, borrowed: true}
}

// requiredNegated reports whether an object branch has a negative atom
// that only requires names the branch requires: no object is left.
func (c *checker) requiredNegated(b branch) bool {
	if len(b.neg) == 0 {
		return false
	}
	v := c.objView(b)
	for _, n := range b.neg {
		names, ok := c.requiredOnly(n)
		if !ok {
			continue
		}
		all := true
		for _, r := range names {
			if _, ok := v.required[r]; !ok {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// checkPropertyNot decides a reader's not: {properties: {name: S}}: it
// rejects every non-object, every object without name (properties holds
// on it) and every object whose name is valued in S.
func (c *checker) checkPropertyNot(b branch, name string, ps *jsonschema.Schema, wl, rl string, ip ipath) []*Finding {
	if f := c.nonObjectMatch(b, wl, rl, ip); f != nil {
		return []*Finding{f}
	}
	if !c.effectiveMask(b).has(tObject) {
		return nil
	}
	absent, _ := c.applyDependents(b.restrict(tObject).with(c.forbidAtom(name)))
	for _, ab := range absent {
		if _, required := c.objView(ab).required[name]; !required && !c.branchEmpty(ab) {
			return []*Finding{c.errorf(KindNot, wl, rl, nil, nil, ip, &hint{drop: name})}
		}
	}
	tbs, _ := c.applyDependents(b.restrict(tObject).with(c.requireAtom([]string{name})))
	var undecided []*Finding
	for _, tb := range tbs {
		if c.effectiveMask(tb) == 0 {
			continue
		}
		v := c.objView(tb)
		wat, forbidden, _, _ := c.wprop(v, name)
		if forbidden {
			continue
		}
		if vals, finite := finiteValues(ps); finite {
			for _, x := range vals {
				if ps.Validate(x) == nil && atomsAccept(wat, x) {
					return []*Finding{c.errorf(KindNot, wl, rl, nil, nil, ip, &hint{setProp: name, value: x, hasValue: true})}
				}
			}
			continue
		}
		bs, ok := c.expand(wat, nil, tAll)
		all := ok
		for _, pb := range bs {
			if !c.disjoint(pb, ps, 0) {
				all = false
				break
			}
		}
		if all {
			continue
		}
		if clean(c.sub(wat, nil, tAll, ps, ip.add(name))) {
			return []*Finding{c.errorf(KindNot, wl, rl, nil, nil, ip, &hint{setProp: name, propFrom: firstSchema(wat)})}
		}
		f := c.warnf(KindNot, wl, rl, nil, nil, ip, &hint{setProp: name, propFrom: ps})
		f.Message = fmt.Sprintf("Could not show that no value the %s schema allows matches the %s schema's `not` schema; witness search decides", c.dir.Writer(), c.dir.Reader())
		undecided = append(undecided, f)
	}
	if len(undecided) > 0 {
		return undecided[:1]
	}
	return nil
}

// finiteValues returns the values of a const or enum schema (of its
// first atom that has one).
func finiteValues(s *jsonschema.Schema) ([]any, bool) {
	for _, a := range readerAtoms(s) {
		if vals, ok := ownValues(a); ok {
			return vals, true
		}
	}
	return nil, false
}

// ownValues returns the values a schema's own const or enum allows.
func ownValues(s *jsonschema.Schema) ([]any, bool) {
	switch {
	case s.Const != nil:
		return []any{*s.Const}, true
	case s.Enum != nil:
		return s.Enum.Values, true
	}
	return nil, false
}

func atomsAccept(atoms []atom, v any) bool {
	for _, a := range atoms {
		if a.s.Validate(v) != nil {
			return false
		}
	}
	return true
}
