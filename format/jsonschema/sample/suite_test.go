package sample

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// The sampler quality test runs the generator over every schema of the
// JSON-Schema-Test-Suite copy in testdata/ (see testdata/JSON-Schema-Test-Suite/SOURCE).

const suiteDir = "testdata/JSON-Schema-Test-Suite"

// suiteRemotes serves remotes/ as http://localhost:1234/; everything else is
// refused, so the test never touches the network.
type suiteRemotes struct{}

func (suiteRemotes) Load(url string) (any, error) {
	rest, ok := strings.CutPrefix(url, "http://localhost:1234/")
	if !ok {
		return nil, fmt.Errorf("no network in tests: %s", url)
	}
	b, err := os.ReadFile(filepath.Join(suiteDir, "remotes", filepath.FromSlash(rest)))
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

type suiteGroup struct {
	file        string
	Description string
	Schema      json.RawMessage
	Tests       []struct {
		Description string
		Data        json.RawMessage
		Valid       bool
	}
}

func loadSuite(t testing.TB, dir string) []suiteGroup {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(suiteDir, "tests", dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no suite files in %s: %v", dir, err)
	}
	sort.Strings(files)
	var all []suiteGroup
	for _, fn := range files {
		b, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		var groups []suiteGroup
		if err := json.Unmarshal(b, &groups); err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		for i := range groups {
			groups[i].file = filepath.Base(fn)
		}
		all = append(all, groups...)
	}
	return all
}

func compileSuiteSchema(raw json.RawMessage, draft *jsonschema.Draft, assertFormat bool) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(draft)
	if assertFormat {
		c.AssertFormat()
	}
	c.UseLoader(jsonschema.SchemeURLLoader{"http": suiteRemotes{}})
	const url = "http://testsuites.com/schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

type suiteResult struct {
	satisfiable  int // groups with at least one valid test instance
	found        int // ... for which every attempt produced a valid instance
	foundAny     int // ... for which at least one attempt did
	typePairs    int // (schema, JSON type of a valid suite instance) pairs
	typeFound    int // ... for which the sampler, asked for that type, found an instance
	typeMisses   []string
	noValid      int // groups whose tests hold no valid instance
	noValidUnsat int // ... for which the sampler found none either
	failures     map[string][]string
}

// runSuite generates `per` instances for each group's schema and fails the
// test on any instance the validator rejects.
func runSuite(t *testing.T, dir string, draft *jsonschema.Draft, assertFormat bool, per int, opts Options) suiteResult {
	res := suiteResult{failures: map[string][]string{}}
	for gi, grp := range loadSuite(t, dir) {
		sch, err := compileSuiteSchema(grp.Schema, draft, assertFormat)
		if err != nil {
			t.Errorf("%s / %s: compile: %v", grp.file, grp.Description, err)
			continue
		}
		hasValid := false
		validTypes := map[string]bool{}
		for _, tc := range grp.Tests {
			if tc.Valid {
				hasValid = true
				var v any
				_ = json.Unmarshal(tc.Data, &v)
				validTypes[jsonType(v)] = true
			}
		}
		sp := New(sch, opts)
		ok := 0
		var lastErr *UnsatisfiableError
		for i := 0; i < per; i++ {
			rng := rand.New(rand.NewPCG(uint64(gi), uint64(i)))
			v, err := sp.Generate(rng)
			if err != nil {
				var ue *UnsatisfiableError
				if !errors.As(err, &ue) || ue.Keyword == "" {
					t.Errorf("%s / %s: error is not an *UnsatisfiableError naming a keyword: %v", grp.file, grp.Description, err)
					continue
				}
				lastErr = ue
				continue
			}
			if verr := sch.Validate(v); verr != nil {
				b, _ := json.Marshal(v)
				t.Errorf("%s / %s: SILENT WRONG ANSWER %s: %v", grp.file, grp.Description, b, verr)
				continue
			}
			ok++
		}
		if !hasValid {
			res.noValid++
			if ok == 0 {
				res.noValidUnsat++
			}
			continue
		}
		for _, typ := range slices.Sorted(maps.Keys(validTypes)) {
			res.typePairs++
			found := false
			for i := 0; i < 3 && !found; i++ {
				rng := rand.New(rand.NewPCG(uint64(gi), uint64(100+i)))
				v, err := sp.generateOnly(rng, sp.opts, typeBits[typ])
				if err != nil {
					continue
				}
				if verr := sch.Validate(v); verr != nil {
					b, _ := json.Marshal(v)
					t.Errorf("%s / %s: SILENT WRONG ANSWER %s: %v", grp.file, grp.Description, b, verr)
					continue
				}
				found = jsonType(v) == typ
			}
			if found {
				res.typeFound++
			} else {
				res.typeMisses = append(res.typeMisses, typ+": "+grp.file+" / "+grp.Description)
			}
		}
		res.satisfiable++
		if ok == per {
			res.found++
		}
		if ok > 0 {
			res.foundAny++
		} else if lastErr != nil {
			res.failures[lastErr.Keyword] = append(res.failures[lastErr.Keyword], grp.file+" / "+grp.Description)
		}
	}
	return res
}

func (r suiteResult) log(t *testing.T, name string) (rate, typeRate float64) {
	rate = float64(r.foundAny) / float64(r.satisfiable)
	pct := func(n int) float64 { return 100 * float64(n) / float64(r.satisfiable) }
	t.Logf("%s: valid instance for %d/%d satisfiable schemas (%.1f%%); every attempt valid for %d (%.1f%%)",
		name, r.foundAny, r.satisfiable, 100*rate, r.found, pct(r.found))
	t.Logf("%s: %d schemas have no valid suite instance; the sampler found none for %d of them (the others are satisfiable by values the suite does not test)",
		name, r.noValid, r.noValidUnsat)
	typeRate = float64(r.typeFound) / float64(r.typePairs)
	t.Logf("%s: asked for the JSON type of a valid suite instance, found one for %d/%d (schema, type) pairs (%.1f%%)",
		name, r.typeFound, r.typePairs, 100*typeRate)
	for _, m := range r.typeMisses {
		t.Logf("  no instance of type %s", m)
	}
	kws := slices.Sorted(maps.Keys(r.failures))
	for _, kw := range kws {
		for _, d := range r.failures[kw] {
			t.Logf("  unsatisfied %-22s %s", kw, d)
		}
	}
	return rate, typeRate
}

func TestSuiteQuality(t *testing.T) {
	cases := []struct {
		name         string
		dir          string
		draft        *jsonschema.Draft
		assertFormat bool
		boundary     bool
		floor        float64
		typeFloor    float64
	}{
		{"draft2020-12", "draft2020-12", jsonschema.Draft2020, false, false, 0.98, 0.98},
		{"draft2020-12 boundary", "draft2020-12", jsonschema.Draft2020, false, true, 0.98, 0.98},
		{"draft2020-12 formats", "draft2020-12/optional/format", jsonschema.Draft2020, true, false, 0.98, 0.98},
		{"draft7", "draft7", jsonschema.Draft7, false, false, 0.98, 0.98},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && c.name != "draft2020-12" {
				t.Skip("-short: another pass over the JSON Schema test suite; draft2020-12 stands for the suite in the short tier")
			}
			r := runSuite(t, c.dir, c.draft, c.assertFormat, 4, Options{Boundary: c.boundary})
			rate, typeRate := r.log(t, c.name)
			if rate < c.floor {
				t.Errorf("success rate %.3f below the floor %.2f", rate, c.floor)
			}
			if typeRate < c.typeFloor {
				t.Errorf("typed success rate %.3f below the floor %.2f", typeRate, c.typeFloor)
			}
		})
	}
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if r := numRat(v); r != nil && r.IsInt() {
			return "integer"
		}
		return "number"
	case float64:
		if r := numRat(v); r != nil && r.IsInt() {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

var typeBits = map[string]int{"null": tNull, "boolean": tBool, "integer": tInt, "number": tNum,
	"string": tStr, "array": tArr, "object": tObj}
