package jsoncompat

import (
	"github.com/evtool/evtool/compat/engine"

	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Numbers with bounds, multipleOf and `not` over types, bounds, multiples
// and values, on either side: random pairs against brute force over the
// quarters from -8 to 8 (every bound and step below lies on that grid).
func TestNumericNegationsBruteForce(t *testing.T) {
	types := []string{``, `"type":"integer"`, `"type":"number"`, `"type":["integer","string"]`}
	points := []string{"-3", "-1", "0", "0.5", "1", "1.5", "2", "4"}
	bounds := []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
	steps := []string{"0.5", "2", "3", "1.5", "0.75"}
	rng := rand.New(rand.NewPCG(*randomSeed, 5))
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	negs := func() string {
		switch rng.IntN(9) {
		case 0:
			return `{"type":"integer"}`
		case 1:
			return `{"type":"number"}`
		case 2:
			return `{"multipleOf":` + pick(steps) + `}`
		case 3:
			return `{"` + pick(bounds) + `":` + pick(points) + `}`
		case 4:
			return `{"const":` + pick(points) + `}`
		case 5:
			return `{"enum":[` + pick(points) + `,` + pick(points) + `,"s"]}`
		case 6:
			return `{"type":"integer","` + pick(bounds) + `":` + pick(points) + `}`
		case 7:
			return `{"type":"number","multipleOf":` + pick(steps) + `,"` + pick(bounds) + `":` + pick(points) + `}`
		}
		lower, upper := bounds[2*rng.IntN(2)], bounds[1+2*rng.IntN(2)]
		return `{"` + lower + `":` + pick(points) + `,"` + upper + `":` + pick(points) + `}`
	}
	schema := func() string {
		var parts []string
		if ty := pick(types); ty != "" {
			parts = append(parts, ty)
		}
		used := map[string]bool{}
		for n := rng.IntN(3); n > 0; n-- {
			if b := pick(bounds); !used[b] {
				used[b] = true
				parts = append(parts, fmt.Sprintf("%q:%s", b, pick(points)))
			}
		}
		if rng.IntN(3) == 0 {
			parts = append(parts, `"multipleOf":`+pick(steps))
		}
		if rng.IntN(3) > 0 {
			parts = append(parts, `"not":`+negs())
		}
		if rng.IntN(5) == 0 {
			parts = append(parts, `"anyOf":[`+negs()+`,{"not":`+negs()+`}]`)
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	var grid []any
	for i := -32; i <= 32; i++ {
		grid = append(grid, json.Number(strconv.FormatFloat(float64(i)/4, 'f', -1, 64)))
	}
	grid = append(grid, "s", "t", nil, true, map[string]any{})
	falseAlarms, undecided := 0, 0
	for i := 0; i < *randomPairs; i++ {
		w, r := schema(), schema()
		ws, rs := compileDoc(t, "old.json", w), compileDoc(t, "new.json", r)
		var witness any = noWitness{}
		for _, x := range grid {
			if ws.Schema.Validate(x) == nil && rs.Schema.Validate(x) != nil {
				witness = x
				break
			}
		}
		_, broken := witness.(noWitness)
		broken = !broken
		fs := Compare(ws, rs, engine.Backward, engine.Options{Seed: 1, Samples: -1})
		switch compatible := Compatible(fs); {
		case broken && compatible && hasWarning(fs):
			undecided++
		case broken && compatible:
			t.Errorf("FALSE COMPATIBLE: %s -> %s (witness %v): %s", w, r, witness, summarize(fs))
		case !broken && !compatible:
			falseAlarms++
		}
	}
	t.Logf("%d random pairs: %d false alarms, %d breaks left undecided (warned)", *randomPairs, falseAlarms, undecided)
}

// noWitness marks "no counterexample in the grid" (null is a value).
type noWitness struct{}
