package jsoncompat

import (
	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/report"
)

// Kind is one way a writer schema can produce a value its reader rejects.
// Every kind has two rule ids: the change as seen when the new schema reads
// old events (BACKWARD) and when the old schema reads new events (FORWARD).
// "maximum-decreased" (BACKWARD) and "maximum-increased" (FORWARD) are the
// same kind: the reader's maximum is below what the writer emits.
type Kind int

type kindInfo struct {
	backward, forward string
	keyword           string
	severity          report.Severity
	summary           [2]string // backward, forward
	detail            string
	// tmpl is the one-line message; {W} and {R} are replaced by "old"/"new".
	tmpl string
}

// Kinds of findings. The order is the order of docs/rules.md.
const (
	KindType Kind = iota
	KindFalse
	KindEnumValue
	KindEnumAdded
	KindConst
	KindConstAdded
	KindMinimum
	KindExclusiveMinimum
	KindMaximum
	KindExclusiveMaximum
	KindMultipleOf
	KindMinLength
	KindMaxLength
	KindPattern
	KindFormat
	KindRequired
	KindPropertyClosed
	KindPropertyOpen
	KindAdditionalProperties
	KindPatternProperties
	KindPropertyNames
	KindDependentRequired
	KindDependentSchemas
	KindMinProperties
	KindMaxProperties
	KindUnevaluatedProperties
	KindItemsClosed
	KindMinItems
	KindMaxItems
	KindUniqueItems
	KindContains
	KindMinContains
	KindMaxContains
	KindUnevaluatedItems
	KindAnyOf
	KindOneOf
	KindOneOfOverlap
	KindNot
	KindDynamicRef
	KindIncomplete
	KindWitness
	numKinds
)

