package jsoncompat

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format/jsonschema/sample"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
	"github.com/evtool/evtool/report"
)

type corpusPair struct {
	Description string                       `json:"description"`
	Old         json.RawMessage              `json:"old"`
	New         json.RawMessage              `json:"new"`
	Expect      map[string]map[string]string `json:"expect"`
}

// TestCorpus runs the labelled corpus (testdata/corpus/*.json: an old and a
// new schema and the expected verdict per direction and profile) and holds
// the engine to the gate's contract:
//
//   - an "incompatible" label must be called incompatible, and must be
//     backed by a witness (a document valid for the writer that the reader
//     rejects), found by the engine or by a larger independent witness
//     search;
//   - no pair may be called compatible while a witness exists (the one
//     unforgivable bug), whatever its label;
//   - a "compatible" label must have no witness (else the label is wrong);
//   - calling a compatible pair incompatible (a false alarm) fails too, as
//     does an incompatible verdict without a counterexample: the corpus is
//     decided exactly.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: brute force, hostile-schema cost bounds or the whole corpus (tens of seconds); TestRuleFixtures stands for compat in the short tier")
	}
	files, err := filepath.Glob("testdata/corpus/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 80 {
		t.Fatalf("corpus has %d pairs, want at least 80", len(files))
	}
	var total, falseIncompat, incompatLabels, noWitness int
	var falseList, noWitnessList []string
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var p corpusPair
		if err := json.Unmarshal(data, &p); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		old := compileDoc(t, "old.json", string(p.Old))
		nw := compileDoc(t, "new.json", string(p.New))
		for _, cfg := range configs {
			total++
			label := p.Expect[string(cfg.dir)][cfg.profile]
			if label != "compatible" && label != "incompatible" {
				t.Fatalf("%s: bad label %q for %s %s", name, label, cfg.dir, cfg.profile)
			}
			opts := engine.Options{Profile: profileOf(cfg.profile), Seed: 7}
			fs := Compare(old, nw, cfg.dir, opts)
			says := Compatible(fs)
			witness, found := verifiedWitness(t, old, nw, cfg.dir, cfg.profile, fs)
			if !found {
				oracle := compare(old, nw, cfg.dir, engine.Options{Profile: profileOf(cfg.profile), Seed: 99, Samples: 150}, nil, true)
				witness, found = verifiedWitness(t, old, nw, cfg.dir, cfg.profile, oracle)
			}
			where := name + " " + string(cfg.dir) + " " + cfg.profile
			switch {
			case says && found:
				t.Errorf("FALSE COMPATIBLE %s: engine says compatible but %s is a counterexample", where, compactJSON(witness))
			case label == "incompatible" && says:
				t.Errorf("%s: labelled incompatible, engine says compatible", where)
			case label == "incompatible" && !found:
				t.Errorf("%s: labelled incompatible but no witness was found (findings: %s)", where, summarize(fs))
			case label == "compatible" && found:
				t.Errorf("%s: labelled compatible but %s is a counterexample (fix the label)", where, compactJSON(witness))
			case label == "compatible" && !says:
				falseIncompat++
				falseList = append(falseList, where+": "+summarize(fs))
			}
			if !says && !hasCounterexample(fs) {
				if label == "incompatible" {
					t.Errorf("%s: a break without a counterexample (findings: %s)", where, summarize(fs))
				}
				for _, f := range fs {
					if f.Severity == report.SeverityError && !strings.Contains(f.Message, "no counterexample found in ") {
						t.Errorf("%s: %s has no counterexample and does not say so: %s", where, f.Rule, f.Message)
					}
				}
				noWitness++
				noWitnessList = append(noWitnessList, where+": "+summarize(fs))
			}
			if label == "incompatible" {
				incompatLabels++
			}
		}
	}
	t.Logf("corpus: %d pairs, %d verdicts (%d labelled incompatible); false incompatible: %d; incompatible without counterexample: %d",
		len(files), total, incompatLabels, falseIncompat, noWitness)
	for _, l := range falseList {
		t.Logf("  false incompatible: %s", l)
	}
	for _, l := range noWitnessList {
		t.Logf("  incompatible without counterexample: %s", l)
	}
	if falseIncompat > 0 || noWitness > 0 {
		t.Errorf("%d false incompatible and %d incompatible verdicts without counterexample of %d, want 0", falseIncompat, noWitness, total)
	}
}

