package jsoncompat

import (
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"

	"github.com/evtool/evtool/internal/schemawalk"
)

// The lenient profile's writer is the schema with every object closed to
// the names it declares (never below `not` or `if`, where a stricter
// schema would loosen the whole): the names of the schemas applied to it
// in place together (see group), unless one of them sets
// additionalProperties, patternProperties or unevaluatedProperties.
// closedOK decides it on a document without compiling anything. Close
// builds the view as a document, object schema by object schema: the two
// agree but where an object's properties are split between in-place
// subschemas, which Close closes part by part (refusing each other's
// names) and closedOK as a whole.

// closedOK reports whether v, valid under s, respects the closure
// everywhere the validator evaluates s on it.
func closedOK(v any, s *jsonschema.Schema) bool {
	return (&closer{seen: map[closeKey]bool{}, groups: map[*jsonschema.Schema]*group{}}).ok(v, s, 0, false)
}

type closeKey struct {
	s *jsonschema.Schema
	v any
}

type closer struct {
	seen   map[closeKey]bool
	groups map[*jsonschema.Schema]*group
}

// group is what the schemas applied in place to one object (s itself,
// and through $ref, $dynamicRef, allOf, anyOf, oneOf, then/else and
// dependentSchemas) declare together. An object whose properties are
// split between them ({"$ref": "base.json", "properties": {...}}, an allOf
// of parts) is closed to all of their names: closed schema by schema,
// each part would refuse the others' names, and the lenient view of such a
// writer would hold no document at all.
type group struct {
	declared map[string]bool
	closed   bool
}

// groupOf computes s's group: closed when a member declares properties,
// none sets additionalProperties, patternProperties or
// unevaluatedProperties (an explicit word on other names), and every name
// a member requires is declared by one (see implicitlyClosed).
func (c *closer) groupOf(s *jsonschema.Schema) *group {
	if g, ok := c.groups[s]; ok {
		return g
	}
	g := &group{declared: map[string]bool{}}
	c.groups[s] = g
	var required []string
	open, declares := false, false
	seen := map[*jsonschema.Schema]bool{}
	var walk func(x *jsonschema.Schema, depth int)
	walk = func(x *jsonschema.Schema, depth int) {
		if x == nil || x.Bool != nil || seen[x] || depth > 64 {
			return
		}
		seen[x] = true
		if x.AdditionalProperties != nil || x.PatternProperties != nil || x.UnevaluatedProperties != nil {
			open = true
		}
		if x.Properties != nil {
			declares = true
		}
		for name := range x.Properties {
			g.declared[name] = true
		}
		required = append(required, x.Required...)
		in := []*jsonschema.Schema{x.Ref, x.RecursiveRef, x.Then, x.Else}
		if x.DynamicRef != nil {
			in = append(in, x.DynamicRef.Ref)
		}
		in = append(in, x.AllOf...)
		in = append(in, x.AnyOf...)
		in = append(in, x.OneOf...)
		for _, d := range x.DependentSchemas {
			in = append(in, d)
		}
		for _, d := range x.Dependencies {
			if ds, ok := d.(*jsonschema.Schema); ok {
				in = append(in, ds)
			}
		}
		for _, y := range in {
			walk(y, depth+1)
		}
	}
	walk(s, 0)
	g.closed = declares && !open
	for _, n := range required {
		if !g.declared[n] {
			g.closed = false
		}
	}
	return g
}

