package jsoncompat

// Close returns a copy of a schema document in which every object schema
// that declares `properties`, requires no other name, and sets none of
// additionalProperties, patternProperties and unevaluatedProperties gets
// `additionalProperties: false`: the lenient profile's view of a writer
// ("producers emit only declared properties") where an object's
// properties are declared in one schema (where they are split between
// in-place subschemas the view closes them together, as closedOK does,
// which no keyword of every draft can say). Witness search generates
// and validates writer documents against the compiled result, so every
// counterexample it prints is a document a lenient writer really emits.
// Only schema positions are rewritten (never enum, const, default or
// examples values), and never below `not` or `if`, where a stricter
// schema would make the whole one looser: the closed view only ever
// removes documents. doc is not modified.
func Close(doc any) any {
	return closeSchema(doc, 0)
}

// Keywords whose value is a schema, a list of schemas or a map of schemas.
var (
	schemaKeywords = map[string]bool{"additionalProperties": true, "items": true, "additionalItems": true, "contains": true,
		"then": true, "else": true, "unevaluatedProperties": true, "unevaluatedItems": true}
	schemaListKeywords = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true, "items": true}
	schemaMapKeywords  = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true,
		"dependentSchemas": true, "dependencies": true}
)

func closeSchema(v any, depth int) any {
	obj, ok := v.(map[string]any)
	if !ok || depth > 500 {
		return v
	}
	out := make(map[string]any, len(obj)+1)
	for k, val := range obj {
		switch {
		case schemaMapKeywords[k]:
			if m, ok := val.(map[string]any); ok {
				nm := make(map[string]any, len(m))
				for name, sub := range m {
					nm[name] = closeSchema(sub, depth+1)
				}
				out[k] = nm
				continue
			}
			out[k] = val
		case schemaListKeywords[k]:
			if l, ok := val.([]any); ok {
				nl := make([]any, len(l))
				for i, sub := range l {
					nl[i] = closeSchema(sub, depth+1)
				}
				out[k] = nl
				continue
			}
			if schemaKeywords[k] {
				out[k] = closeSchema(val, depth+1)
				continue
			}
			out[k] = val
		case schemaKeywords[k]:
			out[k] = closeSchema(val, depth+1)
		default:
			out[k] = val
		}
	}
	if props, ok := obj["properties"].(map[string]any); ok {
		_, ap := obj["additionalProperties"]
		_, pp := obj["patternProperties"]
		_, up := obj["unevaluatedProperties"]
		if !ap && !pp && !up && requiresOnlyDeclared(obj["required"], props) {
			out["additionalProperties"] = false
		}
	}
	return out
}

// requiresOnlyDeclared reports whether every name in a required list is a
// declared property: a schema that requires more is not closed (see
// implicitlyClosed).
func requiresOnlyDeclared(required any, props map[string]any) bool {
	names, _ := required.([]any)
	for _, n := range names {
		if s, ok := n.(string); ok {
			if _, declared := props[s]; !declared {
				return false
			}
		}
	}
	return true
}
