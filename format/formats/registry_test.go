package formats

import (
	"slices"
	"testing"

	"github.com/evtool/evtool/format"
)

// TestRegistryForms: each provider answers a schema registry's questions
// about a registered text in its own format, and only in it.
func TestRegistryForms(t *testing.T) {
	avsc := []byte(`{"type":"record","name":"Placed","namespace":"shop","fields":[]}`)
	proto := []byte("syntax = \"proto3\";\npackage shop;\nmessage Placed { message Line {} }\n")
	tests := []struct {
		kind       format.Kind
		schemaType string
		text       []byte
		records    []string
		subject    string
		shared     bool
		refs       bool
	}{
		{format.JSONSchema, "JSON", []byte(`{"type":"object"}`), nil, "shop.Placed", false, false},
		{format.Avro, "AVRO", avsc, []string{"shop.Placed"}, "shop.Placed", true, true},
		{format.Avro, "AVRO", []byte(`"string"`), nil, "string", false, true},
		{format.Protobuf, "PROTOBUF", proto, []string{"shop.Placed", "shop.Placed.Line"}, "shop/placed.proto", true, true},
		{format.Protobuf, "PROTOBUF", []byte("message {"), nil, "shop.Placed", false, true},
	}
	for _, tt := range tests {
		p, _ := ForKind(tt.kind)
		if got := p.SchemaType(); got != tt.schemaType {
			t.Errorf("%s: SchemaType = %q, want %q", tt.kind, got, tt.schemaType)
		}
		if got := p.DeclaredRecords(tt.text); !slices.Equal(got, tt.records) {
			t.Errorf("%s: DeclaredRecords(%s) = %q, want %q", tt.kind, tt.text, got, tt.records)
		}
		if got := p.SharedSubject(tt.text, tt.subject); got != tt.shared {
			t.Errorf("%s: SharedSubject(%s, %s) = %v, want %v", tt.kind, tt.text, tt.subject, got, tt.shared)
		}
		if _, got := p.(format.RegistryCompiler); got != tt.refs {
			t.Errorf("%s: a RegistryCompiler: %v, want %v", tt.kind, got, tt.refs)
		}
	}
}
