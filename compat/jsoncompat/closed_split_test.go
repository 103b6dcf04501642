package jsoncompat

import (
	"testing"

	"github.com/evtool/evtool/compat/engine"
)

// TestLenientSplitObjects: an object whose properties are split between
// in-place subschemas ($ref to a base, allOf parts, oneOf branches) is
// closed to all of their names under lenient, so witness search draws its
// documents and a break comes with a counterexample; names none of them
// declares stay refused.
func TestLenientSplitObjects(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
	}{
		{"$ref to a base",
			`{"$defs":{"base":{"type":"object","required":["id"],"properties":{"id":{"type":"string"}}}},"$ref":"#/$defs/base","type":"object","required":["amount"],"properties":{"amount":{"type":"integer"}}}`,
			`{"$defs":{"base":{"type":"object","required":["id"],"properties":{"id":{"type":"string"}}}},"$ref":"#/$defs/base","type":"object","required":["amount"],"properties":{"amount":{"type":"integer","maximum":10}}}`},
		{"allOf parts",
			`{"type":"object","required":["amount"],"properties":{"amount":{"type":"integer"}},"allOf":[{"properties":{"card":{"type":"string"}}}]}`,
			`{"type":"object","required":["amount"],"properties":{"amount":{"type":"integer"}},"allOf":[{"properties":{"card":{"type":"string","maxLength":5}}}]}`},
		{"oneOf branches",
			`{"type":"object","required":["x"],"properties":{"x":{"type":"integer"}},"oneOf":[{"required":["a"],"properties":{"a":{"type":"string"}}},{"required":["b"],"properties":{"b":{"type":"string"}}}]}`,
			`{"type":"object","required":["x"],"properties":{"x":{"type":"integer"}},"oneOf":[{"required":["a"],"properties":{"a":{"type":"string"}}},{"properties":{"b":{"type":"string"}}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, new := compileDoc(t, "old.json", tc.old), compileDoc(t, "new.json", tc.new)
			fs := Compare(old, new, engine.Backward, engine.Options{Samples: 24, Seed: 1})
			errs := 0
			for _, f := range fs {
				if f.Severity != "error" {
					continue
				}
				errs++
				if !f.HasCounterexample {
					t.Errorf("%s without a counterexample: %s", f.Rule, f.Message)
					continue
				}
				if old.Schema.Validate(f.Counterexample) != nil || new.Schema.Validate(f.Counterexample) == nil || !closedOK(f.Counterexample, old.Schema) {
					t.Errorf("%s: counterexample %s is not an old event the new schema rejects", f.Rule, compactJSON(f.Counterexample))
				}
			}
			if errs == 0 {
				t.Fatalf("no error: %+v", fs)
			}
		})
	}
	// Names no part declares stay refused.
	s := compileDoc(t, "s.json", `{"$defs":{"base":{"type":"object","properties":{"id":{"type":"string"}}}},"$ref":"#/$defs/base","type":"object","properties":{"amount":{"type":"integer"}}}`)
	for _, tc := range []struct {
		doc  map[string]any
		want bool
	}{
		{map[string]any{"id": "x", "amount": 1}, true},
		{map[string]any{"id": "x", "amount": 1, "other": true}, false},
	} {
		if got := closedOK(tc.doc, s.Schema); got != tc.want {
			t.Errorf("closedOK(%v) = %v, want %v", tc.doc, got, tc.want)
		}
	}
}
