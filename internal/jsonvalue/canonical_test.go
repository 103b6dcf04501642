package jsonvalue

import (
	"encoding/json"
	"strings"
	"testing"
)

// Canonical spells a value one way: keys sorted, no whitespace, numbers
// by value, strings escaped as encoding/json does without HTML escaping.
func TestCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b": 1, "a": [1.0, 2e0, -0.50]}`, `{"a":[1,2,-0.5],"b":1}`},
		{`{"a": "<&>", "é": "\u00e9\n"}`, `{"a":"<&>","é":"é\n"}`},
		{`[true, false, null, {}, []]`, `[true,false,null,{},[]]`},
		{`1e-1`, `0.1`},
		{`12345678901234567890`, `12345678901234567890`},
	}
	for _, tc := range tests {
		dec := json.NewDecoder(strings.NewReader(tc.in))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if got := string(Canonical(v)); got != tc.want {
			t.Errorf("Canonical(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
