package sample

import (
	"fmt"
	"strings"
	"testing"
)

// TestManyPatternNames: minProperties that only patternProperties names can
// fill is satisfied however many names it asks for, as long as the patterns
// allow that many distinct names.
func TestManyPatternNames(t *testing.T) {
	for _, tc := range []struct {
		patterns, minProps int
		anchored           bool
		additional         string
		pattern            string // instead of p<i>_
		unsat              bool
	}{
		{60, 40, true, "false", "", false},
		{60, 40, false, "false", "", false},
		{60, 40, true, "true", "", false},
		{5, 100, false, "false", "", false},
		{1, 80, true, "false", "", false},
		{1, 10, true, "false", "^q[0-9]$", false},
		{1, 11, true, "false", "^q[0-9]$", true},
	} {
		t.Run(fmt.Sprintf("%d_%d_%v_%s", tc.patterns, tc.minProps, tc.anchored, tc.additional), func(t *testing.T) {
			var pats []string
			for i := range tc.patterns {
				p := fmt.Sprintf("p%d_", i)
				if tc.anchored {
					p = "^" + p
				}
				if tc.pattern != "" {
					p = tc.pattern
				}
				pats = append(pats, fmt.Sprintf("%q: {\"type\": \"integer\"}", p))
			}
			src := fmt.Sprintf(`{"type": "object", "minProperties": %d, "patternProperties": {%s}, "additionalProperties": %s}`,
				tc.minProps, strings.Join(pats, ", "), tc.additional)
			s := compile(t, src, false)
			vs, err := Samples(s, 5, 1, Options{})
			if tc.unsat {
				if err == nil {
					t.Fatalf("sampled %d values of an unsatisfiable schema", len(vs))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vs {
				if n := len(obj(v)); n < tc.minProps {
					t.Fatalf("%d properties, want at least %d", n, tc.minProps)
				}
				if err := s.Validate(v); err != nil {
					t.Fatalf("sample %s invalid: %v", toJSON(v), err)
				}
			}
		})
	}
}

// TestDeepSchemaWithoutRecursion: a schema nested deeper than the depth
// limit without any reference has an instance that deep; only recursion
// through a reference with no finite instance is refused, naming $ref.
func TestDeepSchemaWithoutRecursion(t *testing.T) {
	for _, n := range []int{20, 50, 200} {
		src := `{"type": "string"}`
		for range n {
			src = `{"type": "object", "required": ["a"], "properties": {"a": ` + src + `}}`
		}
		s := compile(t, src, false)
		vs, err := Samples(s, 2, 1, Options{})
		if err != nil {
			t.Fatalf("%d nested objects: %v", n, err)
		}
		if got := strings.Count(toJSON(vs[0]), "{"); got != n {
			t.Fatalf("%d nested objects: instance nests %d", n, got)
		}
	}
	s := compile(t, `{"$defs": {"r": {"type": "object", "required": ["a"], "properties": {"a": {"$ref": "#/$defs/r"}}}}, "$ref": "#/$defs/r"}`, false)
	_, err := Samples(s, 1, 1, Options{})
	if err == nil || !strings.Contains(err.Error(), `"$ref"`) {
		t.Fatalf("a recursion with no finite instance: err = %v, want it refused at $ref", err)
	}
}

// TestPatternNamesAvoidDeclared: names drawn for minProperties from a
// pattern avoid the declared properties whose own schema contradicts the
// pattern's (p0..pz strings, ^p integers): no value exists for those.
func TestPatternNamesAvoidDeclared(t *testing.T) {
	var props []string
	for _, c := range "0123456789abcdefghijklmnopqrstuvwxyz" {
		props = append(props, fmt.Sprintf(`"p%c": {"type": "string"}`, c))
	}
	s := compile(t, `{"type": "object", "minProperties": 40, "additionalProperties": false,
		"properties": {`+strings.Join(props, ", ")+`}, "patternProperties": {"^p": {"type": "integer"}}}`, false)
	for seed := range int64(5) {
		vs, err := Samples(s, 3, seed, Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, v := range vs {
			if err := s.Validate(v); err != nil || len(obj(v)) < 40 {
				t.Fatalf("seed %d: sample %s: %v", seed, toJSON(v), err)
			}
		}
	}
}
