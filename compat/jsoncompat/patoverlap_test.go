package jsoncompat

import (
	"github.com/evtool/evtool/compat/engine"

	"encoding/json"
	"math/rand/v2"
	"testing"
)

// Overlapping patternProperties (a name two patterns match must satisfy
// both), with properties and additionalProperties, on either side: random
// pairs against brute force over objects of up to two names from six.
func TestOverlappingPatternsBruteForce(t *testing.T) {
	pats := []string{`"^a":{"type":"integer"}`, `"b$":{"type":"integer","minimum":0}`, `"^ab":{"type":"string"}`,
		`"a":{"minimum":1}`, `"^ac":false`, `"b":{"enum":[1,"x"]}`, `"^c$":{"type":"integer"}`}
	props := []string{``, `"ab":{"type":"integer"}`, `"a":{"const":1}`, `"b":{"type":"string"}`, `"c":{}`}
	addl := []string{``, `"additionalProperties":false`, `"additionalProperties":{"type":"string"}`, `"additionalProperties":{"type":"integer"}`}
	rng := rand.New(rand.NewPCG(*randomSeed, 2))
	schema := func() string {
		s := `{"type":"object"`
		var ps string
		for _, p := range pats {
			if rng.IntN(3) == 0 {
				if ps != "" {
					ps += ","
				}
				ps += p
			}
		}
		if ps != "" {
			s += `,"patternProperties":{` + ps + `}`
		}
		if p := props[rng.IntN(len(props))]; p != "" {
			s += `,"properties":{` + p + `}`
		}
		if a := addl[rng.IntN(len(addl))]; a != "" {
			s += "," + a
		}
		return s + "}"
	}
	names := []string{"a", "ab", "b", "ba", "c", "abc"}
	vals := []any{json.Number("-1"), json.Number("1"), json.Number("1.5"), "x", "y"}
	grid := []any{map[string]any{}}
	for i, n := range names {
		for _, v := range vals {
			grid = append(grid, map[string]any{n: v})
			for _, m := range names[i+1:] {
				for _, u := range vals {
					grid = append(grid, map[string]any{n: v, m: u})
				}
			}
		}
	}
	falseAlarms := 0
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
			case witness != nil && compatible && !hasWarning(fs):
				wj, _ := json.Marshal(witness)
				t.Errorf("FALSE COMPATIBLE %s: %s -> %s (witness %s): %s", profile, w, r, wj, summarize(fs))
			case witness == nil && !compatible:
				falseAlarms++
			}
		}
	}
	t.Logf("%d random pairs x 2 profiles: %d false alarms", *randomPairs, falseAlarms)
}
