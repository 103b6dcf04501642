package jsonschema

import (
	js "github.com/evtool/evtool/internal/thirdparty/jsonschema"

	"github.com/evtool/evtool/format"
)

var _ format.ValueValidator = (*Schema)(nil)

// ValidateValue is format.ValueValidator: nil, or the leaf problems of
// ValidationProblems as format.Errors (a pointer into v and a message
// each).
func (s *Schema) ValidateValue(v any) error { return valueErrors(s.Compiled, v) }

func valueErrors(sch *js.Schema, v any) error {
	probs := ValidationProblems(sch, v)
	if len(probs) == 0 {
		return nil
	}
	out := make(format.Errors, len(probs))
	for i, p := range probs {
		out[i] = &format.Error{Pointer: p.Pointer, Message: p.Message}
	}
	return out
}

var _ format.RequiredDropper = (*Schema)(nil)

// WithoutRequired is format.RequiredDropper over the root's required
// (what the version's document lists, in its order).
func (s *Schema) WithoutRequired(obj map[string]any) []map[string]any {
	var out []map[string]any
	for _, r := range s.Compiled.Required {
		if _, ok := obj[r]; !ok {
			continue
		}
		c := make(map[string]any, len(obj))
		for k, v := range obj {
			if k != r {
				c[k] = v
			}
		}
		out = append(out, c)
	}
	return out
}