// verifiedWitness checks every counterexample of the findings
// independently (valid for the writer, and its closed view under the
// lenient profile, and rejected by the reader) and returns the first.
func verifiedWitness(t *testing.T, old, nw *Side, dir engine.Direction, profile string, fs []Finding) (any, bool) {
	var first any
	found := false
	writer, reader := old, nw
	if dir == engine.Forward {
		writer, reader = nw, old
	}
	for _, f := range fs {
		if !f.HasCounterexample {
			continue
		}
		// Round-trip through JSON text, as a consumer would read it.
		b, err := json.Marshal(f.Counterexample)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonstrict.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if !writer.writerValid(doc, profileOf(profile) != "strict") {
			t.Errorf("%s %s: counterexample %s of %s is not valid for the writer", dir, profile, b, f.Rule)
			continue
		}
		if reader.Schema.Validate(doc) == nil {
			t.Errorf("%s %s: counterexample %s of %s is accepted by the reader", dir, profile, b, f.Rule)
			continue
		}
		if !found {
			first, found = doc, true
		}
	}
	return first, found
}

// hasCounterexample reports whether an incompatible verdict shows a
// document: some error finding carries one.
func hasCounterexample(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == report.SeverityError && f.HasCounterexample {
			return true
		}
	}
	return false
}

