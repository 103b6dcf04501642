// Package schemawalk lists the subschemas of a compiled JSON Schema
// (santhosh-tekuri/jsonschema v6) in one deterministic order, for every
// package that walks schemas: map-valued keywords in sorted key order,
// patternProperties by the text of their patterns.
package schemawalk

import (
	"maps"
	"slices"
	"strings"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// Children returns the subschemas s applies, references included, nil
// ones left out: the single-schema keywords, the lists (allOf, anyOf,
// oneOf, prefixItems), then properties, patternProperties,
// dependentSchemas and schema-valued dependencies, then
// additionalProperties, items and additionalItems.
func Children(s *jsonschema.Schema) []*jsonschema.Schema {
	if s == nil || s.Bool != nil {
		return nil
	}
	var out []*jsonschema.Schema
	add := func(xs ...*jsonschema.Schema) {
		for _, x := range xs {
			if x != nil {
				out = append(out, x)
			}
		}
	}
	add(s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else, s.PropertyNames, s.UnevaluatedProperties,
		s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema)
	if s.DynamicRef != nil {
		add(s.DynamicRef.Ref)
	}
	add(s.AllOf...)
	add(s.AnyOf...)
	add(s.OneOf...)
	add(s.PrefixItems...)
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		add(s.Properties[k])
	}
	for _, re := range Patterns(s) {
		add(s.PatternProperties[re])
	}
	for _, k := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
		add(s.DependentSchemas[k])
	}
	for _, k := range slices.Sorted(maps.Keys(s.Dependencies)) {
		if c, ok := s.Dependencies[k].(*jsonschema.Schema); ok {
			add(c)
		}
	}
	for _, v := range []any{s.AdditionalProperties, s.Items, s.AdditionalItems} {
		switch t := v.(type) {
		case *jsonschema.Schema:
			add(t)
		case []*jsonschema.Schema:
			add(t...)
		}
	}
	return out
}

// Patterns returns the regular expressions of s's patternProperties
// sorted by their text, the order every walk visits them in (the compiled
// schema keeps them in a map).
func Patterns(s *jsonschema.Schema) []jsonschema.Regexp {
	if s == nil || len(s.PatternProperties) == 0 {
		return nil
	}
	return slices.SortedFunc(maps.Keys(s.PatternProperties), func(a, b jsonschema.Regexp) int {
		return strings.Compare(a.String(), b.String())
	})
}
