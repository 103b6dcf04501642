package jsonstrict

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    any
		wantErr string
	}{
		{"object", `{"a": [1, 2.5, "x", true, null]}`, map[string]any{"a": []any{json.Number("1"), json.Number("2.5"), "x", true, nil}}, ""},
		{"empty", "  \n", nil, "line 1, column 1: empty file"},
		{"duplicate key", "{\n \"a\": 1,\n \"a\": 2}", nil, "line 3, column 2: duplicate key \"a\""},
		{"nested duplicate", `{"x": {"b": 1, "b": 1}}`, nil, `(at /x): duplicate key "b"`},
		{"trailing", `{} {}`, nil, "unexpected data after"},
		{"truncated", "{\"a\": [1,\n", nil, "line 2, column 1"},
		{"syntax", "{\"a\" 1}", nil, "line 1"},
		{"bad utf8", "{\"a\": \"\xff\"}", nil, "line 1, column 8: invalid UTF-8"},
		{"deep", strings.Repeat("[", 1001) + strings.Repeat("]", 1001), nil, "nested 1001 levels deep"},
		{"huge exponent", `{"minimum": 1e9999999}`, nil, "line 1, column 13 (at /minimum): number 1e9999999 has an exponent beyond"},
		{"big but fine", `[1e999, -2.5E-0999, 123456789012345678901234567890]`, []any{json.Number("1e999"), json.Number("-2.5E-0999"), json.Number("123456789012345678901234567890")}, ""},
		{"brackets in strings do not count", `{"a": "[[[[{{{{"}`, map[string]any{"a": "[[[[{{{{"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `[1,{"a":"b"}]`, `{"a":1,"a":2}`, "\xff", `"\u00e9"`, `[[[]]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data)
		if err != nil {
			return
		}
		// Whatever we accept, encoding/json accepts too, with the same value,
		// and every number is one math/big can hold.
		var std any
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.UseNumber()
		if err := dec.Decode(&std); err != nil {
			t.Fatalf("accepted %q that encoding/json rejects: %v", data, err)
		}
		if d := cmp.Diff(std, v); d != "" {
			t.Fatalf("value differs from encoding/json: %s", d)
		}
		walkNumbers(v, func(n json.Number) {
			if _, ok := new(big.Rat).SetString(string(n)); !ok {
				t.Fatalf("accepted number %s that math/big cannot parse", n)
			}
		})
	})
}

func walkNumbers(v any, fn func(json.Number)) {
	switch t := v.(type) {
	case json.Number:
		fn(t)
	case []any:
		for _, e := range t {
			walkNumbers(e, fn)
		}
	case map[string]any:
		for _, e := range t {
			walkNumbers(e, fn)
		}
	}
}