func summarize(fs []Finding) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, string(f.Severity)+" "+f.Rule)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// TestClosedOK checks the document-level closure check against the
// compiled closed view (Close of the document) on every corpus schema:
// for documents valid under the schema, closedOK must accept what the
// compiled closed schema accepts, and agree with it where no object's
// properties are split between in-place subschemas (there Close closes
// each part and refuses the others' names; closedOK closes the whole).
func TestClosedOK(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: brute force, hostile-schema cost bounds or the whole corpus (tens of seconds); TestRuleFixtures stands for compat in the short tier")
	}
	files, _ := filepath.Glob("testdata/corpus/*.json")
	checked := 0
	for _, file := range files {
		data, _ := os.ReadFile(file)
		var p corpusPair
		if err := json.Unmarshal(data, &p); err != nil {
			t.Fatal(err)
		}
		for _, text := range []json.RawMessage{p.Old, p.New} {
			split := inPlaceKeyword.Match(text)
			side := compileDoc(t, "x.json", string(text))
			closed := compileClosed(t, "x.json", string(text))
			docs, _ := sample.Samples(side.Schema, 30, 5, sample.Options{})
			for _, d := range docs {
				d = jsonvalue.Normalize(d)
				if side.Schema.Validate(d) != nil {
					continue
				}
				for _, doc := range []any{d, stripped(d, side.Schema)} {
					if side.Schema.Validate(doc) != nil {
						continue // closedOK assumes a document valid under the schema
					}
					want := closed.Validate(doc) == nil
					if got := closedOK(doc, side.Schema); got != want && (!split || want) {
						t.Errorf("%s: closedOK(%s) = %v, closed schema says %v", filepath.Base(file), compactJSON(doc), got, want)
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d documents checked", checked)
}

func stripped(d any, s *jsonschema.Schema) any {
	c := jsonvalue.DeepCopy(d)
	stripUndeclared(c, s, 0)
	return c
}

// Lengths far beyond any real event are decided by arithmetic: the break
// is an error, and no gigabyte string is built for it.
func TestHugeLengthsDecided(t *testing.T) {
	old := compileDoc(t, "old.json", `{"type":"string","minLength":1000000000}`)
	nw := compileDoc(t, "new.json", `{"type":"string","minLength":1000000001,"maxLength":2000000000}`)
	fs := Compare(old, nw, engine.Backward, engine.Options{Seed: 1})
	if Compatible(fs) || len(fs) == 0 || fs[0].Rule != "min-length-increased" || fs[0].HasCounterexample {
		t.Fatalf("findings %+v", fs)
	}
	if fs := Compare(nw, old, engine.Backward, engine.Options{Seed: 1}); !Compatible(fs) {
		t.Fatalf("narrowing the writer's lengths is compatible: %+v", fs)
	}
}

// A writer's `not` with one numeric bound narrows its numbers exactly:
// against brute force over a grid, no break is called compatible, and the
// plain cases are decided without a false alarm.
func TestNegatedBoundBruteForce(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: brute force, hostile-schema cost bounds or the whole corpus (tens of seconds); TestRuleFixtures stands for compat in the short tier")
	}
	kws := []string{"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"}
	vals := []string{"-3", "0", "2.5", "4", "10"}
	var grid []any
	for i := -160; i <= 160; i++ {
		grid = append(grid, json.Number(strconv.FormatFloat(float64(i)/4, 'f', -1, 64)))
	}
	falseAlarms := 0
	for _, typ := range []string{"integer", "number"} {
		for _, nk := range kws {
			for _, nv := range vals {
				for _, rk := range kws {
					for _, rv := range vals {
						w := fmt.Sprintf(`{"type":%q,"not":{%q:%s}}`, typ, nk, nv)
						r := fmt.Sprintf(`{"type":"number",%q:%s}`, rk, rv)
						ws, rs := compileDoc(t, "old.json", w), compileDoc(t, "new.json", r)
						broken := false
						for _, x := range grid {
							if ws.Schema.Validate(x) == nil && rs.Schema.Validate(x) != nil {
								broken = true
								break
							}
						}
						fs := Compare(ws, rs, engine.Backward, engine.Options{Seed: 1, Samples: -1})
						switch compatible := Compatible(fs); {
						case broken && compatible:
							t.Errorf("FALSE COMPATIBLE: %s -> %s", w, r)
						case !broken && !compatible:
							falseAlarms++
						}
					}
				}
			}
		}
	}
	t.Logf("false alarms: %d of %d", falseAlarms, 2*4*5*4*5)
}

// Negations over type sets, numeric intervals and their mixes are decided
// exactly on both sides: against brute force over a grid of values of
// every type, no break is called compatible and none is left undecided or
// falsely alarmed.
func TestNegationBruteForce(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: brute force, hostile-schema cost bounds or the whole corpus (tens of seconds); TestRuleFixtures stands for compat in the short tier")
	}
	nots := []string{`{}`, `true`, `{"type":"number"}`, `{"type":"integer"}`, `{"type":["string","null"]}`,
		`{"minimum":0,"maximum":5}`, `{"minimum":0,"maximum":10}`, `{"exclusiveMinimum":2}`, `{"type":"integer","maximum":3}`,
		`{"type":"number","minimum":-2.5,"exclusiveMaximum":4}`, `{"maximum":-1}`, `{"enum":[1,"x",null]}`, `{"const":2.5}`,
		`{"required":["a"]}`, `{"properties":{"a":{"const":1}}}`}
	types := []string{``, `"type":"integer",`, `"type":"number",`, `"type":["string","integer"],`, `"minimum":-3,`,
		`"type":"integer","exclusiveMaximum":7,`, `"type":["null","number"],"maximum":1.5,`}
	var grid []any
	for i := -24; i <= 24; i++ {
		grid = append(grid, json.Number(strconv.FormatFloat(float64(i)/2, 'f', -1, 64)))
	}
	grid = append(grid, nil, true, false, "x", "y", []any{}, map[string]any{}, map[string]any{"a": json.Number("1")}, map[string]any{"a": json.Number("2")})
	var schemas []string
	for _, ty := range types {
		for _, n := range nots {
			schemas = append(schemas, "{"+ty+`"not":`+n+"}")
		}
		schemas = append(schemas, "{"+strings.TrimSuffix(ty, ",")+"}")
	}
	falseAlarms, undecided, pairs := 0, 0, 0
	for _, w := range schemas {
		ws := compileDoc(t, "old.json", w)
		for _, r := range schemas {
			rs := compileDoc(t, "new.json", r)
			pairs++
			broken := false
			for _, x := range grid {
				if ws.Schema.Validate(x) == nil && rs.Schema.Validate(x) != nil {
					broken = true
					break
				}
			}
			fs := Compare(ws, rs, engine.Backward, engine.Options{Seed: 1, Samples: -1})
			switch compatible := Compatible(fs); {
			case broken && compatible:
				t.Errorf("FALSE COMPATIBLE: %s -> %s: %s", w, r, summarize(fs))
			case !broken && !compatible:
				falseAlarms++
				t.Logf("false alarm: %s -> %s: %s", w, r, summarize(fs))
			case len(fs) > 0 && compatible:
				undecided++
				t.Logf("undecided: %s -> %s: %s", w, r, summarize(fs))
			}
		}
	}
	t.Logf("%d pairs: %d false alarms, %d undecided", pairs, falseAlarms, undecided)
	if falseAlarms+undecided > 0 {
		t.Errorf("%d false alarms and %d undecided verdicts, want 0", falseAlarms, undecided)
	}
}

// dependentRequired, dependentSchemas and the if/then/not forms that say
// the same are decided in context: against brute force over every object
// of three members taking two values, no break is called compatible and
// no equivalent spelling raises a false alarm.
func TestDependentsBruteForce(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: brute force, hostile-schema cost bounds or the whole corpus (tens of seconds); TestRuleFixtures stands for compat in the short tier")
	}
	parts := []string{``, `"required":["a"]`, `"required":["a","b"]`, `"dependentRequired":{"a":["b"]}`, `"dependentRequired":{"b":["c"]}`,
		`"dependentSchemas":{"a":{"required":["b"]}}`, `"dependentSchemas":{"a":{"required":["c"]}}`,
		`"dependentSchemas":{"a":{"properties":{"b":{"const":1}}}}`, `"if":{"required":["a"]},"then":{"required":["b"]}`,
		`"if":{"required":["a"]},"then":{"required":["b"]},"else":{"required":["c"]}`, `"not":{"required":["a","b"]}`,
		`"allOf":[{"dependentRequired":{"a":["b"]}},{"dependentRequired":{"b":["c"]}}]`,
		`"not":{"properties":{"a":{"const":1}}}`, `"required":["a"],"not":{"properties":{"a":{"const":1}}}`,
		`"allOf":[{"properties":{"a":{"not":{"const":1}}}}],"required":["a"]`, `"propertyNames":{"enum":["a","b"]}`,
		`"propertyNames":{"pattern":"^[ab]$"}`, `"maxProperties":1`, `"additionalProperties":false`, `"patternProperties":{"^[ab]$":{}},"additionalProperties":false`}
	var grid []any
	vals := []any{nil, json.Number("1"), json.Number("2")}
	for _, a := range vals {
		for _, b := range vals {
			for _, c := range vals {
				obj := map[string]any{}
				for k, v := range map[string]any{"a": a, "b": b, "c": c} {
					if v != nil {
						obj[k] = v
					}
				}
				grid = append(grid, obj)
				extra := maps.Clone(obj)
				extra["d"] = json.Number("1")
				grid = append(grid, extra)
			}
		}
	}
	schema := func(p string) string {
		s := `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"},"c":{"type":"integer"}}`
		if p != "" {
			s += "," + p
		}
		return s + "}"
	}
	falseAlarms, strictAlarms, pairs := 0, 0, 0
	for _, wp := range parts {
		ws := compileDoc(t, "old.json", schema(wp))
		for _, rp := range parts {
			rs := compileDoc(t, "new.json", schema(rp))
			for _, profile := range []string{"strict", "lenient"} {
				pairs++
				broken := false
				for _, x := range grid {
					if ws.writerValid(x, profile == "lenient") && rs.Schema.Validate(x) != nil {
						broken = true
						break
					}
				}
				fs := Compare(ws, rs, engine.Backward, engine.Options{Profile: profileOf(profile), Seed: 1, Samples: -1})
				switch compatible := Compatible(fs); {
				case broken && compatible:
					t.Errorf("FALSE COMPATIBLE %s: %s -> %s: %s", profile, wp, rp, summarize(fs))
				case !broken && !compatible:
					falseAlarms++
					if profile == "strict" {
						strictAlarms++
					}
					t.Logf("false alarm %s: %s -> %s: %s", profile, wp, rp, summarize(fs))
				}
			}
		}
	}
	t.Logf("%d pairs: %d false alarms (lenient: a dependent or allOf member declaring properties is closed on its own, the rules close a branch to the union)", pairs, falseAlarms)
	if strictAlarms > 0 {
		t.Errorf("%d strict false alarms, want 0", strictAlarms)
	}
}

// properties, patternProperties and additionalProperties together: a
// declared name a pattern matches must satisfy both, on either side.
// Checked against brute force over objects of three names (one declared,
// one matching the pattern only, one neither) and four values.
func TestPropertiesPatternsBruteForce(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: brute force, hostile-schema cost bounds or the whole corpus (tens of seconds); TestRuleFixtures stands for compat in the short tier")
	}
	props := []string{``, `"properties":{"I_1":{"type":"number"}}`, `"properties":{"I_1":{"type":"integer"}}`, `"properties":{"I_1":{"type":"string"}}`}
	pats := []string{``, `"patternProperties":{"^I_":{"type":"integer"}}`, `"patternProperties":{"^I_":{"minimum":0}}`}
	adds := []string{``, `"additionalProperties":false`, `"additionalProperties":{"type":"string"}`}
	var schemas []string
	for _, p := range props {
		for _, q := range pats {
			for _, a := range adds {
				var kws []string
				for _, k := range []string{p, q, a} {
					if k != "" {
						kws = append(kws, k)
					}
				}
				schemas = append(schemas, `{"type":"object"`+strings.Join(append([]string{""}, kws...), ",")+"}")
			}
		}
	}
	vals := []any{nil, json.Number("1"), json.Number("1.5"), json.Number("-1"), "s"}
	var grid []any
	for _, a := range vals {
		for _, b := range vals {
			for _, c := range vals {
				obj := map[string]any{}
				for k, v := range map[string]any{"I_1": a, "I_2": b, "z": c} {
					if v != nil {
						obj[k] = v
					}
				}
				grid = append(grid, obj)
			}
		}
	}
	falseAlarms, pairs := 0, 0
	for _, w := range schemas {
		ws := compileDoc(t, "old.json", w)
		for _, r := range schemas {
			rs := compileDoc(t, "new.json", r)
			pairs++
			broken := false
			for _, x := range grid {
				if ws.Schema.Validate(x) == nil && rs.Schema.Validate(x) != nil {
					broken = true
					break
				}
			}
			fs := Compare(ws, rs, engine.Backward, engine.Options{Profile: ProfileStrict, Seed: 1, Samples: -1})
			switch compatible := Compatible(fs); {
			case broken && compatible:
				t.Errorf("FALSE COMPATIBLE: %s -> %s: %s", w, r, summarize(fs))
			case !broken && !compatible:
				falseAlarms++
				t.Logf("false alarm: %s -> %s: %s", w, r, summarize(fs))
			}
		}
	}
	t.Logf("%d pairs: %d false alarms", pairs, falseAlarms)
	if falseAlarms > 0 {
		t.Errorf("%d false alarms, want 0", falseAlarms)
	}
}

