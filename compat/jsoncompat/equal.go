package jsoncompat

import (
	"math/big"

	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/internal/schemawalk"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// equalizer decides whether two compiled schemas are the same constraint,
// ignoring annotations (title, description, default, examples, deprecated,
// $comment, readOnly, writeOnly). Recursive schemas terminate: a pair being
// compared is assumed equal (two regular trees are equal iff no finite
// difference exists).
type equalizer struct {
	memo map[[2]*jsonschema.Schema]bool
	// trail lists the pairs cached as equal, in order; when a pair turns
	// out unequal, every "equal" cached since it was assumed is dropped,
	// since it may rest on that assumption.
	trail []([2]*jsonschema.Schema)
	// work counts pairs compared; past maxEqualWork every new pair is
	// answered "not equal", which only costs the rules more work (equality
	// lets them skip a subschema, never report a break).
	work int
}

// maxEqualWork bounds structural equality per equalizer: a chain of n
// alike definitions on each side has n² pairs.
const maxEqualWork = 1_000_000

func newEqualizer() *equalizer { return &equalizer{memo: map[[2]*jsonschema.Schema]bool{}} }

func (e *equalizer) equal(a, b *jsonschema.Schema) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return isTrue(a) && isTrue(b)
	}
	key := [2]*jsonschema.Schema{a, b}
	if v, ok := e.memo[key]; ok {
		return v
	}
	if e.work >= maxEqualWork {
		return false
	}
	e.work++
	mark := len(e.trail)
	e.memo[key] = true // assumed while comparing
	e.trail = append(e.trail, key)
	if e.compare(a, b) {
		return true
	}
	for _, k := range e.trail[mark:] {
		delete(e.memo, k)
	}
	e.trail = e.trail[:mark]
	e.memo[key] = false
	return false
}

func isTrue(s *jsonschema.Schema) bool {
	return s == nil || (s.Bool != nil && *s.Bool)
}

func (e *equalizer) compare(a, b *jsonschema.Schema) bool {
	if (a.Bool != nil) != (b.Bool != nil) {
		return false
	}
	if a.Bool != nil {
		return *a.Bool == *b.Bool
	}
	if len(a.Extensions) > 0 || len(b.Extensions) > 0 {
		return false
	}
	if !e.equal(a.Ref, b.Ref) || !e.equal(a.RecursiveRef, b.RecursiveRef) || a.RecursiveAnchor != b.RecursiveAnchor {
		return false
	}
	if (a.DynamicRef == nil) != (b.DynamicRef == nil) || a.DynamicAnchor != b.DynamicAnchor {
		return false
	}
	if a.DynamicRef != nil && (a.DynamicRef.Anchor != b.DynamicRef.Anchor || !e.equal(a.DynamicRef.Ref, b.DynamicRef.Ref)) {
		return false
	}
	if maskOfTypes(a.Types) != maskOfTypes(b.Types) {
		return false
	}
	if (a.Enum == nil) != (b.Enum == nil) || (a.Const == nil) != (b.Const == nil) {
		return false
	}
	if a.Enum != nil && !sameValueSet(a.Enum.Values, b.Enum.Values) {
		return false
	}
	if a.Const != nil && !jsonvalue.Equal(*a.Const, *b.Const) {
		return false
	}
	if !e.optional(a.Not, b.Not) || !e.list(a.AllOf, b.AllOf) || !e.list(a.AnyOf, b.AnyOf) || !e.list(a.OneOf, b.OneOf) {
		return false
	}
	if !e.optional(a.If, b.If) || !e.optional(a.Then, b.Then) || !e.optional(a.Else, b.Else) {
		return false
	}
	if formatName(a.Format) != formatName(b.Format) {
		return false
	}
	// objects
	if !eqInt(a.MaxProperties, b.MaxProperties) || !eqInt(a.MinProperties, b.MinProperties) || !sameStrings(a.Required, b.Required) {
		return false
	}
	if !e.optional(a.PropertyNames, b.PropertyNames) || !e.schemaMap(a.Properties, b.Properties) {
		return false
	}
	if len(a.PatternProperties) != len(b.PatternProperties) {
		return false
	}
	bp := map[string]*jsonschema.Schema{}
	for re, s := range b.PatternProperties {
		bp[re.String()] = s
	}
	for _, re := range schemawalk.Patterns(a) {
		t, ok := bp[re.String()]
		if !ok || !e.equal(a.PatternProperties[re], t) {
			return false
		}
	}
	if !e.additional(a.AdditionalProperties, b.AdditionalProperties) {
		return false
	}
	if len(a.Dependencies) != len(b.Dependencies) || len(a.DependentRequired) != len(b.DependentRequired) {
		return false
	}
	for k, v := range a.Dependencies {
		w, ok := b.Dependencies[k]
		if !ok {
			return false
		}
		switch v := v.(type) {
		case []string:
			ws, ok := w.([]string)
			if !ok || !sameStrings(v, ws) {
				return false
			}
		case *jsonschema.Schema:
			ws, ok := w.(*jsonschema.Schema)
			if !ok || !e.equal(v, ws) {
				return false
			}
		}
	}
	for k, v := range a.DependentRequired {
		if w, ok := b.DependentRequired[k]; !ok || !sameStrings(v, w) {
			return false
		}
	}
	if !e.schemaMap(a.DependentSchemas, b.DependentSchemas) || !e.optional(a.UnevaluatedProperties, b.UnevaluatedProperties) {
		return false
	}
	// arrays
	if !eqInt(a.MinItems, b.MinItems) || !eqInt(a.MaxItems, b.MaxItems) || a.UniqueItems != b.UniqueItems {
		return false
	}
	if !e.optional(a.Contains, b.Contains) || !eqInt(a.MinContains, b.MinContains) || !eqInt(a.MaxContains, b.MaxContains) {
		return false
	}
	if !e.items(a.Items, b.Items) || !e.additional(a.AdditionalItems, b.AdditionalItems) || !e.list(a.PrefixItems, b.PrefixItems) {
		return false
	}
	if !e.optional(a.Items2020, b.Items2020) || !e.optional(a.UnevaluatedItems, b.UnevaluatedItems) {
		return false
	}
	// strings
	if !eqInt(a.MinLength, b.MinLength) || !eqInt(a.MaxLength, b.MaxLength) || patternOf(a) != patternOf(b) {
		return false
	}
	if (a.ContentEncoding == nil) != (b.ContentEncoding == nil) || (a.ContentMediaType == nil) != (b.ContentMediaType == nil) {
		return false
	}
	if a.ContentEncoding != nil && a.ContentEncoding.Name != b.ContentEncoding.Name {
		return false
	}
	if a.ContentMediaType != nil && a.ContentMediaType.Name != b.ContentMediaType.Name {
		return false
	}
	if !e.optional(a.ContentSchema, b.ContentSchema) {
		return false
	}
	// numbers
	return eqRat(a.Maximum, b.Maximum) && eqRat(a.Minimum, b.Minimum) && eqRat(a.ExclusiveMaximum, b.ExclusiveMaximum) &&
		eqRat(a.ExclusiveMinimum, b.ExclusiveMinimum) && eqRat(a.MultipleOf, b.MultipleOf)
}

