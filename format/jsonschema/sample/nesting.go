package sample

import (
	"github.com/evtool/evtool/internal/schemawalk"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// lexicalDepth returns how deeply subschemas nest inside one another
// without a reference in between, the deepest of every schema reachable
// from s. An instance of a schema without recursion is never nested
// deeper than that, so the generator's depth limit, which stops a
// recursion that has no finite instance, starts counting above it: fifty
// nested required objects are a deep schema, not a recursive one.
func lexicalDepth(s *jsonschema.Schema) int {
	memo := map[*jsonschema.Schema]int{}
	reached := map[*jsonschema.Schema]bool{}
	var refs []*jsonschema.Schema
	var depth func(s *jsonschema.Schema) int
	depth = func(s *jsonschema.Schema) int {
		if d, ok := memo[s]; ok {
			return d
		}
		memo[s] = 0 // a lexical cycle cannot happen; a reference cycle is not followed
		d := 0
		for _, c := range lexicalChildren(s, &refs) {
			d = max(d, 1+depth(c))
		}
		memo[s] = d
		return d
	}
	deepest := 0
	refs = append(refs, s)
	for len(refs) > 0 {
		r := refs[len(refs)-1]
		refs = refs[:len(refs)-1]
		if reached[r] {
			continue
		}
		reached[r] = true
		deepest = max(deepest, depth(r))
	}
	return deepest
}

// lexicalChildren returns s's subschemas but the targets of its
// references, which it appends to refs.
func lexicalChildren(s *jsonschema.Schema, refs *[]*jsonschema.Schema) []*jsonschema.Schema {
	if s == nil || s.Bool != nil {
		return nil
	}
	skip := []*jsonschema.Schema{s.Ref, s.RecursiveRef}
	if s.DynamicRef != nil {
		skip = append(skip, s.DynamicRef.Ref)
	}
	var out []*jsonschema.Schema
	for _, c := range schemawalk.Children(s) {
		if i := indexOf(skip, c); i >= 0 {
			// once each: a reference to a schema that is also one of
			// s's own subschemas leaves that subschema counted
			skip[i] = nil
			*refs = append(*refs, c)
			continue
		}
		out = append(out, c)
	}
	return out
}

func indexOf(xs []*jsonschema.Schema, x *jsonschema.Schema) int {
	for i, y := range xs {
		if y != nil && y == x {
			return i
		}
	}
	return -1
}