// A closed object whose members take finitely many values is compared
// with a reader's const or enum of objects value by value: against brute
// force, no break is called compatible and the equivalent spellings pass.
func TestFiniteObjectsBruteForce(t *testing.T) {
	writers := []string{`{"type":"object","properties":{"k":{"const":"x"}},"required":["k"],"additionalProperties":false}`,
		`{"type":"object","properties":{"k":{"const":"x"}},"additionalProperties":false}`,
		`{"type":"object","properties":{"k":{"enum":["x","y"]}},"required":["k"],"additionalProperties":false}`,
		`{"type":"object","properties":{"k":{"const":"x"},"b":{"type":"boolean"}},"required":["k"],"additionalProperties":false}`,
		`{"type":"object","properties":{"k":{"const":"x"}},"required":["k"]}`,
		`{"type":"object","properties":{"k":{"type":"string"}},"required":["k"],"additionalProperties":false}`}
	readers := []string{`{"const":{"k":"x"}}`, `{"enum":[{"k":"x"},{}]}`, `{"enum":[{"k":"x"},{"k":"y"}]}`,
		`{"enum":[{"k":"x","b":true},{"k":"x","b":false},{"k":"x"}]}`, `{"enum":[{"k":"x","b":true},{"k":"x","b":false}]}`}
	var grid []any
	for _, k := range []any{nil, "x", "y", "z"} {
		for _, b := range []any{nil, true, false} {
			for _, e := range []any{nil, json.Number("1")} {
				obj := map[string]any{}
				for n, v := range map[string]any{"k": k, "b": b, "e": e} {
					if v != nil {
						obj[n] = v
					}
				}
				grid = append(grid, obj)
			}
		}
	}
	bruteForce(t, writers, readers, grid)
}

