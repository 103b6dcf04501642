package jsoncompat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/report"
)

// auditGolden lists the breaks of TestWitnessAudit's derived pairs that
// stand without a counterexample today. Each is a rule's break whose
// document witness search does not build, or a false alarm (no document
// exists: under the lenient profile the rules do not see every place the
// closed view forbids a property, nor that `not: {properties: {}}` or an
// `if` that always holds leaves the writer empty or forced). Each entry
// says whether a small document (built from the names and values the
// schemas mention) breaks the pair, maybe through another finding:
// "[witness DOC]", else "[no small witness]". The list may only shrink: a
// new entry is a rule that decides a break without handing witness search
// its document.
const auditGolden = "testdata/witness-audit.txt"

func TestWitnessAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("compares thousands of pairs")
	}
	var pairs [][2]string
	seen := map[[2]string]bool{}
	addPair := func(o, n string) {
		k := [2]string{o, n}
		if !seen[k] {
			seen[k] = true
			pairs = append(pairs, k)
		}
	}
	// addSchema adds the pairs of a schema and each of its one-keyword
	// removals.
	addSchema := func(text string) {
		v, err := jsonstrict.Decode([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dropOne(v) {
			addPair(compactJSON(v), compactJSON(d))
		}
	}
	rules, _ := filepath.Glob("testdata/rules/*")
	for _, d := range rules {
		o, err1 := os.ReadFile(filepath.Join(d, "old.json"))
		n, err2 := os.ReadFile(filepath.Join(d, "new.json"))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		addPair(string(o), string(n))
		addSchema(string(o))
		addSchema(string(n))
	}
	corpus, _ := filepath.Glob("testdata/corpus/*.json")
	for _, file := range corpus {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var p corpusPair
		if err := json.Unmarshal(data, &p); err != nil {
			t.Fatal(err)
		}
		addPair(string(p.Old), string(p.New))
		addSchema(string(p.Old))
		addSchema(string(p.New))
	}
	var missing []string
	for _, p := range pairs {
		missing = append(missing, auditPair(t, p[0], p[1])...)
	}
	sort.Strings(missing)
	got := strings.Join(missing, "\n") + "\n"
	if *update {
		if err := os.WriteFile(auditGolden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(auditGolden)
	if err != nil {
		t.Fatalf("%v (go test ./compat -run TestWitnessAudit -update)", err)
	}
	known := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(want)), "\n") {
		known[l] = true
	}
	var fresh []string
	for _, m := range missing {
		if !known[m] {
			fresh = append(fresh, m)
		}
		delete(known, m)
	}
	if len(fresh) > 0 {
		t.Errorf("%d breaks without a counterexample:\n%s", len(fresh), strings.Join(fresh, "\n"))
	}
	if len(known) > 0 {
		t.Errorf("%d entries of %s now have a counterexample: run with -update to drop them", len(known), auditGolden)
	}
	t.Logf("%d pairs, %d known breaks without a counterexample", len(pairs), len(missing))
}

// auditPair compares old and new both ways in both profiles and lists the
// errors without a counterexample.
func auditPair(t *testing.T, oldText, newText string) []string {
	od, err1 := jsonstrict.Decode([]byte(oldText))
	nd, err2 := jsonstrict.Decode([]byte(newText))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	oc, err1 := compileValue("old.json", od)
	nc, err2 := compileValue("new.json", nd)
	if err1 != nil || err2 != nil {
		return nil // a removal that leaves an invalid schema
	}
	old, nw := NewSide(oc, nil), NewSide(nc, nil)
	var out []string
	for _, cfg := range configs {
		fs := Compare(old, nw, cfg.dir, engine.Options{Profile: profileOf(cfg.profile), Seed: 3})
		verifiedWitness(t, old, nw, cfg.dir, cfg.profile, fs)
		small := ""
		for _, f := range fs {
			if f.Severity != report.SeverityError || f.HasCounterexample || f.Kind == KindDynamicRef || f.Kind == KindIncomplete {
				continue
			}
			if small == "" {
				// Whether the break is real: a small document that proves
				// it (an unfound witness), or none (likely a false alarm).
				writer, reader := old, nw
				if cfg.dir == engine.Forward {
					writer, reader = nw, old
				}
				small = "[no small witness]"
				if d, ok := smallWitness(writer, reader, cfg.profile != "strict", od, nd); ok {
					small = "[witness " + compactJSON(d) + "]"
				}
			}
			out = append(out, string(cfg.dir)+" "+cfg.profile+" "+f.Rule+" "+small+": "+compactJSON(od)+" -> "+compactJSON(nd))
		}
	}
	return out
}

// smallWitness searches the small documents built from the names and
// values the two schemas mention (scalars, and objects and arrays of one
// or two of them) for one the writer accepts and the reader rejects.
func smallWitness(writer, reader *Side, lenient bool, schemas ...any) (any, bool) {
	names := map[string]bool{}
	vals := []any{nil, true, 0.0, 1.0, -1.0, 1.5, "", "x", "xxxxxx", []any{}, map[string]any{}}
	var walk func(v any, key string)
	walk = func(v any, key string) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				if key == "properties" || strings.HasPrefix(key, "dependen") {
					names[k] = true
				}
				walk(x, k)
			}
		case []any:
			for _, x := range t {
				if s, ok := x.(string); ok && (key == "required" || strings.HasPrefix(key, "dependen")) {
					names[s] = true
				}
				if key == "enum" {
					vals = append(vals, x)
				}
				walk(x, key)
			}
		default:
			if key == "const" {
				vals = append(vals, t)
			}
		}
	}
	for _, s := range schemas {
		walk(s, "")
	}
	try := func(d any) bool {
		d = jsonvalue.Normalize(d)
		return writer.writerValid(d, lenient) && reader.Schema.Validate(d) != nil
	}
	for _, v := range vals {
		if try(v) {
			return v, true
		}
	}
	ns := sortedKeys(names)
	for _, a := range vals {
		for _, b := range vals {
			for _, d := range []any{[]any{a}, []any{a, b}} {
				if try(d) {
					return d, true
				}
			}
		}
	}
	for i, n := range ns {
		for _, a := range vals {
			if d := map[string]any{n: a}; try(d) {
				return d, true
			}
			for _, m := range ns[i+1:] {
				for _, b := range vals {
					if d := map[string]any{n: a, m: b}; try(d) {
						return d, true
					}
				}
			}
		}
	}
	return nil, false
}

