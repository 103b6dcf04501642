package compat

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/compat/jsoncompat"
	jsonformat "github.com/evtool/evtool/format/jsonschema"
)

// synthCatalog builds a catalog of types × versions: every v1 has 20–60
// properties (strings with patterns and lengths, bounded integers and
// numbers, enums, arrays, nested objects and objects shared through $defs
// and $ref); each later version adds optional properties and edits
// descriptions (FULL compatible under lenient), and one type in ten gets a
// breaking change somewhere (so witness search and reporting run too).
func synthCatalog(types, versions int, seed uint64) fstest.MapFS {
	rng := rand.New(rand.NewPCG(seed, 1))
	fsys := fstest.MapFS{"evtool.yaml": {Data: []byte("version: 1\ncompat:\n  mode: FULL_TRANSITIVE\n  profile: lenient\n")}}
	for t := 0; t < types; t++ {
		name := fmt.Sprintf("com.example.synthetic.t%03d", t)
		nprops := 20 + rng.IntN(41)
		props := map[string]any{}
		var required []any
		for p := 0; p < nprops; p++ {
			pn := fmt.Sprintf("f%02d", p)
			props[pn] = synthProp(rng, 0)
			if rng.IntN(3) == 0 {
				required = append(required, pn)
			}
		}
		props["addr"] = map[string]any{"$ref": "#/$defs/address"}
		props["lines"] = map[string]any{"type": "array", "maxItems": 50, "items": map[string]any{"$ref": "#/$defs/line"}}
		breakAt := -1
		if t%10 == 3 {
			breakAt = 2 + rng.IntN(versions-2)
		}
		for v := 1; v <= versions; v++ {
			if v > 1 {
				for k := 0; k < 1+rng.IntN(3); k++ {
					props[fmt.Sprintf("v%d_added%d", v, k)] = synthProp(rng, 1)
				}
			}
			if v == breakAt {
				props["f00"] = map[string]any{"type": "string", "maxLength": 3}
			}
			doc := map[string]any{
				"$schema":     "https://json-schema.org/draft/2020-12/schema",
				"title":       name,
				"description": fmt.Sprintf("version %d", v),
				"type":        "object",
				"properties":  props,
				"required":    required,
				"$defs": map[string]any{
					"address": map[string]any{"type": "object", "additionalProperties": false, "required": []any{"city", "country"},
						"properties": map[string]any{"city": map[string]any{"type": "string", "minLength": 1, "maxLength": 60},
							"country": map[string]any{"type": "string", "pattern": "^[A-Z]{2}$"}, "zip": map[string]any{"type": "string", "maxLength": 10}}},
					"line": map[string]any{"type": "object", "required": []any{"sku", "qty"},
						"properties": map[string]any{"sku": map[string]any{"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
							"qty": map[string]any{"type": "integer", "minimum": 1, "maximum": 1000}, "addr": map[string]any{"$ref": "#/$defs/address"}}},
				},
			}
			data, _ := json.MarshalIndent(doc, "", "  ")
			fsys[fmt.Sprintf("schemas/%s/v%d.json", name, v)] = &fstest.MapFile{Data: data}
			props = cloneMap(props)
		}
	}
	return fsys
}

func synthProp(rng *rand.Rand, depth int) any {
	switch k := rng.IntN(9); {
	case k == 0:
		return map[string]any{"type": "string", "maxLength": 20 + rng.IntN(100)}
	case k == 1:
		return map[string]any{"type": "string", "pattern": "^[a-z]{2,8}-[0-9]{1,4}$"}
	case k == 2:
		return map[string]any{"type": "integer", "minimum": 0, "maximum": 1000 + rng.IntN(10000)}
	case k == 3:
		return map[string]any{"type": "number", "exclusiveMinimum": 0}
	case k == 4:
		return map[string]any{"type": "string", "enum": []any{"a", "b", "c", "d"}[:2+rng.IntN(3)]}
	case k == 5:
		return map[string]any{"type": "boolean"}
	case k == 6:
		return map[string]any{"type": "array", "items": map[string]any{"type": "string", "format": "uuid"}, "maxItems": 10}
	case k == 7 && depth < 2:
		inner := map[string]any{}
		for i := 0; i < 3+rng.IntN(4); i++ {
			inner[fmt.Sprintf("n%d", i)] = synthProp(rng, depth+1)
		}
		return map[string]any{"type": "object", "properties": inner}
	default:
		return map[string]any{"type": []any{"string", "null"}, "format": "date-time"}
	}
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func loadSynth(tb testing.TB, types, versions int) *catalog.Catalog {
	tb.Helper()
	cat, err := catalog.LoadFS(synthCatalog(types, versions, 42), "synthetic")
	if err != nil {
		tb.Fatal(err)
	}
	return cat
}

// BenchmarkCheckSynthetic: 100 types × 10 versions, FULL_TRANSITIVE
// (45 pairs × 2 directions per type), default sampling, parallel across
// types. The catalog is loaded once outside the timer.
func BenchmarkCheckSynthetic(b *testing.B) {
	cat := loadSynth(b, 100, 10)
	b.ResetTimer()
	var pairs, errs int
	cpu0 := cpuTime()
	for b.Loop() {
		res := CheckCatalog(cat, nil, CheckOptions{})
		pairs = res.Pairs
		errs = 0
		for _, f := range res.Findings {
			if f.Failing() {
				errs++
			}
		}
	}
	b.ReportMetric(float64(pairs), "pairs")
	b.ReportMetric(float64(errs), "errors")
	// CPU seconds per check: on a shared machine this, halved, is what two
	// dedicated cores take.
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLoadSynthetic: loading and compiling the same catalog.
func BenchmarkLoadSynthetic(b *testing.B) {
	fsys := synthCatalog(100, 10, 42)
	for b.Loop() {
		if _, err := catalog.LoadFS(fsys, "synthetic"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckOrders: compat check of examples/orders in process.
func BenchmarkCheckOrders(b *testing.B) {
	for b.Loop() {
		cat, err := catalog.Load(filepath.Join("..", "examples", "orders"))
		if err != nil {
			b.Fatal(err)
		}
		CheckCatalog(cat, nil, CheckOptions{})
	}
}

// BenchmarkComparePair: one FULL comparison of two versions of a synthetic
// type, rules only and with witness search.
func BenchmarkComparePair(b *testing.B) {
	cat := loadSynth(b, 1, 2)
	t := cat.Types[0]
	old, nw := jsoncompat.NewSide(t.Versions[0].Compiled.(*jsonformat.Schema).JSONSchema(), nil), jsoncompat.NewSide(t.Versions[1].Compiled.(*jsonformat.Schema).JSONSchema(), nil)
	b.Run("rules", func(b *testing.B) {
		for b.Loop() {
			jsoncompat.Compare(old, nw, engine.Backward, engine.Options{Samples: -1})
			jsoncompat.Compare(old, nw, engine.Forward, engine.Options{Samples: -1})
		}
	})
	b.Run("witness", func(b *testing.B) {
		for b.Loop() {
			jsoncompat.Compare(old, nw, engine.Backward, engine.Options{})
			jsoncompat.Compare(old, nw, engine.Forward, engine.Options{})
		}
	})
}

// TestSyntheticCatalog checks a smaller synthetic catalog end to end:
// every pair is compared and every planted break is found with a
// counterexample. Timing lives in BenchmarkCheckSynthetic (BENCHMARKS.md).
func TestSyntheticCatalog(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: brute force, hostile-schema cost bounds or the whole corpus (tens of seconds); TestRuleFixtures stands for compat in the short tier")
	}
	cat := loadSynth(t, 10, 10)
	start := time.Now()
	res := CheckCatalog(cat, nil, CheckOptions{})
	broken := map[string]bool{}
	for _, f := range res.Findings {
		if f.Failing() {
			broken[f.Type] = true
			if len(f.Counterexample) == 0 {
				t.Errorf("%s %s: no counterexample", f.Subject, f.Rule)
			}
		}
	}
	t.Logf("synthetic catalog: %d types, %d pairs in %v", len(cat.Types), res.Pairs, time.Since(start))
	if res.Pairs != 10*45 {
		t.Errorf("pairs = %d, want %d", res.Pairs, 10*45)
	}
	// synthCatalog plants a break in every type whose index is 3 mod 10.
	if len(broken) != 1 || !broken["com.example.synthetic.t003"] {
		t.Errorf("types with breaks: %v, want only com.example.synthetic.t003", broken)
	}
}