// minProperties over a closed writer: when it equals the number of names
// the writer may send, they are all sent. Brute force over objects of the
// declared names and one other.
func TestMinPropertiesBruteForce(t *testing.T) {
	writers := []string{`{"type":"object","properties":{"k":{"type":"string"}},"minProperties":1,"additionalProperties":false}`,
		`{"type":"object","properties":{"k":{"type":"string"},"j":{"type":"string"}},"minProperties":1,"additionalProperties":false}`,
		`{"type":"object","properties":{"k":{"type":"string"},"j":{"type":"string"}},"minProperties":2,"additionalProperties":false}`,
		`{"type":"object","properties":{"k":{"type":"string"}},"minProperties":1}`,
		`{"type":"object","properties":{"k":{"type":"string"},"j":false},"minProperties":1,"additionalProperties":false}`}
	readers := []string{`{"type":"object","required":["k"]}`, `{"type":"object","required":["k","j"]}`, `{"type":"object","minProperties":1}`,
		`{"type":"object","dependentRequired":{"j":["k"]}}`}
	var grid []any
	for _, k := range []any{nil, "s"} {
		for _, j := range []any{nil, "s"} {
			for _, e := range []any{nil, "s"} {
				obj := map[string]any{}
				for n, v := range map[string]any{"k": k, "j": j, "e": e} {
					if v != nil {
						obj[n] = v
					}
				}
				grid = append(grid, obj)
			}
		}
	}
	bruteForce(t, writers, readers, grid)
}

