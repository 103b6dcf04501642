package sample

import (
	"encoding/json"
	"errors"
	"math/big"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// compile compiles a schema document given as a string (draft 2020-12 unless
// it says otherwise).
func compile(t testing.TB, src string, assertFormat bool) *jsonschema.Schema {
	t.Helper()
	s, err := compileString(src, assertFormat)
	if err != nil {
		t.Fatalf("compile %s: %v", src, err)
	}
	return s
}

func compileString(src string, assertFormat bool) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(src))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if assertFormat {
		c.AssertFormat()
	}
	c.UseLoader(jsonschema.SchemeURLLoader{"http": suiteRemotes{}})
	if err := c.AddResource("http://evtool.test/schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("http://evtool.test/schema.json")
}

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

type genCase struct {
	name   string
	schema string
	format bool // compile with format assertion
	// want, if set, must hold for at least one of the generated values
	want func(v any) bool
	// all, if set, must hold for every generated value
	all func(v any) bool
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func arr(v any) []any {
	a, _ := v.([]any)
	return a
}

func rat(v any) *big.Rat { return numRat(v) }

func has(keys ...string) func(any) bool {
	return func(v any) bool {
		m := obj(v)
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				return false
			}
		}
		return m != nil
	}
}

func isNum(v any) bool { _, ok := v.(json.Number); return ok }

