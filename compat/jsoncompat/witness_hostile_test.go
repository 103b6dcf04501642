package jsoncompat

import (
	"errors"
	"strings"
	"testing"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
	"github.com/evtool/evtool/report"
)

// TestHostileWitness: every counterexample (not only the first of a
// comparison) of pairs through $ref, combinators, conditionals, dependent
// schemas, patternProperties and unevaluated*, in both directions and
// profiles, is accepted by the writer and rejected by the reader, after a
// round trip through JSON text.
func TestHostileWitness(t *testing.T) {
	cases := []struct{ name, old, new string }{
		{"ref anyOf", `{"$defs":{"A":{"anyOf":[{"type":"string"},{"type":"integer"}]}},"type":"object","properties":{"a":{"$ref":"#/$defs/A"},"b":{"$ref":"#/$defs/A"}}}`,
			`{"$defs":{"A":{"anyOf":[{"type":"string","maxLength":2},{"type":"integer","maximum":3}]}},"type":"object","properties":{"a":{"$ref":"#/$defs/A"},"b":{"$ref":"#/$defs/A"}}}`},
		{"oneOf overlap", `{"oneOf":[{"type":"object","properties":{"k":{"const":"a"},"x":{"type":"integer"}},"required":["k"]},{"type":"object","properties":{"k":{"const":"b"},"y":{"type":"string"}},"required":["k"]}]}`,
			`{"oneOf":[{"type":"object","properties":{"k":{"const":"a"},"x":{"type":"integer","minimum":0}},"required":["k"]},{"type":"object","properties":{"k":{"const":"b"},"y":{"type":"string","minLength":2}},"required":["k","y"]}]}`},
		{"if then else", `{"type":"object","properties":{"t":{"enum":["a","b"]},"v":{}},"if":{"properties":{"t":{"const":"a"}}},"then":{"properties":{"v":{"type":"string"}}},"else":{"properties":{"v":{"type":"integer"}}}}`,
			`{"type":"object","properties":{"t":{"enum":["a","b"]},"v":{}},"if":{"properties":{"t":{"const":"a"}}},"then":{"properties":{"v":{"type":"string","maxLength":1}}},"else":{"properties":{"v":{"type":"integer","maximum":0}}}}`},
		{"dependentSchemas", `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"dependentSchemas":{"a":{"properties":{"b":{"type":"string"}}}}}`,
			`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"dependentSchemas":{"a":{"required":["b"],"properties":{"b":{"maxLength":1}}}},"dependentRequired":{"b":["c"]}}`},
		{"patternProperties", `{"type":"object","patternProperties":{"^x_":{"type":"integer"}},"additionalProperties":{"type":"string"}}`,
			`{"type":"object","patternProperties":{"^x_":{"type":"integer","minimum":0}},"additionalProperties":{"type":"string","maxLength":0}}`},
		{"unevaluated", `{"type":"object","allOf":[{"properties":{"a":{"type":"string"}}}],"unevaluatedProperties":{"type":"integer"}}`,
			`{"type":"object","allOf":[{"properties":{"a":{"type":"string"}}}],"unevaluatedProperties":false}`},
		{"unevaluatedItems", `{"type":"array","prefixItems":[{"type":"string"}],"unevaluatedItems":{"type":"integer"}}`,
			`{"type":"array","prefixItems":[{"type":"string"}],"unevaluatedItems":{"type":"integer","maximum":1}}`},
		{"minProperties dependentRequired", `{"type":"object","properties":{"a":{},"b":{}},"dependentRequired":{"a":["b"]}}`,
			`{"type":"object","properties":{"a":{},"b":{}},"dependentRequired":{"a":["b"]},"minProperties":3}`},
		{"maxContains", `{"type":"array","items":{"enum":[1,2,3]}}`, `{"type":"array","items":{"enum":[1,2,3]},"contains":{"enum":[1,2]},"maxContains":1}`},
		{"draft7 deps", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{},"b":{}}}`,
			`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{},"b":{}},"dependencies":{"a":["b"],"b":{"properties":{"a":{"type":"string"}}}}}`},
		{"nested optional path", `{"type":"object","properties":{"o":{"type":"object","properties":{"p":{"type":"object","properties":{"q":{"type":"integer"}}}}}}}`,
			`{"type":"object","properties":{"o":{"type":"object","properties":{"p":{"type":"object","properties":{"q":{"type":"integer","maximum":0}},"minProperties":2}}}}}`},
		{"hostile names", `{"type":"object","properties":{"::error::x\n%0A":{"type":"string"},"<script>":{"type":"integer"}},"required":["::error::x\n%0A"]}`,
			`{"type":"object","properties":{"::error::x\n%0A":{"type":"string","maxLength":0},"<script>":{"type":"integer","maximum":0}},"required":["::error::x\n%0A","<script>"]}`},
		{"not anyOf", `{"type":"object","properties":{"a":{"type":["string","integer"]}},"not":{"required":["z"]}}`,
			`{"type":"object","properties":{"a":{"anyOf":[{"type":"string","minLength":3},{"type":"integer","multipleOf":2}]}},"not":{"required":["z"]}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old := compileDoc(t, "old.json", tc.old)
			nw := compileDoc(t, "new.json", tc.new)
			for _, cfg := range configs {
				for _, seed := range []uint64{1, 2, 3} {
					fs := Compare(old, nw, cfg.dir, engine.Options{Profile: profileOf(cfg.profile), Seed: seed})
					verifiedWitness(t, old, nw, cfg.dir, cfg.profile, fs)
				}
			}
		})
	}
}