// bruteForce compares every writer with every reader (BACKWARD, both
// profiles, rules only) and checks the verdicts against the grid: a grid
// document valid for the writer and rejected by the reader is a break.
// No break may be called compatible and no compatible pair incompatible.
func bruteForce(t *testing.T, writers, readers []string, grid []any) {
	t.Helper()
	falseAlarms := 0
	for _, w := range writers {
		ws := compileDoc(t, "old.json", w)
		for _, r := range readers {
			rs := compileDoc(t, "new.json", r)
			for _, profile := range []string{"strict", "lenient"} {
				broken := false
				for _, x := range grid {
					if ws.writerValid(x, profile == "lenient") && rs.Schema.Validate(x) != nil {
						broken = true
						break
					}
				}
				fs := Compare(ws, rs, engine.Backward, engine.Options{Profile: profileOf(profile), Seed: 1, Samples: -1})
				switch compatible := Compatible(fs); {
				case broken && compatible:
					t.Errorf("FALSE COMPATIBLE %s: %s -> %s: %s", profile, w, r, summarize(fs))
				case !broken && !compatible:
					falseAlarms++
					t.Logf("false alarm %s: %s -> %s: %s", profile, w, r, summarize(fs))
				}
			}
		}
	}
	t.Logf("%d writers x %d readers x 2 profiles: %d false alarms", len(writers), len(readers), falseAlarms)
	if falseAlarms > 0 {
		t.Errorf("%d false alarms, want 0", falseAlarms)
	}
}