var genCases = []genCase{
	// types
	{name: "integer", schema: `{"type":"integer"}`, all: func(v any) bool { return isNum(v) && rat(v).IsInt() }},
	{name: "number", schema: `{"type":"number"}`, all: isNum, want: func(v any) bool { return !rat(v).IsInt() }},
	{name: "type array", schema: `{"type":["string","null"]}`, want: func(v any) bool { return v == nil }},
	{name: "null", schema: `{"type":"null"}`, all: func(v any) bool { return v == nil }},
	{name: "boolean", schema: `{"type":"boolean"}`, want: func(v any) bool { return v == true }},
	{name: "true schema", schema: `true`},
	{name: "empty schema", schema: `{}`},
	{name: "number not integer", schema: `{"type":"number","not":{"type":"integer"}}`, all: func(v any) bool { return !rat(v).IsInt() }},

	// objects
	{name: "required and optional", schema: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}`,
		all: has("a"), want: has("a", "b")},
	{name: "required not in properties", schema: `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","zz"]}`, all: has("a", "zz")},
	{name: "additionalProperties false", schema: `{"type":"object","properties":{"a":{"const":1}},"additionalProperties":false,"minProperties":1}`,
		all: func(v any) bool { return len(obj(v)) == 1 }},
	{name: "additionalProperties schema", schema: `{"type":"object","additionalProperties":{"type":"integer"},"minProperties":3}`,
		all: func(v any) bool { return len(obj(v)) >= 3 }},
	{name: "patternProperties closed", schema: `{"type":"object","patternProperties":{"^x-[a-z]{2,4}$":{"type":"boolean"}},"additionalProperties":false,"minProperties":2}`,
		all: func(v any) bool { return len(obj(v)) >= 2 }},
	{name: "propertyNames", schema: `{"type":"object","propertyNames":{"pattern":"^[A-Z][a-z]+$","maxLength":6},"minProperties":2}`},
	{name: "propertyNames enum", schema: `{"type":"object","propertyNames":{"enum":["red","green","blue"]},"minProperties":3}`,
		all: has("red", "green", "blue")},
	{name: "min/maxProperties", schema: `{"type":"object","properties":{"a":{},"b":{},"c":{},"d":{}},"minProperties":2,"maxProperties":3}`,
		all: func(v any) bool { n := len(obj(v)); return n >= 2 && n <= 3 }},
	{name: "dependentRequired", schema: `{"type":"object","properties":{"card":{"type":"string"},"billing":{"type":"string"}},"dependentRequired":{"card":["billing"]}}`,
		want: has("card", "billing")},
	{name: "dependentSchemas", schema: `{"type":"object","properties":{"card":{"type":"string"}},"required":["card"],"dependentSchemas":{"card":{"required":["cvv"],"properties":{"cvv":{"type":"string","pattern":"^[0-9]{3}$"}}}}}`,
		all: has("card", "cvv")},
	{name: "draft7 dependencies", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"dependencies":{"a":["b"],"b":{"properties":{"c":{"type":"string"}},"required":["c"]}}}`,
		all: has("a", "b", "c")},
	{name: "nested objects", schema: `{"type":"object","required":["customer"],"properties":{"customer":{"type":"object","required":["address"],"properties":{"address":{"type":"object","required":["zip"],"properties":{"zip":{"type":"string","pattern":"^[0-9]{5}$"}}}}}}}`},

	// enum / const
	{name: "enum strings", schema: `{"enum":["a","b","c"]}`, want: func(v any) bool { return v == "c" }},
	{name: "enum mixed", schema: `{"enum":[null, 1.5, {"x":[1,2]}, [true]]}`, want: func(v any) bool { return obj(v) != nil }},
	{name: "const object", schema: `{"const":{"a":[1,{"b":null}]}}`, all: func(v any) bool { return toJSON(v) == `{"a":[1,{"b":null}]}` }},
	{name: "enum filtered by type", schema: `{"type":"integer","enum":["1", 1.5, 2, "x"]}`, all: func(v any) bool { return toJSON(v) == "2" }},

	// numbers
	{name: "min/max", schema: `{"type":"integer","minimum":10,"maximum":12}`, all: func(v any) bool {
		r := rat(v)
		return r.Cmp(big.NewRat(10, 1)) >= 0 && r.Cmp(big.NewRat(12, 1)) <= 0
	}},
	{name: "exclusive", schema: `{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}`, all: func(v any) bool {
		r := rat(v)
		return r.Sign() > 0 && r.Cmp(big.NewRat(1, 1)) < 0
	}},
	{name: "exclusive integer", schema: `{"type":"integer","exclusiveMinimum":1,"exclusiveMaximum":3}`, all: func(v any) bool { return toJSON(v) == "2" }},
	{name: "multipleOf fractional", schema: `{"type":"number","multipleOf":0.01,"minimum":0.015,"maximum":0.035}`, all: func(v any) bool {
		s := toJSON(v)
		return s == "0.02" || s == "0.03"
	}},
	{name: "multipleOf combined", schema: `{"allOf":[{"multipleOf":0.3},{"multipleOf":0.4}],"type":"number","minimum":1,"maximum":2}`, all: func(v any) bool { return toJSON(v) == "1.2" }},
	{name: "multipleOf integer half", schema: `{"type":"integer","multipleOf":0.5,"minimum":-3,"maximum":3}`},
	{name: "big numbers", schema: `{"type":"integer","minimum":1e30,"maximum":1e31}`, all: func(v any) bool {
		lo, _ := new(big.Rat).SetString("1e30")
		return rat(v).Cmp(lo) >= 0
	}},
	{name: "tiny exclusive", schema: `{"type":"number","exclusiveMinimum":1e-30,"maximum":1e-29}`},
	{name: "draft4 boolean exclusive", schema: `{"$schema":"http://json-schema.org/draft-04/schema#","type":"number","minimum":5,"exclusiveMinimum":true,"maximum":6,"exclusiveMaximum":true}`},

	// strings
	{name: "lengths in code points", schema: `{"type":"string","minLength":3,"maxLength":3}`, all: func(v any) bool { return utf8.RuneCountInString(v.(string)) == 3 }},
	{name: "pattern literal", schema: `{"type":"string","pattern":"^ORD-[0-9]{6}$"}`},
	{name: "pattern alternation", schema: `{"type":"string","pattern":"^(red|green|blue)(-[a-f0-9]{2})?$"}`},
	{name: "pattern classes", schema: `{"type":"string","pattern":"^\\w+@\\w+\\.(com|org)$"}`},
	{name: "pattern unicode class", schema: `{"type":"string","pattern":"^\\p{Lu}\\p{Ll}+$"}`},
	{name: "pattern unanchored with length", schema: `{"type":"string","pattern":"ab+c","minLength":10,"maxLength":12}`},
	{name: "pattern anchored with length", schema: `{"type":"string","pattern":"^[a-z]+$","minLength":20}`},
	{name: "pattern negated class", schema: `{"type":"string","pattern":"^[^a-z0-9]{4}$"}`},
	{name: "pattern phone", schema: `{"type":"string","pattern":"^(\\([0-9]{3}\\))?[0-9]{3}-[0-9]{4}$"}`},
	{name: "pattern case fold", schema: `{"type":"string","pattern":"(?i)^hello$"}`},
	{name: "two patterns", schema: `{"type":"string","allOf":[{"pattern":"[0-9]"},{"pattern":"[A-Z]"}],"minLength":8}`},
	{name: "pattern word boundary", schema: `{"type":"string","pattern":"\\bfoo\\b"}`},
	{name: "format date-time", schema: `{"type":"string","format":"date-time"}`, format: true},
	{name: "format date", schema: `{"type":"string","format":"date"}`, format: true},
	{name: "format time", schema: `{"type":"string","format":"time"}`, format: true},
	{name: "format email", schema: `{"type":"string","format":"email","maxLength":40}`, format: true},
	{name: "format uuid", schema: `{"type":"string","format":"uuid"}`, format: true},
	{name: "format uri", schema: `{"type":"string","format":"uri"}`, format: true},
	{name: "format uri-reference", schema: `{"type":"string","format":"uri-reference"}`, format: true},
	{name: "format hostname", schema: `{"type":"string","format":"hostname"}`, format: true},
	{name: "format ipv4", schema: `{"type":"string","format":"ipv4"}`, format: true},
	{name: "format ipv6", schema: `{"type":"string","format":"ipv6"}`, format: true},
	{name: "format duration", schema: `{"type":"string","format":"duration"}`, format: true},
	{name: "format json-pointer", schema: `{"type":"string","format":"json-pointer"}`, format: true},
	{name: "format relative-json-pointer", schema: `{"type":"string","format":"relative-json-pointer"}`, format: true},
	{name: "format regex", schema: `{"type":"string","format":"regex"}`, format: true},
	{name: "format uri-template", schema: `{"type":"string","format":"uri-template"}`, format: true},
	{name: "format with pattern", schema: `{"type":"string","format":"date","pattern":"^2"}`, format: true},
	{name: "content base64 json", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string","contentEncoding":"base64","contentMediaType":"application/json"}`},

	// arrays
	{name: "items", schema: `{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":4}`, all: func(v any) bool { n := len(arr(v)); return n >= 2 && n <= 4 }},
	{name: "prefixItems closed", schema: `{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}`, all: func(v any) bool { return len(arr(v)) <= 2 },
		want: func(v any) bool { return len(arr(v)) == 2 }},
	{name: "draft7 tuple", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"string"},{"type":"null"}],"additionalItems":false,"minItems":2}`},
	{name: "draft7 additionalItems schema", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"const":1}],"additionalItems":{"type":"string"},"minItems":3}`},
	{name: "contains", schema: `{"type":"array","contains":{"const":"x"},"items":{"type":"string"}}`},
	{name: "min/maxContains", schema: `{"type":"array","contains":{"type":"integer"},"minContains":2,"maxContains":3,"minItems":5,"items":{"type":["integer","string"]}}`},
	{name: "maxContains zero", schema: `{"type":"array","contains":{"type":"string"},"minContains":0,"maxContains":0,"minItems":3}`},
	{name: "uniqueItems", schema: `{"type":"array","items":{"type":"integer","minimum":0,"maximum":4},"uniqueItems":true,"minItems":5}`},
	{name: "uniqueItems booleans", schema: `{"type":"array","items":{"type":"boolean"},"uniqueItems":true,"minItems":2}`},
	{name: "unevaluatedItems", schema: `{"type":"array","prefixItems":[{"type":"integer"}],"allOf":[{"prefixItems":[true,{"type":"string"}]}],"unevaluatedItems":false}`},

	// combinators
	{name: "allOf merge", schema: `{"allOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},{"properties":{"a":{"minimum":5}},"required":["b"]}]}`, all: has("a", "b")},
	{name: "anyOf", schema: `{"anyOf":[{"type":"string","maxLength":2},{"type":"integer","minimum":100}]}`, want: isNum},
	{name: "oneOf overlapping", schema: `{"oneOf":[{"type":"integer"},{"type":"number","minimum":2}]}`},
	{name: "oneOf discriminator", schema: `{"type":"object","required":["kind"],"oneOf":[{"properties":{"kind":{"const":"a"},"x":{"type":"string"}},"required":["x"]},{"properties":{"kind":{"const":"b"},"y":{"type":"integer"}},"required":["y"]}]}`},
	{name: "not", schema: `{"type":"string","not":{"enum":["a","b"]},"maxLength":1}`},
	{name: "not required", schema: `{"type":"object","properties":{"a":{},"b":{}},"not":{"required":["a"]}}`},
	{name: "if then else", schema: `{"type":"object","properties":{"country":{"enum":["US","CA"]},"zip":{"type":"string"}},"required":["country","zip"],"if":{"properties":{"country":{"const":"US"}}},"then":{"properties":{"zip":{"pattern":"^[0-9]{5}$"}}},"else":{"properties":{"zip":{"pattern":"^[A-Z][0-9][A-Z] [0-9][A-Z][0-9]$"}}}}`},
	{name: "unevaluatedProperties", schema: `{"type":"object","allOf":[{"properties":{"a":{"type":"string"}},"required":["a"]}],"properties":{"b":{"type":"integer"}},"unevaluatedProperties":false,"minProperties":2}`, all: has("a", "b")},
	{name: "unevaluatedProperties schema", schema: `{"type":"object","properties":{"a":{}},"unevaluatedProperties":{"type":"integer"},"minProperties":3}`},

	// references and recursion
	{name: "ref defs", schema: `{"$defs":{"pos":{"type":"integer","minimum":1}},"type":"object","properties":{"n":{"$ref":"#/$defs/pos"}},"required":["n"]}`},
	{name: "recursive tree", schema: `{"$defs":{"node":{"type":"object","required":["value","children"],"properties":{"value":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"$ref":"#/$defs/node"}`},
	{name: "recursive linked list", schema: `{"$defs":{"list":{"type":"object","required":["head"],"properties":{"head":{"type":"string"},"tail":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/list"}]}}}},"$ref":"#/$defs/list"}`},
	{name: "recursive required through anyOf", schema: `{"type":"object","required":["next"],"properties":{"next":{"anyOf":[{"$ref":"#"},{"type":"null"}]}}}`},
	{name: "dynamicRef", schema: `{"$id":"http://evtool.test/strict-tree.json","$dynamicAnchor":"node","$ref":"http://localhost:1234/draft2020-12/tree.json","unevaluatedProperties":false}`},
	{name: "draft 2019-09 recursiveRef", schema: `{"$schema":"https://json-schema.org/draft/2019-09/schema","$id":"http://evtool.test/strict","$recursiveAnchor":true,"$ref":"tree","unevaluatedProperties":false,"$defs":{"tree":{"$id":"tree","$recursiveAnchor":true,"type":"object","required":["data"],"properties":{"data":{"type":"integer"},"children":{"type":"array","items":{"$recursiveRef":"#"}}}}}}`,
		want: func(v any) bool { return len(arr(obj(v)["children"])) > 0 }},
	{name: "dynamicRef generic list", schema: `{"$id":"http://evtool.test/list-of-int","$ref":"#/$defs/list","$defs":{"list":{"$id":"list","type":"array","items":{"$dynamicRef":"#itemType"},"minItems":1,"$defs":{"itemType":{"$dynamicAnchor":"itemType"}}},"int":{"$dynamicAnchor":"itemType","type":"integer"}}}`,
		all: func(v any) bool {
			for _, e := range arr(v) {
				if !isNum(e) {
					return false
				}
			}
			return len(arr(v)) > 0
		}},
}