var kinds = [numKinds]kindInfo{
	KindType: {"type-narrowed", "type-widened", "type", report.SeverityError,
		[2]string{"the new schema no longer accepts a JSON type the old one allowed", "the new schema allows a JSON type the old one rejects"},
		"The reader's `type` does not include a type the writer produces. `integer` is a subset of `number`: number → integer is a break unless the writer's numbers are all whole (e.g. an integer `multipleOf`); integer → number is not.",
		"{W} schema allows %s, {R} schema's type does not"},
	KindFalse: {"schema-false", "schema-false", "false", report.SeverityError,
		[2]string{"the new schema is `false` (rejects everything)", "the old schema is `false` (rejects everything)"},
		"The reader is the boolean schema `false`, or `not: {}`: no document validates, so every event the writer produces is rejected.",
		"{R} schema is false and rejects every value {W} schema allows"},
	KindEnumValue: {"enum-value-removed", "enum-value-added", "enum", report.SeverityError,
		[2]string{"a value the old `enum` allowed is rejected by the new schema", "the new `enum` allows a value the old schema rejects"},
		"The writer's values are a finite list (`enum` or `const`) and one of them fails the reader. Each failing value is its own counterexample. To drop a value safely, stop producing it, then remove it in a later version and approve the break.",
		"{W} schema allows %s, {R} schema rejects it"},
	KindEnumAdded: {"enum-added", "enum-removed", "enum", report.SeverityError,
		[2]string{"the new schema restricts to an `enum` where the old one was open", "the new schema drops an `enum`, so it produces values the old one rejects"},
		"The reader restricts the value to a list (`enum`) while the writer can produce values outside it.",
		"{R} schema restricts the value to %s, {W} schema allows other values"},
	KindConst: {"const-changed", "const-changed", "const", report.SeverityError,
		[2]string{"the `const` value changed", "the `const` value changed"},
		"Both sides fix the value with `const` (or the writer's single value) and they differ.",
		"{W} schema's value %s is rejected by {R} schema"},
	KindConstAdded: {"const-added", "const-removed", "const", report.SeverityError,
		[2]string{"the new schema fixes the value with `const` where the old one allowed others", "the new schema drops a `const`"},
		"The reader fixes the value with `const` while the writer can produce other values.",
		"{R} schema requires the value %s, {W} schema allows others"},
	KindMinimum: {"minimum-increased", "minimum-decreased", "minimum", report.SeverityError,
		[2]string{"`minimum` added or raised", "`minimum` lowered or removed"},
		"The reader's `minimum` is above the smallest number the writer allows (or the writer has no lower bound). Bounds are compared with the writer's `exclusiveMinimum`, `integer` and `multipleOf` taken into account: old `exclusiveMinimum: 0` on an integer and new `minimum: 1` are the same bound.",
		"{W} schema allows %s, below {R} schema's minimum %s"},
	KindExclusiveMinimum: {"exclusive-minimum-increased", "exclusive-minimum-decreased", "exclusiveMinimum", report.SeverityError,
		[2]string{"`exclusiveMinimum` added or raised", "`exclusiveMinimum` lowered or removed"},
		"The reader's `exclusiveMinimum` excludes a number the writer allows.",
		"{W} schema allows %s, not above {R} schema's exclusiveMinimum %s"},
	KindMaximum: {"maximum-decreased", "maximum-increased", "maximum", report.SeverityError,
		[2]string{"`maximum` added or lowered", "`maximum` raised or removed"},
		"The reader's `maximum` is below the largest number the writer allows (or the writer has no upper bound).",
		"{W} schema allows %s, above {R} schema's maximum %s"},
	KindExclusiveMaximum: {"exclusive-maximum-decreased", "exclusive-maximum-increased", "exclusiveMaximum", report.SeverityError,
		[2]string{"`exclusiveMaximum` added or lowered", "`exclusiveMaximum` raised or removed"},
		"The reader's `exclusiveMaximum` excludes a number the writer allows.",
		"{W} schema allows %s, not below {R} schema's exclusiveMaximum %s"},
	KindMultipleOf: {"multiple-of-changed", "multiple-of-changed", "multipleOf", report.SeverityError,
		[2]string{"`multipleOf` changed so that some old values are no longer multiples", "`multipleOf` changed so that some new values are not multiples of the old one"},
		"Compared by divisibility, not equality: old `multipleOf: 4` and new `multipleOf: 2` is fine (every multiple of 4 is a multiple of 2); 2 → 4 breaks. An integer writer is a multiple of any 1/n.",
		"{W} schema allows %s, which is not a multiple of {R} schema's multipleOf %s"},
	KindMinLength: {"min-length-increased", "min-length-decreased", "minLength", report.SeverityError,
		[2]string{"`minLength` added or raised", "`minLength` lowered or removed"},
		"The reader requires longer strings than the writer produces. Lengths count Unicode code points; a writer `pattern` that already forces the length is taken into account.",
		"{W} schema allows a string of length %s, {R} schema's minLength is %s"},
	KindMaxLength: {"max-length-decreased", "max-length-increased", "maxLength", report.SeverityError,
		[2]string{"`maxLength` added or lowered", "`maxLength` raised or removed"},
		"The reader accepts shorter strings than the writer produces.",
		"{W} schema allows a string of length %s, {R} schema's maxLength is %s"},
	KindPattern: {"pattern-changed", "pattern-changed", "pattern", report.SeverityError,
		[2]string{"a string the old `pattern` allowed does not match the new one", "a string the new `pattern` allows does not match the old one"},
		"Patterns are compared exactly, as automata built from Go's regexp syntax (the validator's engine), together with minLength/maxLength and an enum on either side: when some string matches every writer pattern and fails the reader, the shortest one is the counterexample. Anchors, word boundaries and case folding are modelled. Only a size budget (very large character classes or automata) makes the rule undecidable: it then emits a warning, never a silent pass, and witness search still looks for a counterexample.",
		"{W} schema allows %s, which does not match {R} schema's pattern %s"},
	KindFormat: {"format-changed", "format-changed", "format", report.SeverityError,
		[2]string{"the new schema asserts a `format` the old one did not guarantee", "the old schema asserts a `format` the new one does not guarantee"},
		"Only when formats are assertions: `assert_formats: true` in evtool.yaml, or a draft-7 schema (whose validator asserts formats). Otherwise `format` is an annotation and never breaks.",
		"{R} schema asserts format %s, {W} schema does not guarantee it"},
	KindRequired: {"required-property-added", "required-property-removed", "required", report.SeverityError,
		[2]string{"a property became required", "a required property became optional or was removed"},
		"The reader requires a property the writer may omit. Also fires for names in `required` that `properties` does not declare.",
		"{R} schema requires %s, {W} schema does not"},
	KindPropertyClosed: {"property-removed-closed", "property-added-closed", "additionalProperties", report.SeverityError,
		[2]string{"a property the old schema declared is not allowed by the new, closed schema", "the new schema adds a property the old, closed schema does not allow"},
		"The reader does not allow a property the writer declares (`additionalProperties: false`, `unevaluatedProperties: false` or a `false` property schema). Under either profile, a property removed from a closed object breaks BACKWARD, and one added to a closed object breaks FORWARD.",
		"{W} schema may send property %s, {R} schema does not allow it"},
	KindPropertyOpen: {"property-added-open", "property-removed-open", "properties", report.SeverityError,
		[2]string{"the new schema constrains a property that the old, open schema left unconstrained", "the new schema drops a property, and the old schema constrains it while the new, open one sends anything there"},
		"Strict profile, or a writer object that explicitly allows additional properties: the writer may send any value under a name it does not declare, so a reader that declares that name with a type constrains values the writer never promised. Under the lenient profile writers send only declared properties, so adding or removing an optional property of an open object is compatible.",
		"{W} schema allows any value of property %s (it does not declare it), {R} schema constrains it"},
	KindAdditionalProperties: {"additional-properties-narrowed", "additional-properties-widened", "additionalProperties", report.SeverityError,
		[2]string{"`additionalProperties` is stricter than before", "`additionalProperties` is looser than the old schema's"},
		"The reader's `additionalProperties` rejects undeclared properties (or their values) that the writer may send.",
		"{W} schema allows undeclared properties that {R} schema's additionalProperties rejects"},
	KindPatternProperties: {"pattern-properties-narrowed", "pattern-properties-widened", "patternProperties", report.SeverityError,
		[2]string{"a `patternProperties` schema is stricter than what the old schema allowed for those names", "a `patternProperties` schema of the old schema rejects what the new one allows"},
		"The reader's `patternProperties` constrain names the writer may send with other values.",
		"{R} schema's patternProperties %s reject values {W} schema allows"},
	KindPropertyNames: {"property-names-narrowed", "property-names-widened", "propertyNames", report.SeverityError,
		[2]string{"`propertyNames` rejects names the old schema allowed", "the old `propertyNames` rejects names the new schema allows"},
		"A property name the writer may send fails the reader's `propertyNames`.",
		"{W} schema may send property name %s, {R} schema's propertyNames rejects it"},
	KindDependentRequired: {"dependent-required-added", "dependent-required-removed", "dependentRequired", report.SeverityError,
		[2]string{"a `dependentRequired` (or draft-7 `dependencies`) entry was added", "a `dependentRequired` entry was removed"},
		"When a property is present the reader requires others that the writer may omit. Decided on the writer's objects that have the trigger, with the writer's own dependentRequired, dependentSchemas, dependencies and if/then applied to them.",
		"{R} schema requires %s when %s is present, {W} schema does not"},
	KindDependentSchemas: {"dependent-schemas-added", "dependent-schemas-removed", "dependentSchemas", report.SeverityError,
		[2]string{"a `dependentSchemas` entry constrains objects the old schema allowed", "an old `dependentSchemas` entry constrains objects the new schema allows"},
		"When a property is present the reader applies a schema the writer's objects may fail. Decided on the writer's objects that have the trigger, with the writer's own dependents applied: an equivalent dependentRequired or if/then passes, a changed dependent schema is compared with the old one.",
		"{R} schema applies a dependent schema when %s is present that {W} schema's objects may fail"},
	KindMinProperties: {"min-properties-increased", "min-properties-decreased", "minProperties", report.SeverityError,
		[2]string{"`minProperties` added or raised", "`minProperties` lowered or removed"},
		"The reader requires more properties than the writer guarantees (its `minProperties` and `required`).",
		"{W} schema allows objects with %s properties, {R} schema's minProperties is %s"},
	KindMaxProperties: {"max-properties-decreased", "max-properties-increased", "maxProperties", report.SeverityError,
		[2]string{"`maxProperties` added or lowered", "`maxProperties` raised or removed"},
		"The reader allows fewer properties than the writer may send.",
		"{W} schema allows objects with %s properties, {R} schema's maxProperties is %s"},
	KindUnevaluatedProperties: {"unevaluated-properties-narrowed", "unevaluated-properties-widened", "unevaluatedProperties", report.SeverityError,
		[2]string{"`unevaluatedProperties` rejects properties the old schema allowed", "the old `unevaluatedProperties` rejects properties the new schema allows"},
		"The reader's `unevaluatedProperties` applies to a property the writer may send that no reader subschema evaluates for sure.",
		"{W} schema may send property %s, which {R} schema's unevaluatedProperties rejects"},
	KindItemsClosed: {"items-closed", "items-opened", "items", report.SeverityError,
		[2]string{"the new schema rejects array items past a position where the old one allowed them", "the new schema allows array items past the old schema's last position"},
		"The reader's `items: false` (or draft-7 `additionalItems: false`) after its `prefixItems` rejects items the writer may send.",
		"{W} schema allows items at index %s and beyond, {R} schema rejects them"},
	KindMinItems: {"min-items-increased", "min-items-decreased", "minItems", report.SeverityError,
		[2]string{"`minItems` added or raised", "`minItems` lowered or removed"},
		"The reader requires longer arrays than the writer guarantees.",
		"{W} schema allows arrays of %s items, {R} schema's minItems is %s"},
	KindMaxItems: {"max-items-decreased", "max-items-increased", "maxItems", report.SeverityError,
		[2]string{"`maxItems` added or lowered", "`maxItems` raised or removed"},
		"The reader allows shorter arrays than the writer may send.",
		"{W} schema allows arrays of %s items, {R} schema's maxItems is %s"},
	KindUniqueItems: {"unique-items-added", "unique-items-removed", "uniqueItems", report.SeverityError,
		[2]string{"`uniqueItems: true` added", "`uniqueItems: true` removed"},
		"The reader rejects duplicate items that the writer may send.",
		"{R} schema requires unique items, {W} schema allows duplicates"},
	KindContains: {"contains-added", "contains-removed", "contains", report.SeverityError,
		[2]string{"`contains` added or made stricter", "`contains` removed or made looser"},
		"The reader requires an item matching its `contains` schema and the writer does not guarantee one.",
		"{R} schema requires an item matching its contains schema, {W} schema does not guarantee one"},
	KindMinContains: {"min-contains-increased", "min-contains-decreased", "minContains", report.SeverityError,
		[2]string{"`minContains` raised", "`minContains` lowered"},
		"The reader requires more matching items than the writer guarantees.",
		"{W} schema guarantees %s matching items, {R} schema's minContains is %s"},
	KindMaxContains: {"max-contains-decreased", "max-contains-increased", "maxContains", report.SeverityError,
		[2]string{"`maxContains` added or lowered", "`maxContains` raised or removed"},
		"The reader allows fewer items matching its `contains` schema than the writer may send.",
		"{W} schema allows %s matching items, {R} schema's maxContains is %s"},
	KindUnevaluatedItems: {"unevaluated-items-narrowed", "unevaluated-items-widened", "unevaluatedItems", report.SeverityError,
		[2]string{"`unevaluatedItems` rejects items the old schema allowed", "the old `unevaluatedItems` rejects items the new schema allows"},
		"The reader's `unevaluatedItems` rejects array items the writer may send that no reader subschema evaluates.",
		"{W} schema allows items from index %s that {R} schema's unevaluatedItems rejects"},
	KindAnyOf: {"any-of-narrowed", "any-of-widened", "anyOf", report.SeverityError,
		[2]string{"values the old schema allowed match no branch of the new `anyOf`", "values the new schema allows match no branch of the old `anyOf`"},
		"Each writer alternative (its own `anyOf`/`oneOf` branches, split by type) must fit inside one reader branch. The finding names the writer alternative and shows why the closest reader branch rejects it.",
		"{W} schema allows values that match no branch of {R} schema's anyOf: %s"},
	KindOneOf: {"one-of-narrowed", "one-of-widened", "oneOf", report.SeverityError,
		[2]string{"values the old schema allowed match no branch of the new `oneOf`", "values the new schema allows match no branch of the old `oneOf`"},
		"As any-of-narrowed, for `oneOf`.",
		"{W} schema allows values that match no branch of {R} schema's oneOf: %s"},
	KindOneOfOverlap: {"one-of-overlap", "one-of-overlap", "oneOf", report.SeverityError,
		[2]string{"a value the old schema allowed matches two branches of the new `oneOf`, so it is rejected", "a value the new schema allows matches two branches of the old `oneOf`"},
		"`oneOf` rejects a value that matches more than one branch: adding a branch that overlaps an existing one rejects data that used to pass. When the engine cannot show the branches are disjoint (different types, different `const`/`enum` on a required property, disjoint ranges) and cannot show they overlap either, it warns.",
		"{W} schema allows values matching branch %s of {R} schema's oneOf that also match branch %s"},
	KindNot: {"not-added", "not-removed", "not", report.SeverityError,
		[2]string{"a `not` excludes values the old schema allowed", "the old schema's `not` excludes values the new schema allows"},
		"The reader's `not` schema matches values the writer may produce. Decided exactly, with a counterexample, when the `not` is a type set with numeric bounds, an enum or const, or a required list; otherwise errors when the writer's values all match it and warns when the engine can show neither overlap nor disjointness.",
		"{R} schema's not excludes values {W} schema allows"},
	KindDynamicRef: {"dynamic-ref", "dynamic-ref", "$dynamicRef", report.SeverityWarning,
		[2]string{"`$dynamicRef`/`$recursiveRef` compared through their static target", "`$dynamicRef`/`$recursiveRef` compared through their static target"},
		"Dynamic references are resolved at validation time from the dynamic scope; the rules follow the static target and warn. Witness search validates with the real resolution.",
		"{W} or {R} schema uses a dynamic reference; compared through its static target"},
	KindIncomplete: {"analysis-incomplete", "analysis-incomplete", "", report.SeverityWarning,
		[2]string{"the engine could not decide part of the comparison", "the engine could not decide part of the comparison"},
		"A part of the schemas is too large or too intricate for the rules (more than the combination or step budget, or the budget of its string searches: patterns compared pairwise). Never a silent pass: it is a warning, and witness search still runs.",
		"could not decide: %s"},
	KindWitness: {"witness-rejected", "witness-rejected", "", report.SeverityError,
		[2]string{"witness search found an old event the new schema rejects", "witness search found a new event the old schema rejects"},
		"A generated document is valid for the writer and invalid for the reader. It proves a break the rules did not name (or named only as a warning); the reader's validation error says why.",
		"%s"},
}

// ID returns the rule id of a kind in a direction.
func (k Kind) ID(d engine.Direction) string {
	if d == engine.Forward {
		return kinds[k].forward
	}
	return kinds[k].backward
}

// Rules lists every rule id the engine emits, in documentation order:
// docs/rules.md is generated from it, so the documentation cannot drift
// from the engine.
func Rules() []engine.Rule {
	var out []engine.Rule
	for k := Kind(0); k < numKinds; k++ {
		ki := kinds[k]
		if ki.backward == ki.forward {
			out = append(out, engine.Rule{ID: ki.backward, Severity: ki.severity, Compares: ki.keyword, Summary: ki.summary[0], Detail: ki.detail})
			continue
		}
		out = append(out,
			engine.Rule{ID: ki.backward, Severity: ki.severity, Direction: engine.Backward, Compares: ki.keyword, Summary: ki.summary[0], Detail: ki.detail},
			engine.Rule{ID: ki.forward, Severity: ki.severity, Direction: engine.Forward, Compares: ki.keyword, Summary: ki.summary[1], Detail: ki.detail})
	}
	return out
}
