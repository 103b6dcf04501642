package jsonvalue_test

import (
	"testing"

	jsformat "github.com/evtool/evtool/format/jsonschema"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/internal/jsonvalue"
)

// TestCanonicalIsTheSchemaDigest: schemaregistry compares registry forms
// by jsonvalue.Digest and the catalog by JSON Schema's provider's; the
// two must agree byte for byte, or a pushed version would look edited.
func TestCanonicalIsTheSchemaDigest(t *testing.T) {
	for _, tc := range []struct{ name, a, b string }{
		{"key order and spaces", `{"b": 1, "a": [true, null, "x"]}`, `{"a":[true,null,"x"],"b":1}`},
		{"number spellings", `{"n": 1.0, "m": 1e2, "f": 0.50}`, `{"f":0.5,"m":100,"n":1}`},
		{"html and unicode kept", `{"s": "<a>&\u00e9\u2028"}`, `{"s":"<a>&é\u2028"}`},
		{"nested", `[{"z": {"y": [1.10, -0]}}]`, `[{"z":{"y":[1.1,0]}}]`},
		{"scalar", `"x"`, `"x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := jsonstrict.Decode([]byte(tc.a))
			if err != nil {
				t.Fatal(err)
			}
			b, err := jsonstrict.Decode([]byte(tc.b))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(jsonvalue.Canonical(a)), string(jsformat.Canonical(a)); got != want {
				t.Errorf("Canonical = %s, the provider's %s", got, want)
			}
			if got, want := jsonvalue.Digest(a), jsformat.Digest(a); got != want {
				t.Errorf("Digest = %s, the provider's %s", got, want)
			}
			if jsonvalue.Digest(a) != jsonvalue.Digest(b) {
				t.Errorf("%s and %s differ: %s vs %s", tc.a, tc.b, jsonvalue.Canonical(a), jsonvalue.Canonical(b))
			}
		})
	}
	if jsonvalue.Digest(map[string]any{"a": "1"}) == jsonvalue.Digest(map[string]any{"a": "2"}) {
		t.Error("different documents have one digest")
	}
}