func (e *equalizer) optional(a, b *jsonschema.Schema) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return e.equal(a, b)
}

func (e *equalizer) list(a, b []*jsonschema.Schema) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !e.equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func (e *equalizer) schemaMap(a, b map[string]*jsonschema.Schema) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for k, s := range a {
		t, ok := b[k]
		if !ok || !e.equal(s, t) {
			return false
		}
	}
	return true
}

func (e *equalizer) additional(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case *jsonschema.Schema:
		bs, ok := b.(*jsonschema.Schema)
		return ok && e.equal(a, bs)
	}
	return false
}

func (e *equalizer) items(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case *jsonschema.Schema:
		bs, ok := b.(*jsonschema.Schema)
		return ok && e.equal(a, bs)
	case []*jsonschema.Schema:
		bs, ok := b.([]*jsonschema.Schema)
		return ok && e.list(a, bs)
	}
	return false
}

func eqInt(a, b *int) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func eqRat(a, b *big.Rat) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Cmp(b) == 0
}

func formatName(f *jsonschema.Format) string {
	if f == nil {
		return ""
	}
	return f.Name
}

func patternOf(s *jsonschema.Schema) string {
	if s.Pattern == nil {
		return ""
	}
	return "/" + s.Pattern.String()
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		set := map[string]bool{}
		for _, x := range a {
			set[x] = true
		}
		for _, x := range b {
			if !set[x] {
				return false
			}
		}
		set2 := map[string]bool{}
		for _, x := range b {
			set2[x] = true
		}
		for _, x := range a {
			if !set2[x] {
				return false
			}
		}
		return true
	}
	set := map[string]int{}
	for _, x := range a {
		set[x]++
	}
	for _, x := range b {
		set[x]--
	}
	for _, n := range set {
		if n != 0 {
			return false
		}
	}
	return true
}

func sameValueSet(a, b []any) bool {
	if len(a)*len(b) <= 64 {
		for _, x := range a {
			if !containsValue(b, x) {
				return false
			}
		}
		for _, x := range b {
			if !containsValue(a, x) {
				return false
			}
		}
		return true
	}
	ia, ib := valueIndex(a), valueIndex(b)
	if len(ia) != len(ib) {
		return false
	}
	for k := range ia {
		if _, ok := ib[k]; !ok {
			return false
		}
	}
	return true
}

func containsValue(list []any, v any) bool {
	for _, x := range list {
		if jsonvalue.Equal(x, v) {
			return true
		}
	}
	return false
}