// A writer range or length covered only by the union of a reader's anyOf
// or oneOf branches is cut at the branches' bounds and decided piece by
// piece. Brute force over numbers in halves and strings up to 8 long.
func TestAnyOfPiecesBruteForce(t *testing.T) {
	writers := []string{`{"type":"integer","minimum":0,"maximum":10}`, `{"type":"number","minimum":0,"maximum":10}`,
		`{"type":"number","exclusiveMinimum":0,"maximum":10}`, `{"type":"integer"}`, `{"type":"string"}`,
		`{"type":"string","maxLength":6}`, `{"type":["integer","string"],"maximum":10,"minimum":0,"maxLength":5}`}
	readers := []string{`{"anyOf":[{"type":"integer","minimum":0,"maximum":5},{"type":"integer","minimum":6,"maximum":10}]}`,
		`{"anyOf":[{"type":"number","maximum":5},{"type":"number","minimum":5}]}`,
		`{"anyOf":[{"type":"number","exclusiveMaximum":5},{"type":"number","exclusiveMinimum":5}]}`,
		`{"oneOf":[{"type":"number","maximum":5},{"type":"number","minimum":5}]}`,
		`{"oneOf":[{"type":"number","maximum":5},{"type":"number","exclusiveMinimum":5}]}`,
		`{"anyOf":[{"type":"number","minimum":0,"maximum":4},{"type":"number","minimum":3,"maximum":10}]}`,
		`{"anyOf":[{"type":"string","maxLength":3},{"type":"string","minLength":4}]}`,
		`{"anyOf":[{"type":"string","maxLength":2},{"type":"string","minLength":4}]}`,
		`{"oneOf":[{"type":"string","maxLength":3},{"type":"string","minLength":3,"maxLength":6}]}`,
		`{"anyOf":[{"type":"string","maxLength":3},{"type":"string","minLength":4},{"type":"integer","minimum":0,"maximum":10}]}`}
	var grid []any
	for i := -6; i <= 26; i++ {
		grid = append(grid, json.Number(strconv.FormatFloat(float64(i)/2, 'f', -1, 64)))
	}
	for i := 0; i <= 8; i++ {
		grid = append(grid, strings.Repeat("a", i))
	}
	bruteForce(t, writers, readers, grid)
}

// Every spelling of the empty schema is empty on either side: as a writer
// property it is never sent (no break), as a reader property it breaks
// exactly when the writer may send the property.
func TestEmptySpellingsBruteForce(t *testing.T) {
	values := []string{`false`, `{"not":{}}`, `{"not":true}`, `{"enum":[]}`, `{"allOf":[{"type":"string"},{"type":"integer"}]}`,
		`{"allOf":[{"const":1},{"const":2}]}`, `{"type":"number","minimum":5,"maximum":1}`, `{"type":"string","minLength":4,"maxLength":2}`,
		`{"type":"integer","not":{"type":"number"}}`, `{"type":"integer","minimum":1,"maximum":1,"not":{"const":1}}`,
		`{"anyOf":[{"not":{}},{"enum":[]}]}`, `{"type":"string"}`, `{}`, `{"type":["integer","null"]}`}
	var schemas []string
	for _, v := range values {
		schemas = append(schemas, `{"type":"object","properties":{"p":`+v+`}}`)
	}
	grid := []any{map[string]any{}}
	for _, v := range []any{"s", "aaa", json.Number("1"), json.Number("1.5"), json.Number("3"), nil, true, []any{}, map[string]any{}} {
		grid = append(grid, map[string]any{"p": v})
	}
	bruteForce(t, schemas, schemas, grid)
}

// TestMaxPropertiesWitnessOnOptionalObject: a maxProperties break on an
// optional nested object has a counterexample whatever the seed, also when
// the writer's generated documents leave the object out (seed 1, the CLI's
// default, did).
func TestMaxPropertiesWitnessOnOptionalObject(t *testing.T) {
	old := compileDoc(t, "old.json", `{"type":"object","properties":{"a":{"type":"object","maxProperties":44}}}`)
	nw := compileDoc(t, "new.json", `{"type":"object","properties":{"a":{"type":"object","maxProperties":43}}}`)
	for seed := uint64(0); seed < 12; seed++ {
		var found bool
		for _, f := range Compare(old, nw, engine.Backward, engine.Options{Seed: seed}) {
			if f.Kind == KindMaxProperties {
				found = true
				if !f.HasCounterexample {
					t.Errorf("seed %d: %s without counterexample: %s", seed, f.Rule, f.Message)
				}
			}
		}
		if !found {
			t.Errorf("seed %d: no %s finding", seed, "max-properties-decreased")
		}
	}
}

// inPlaceKeyword finds a keyword that applies subschemas in place.
var inPlaceKeyword = regexp.MustCompile(`"(\$ref|\$dynamicRef|\$recursiveRef|allOf|anyOf|oneOf|if|then|else|dependentSchemas|dependencies)"\s*:`)