// ok reports whether v respects the closure under s. inPlace: s applies
// to v in place of a schema already checked for v (the group's check was
// made there).
func (c *closer) ok(v any, s *jsonschema.Schema, depth int, inPlace bool) bool {
	if s == nil || s.Bool != nil || depth > 400 {
		return true
	}
	switch v.(type) {
	case map[string]any, []any:
		// Composite values are compared by identity: a cycle through
		// in-place applicators ($ref to an ancestor) is evaluated once.
		k := closeKey{s, keyOf(v)}
		if c.seen[k] {
			return true
		}
		c.seen[k] = true
	}
	obj, isObj := v.(map[string]any)
	if isObj && !inPlace {
		if g := c.groupOf(s); g.closed {
			for k := range obj {
				if !g.declared[k] {
					return false
				}
			}
		}
	}
	for _, x := range []*jsonschema.Schema{s.Ref, s.RecursiveRef} {
		if !c.ok(v, x, depth+1, true) {
			return false
		}
	}
	if s.DynamicRef != nil && !c.ok(v, s.DynamicRef.Ref, depth+1, true) {
		return false
	}
	for _, x := range s.AllOf {
		if !c.ok(v, x, depth+1, true) {
			return false
		}
	}
	if len(s.AnyOf) > 0 {
		found := false
		for _, x := range s.AnyOf {
			if x.Validate(v) == nil && c.ok(v, x, depth+1, true) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if len(s.OneOf) > 0 {
		n := 0
		for _, x := range s.OneOf {
			if x.Validate(v) == nil && c.ok(v, x, depth+1, true) {
				n++
			}
		}
		if n != 1 {
			return false
		}
	}
	if s.If != nil {
		branch := s.Else
		if s.If.Validate(v) == nil {
			branch = s.Then
		}
		if !c.ok(v, branch, depth+1, true) {
			return false
		}
	}
	if isObj {
		for k, val := range obj {
			if p, ok := s.Properties[k]; ok {
				if !c.ok(val, p, depth+1, false) {
					return false
				}
				continue
			}
			matched := false
			for _, re := range schemawalk.Patterns(s) {
				if p := s.PatternProperties[re]; re.MatchString(k) {
					matched = true
					if !c.ok(val, p, depth+1, false) {
						return false
					}
				}
			}
			if !matched {
				if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok && !c.ok(val, ap, depth+1, false) {
					return false
				}
				if s.AdditionalProperties == nil && s.UnevaluatedProperties != nil && !c.ok(val, s.UnevaluatedProperties, depth+1, false) {
					return false
				}
			}
		}
		for k, d := range s.DependentSchemas {
			if _, ok := obj[k]; ok && !c.ok(v, d, depth+1, true) {
				return false
			}
		}
		for k, d := range s.Dependencies {
			if ds, ok := d.(*jsonschema.Schema); ok {
				if _, present := obj[k]; present && !c.ok(v, ds, depth+1, true) {
					return false
				}
			}
		}
	}
	if arr, ok := v.([]any); ok {
		prefix, rest := itemsOf(s)
		for i, item := range arr {
			sch := rest
			if i < len(prefix) {
				sch = prefix[i]
			} else if sch == nil && s.Items == nil && s.Contains == nil {
				sch = s.UnevaluatedItems
			}
			if !c.ok(item, sch, depth+1, false) {
				return false
			}
		}
		if s.Contains != nil {
			min := 1
			if s.MinContains != nil {
				min = *s.MinContains
			}
			n := 0
			for _, item := range arr {
				if s.Contains.Validate(item) == nil && c.ok(item, s.Contains, depth+1, false) {
					n++
				}
			}
			if n < min {
				return false
			}
		}
	}
	return true
}

// keyOf identifies a composite value by its address.
func keyOf(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return &t
	case []any:
		if len(t) == 0 {
			return nil
		}
		return &t[0]
	}
	return v
}

// stripUndeclared removes, from a generated document, the properties an
// implicitly closed object (its group, see group) does not declare,
// following properties, items and in-place applicators (not combinator
// branches). The result is checked afterwards; this only makes generated
// documents more often fit the lenient view.
func stripUndeclared(v any, s *jsonschema.Schema, depth int) {
	c := &closer{groups: map[*jsonschema.Schema]*group{}}
	c.strip(v, s, depth, false)
}

func (c *closer) strip(v any, s *jsonschema.Schema, depth int, inPlace bool) {
	if s == nil || s.Bool != nil || depth > 60 {
		return
	}
	for _, x := range []*jsonschema.Schema{s.Ref, s.RecursiveRef} {
		c.strip(v, x, depth+1, true)
	}
	for _, x := range s.AllOf {
		c.strip(v, x, depth+1, true)
	}
	switch t := v.(type) {
	case map[string]any:
		if g := c.groupOf(s); !inPlace && g.closed {
			for k := range t {
				if !g.declared[k] {
					delete(t, k)
				}
			}
		}
		for k, val := range t {
			if p, ok := s.Properties[k]; ok {
				c.strip(val, p, depth+1, false)
			}
		}
	case []any:
		prefix, rest := itemsOf(s)
		for i, item := range t {
			sch := rest
			if i < len(prefix) {
				sch = prefix[i]
			}
			c.strip(item, sch, depth+1, false)
		}
	}
}
