package jsoncompat

import (
	"encoding/json"
	"flag"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/report"
)

var (
	randomPairs = flag.Int("random-pairs", 800, "random schema pairs each random brute-force test compares")
	randomSeed  = flag.Uint64("random-seed", 13, "seed of the random brute-force tests")
)

// A definition reached through several properties is one question for the
// memo and one schema location for dedupe; its answer must still depend on
// where it is reached from: under a parent that adds constraints to it,
// under a dependent trigger, under a wrapper the lenient profile closes
// and one it leaves open. Random pairs of such schemas against brute force
// over objects of two properties holding small objects and numbers.
func TestSharedDefsBruteForce(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: brute force over 800 random pairs (about 5 CPU-s); TestRuleFixtures stands for compat in the short tier")
	}
	defs := []string{`{"type":"object","properties":{"x":{"type":"integer"}}}`,
		`{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}`,
		`{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"integer"}}}`,
		`{"type":"object","properties":{"x":{"type":"integer","minimum":1}}}`,
		`{"type":"object","properties":{"x":{"type":"integer"}},"additionalProperties":false}`,
		`{"type":"object","properties":{"x":{"type":"integer"}},"additionalProperties":true}`,
		`{"type":"object"}`, `{"type":"integer"}`, `{"type":"integer","minimum":1}`, `{}`, `{"not":{"const":1}}`,
		`{"enum":[1,2]}`, `{"type":["object","integer"],"properties":{"x":{"const":1}}}`}
	wraps := []string{`{"$ref":"#/$defs/d"}`, `{"$ref":"#/$defs/d"}`, `{"$ref":"#/$defs/e"}`,
		`{"allOf":[{"$ref":"#/$defs/d"}]}`, `{"$ref":"#/$defs/d","properties":{"y":{"const":1}}}`,
		`{"$ref":"#/$defs/d","additionalProperties":true}`, `{"$ref":"#/$defs/d","required":["x"]}`,
		`{"$ref":"#/$defs/d","not":{"required":["y"]}}`, `{"$ref":"#/$defs/d","minimum":2}`,
		`{"anyOf":[{"$ref":"#/$defs/d"},{"const":2}]}`, `{"$ref":"#/$defs/e","properties":{"x":{"$ref":"#/$defs/d"}}}`,
		`{"not":{"$ref":"#/$defs/d"}}`, `{"$ref":"#/$defs/e","not":{"$ref":"#/$defs/d"}}`,
		`{"if":{"$ref":"#/$defs/d"},"then":{"const":1},"else":{"$ref":"#/$defs/e"}}`, `{"oneOf":[{"$ref":"#/$defs/d"},{"$ref":"#/$defs/e"}]}`}
	parents := []string{``, ``, `"required":["a"]`, `"dependentSchemas":{"t":{"properties":{"a":{"properties":{"x":{"const":1}}}}}}`,
		`"dependentSchemas":{"t":{"properties":{"b":{"$ref":"#/$defs/e"}}}}`, `"dependentRequired":{"t":["a","b"]}`,
		`"if":{"required":["t"]},"then":{"properties":{"a":{"$ref":"#/$defs/e"}}}`, `"additionalProperties":true`,
		`"not":{"properties":{"a":{"$ref":"#/$defs/d"}},"required":["a"]}`}
	rng := rand.New(rand.NewPCG(*randomSeed, 18))
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	schema := func() string {
		s := `{"$defs":{"d":` + pick(defs) + `,"e":` + pick(defs) + `},"type":"object","properties":{"a":` + pick(wraps) +
			`,"b":` + pick(wraps) + `,"t":{"const":1}}`
		if p := pick(parents); p != "" {
			s += "," + p
		}
		return s + "}"
	}
	vals := jsonValues(t, `1`, `2`, `{}`, `{"x":1}`, `{"x":0}`, `{"x":1,"y":1}`, `{"y":1}`, `{"x":"s"}`, `{"x":2,"y":2}`, `{"z":1}`)
	vals = append(vals, nil) // absent
	var grid []any
	for _, a := range vals {
		for _, b := range vals {
			for _, tv := range []any{nil, json.Number("1")} {
				obj := map[string]any{}
				for k, v := range map[string]any{"a": a, "b": b, "t": tv} {
					if v != nil {
						obj[k] = v
					}
				}
				grid = append(grid, obj)
			}
		}
	}
	grid = append(grid, map[string]any{"q": json.Number("1")})
	falseAlarms, undecided := 0, 0
	for i := 0; i < *randomPairs; i++ {
		w, r := schema(), schema()
		ws, rs := compileDoc(t, "old.json", w), compileDoc(t, "new.json", r)
		for _, profile := range []string{"strict", "lenient"} {
			var witness any
			for _, x := range grid {
				if ws.writerValid(x, profile == "lenient") && rs.Schema.Validate(x) != nil {
					witness = x
					break
				}
			}
			fs := Compare(ws, rs, engine.Backward, engine.Options{Profile: profileOf(profile), Seed: 1, Samples: -1})
			switch compatible := Compatible(fs); {
			case witness != nil && compatible && hasWarning(fs):
				undecided++
			case witness != nil && compatible:
				wj, _ := json.Marshal(witness)
				t.Errorf("FALSE COMPATIBLE %s: %s -> %s (witness %s): %s", profile, w, r, wj, summarize(fs))
			case witness == nil && !compatible:
				falseAlarms++
			}
		}
	}
	t.Logf("%d random pairs x 2 profiles: %d false alarms, %d breaks left undecided (warned)", *randomPairs, falseAlarms, undecided)
}

// hasWarning: the rules said they could not decide something (a
// compatible verdict with a warning is not a silent pass).
func hasWarning(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == report.SeverityWarning {
			return true
		}
	}
	return false
}

// The schemas the rules make up are one per question, and never one for
// two: a required list of names holding the separator, a name holding a
// kind prefix and another kind's key each get their own.
func TestMadeUpSchemasDistinct(t *testing.T) {
	c := newChecker(engine.Backward, false, 0)
	ab := c.requireAtom([]string{"a", "b"}).s
	joined := c.requireAtom([]string{"a\x00b"}).s
	if ab == joined || len(joined.Required) != 1 || joined.Required[0] != "a\x00b" {
		t.Errorf(`required ["a\x00b"] is %v, want its own schema (["a","b"] is %v)`, joined.Required, ab.Required)
	}
	forbid := c.forbidAtom("a").s
	prefixed := c.requireAtom([]string{"\x01a"}).s
	if forbid == prefixed || len(prefixed.Required) != 1 || prefixed.Required[0] != "\x01a" {
		t.Errorf(`required ["\x01a"] is %v %v, want its own schema`, prefixed.Required, prefixed.Properties)
	}
	if c.requireAtom([]string{"a", "b"}).s != ab {
		t.Error("the same required list made two schemas (memo keys would differ)")
	}
}

// jsonValues decodes JSON texts as the validator sees documents (numbers
// as json.Number).
func jsonValues(t *testing.T, texts ...string) []any {
	t.Helper()
	var out []any
	for _, text := range texts {
		var x any
		d := json.NewDecoder(strings.NewReader(text))
		d.UseNumber()
		if err := d.Decode(&x); err != nil {
			t.Fatal(err)
		}
		out = append(out, x)
	}
	return out
}
