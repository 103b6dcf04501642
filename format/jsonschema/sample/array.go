package sample

import (
	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

type containsCons struct {
	n        node
	leaf     int
	min, max int // max < 0: unbounded
	at       *jsonschema.Schema
}

// is2020 reports whether s uses prefixItems/items (2020-12) rather than
// items/additionalItems (draft 2019-09 and older).
func is2020(s *jsonschema.Schema) bool { return s.DraftVersion >= 2020 }

// itemCap is the largest length items/additionalItems false allow, or -1.
func itemCap(s *jsonschema.Schema) int {
	isFalse := func(x any) bool {
		switch x := x.(type) {
		case bool:
			return !x
		case *jsonschema.Schema:
			return x != nil && x.Bool != nil && !*x.Bool
		}
		return false
	}
	if is2020(s) {
		if s.Items2020 != nil && isFalse(s.Items2020) {
			return len(s.PrefixItems)
		}
		return -1
	}
	switch it := s.Items.(type) {
	case *jsonschema.Schema:
		if isFalse(it) {
			return 0
		}
	case []*jsonschema.Schema:
		if isFalse(s.AdditionalItems) {
			return len(it)
		}
	}
	return -1
}

// itemCovered reports whether index i is evaluated by a schema in the
// subtree of leaf u (for u's unevaluatedItems). inContains[j] says whether
// i was placed to match leaf j's contains.
func (f *flat) itemCovered(u, i int, inContains func(j int) bool) bool {
	for j, l := range f.leaves {
		if !f.inSubtree(j, u) {
			continue
		}
		s := l.n.s
		if j != u && s.UnevaluatedItems != nil {
			return true
		}
		if is2020(s) {
			if i < len(s.PrefixItems) || s.Items2020 != nil {
				return true
			}
			if s.Contains != nil && inContains(j) {
				return true
			}
			continue
		}
		switch it := s.Items.(type) {
		case *jsonschema.Schema:
			return true
		case []*jsonschema.Schema:
			if i < len(it) || s.AdditionalItems != nil {
				return true
			}
		}
	}
	return false
}

// itemSchemas returns the schemas item i must satisfy.
func (f *flat) itemSchemas(i int, inContains func(j int) bool) ([]node, *UnsatisfiableError) {
	var out []node
	add := func(l leaf, s *jsonschema.Schema, kw string) *UnsatisfiableError {
		if s.Bool != nil {
			if *s.Bool {
				return nil
			}
			return unsat(l.n.s, kw, "no item allowed at this index")
		}
		out = append(out, l.n.child(s))
		return nil
	}
	for u, l := range f.leaves {
		s := l.n.s
		var e *UnsatisfiableError
		if is2020(s) {
			if i < len(s.PrefixItems) {
				e = add(l, s.PrefixItems[i], "prefixItems")
			} else if s.Items2020 != nil {
				e = add(l, s.Items2020, "items")
			}
		} else {
			switch it := s.Items.(type) {
			case *jsonschema.Schema:
				e = add(l, it, "items")
			case []*jsonschema.Schema:
				if i < len(it) {
					e = add(l, it[i], "items")
				} else {
					switch a := s.AdditionalItems.(type) {
					case bool:
						if !a {
							e = unsat(s, "additionalItems", "no item allowed beyond items")
						}
					case *jsonschema.Schema:
						e = add(l, a, "additionalItems")
					}
				}
			}
		}
		if e != nil {
			return nil, e
		}
		if s.UnevaluatedItems != nil && !f.itemCovered(u, i, func(j int) bool { return inContains(j) }) {
			if e := add(l, s.UnevaluatedItems, "unevaluatedItems"); e != nil {
				return nil, e
			}
		}
	}
	return out, nil
}

func (g *gen) genArray(f *flat, depth int) (any, error) {
	deep := g.deep(depth)
	minI, maxI := 0, -1
	var minAt, maxAt *jsonschema.Schema
	maxKw := "maxItems"
	unique := false
	var uniqueAt *jsonschema.Schema
	var cons []containsCons
	prefix := 0
	for i, l := range f.leaves {
		s := l.n.s
		if s.MinItems != nil && *s.MinItems > minI {
			minI, minAt = *s.MinItems, s
		}
		if s.MaxItems != nil && (maxI < 0 || *s.MaxItems < maxI) {
			maxI, maxAt, maxKw = *s.MaxItems, s, "maxItems"
		}
		if c := itemCap(s); c >= 0 && (maxI < 0 || c < maxI) {
			maxI, maxAt, maxKw = c, s, "items"
		}
		if s.UniqueItems && !unique {
			unique, uniqueAt = true, s
		}
		if s.Contains != nil {
			c := containsCons{n: l.n.child(s.Contains), leaf: i, min: 1, max: -1, at: s}
			if s.MinContains != nil {
				c.min = *s.MinContains
			}
			if s.MaxContains != nil {
				c.max = *s.MaxContains
			}
			if c.max >= 0 && c.min > c.max {
				return nil, unsat(s, "maxContains", "maxContains is below minContains")
			}
			if s.Contains.Bool != nil && !*s.Contains.Bool {
				if c.min > 0 {
					return nil, unsat(s, "contains", "contains is the false schema")
				}
				continue
			}
			cons = append(cons, c)
		}
		if n := len(s.PrefixItems); n > prefix {
			prefix = n
		}
		if it, ok := s.Items.([]*jsonschema.Schema); ok && len(it) > prefix {
			prefix = len(it)
		}
	}
	for _, n := range f.nots {
		switch soleKeyword(n.s) {
		case "maxItems":
			if m := *n.s.MaxItems + 1; m > minI {
				minI, minAt = m, n.at
			}
		case "minItems":
			if m := *n.s.MinItems - 1; maxI < 0 || m < maxI {
				if m < 0 {
					return nil, unsat(n.at, n.kw, "no array is shorter than 0")
				}
				maxI, maxAt, maxKw = m, n.at, n.kw
			}
		}
	}
	lo := minI
	loKw, loAt := "minItems", minAt
	for _, c := range cons {
		if c.min > lo {
			lo, loKw, loAt = c.min, "minContains", c.at
		}
	}
	if maxI >= 0 && lo > maxI {
		if loKw == "minItems" {
			return nil, unsat(maxAt, maxKw, "maxItems is below minItems")
		}
		return nil, unsat(loAt, loKw, "more matching items are required than the array may hold")
	}
	if lo > maxGenItems {
		return nil, unsat(loAt, loKw, "too many items required for the sampler")
	}

	// length
	capN := lo + g.opts.MaxItems
	if prefix > 0 && prefix <= 64 {
		capN = max(capN, prefix+1)
	}
	if maxI >= 0 {
		capN = min(capN, maxI)
	}
	// items that no schema allows (unevaluatedItems false, ...)
	for i := 0; i < capN; i++ {
		if _, e := f.itemSchemas(i, func(int) bool { return false }); e != nil {
			if i >= lo {
				capN = i
			}
			break
		}
	}
	n := lo
	switch {
	case deep:
	case g.opts.Boundary:
		if g.rng.IntN(2) == 0 {
			if maxI >= 0 && maxI <= lo+64 {
				n = maxI
			} else {
				n = capN
			}
		}
	default:
		n = lo + g.rng.IntN(capN-lo+1)
		if prefix > 0 && n < prefix && g.rng.IntN(2) == 0 {
			n = min(prefix, capN)
		}
	}

	// place contains matches
	assigned := make([][]bool, len(cons)) // assigned[c][i]
	for ci, c := range cons {
		assigned[ci] = make([]bool, n)
		k := c.min
		if c.max != 0 && k < n && !g.opts.Boundary && g.rng.IntN(2) == 0 {
			hi := n
			if c.max >= 0 {
				hi = min(hi, c.max)
			}
			k += g.rng.IntN(hi - k + 1)
		}
		for _, i := range g.rng.Perm(n)[:min(k, n)] {
			assigned[ci][i] = true
		}
	}

	arr := make([]any, 0, n)
	for i := 0; i < n; i++ {
		inContains := func(j int) bool {
			for ci, c := range cons {
				if c.leaf == j && assigned[ci][i] {
					return true
				}
			}
			return false
		}
		pos, e := f.itemSchemas(i, inContains)
		if e != nil {
			return nil, e
		}
		var neg []node
		for ci, c := range cons {
			if assigned[ci][i] {
				pos = append(pos, c.n)
			} else if c.max >= 0 {
				neg = append(neg, c.n)
			}
		}
		var item any
		var err error
		boundary := g.opts.Boundary
		for t := 0; t < 12; t++ {
			item, err = g.value(conj{pos: pos, neg: neg}, depth+1)
			if err != nil {
				break
			}
			if !unique || !containsEqual(arr, item) {
				break
			}
			err = unsat(uniqueAt, "uniqueItems", "could not generate distinct items")
			g.opts.Boundary = false // boundary values repeat; vary instead
		}
		g.opts.Boundary = boundary
		if err != nil {
			return nil, err
		}
		arr = append(arr, item)
	}
	return arr, nil
}

func containsEqual(arr []any, v any) bool {
	for _, a := range arr {
		if jsonvalue.Equal(a, v) {
			return true
		}
	}
	return false
}
