package sample

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func doc(t *testing.T, s string) any {
	t.Helper()
	v, err := decodeJSON(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func decodeJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func TestVariants(t *testing.T) {
	cases := []struct {
		name           string
		writer, reader string
		doc            string
		want           []string // JSON of variants that must be produced
		wantMatch      []func(any) bool
	}{
		{
			name:   "reader-declared property from both views",
			writer: `{"type":"object","properties":{"a":{"type":"integer"}}}`,
			reader: `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string","enum":["x"]}},"required":["b"]}`,
			doc:    `{"a":1}`,
			want:   []string{`{"a":1,"b":"x"}`},
			wantMatch: []func(any) bool{
				func(v any) bool { // b with a type the reader does not expect
					b, ok := obj(v)["b"]
					_, isStr := b.(string)
					return ok && !isStr
				},
			},
		},
		{
			name:   "writer view of the name",
			writer: `{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":{"type":"boolean"}}`,
			reader: `{"type":"object","properties":{"b":{"type":"string"}}}`,
			doc:    `{"a":1}`,
			wantMatch: []func(any) bool{
				func(v any) bool { _, ok := obj(v)["b"].(bool); return ok },
				func(v any) bool { _, ok := obj(v)["b"].(string); return ok },
			},
		},
		{
			name:   "drop each property, add an undeclared one",
			writer: `{"type":"object"}`,
			reader: `{"type":"object"}`,
			doc:    `{"a":1,"b":"x"}`,
			want:   []string{`{"b":"x"}`, `{"a":1}`, `{"a":1,"b":"x","evtoolExtra":"x"}`},
		},
		{
			name:   "numbers",
			writer: `{"type":"number","minimum":0,"maximum":100}`,
			reader: `{"type":"number","maximum":50,"exclusiveMinimum":0}`,
			doc:    `10`,
			want:   []string{`0`, `100`, `51`, `50.1`, `-1`, `10.5`, `1e300`, `-1e300`, `1e-300`, `9007199254740993`, `-0`},
		},
		{
			name:   "exclusive writer bounds",
			writer: `{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":10}`,
			reader: true_,
			doc:    `5`,
			want:   []string{`1`, `9`, `0.1`, `9.9`},
		},
		{
			name:   "strings",
			writer: `{"type":"string"}`,
			reader: `{"type":"string","minLength":2,"maxLength":4}`,
			doc:    `"abc"`,
			want:   []string{`""`, `"ü😀中文 ñ"`, `"a"`, `"aaaaa"`, `"abcü😀"`, `"` + strings.Repeat("a", 1000) + `"`},
		},
		{
			name:   "arrays",
			writer: `{"type":"array","items":{"type":"integer"}}`,
			reader: `{"type":"array","maxItems":2}`,
			doc:    `[1,2]`,
			want:   []string{`[]`, `[1,2,2]`, `[1,2,1]`},
			wantMatch: []func(any) bool{
				func(v any) bool { a := arr(v); return len(a) == 3 && isNum(a[2]) },
			},
		},
		{
			name:   "null where allowed, each enum value",
			writer: `{"type":"object","properties":{"s":{"type":["string","null"],"enum":["A","B",null]}}}`,
			reader: `{"type":"object","properties":{"s":{"enum":["A","C"]}}}`,
			doc:    `{"s":"A"}`,
			want:   []string{`{"s":null}`, `{"s":"B"}`, `{"s":"C"}`},
		},
		{
			name:   "each type of a union",
			writer: `{"type":["integer","string","array"]}`,
			reader: `{"type":"integer"}`,
			doc:    `1`,
			wantMatch: []func(any) bool{
				func(v any) bool { _, ok := v.(string); return ok },
				func(v any) bool { _, ok := v.([]any); return ok },
			},
		},
		{
			name:   "nested locations",
			writer: `{"type":"object","properties":{"o":{"type":"object","properties":{"n":{"type":"integer","maximum":7}}}}}`,
			reader: `{"type":"object","properties":{"o":{"type":"object","properties":{"n":{"type":"integer","maximum":5}}}}}`,
			doc:    `{"o":{"n":1}}`,
			want:   []string{`{"o":{"n":7}}`, `{"o":{"n":6}}`, `{"o":{}}`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := compile(t, c.writer, false)
			r := compile(t, c.reader, false)
			d := doc(t, c.doc)
			orig := toJSON(d)
			vs := Variants(d, w, r, rng(1), 0)
			if toJSON(d) != orig {
				t.Fatalf("Variants modified doc: %s", toJSON(d))
			}
			got := map[string]bool{}
			for _, v := range vs {
				got[toJSON(v)] = true
			}
			if got[orig] {
				t.Errorf("doc itself among the variants")
			}
			for _, wnt := range c.want {
				v, err := decodeJSON(wnt)
				if err != nil {
					t.Fatal(err)
				}
				if !got[toJSON(v)] {
					t.Errorf("missing variant %s", wnt)
				}
			}
			for i, m := range c.wantMatch {
				found := false
				for _, v := range vs {
					found = found || m(v)
				}
				if !found {
					t.Errorf("no variant matches predicate %d", i)
				}
			}
			if t.Failed() {
				t.Logf("variants: %s", toJSON(vs))
			}
		})
	}
}

const true_ = `true`

func TestVariantsLimitAndDeterminism(t *testing.T) {
	w := compile(t, benchSchema, true)
	sp := New(w, Options{})
	d, err := sp.Generate(rng(3))
	if err != nil {
		t.Fatal(err)
	}
	orig := toJSON(d)
	a := Variants(d, w, w, rng(5), 40)
	b := Variants(d, w, w, rng(5), 40)
	if len(a) != 40 {
		t.Errorf("len %d, want the limit 40", len(a))
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("not deterministic:\n%s", diff)
	}
	all := Variants(d, w, w, rng(5), 0)
	if len(all) <= 40 || len(all) > DefaultVariantLimit {
		t.Errorf("default limit: got %d variants", len(all))
	}
	// doc is never modified
	if toJSON(d) != orig {
		t.Errorf("Variants modified doc")
	}
}

// witness runs the witness search the compatibility gate does: samples of
// the writer and their variants, filtered to the writer, checked against the
// reader. It returns the first counterexample.
func witness(t *testing.T, writer, reader string) (any, bool) {
	t.Helper()
	w := compile(t, writer, false)
	r := compile(t, reader, false)
	docs, err := Samples(w, 16, 1, Options{})
	if err != nil {
		t.Fatalf("samples: %v", err)
	}
	rg := rng(2)
	for _, d := range docs {
		cands := append([]any{d}, Variants(d, w, r, rg, 0)...)
		for _, c := range cands {
			if w.Validate(c) == nil && r.Validate(c) != nil {
				return c, true
			}
		}
	}
	return nil, false
}

func TestWitnessSearch(t *testing.T) {
	cases := []struct {
		name           string
		writer, reader string
	}{
		{"required added", `{"type":"object","properties":{"a":{"type":"string"}}}`,
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["b"]}`},
		{"maximum decreased", `{"type":"integer","minimum":0,"maximum":100}`, `{"type":"integer","minimum":0,"maximum":99}`},
		{"exclusive minimum", `{"type":"number","minimum":0}`, `{"type":"number","exclusiveMinimum":0}`},
		{"integer narrowed", `{"type":"number"}`, `{"type":"integer"}`},
		{"enum value removed", `{"enum":["A","B","C"]}`, `{"enum":["A","B"]}`},
		{"maxLength decreased", `{"type":"string","maxLength":10}`, `{"type":"string","maxLength":9}`},
		{"closed reader", `{"type":"object","properties":{"a":{"type":"integer"}}}`,
			`{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":false}`},
		{"open writer, typed reader property", `{"type":"object","properties":{"a":{"type":"integer"}}}`,
			`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}`},
		{"uniqueItems added", `{"type":"array","items":{"type":"integer"},"minItems":1}`, `{"type":"array","items":{"type":"integer"},"uniqueItems":true}`},
		{"maxItems decreased", `{"type":"array","items":{"type":"string"},"maxItems":5}`, `{"type":"array","items":{"type":"string"},"maxItems":4}`},
		{"null removed", `{"type":"object","properties":{"c":{"type":["string","null"]}},"required":["c"]}`,
			`{"type":"object","properties":{"c":{"type":"string"}},"required":["c"]}`},
		{"oneOf overlap", `{"type":"integer","minimum":0}`, `{"oneOf":[{"type":"integer"},{"type":"number","minimum":0}]}`},
		{"multipleOf", `{"type":"number","multipleOf":0.01,"minimum":0,"maximum":10}`, `{"type":"number","multipleOf":0.1}`},
		{"pattern narrowed", `{"type":"string","pattern":"^[a-z]{2,8}$"}`, `{"type":"string","pattern":"^[a-z]{3,8}$"}`},
		{"nested property type", `{"type":"object","required":["o"],"properties":{"o":{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}}}`,
			`{"type":"object","required":["o"],"properties":{"o":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}}`},
		{"dropped optional property now required", `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a"]}`,
			`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, ok := witness(t, c.writer, c.reader); !ok {
				t.Errorf("no witness found")
			}
		})
	}
	// compatible pairs: no witness can exist
	for _, c := range [][2]string{
		{`{"type":"integer","maximum":5}`, `{"type":"number","maximum":5}`},
		{`{"enum":["A"]}`, `{"enum":["A","B"]}`},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`, `{"type":"object","required":["a"]}`},
	} {
		if v, ok := witness(t, c[0], c[1]); ok {
			t.Errorf("%s -> %s: impossible witness %s", c[0], c[1], toJSON(v))
		}
	}
}