// maxDrops bounds the removals taken from one schema.
const maxDrops = 60

// dropOne returns copies of a schema document with one member of an
// object or one item of an array (of two or more) removed, at any depth.
func dropOne(doc any) []any {
	var out []any
	var walk func(v any, rebuild func(any) any)
	walk = func(v any, rebuild func(any) any) {
		if len(out) >= maxDrops {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(t) {
				without := make(map[string]any, len(t))
				for kk, vv := range t {
					if kk != k {
						without[kk] = vv
					}
				}
				out = append(out, rebuild(without))
				kk := k
				walk(t[kk], func(nv any) any {
					cp := make(map[string]any, len(t))
					for a, b := range t {
						cp[a] = b
					}
					cp[kk] = nv
					return rebuild(cp)
				})
			}
		case []any:
			for i := range t {
				if len(t) > 1 {
					without := append(append([]any{}, t[:i]...), t[i+1:]...)
					out = append(out, rebuild(without))
				}
				ii := i
				walk(t[ii], func(nv any) any {
					cp := append([]any{}, t...)
					cp[ii] = nv
					return rebuild(cp)
				})
			}
		}
	}
	walk(doc, func(v any) any { return v })
	return out
}

// TestCounterexampleIsolated: where a pair has several breaks, each
// finding's counterexample shows its own break alone: the reader rejects
// it at the finding's place and nowhere else (a document for
// maximum-decreased whose enum value is also removed would show two).
func TestCounterexampleIsolated(t *testing.T) {
	cases := []struct{ name, old, new string }{
		{"maximum and enum", `{"type":"object","properties":{"n":{"type":"integer","maximum":200},"s":{"enum":["A","B","X"]}},"required":["n","s"]}`,
			`{"type":"object","properties":{"n":{"type":"integer","maximum":100},"s":{"enum":["A","B"]}},"required":["n","s"]}`},
		{"maxLength and pattern", `{"type":"object","properties":{"id":{"type":"string","maxLength":20},"code":{"type":"string","pattern":"^[a-z]+$"}},"required":["id","code"]}`,
			`{"type":"object","properties":{"id":{"type":"string","maxLength":3},"code":{"type":"string","pattern":"^[a-c]+$"}},"required":["id","code"]}`},
		{"nested items", `{"type":"array","items":{"type":"object","properties":{"q":{"type":"integer","minimum":0},"u":{"enum":["kg","g","lb"]}},"required":["q","u"]}}`,
			`{"type":"array","items":{"type":"object","properties":{"q":{"type":"integer","minimum":1},"u":{"enum":["kg","g"]}},"required":["q","u"]}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old := compileDoc(t, "old.json", tc.old)
			nw := compileDoc(t, "new.json", tc.new)
			for _, seed := range []uint64{1, 2, 3, 4, 5} {
				fs := Compare(old, nw, engine.Backward, engine.Options{Seed: seed})
				errs := 0
				for _, f := range fs {
					if f.Severity != report.SeverityError {
						continue
					}
					errs++
					if !f.HasCounterexample {
						t.Errorf("seed %d: %s has no counterexample", seed, f.Rule)
						continue
					}
					err := nw.Schema.Validate(f.Counterexample)
					if err == nil {
						t.Fatalf("seed %d: %s: the reader accepts %s", seed, f.Rule, compactJSON(f.Counterexample))
					}
					if n := strays(err, f.NewLocation); n > 0 {
						t.Errorf("seed %d: %s's counterexample %s also breaks elsewhere (%d other failures): %v", seed, f.Rule, compactJSON(f.Counterexample), n, err)
					}
				}
				if errs < 2 {
					t.Errorf("seed %d: want both breaks, got %d errors", seed, errs)
				}
			}
		})
	}
}