func TestGenerate(t *testing.T) {
	for _, c := range genCases {
		t.Run(c.name, func(t *testing.T) {
			s := compile(t, c.schema, c.format)
			for _, boundary := range []bool{false, true} {
				vals, err := Samples(s, 24, 7, Options{Boundary: boundary})
				if err != nil {
					t.Fatalf("boundary=%v: %v", boundary, err)
				}
				found := c.want == nil
				for _, v := range vals {
					if err := s.Validate(v); err != nil {
						t.Fatalf("boundary=%v: invalid %s: %v", boundary, toJSON(v), err)
					}
					if c.all != nil && !c.all(v) {
						t.Errorf("boundary=%v: %s fails the test's predicate", boundary, toJSON(v))
					}
					if c.want != nil && c.want(v) {
						found = true
					}
				}
				if !found && !boundary {
					t.Errorf("no sample satisfies the wanted property; samples: %s", toJSON(vals))
				}
			}
		})
	}
}

func TestRepresentation(t *testing.T) {
	s := compile(t, `{"type":"object","required":["n","f","a","o","s","b","z"],"properties":{
		"n":{"type":"integer"},"f":{"type":"number"},"a":{"type":"array","minItems":1,"items":{"type":"number"}},
		"o":{"type":"object","minProperties":1},"s":{"type":"string"},"b":{"type":"boolean"},"z":{"type":"null"}}}`, false)
	v, err := New(s, Options{}).Generate(rng(1))
	if err != nil {
		t.Fatal(err)
	}
	var check func(any)
	check = func(v any) {
		switch v := v.(type) {
		case nil, bool, string, json.Number:
		case map[string]any:
			for _, e := range v {
				check(e)
			}
		case []any:
			for _, e := range v {
				check(e)
			}
		default:
			t.Errorf("unexpected representation %T (%v)", v, v)
		}
	}
	check(v)
	// round trip through encoding/json keeps the value valid
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	back, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(back); err != nil {
		t.Errorf("round trip invalid: %s: %v", b, err)
	}
}