// leafLocations lists the keyword locations of the leaves of a
// validation error (the failures themselves, not the combinators above).
func leafLocations(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, errorLocations(&jsonschema.ValidationError{SchemaURL: e.SchemaURL, ErrorKind: e.ErrorKind})...)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

// TestCounterexampleIsolatedInCombinator: a break under one allOf/anyOf
// branch is not shown by a document that fails another branch: the
// combinator's own failure (at .../allOf) lies above both places, so it
// is no evidence that the document fails at the finding's.
func TestCounterexampleIsolatedInCombinator(t *testing.T) {
	cases := []struct{ name, old, new string }{
		{"allOf", `{"type":"object","allOf":[{"properties":{"a":{"type":"integer","maximum":200}},"required":["a"]},{"properties":{"b":{"enum":["A","B","X"]}},"required":["b"]}]}`,
			`{"type":"object","allOf":[{"properties":{"a":{"type":"integer","maximum":100}},"required":["a"]},{"properties":{"b":{"enum":["A","B"]}},"required":["b"]}]}`},
		{"nested allOf", `{"type":"object","properties":{"o":{"type":"object","allOf":[{"properties":{"a":{"type":"string","maxLength":20}},"required":["a"]},{"properties":{"b":{"type":"integer","minimum":0}},"required":["b"]}]}},"required":["o"]}`,
			`{"type":"object","properties":{"o":{"type":"object","allOf":[{"properties":{"a":{"type":"string","maxLength":3}},"required":["a"]},{"properties":{"b":{"type":"integer","minimum":5}},"required":["b"]}]}},"required":["o"]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old := compileDoc(t, "old.json", tc.old)
			nw := compileDoc(t, "new.json", tc.new)
			for _, seed := range []uint64{1, 2, 3, 4, 5} {
				fs := Compare(old, nw, engine.Backward, engine.Options{Profile: profileOf("strict"), Seed: seed})
				for _, f := range fs {
					if f.Severity != report.SeverityError || !f.HasCounterexample || f.Kind == KindWitness {
						continue
					}
					err := nw.Schema.Validate(f.Counterexample)
					if err == nil {
						t.Fatalf("seed %d: %s: the reader accepts %s", seed, f.Rule, compactJSON(f.Counterexample))
					}
					for _, l := range leafLocations(err) {
						if l != f.NewLocation && !strings.HasPrefix(l, f.NewLocation+"/") {
							t.Errorf("seed %d: %s at %s: counterexample %s fails the reader at %s", seed, f.Rule, f.NewLocation, compactJSON(f.Counterexample), l)
						}
					}
				}
			}
		})
	}
}

// TestWitnessMatchesOwnBranch: a document that breaks one allOf or anyOf
// branch does not decide a warning in another branch it does not break (a
// pattern the rules cannot compare, and that every old string matches):
// the combinator's failure lies above both places. Under anyOf, an
// integer past branch 0's new maximum fails every branch, but shows
// nothing about branch 1's string pattern.
func TestWitnessMatchesOwnBranch(t *testing.T) {
	cases := []struct{ name, old, new string }{
		{"allOf", `{"type":"object","allOf":[{"properties":{"a":{"type":"string","maxLength":20}},"required":["a"]},{"properties":{"b":{"type":"string","pattern":"^[a-z]{1,100}$"}},"required":["b"]}]}`,
			`{"type":"object","allOf":[{"properties":{"a":{"type":"string","maxLength":3}},"required":["a"]},{"properties":{"b":{"type":"string","pattern":"^(?:[a-z]{0,30}){0,30}[a-z]$"}},"required":["b"]}]}`},
		{"anyOf", `{"type":"object","properties":{"a":{"anyOf":[{"type":"integer","maximum":200},{"type":"string","pattern":"^[a-z]{1,100}$"}]}},"required":["a"]}`,
			`{"type":"object","properties":{"a":{"anyOf":[{"type":"integer","maximum":100},{"type":"string","pattern":"^(?:[a-z]{0,30}){0,30}[a-z]$"}]}},"required":["a"]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old := compileDoc(t, "old.json", tc.old)
			nw := compileDoc(t, "new.json", tc.new)
			fs := Compare(old, nw, engine.Backward, engine.Options{Profile: profileOf("strict"), Seed: 1})
			pattern := false
			for _, f := range fs {
				if f.Kind != KindPattern {
					continue
				}
				pattern = true
				if f.Severity == report.SeverityError || f.HasCounterexample {
					t.Errorf("%s is %s with counterexample %s, which does not break the pattern", f.Rule, f.Severity, compactJSON(f.Counterexample))
				}
			}
			if !pattern {
				t.Fatal("no pattern finding: the rules now decide the patterns; pick two they cannot compare")
			}
		})
	}
}
