package jsonschema

import (
	"fmt"

	"github.com/evtool/evtool/format"
)

// Provider is JSON Schema behind the seam (format/formats lists it).
type Provider struct{}

var _ format.Provider = Provider{}

// Kind is format.JSONSchema.
func (Provider) Kind() format.Kind { return format.JSONSchema }

// PartitionKey is never ok: JSON data is its own JSON form, read once by
// the caller.
func (Provider) PartitionKey(format.Schema, format.KeyData) (any, bool, []byte) {
	return nil, false, nil
}

// PointerForm is v: JSON data is what pointers name.
func (Provider) PointerForm(_ format.Schema, v any) any { return v }

// Unframe is data as it is: JSON Schema data's frame is taken off before.
func (Provider) Unframe(_ format.Schema, data []byte) ([]byte, uint32, bool) { return data, 0, false }

// Frame is format.Frame.
func (Provider) Frame(_ format.Schema, id uint32, payload []byte) []byte {
	return format.Frame(id, payload)
}

// CheckUnframed is not ok: JSON has no binary encoding.
func (Provider) CheckUnframed(format.Schema, []byte) (bool, error) { return false, nil }

// DecodeData is DecodeValue.
func (Provider) DecodeData(s format.Schema, data []byte, ct string, _ bool) (any, error) {
	return s.DecodeValue(data, ct)
}

// SchemaIDDigest is format.DigestOf the canonical form (serve keys a
// version that $refs shared files by its bundled document, which only it
// builds; JSON Schema data is never framed with an id).
func (Provider) SchemaIDDigest(s format.Schema) string { return format.DigestOf(s.Canonical()) }

// CompatProfiles are lenient (the default) and strict.
func (Provider) CompatProfiles() format.Profiles {
	return format.Profiles{Names: []string{"lenient", "strict"}, Default: "lenient"}
}

// Reencode is format.Reencode.
func (Provider) Reencode(from, to format.Schema, data []byte, ct string, _ bool) ([]byte, error) {
	return format.Reencode(from, to, data, ct)
}

// EventRecord is "": JSON Schema names no record.
func (Provider) EventRecord(format.Schema) string { return "" }

// CheckRefName refuses every name: JSON Schema references are inlined.
func (Provider) CheckRefName(string, func(string) string) error {
	return fmt.Errorf("references of %s schemas are inlined, not written as files", format.JSONSchema.Name())
}

// RefFile is never ok (CheckRefName refuses every reference).
func (Provider) RefFile(string) (string, bool) { return "", false }

// SchemaType is JSON.
func (Provider) SchemaType() string { return "JSON" }

// DeclaredRecords are none: a JSON Schema declares no named record.
func (Provider) DeclaredRecords([]byte) []string { return nil }

// SharedSubject is false: JSON Schema registry forms are inlined, never
// referenced.
func (Provider) SharedSubject([]byte, string) bool { return false }