func TestUnsatisfiable(t *testing.T) {
	cases := []struct {
		schema  string
		keyword string
	}{
		{`false`, "false"},
		{`{"type":"number","minimum":5,"maximum":1}`, "maximum"},
		{`{"type":"integer","exclusiveMinimum":1,"exclusiveMaximum":2}`, "exclusiveMaximum"},
		{`{"allOf":[{"type":"string"},{"type":"integer"}]}`, "type"},
		{`{"type":"integer","multipleOf":10,"minimum":1,"maximum":9}`, "multipleOf"},
		{`{"type":"string","minLength":5,"maxLength":2}`, "maxLength"},
		{`{"type":"string","enum":[1,2]}`, "enum"},
		{`{"const":"a","type":"integer"}`, "const"},
		{`{"type":"object","required":["a"],"additionalProperties":false}`, "additionalProperties"},
		{`{"type":"object","required":["a","b"],"maxProperties":1}`, "maxProperties"},
		{`{"type":"array","minItems":3,"maxItems":1}`, "maxItems"},
		{`{"type":"array","prefixItems":[{}],"items":false,"minItems":2}`, "items"},
		{`{"type":"array","contains":{"type":"string"},"minContains":3,"maxItems":2}`, "minContains"},
		{`{"not":{}}`, "not"},
		{`{"type":"object","required":["next"],"properties":{"next":{"$ref":"#"}}}`, "$ref"},
		{`{"type":"array","items":{"type":"boolean"},"uniqueItems":true,"minItems":3}`, "uniqueItems"},
		{`{"oneOf":[{"type":"integer"},{"type":"integer"}]}`, "oneOf"},
		{`{"type":"string","pattern":"^a$","minLength":2}`, "pattern"},
	}
	for _, c := range cases {
		t.Run(c.schema, func(t *testing.T) {
			s := compile(t, c.schema, false)
			start := time.Now()
			v, err := New(s, Options{}).Generate(rng(3))
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
			var ue *UnsatisfiableError
			if !errors.As(err, &ue) {
				t.Fatalf("got %s, %v; want *UnsatisfiableError", toJSON(v), err)
			}
			if ue.Keyword != c.keyword {
				t.Errorf("keyword %q, want %q (%v)", ue.Keyword, c.keyword, ue)
			}
			if ue.Location == "" || !strings.Contains(ue.Error(), c.keyword) {
				t.Errorf("error does not locate the keyword: %v", ue)
			}
			if _, err := Samples(s, 3, 1, Options{}); err == nil {
				t.Errorf("Samples: want error")
			}
		})
	}
}

