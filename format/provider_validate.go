package format

// ValueValidator is a Provider whose events' data is its JSON value
// itself (JSON Schema): data and examples are decoded once by the
// caller, as JSON, and validated as values, each problem at a JSON
// pointer into the value. Formats with a binary encoding are
// BinaryDataers instead: their data is checked in its wire form.
type ValueValidator interface {
	// ValidateValue validates v, a decoded JSON value (json.Number
	// numbers), against s: one Error per leaf problem, with its Pointer
	// into v and its Message, sorted by pointer; nil when v is valid.
	ValidateValue(s Schema, v any) Errors
}
