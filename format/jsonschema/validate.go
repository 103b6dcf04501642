package jsonschema

import (
	"github.com/evtool/evtool/format"
)

var _ format.ValueValidator = Provider{}

// ValidateValue is format.ValueValidator: the leaf problems of
// ValidationProblems as format.Errors.
func (Provider) ValidateValue(s format.Schema, v any) format.Errors {
	js, ok := s.(*Schema)
	if !ok {
		return format.Errors{{Message: format.NotKind(s, format.JSONSchema).Error()}}
	}
	probs := ValidationProblems(js.Compiled, v)
	if len(probs) == 0 {
		return nil
	}
	out := make(format.Errors, len(probs))
	for i, p := range probs {
		out[i] = &format.Error{Pointer: p.Pointer, Message: p.Message}
	}
	return out
}
