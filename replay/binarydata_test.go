package replay

import (
	"testing"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/avro"
)

// TestBinaryData: which types' data the record fast path may take as JSON
// text, now that the providers answer instead of a kind comparison.
func TestBinaryData(t *testing.T) {
	for _, tc := range []struct {
		kind format.Kind
		want bool
	}{
		{"", false},
		{format.JSONSchema, false},
		{format.Avro, true},
		{format.Protobuf, true},
		{"xml", true}, // no provider: never taken for JSON text
	} {
		if got := binaryData(tc.kind); got != tc.want {
			t.Errorf("binaryData(%q) = %v, want %v", tc.kind, got, tc.want)
		}
	}
	s, err := avro.Parse("v1.avsc", []byte(`"long"`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		v    *catalog.Version
		want bool
	}{
		{"no version", nil, false},
		{"Avro", &catalog.Version{Format: format.Avro, Compiled: s}, true},
		{"Avro that did not compile", &catalog.Version{Format: format.Avro}, false},
		{"JSON Schema", &catalog.Version{Format: format.JSONSchema, Compiled: s}, false},
		{"no format", &catalog.Version{Compiled: s}, false},
	} {
		if got := isFormatted(tc.v); got != tc.want {
			t.Errorf("%s: isFormatted = %v, want %v", tc.name, got, tc.want)
		}
	}
}