// An untyped schema whose numeric bounds contradict each other is still
// satisfied by values of other types.
func TestContradictoryBoundsOtherTypes(t *testing.T) {
	s := compile(t, `{"minimum":5,"maximum":1}`, false)
	v, err := New(s, Options{}).Generate(rng(1))
	if err != nil {
		t.Fatal(err)
	}
	if isNum(v) {
		t.Errorf("got number %s", toJSON(v))
	}
}

func TestDeterminism(t *testing.T) {
	s := compile(t, benchSchema, true)
	a, err := Samples(s, 20, 42, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Samples(s, 20, 42, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed, different samples (-a +b):\n%s", diff)
	}
	c, err := Samples(s, 20, 43, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Equal(a, c) {
		t.Errorf("different seeds gave identical samples")
	}
	seen := map[string]bool{}
	for _, v := range a {
		seen[toJSON(v)] = true
	}
	if len(seen) < 18 {
		t.Errorf("only %d distinct samples of 20", len(seen))
	}
	// Generate with equal rng state is deterministic too.
	sp := New(s, Options{})
	x, _ := sp.Generate(rng(9))
	y, _ := sp.Generate(rng(9))
	if !cmp.Equal(x, y) {
		t.Errorf("Generate not deterministic")
	}
}

func TestBoundaryValues(t *testing.T) {
	cases := []struct {
		schema string
		want   []string // JSON encodings (or "len:N" for string/array lengths) that must appear
	}{
		{`{"type":"integer","minimum":3,"maximum":9}`, []string{"3", "9"}},
		{`{"type":"integer","exclusiveMinimum":3,"exclusiveMaximum":9}`, []string{"4", "8"}},
		{`{"type":"number","minimum":-1.5,"maximum":2.25}`, []string{"-1.5", "2.25"}},
		{`{"type":"number","multipleOf":0.25,"exclusiveMinimum":0,"maximum":10}`, []string{"0.25", "10"}},
		{`{"type":"string","minLength":2,"maxLength":5}`, []string{"len:2", "len:5"}},
		{`{"type":"array","minItems":1,"maxItems":3}`, []string{"len:1", "len:3"}},
		{`{"type":"string","pattern":"^[a-z]+$","minLength":4,"maxLength":9}`, []string{"len:4", "len:9"}},
		{`{"enum":["first","middle","last"]}`, []string{`"first"`, `"last"`}},
		{`{"type":"object","properties":{"a":{},"b":{}}}`, []string{"len:0", "len:2"}},
	}
	for _, c := range cases {
		t.Run(c.schema, func(t *testing.T) {
			s := compile(t, c.schema, false)
			vals, err := Samples(s, 30, 5, Options{Boundary: true})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, v := range vals {
				got[toJSON(v)] = true
				switch v := v.(type) {
				case string:
					got["len:"+itoa(utf8.RuneCountInString(v))] = true
				case []any:
					got["len:"+itoa(len(v))] = true
				case map[string]any:
					got["len:"+itoa(len(v))] = true
				}
			}
			for _, w := range c.want {
				if !got[w] {
					t.Errorf("no boundary value %s in %s", w, toJSON(vals))
				}
			}
		})
	}
	// exclusive bounds on numbers: just inside
	s := compile(t, `{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}`, false)
	vals, err := Samples(s, 30, 5, Options{Boundary: true})
	if err != nil {
		t.Fatal(err)
	}
	near := false
	for _, v := range vals {
		if r := rat(v); r.Cmp(big.NewRat(1, 100)) < 0 || r.Cmp(big.NewRat(99, 100)) > 0 {
			near = true
		}
	}
	if !near {
		t.Errorf("no value near an exclusive bound: %s", toJSON(vals))
	}
	// unbounded numbers: extremes appear
	s = compile(t, `{"type":"integer"}`, false)
	vals, _ = Samples(s, 30, 5, Options{Boundary: true})
	extreme := false
	for _, v := range vals {
		if rat(v).Cmp(big2e53) > 0 || rat(v).Cmp(new(big.Rat).Neg(big2e53)) < 0 {
			extreme = true
		}
	}
	if !extreme {
		t.Errorf("no extreme integer in boundary mode: %s", toJSON(vals))
	}
}

var big2e53 = new(big.Rat).SetInt64(1 << 53)

func itoa(n int) string { return json.Number(big.NewInt(int64(n)).String()).String() }

func TestOptionsBounds(t *testing.T) {
	s := compile(t, `{"$defs":{"n":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/n"}}}}},"$ref":"#/$defs/n"}`, false)
	depth := func(v any) int {
		var d func(any) int
		d = func(v any) int {
			best := 0
			switch v := v.(type) {
			case map[string]any:
				for _, e := range v {
					best = max(best, d(e))
				}
				return best + 1
			case []any:
				for _, e := range v {
					best = max(best, d(e))
				}
				return best + 1
			}
			return 0
		}
		return d(v)
	}
	vals, err := Samples(s, 30, 1, Options{MaxDepth: 3, MaxItems: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vals {
		if depth(v) > 4 {
			t.Errorf("depth %d > MaxDepth+1: %s", depth(v), toJSON(v))
		}
		walkArrays(v, func(a []any) {
			if len(a) > 2 {
				t.Errorf("array longer than MaxItems: %s", toJSON(a))
			}
		})
	}
}

func walkArrays(v any, f func([]any)) {
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			walkArrays(e, f)
		}
	case []any:
		f(v)
		for _, e := range v {
			walkArrays(e, f)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	s := compile(t, benchSchema, true)
	sp := New(s, Options{})
	done := make(chan error, 4)
	for w := 0; w < 4; w++ {
		go func() {
			r := rng(uint64(w))
			for i := 0; i < 20; i++ {
				if _, err := sp.Generate(r); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for w := 0; w < 4; w++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestMatchString(t *testing.T) {
	for _, p := range []string{"/orders-service", "/shops/[a-z]{3}/orders", "urn:shop:(eu|us)-[0-9]+", "https://[a-z]+\\.example\\.com/.*"} {
		rng := rand.New(rand.NewPCG(1, 2))
		s, err := MatchString(p, rng)
		if err != nil || s == "" || !regexp.MustCompile("^(?:"+p+")$").MatchString(s) {
			t.Fatalf("%q: %q %v", p, s, err)
		}
		again, _ := MatchString(p, rand.New(rand.NewPCG(1, 2)))
		if again != s {
			t.Fatalf("%q: %q then %q from the same seed", p, s, again)
		}
	}
	if _, err := MatchString("(", rand.New(rand.NewPCG(1, 2))); err == nil {
		t.Fatal("bad pattern accepted")
	}
}
