package jsoncompat

import (
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"

	"github.com/evtool/evtool/internal/schemawalk"
)

// The lenient profile's writer is the schema with `additionalProperties:
// false` assumed on every object schema that declares `properties` and sets
// none of additionalProperties, patternProperties and unevaluatedProperties
// (never below `not` or `if`, where a stricter schema would loosen the
// whole). Close builds that view as a document; closedOK decides it on a
// document without compiling anything: for a document valid under s, it
// reports whether it is valid under Close(s).

// closedOK reports whether v, valid under s, respects the closure
// everywhere the validator evaluates s on it.
func closedOK(v any, s *jsonschema.Schema) bool {
	return (&closer{seen: map[closeKey]bool{}}).ok(v, s, 0)
}

type closeKey struct {
	s *jsonschema.Schema
	v any
}

type closer struct {
	seen map[closeKey]bool
}

func (c *closer) ok(v any, s *jsonschema.Schema, depth int) bool {
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
	if isObj && implicitlyClosed(s) {
		for k := range obj {
			if _, ok := s.Properties[k]; !ok {
				return false
			}
		}
	}
	for _, x := range []*jsonschema.Schema{s.Ref, s.RecursiveRef} {
		if !c.ok(v, x, depth+1) {
			return false
		}
	}
	if s.DynamicRef != nil && !c.ok(v, s.DynamicRef.Ref, depth+1) {
		return false
	}
	for _, x := range s.AllOf {
		if !c.ok(v, x, depth+1) {
			return false
		}
	}
	if len(s.AnyOf) > 0 {
		found := false
		for _, x := range s.AnyOf {
			if x.Validate(v) == nil && c.ok(v, x, depth+1) {
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
			if x.Validate(v) == nil && c.ok(v, x, depth+1) {
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
		if !c.ok(v, branch, depth+1) {
			return false
		}
	}
	if isObj {
		for k, val := range obj {
			if p, ok := s.Properties[k]; ok {
				if !c.ok(val, p, depth+1) {
					return false
				}
				continue
			}
			matched := false
			for _, re := range schemawalk.Patterns(s) {
				if p := s.PatternProperties[re]; re.MatchString(k) {
					matched = true
					if !c.ok(val, p, depth+1) {
						return false
					}
				}
			}
			if !matched {
				if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok && !c.ok(val, ap, depth+1) {
					return false
				}
				if s.AdditionalProperties == nil && s.UnevaluatedProperties != nil && !c.ok(val, s.UnevaluatedProperties, depth+1) {
					return false
				}
			}
		}
		for k, d := range s.DependentSchemas {
			if _, ok := obj[k]; ok && !c.ok(v, d, depth+1) {
				return false
			}
		}
		for k, d := range s.Dependencies {
			if ds, ok := d.(*jsonschema.Schema); ok {
				if _, present := obj[k]; present && !c.ok(v, ds, depth+1) {
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
			if !c.ok(item, sch, depth+1) {
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
				if s.Contains.Validate(item) == nil && c.ok(item, s.Contains, depth+1) {
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
// implicitly closed object schema does not declare, following properties,
// items and in-place applicators (not combinator branches). The result is
// checked afterwards; this only makes generated documents more often fit
// the lenient view.
func stripUndeclared(v any, s *jsonschema.Schema, depth int) {
	if s == nil || s.Bool != nil || depth > 60 {
		return
	}
	for _, x := range []*jsonschema.Schema{s.Ref, s.RecursiveRef} {
		stripUndeclared(v, x, depth+1)
	}
	for _, x := range s.AllOf {
		stripUndeclared(v, x, depth+1)
	}
	switch t := v.(type) {
	case map[string]any:
		if implicitlyClosed(s) && len(s.AllOf) == 0 && s.Ref == nil {
			for k := range t {
				if _, ok := s.Properties[k]; !ok {
					delete(t, k)
				}
			}
		}
		for k, val := range t {
			if p, ok := s.Properties[k]; ok {
				stripUndeclared(val, p, depth+1)
			}
		}
	case []any:
		prefix, rest := itemsOf(s)
		for i, item := range t {
			sch := rest
			if i < len(prefix) {
				sch = prefix[i]
			}
			stripUndeclared(item, sch, depth+1)
		}
	}
}
