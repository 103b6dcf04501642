package jsoncompat

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/report"
)

var update = flag.Bool("update", false, "rewrite golden files (testdata/rules/*/want.txt)")

var configs = []struct {
	dir     engine.Direction
	profile string
}{{engine.Backward, "lenient"}, {engine.Backward, "strict"}, {engine.Forward, "lenient"}, {engine.Forward, "strict"}}

// TestRuleFixtures runs every fixture pair testdata/rules/<rule>/{old,new}.json
// in both directions and both profiles and compares the findings with
// want.txt. Each fixture must trigger its own rule, every error must carry
// a counterexample found by witness search, and every rule id of the
// engine must have a fixture.
func TestRuleFixtures(t *testing.T) {
	dirs, err := filepath.Glob("testdata/rules/*")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, d := range dirs {
		rule := filepath.Base(d)
		have[rule] = true
		t.Run(rule, func(t *testing.T) {
			old := compileFile(t, filepath.Join(d, "old.json"))
			nw := compileFile(t, filepath.Join(d, "new.json"))
			mode, _ := os.ReadFile(filepath.Join(d, "mode"))
			var b strings.Builder
			seen := false
			for _, cfg := range configs {
				opts := engine.Options{Profile: profileOf(cfg.profile), Seed: 1}
				witnessOnly := strings.TrimSpace(string(mode)) == "witness-only"
				fs := compare(old, nw, cfg.dir, opts, nil, witnessOnly)
				verdict := "compatible"
				if !Compatible(fs) {
					verdict = "incompatible"
				}
				fmt.Fprintf(&b, "%s %s: %s\n", cfg.dir, cfg.profile, verdict)
				for _, f := range fs {
					if f.Rule == rule {
						seen = true
					}
					if f.Message == "" {
						t.Errorf("%s %s: %s has no message", cfg.dir, cfg.profile, f.Rule)
					}
					if f.Severity == report.SeverityError && !f.HasCounterexample {
						t.Errorf("%s %s: error %s has no counterexample: %s", cfg.dir, cfg.profile, f.Rule, f.Message)
					}
					_, op := splitLocation(f.OldLocation)
					_, np := splitLocation(f.NewLocation)
					fmt.Fprintf(&b, "  %s %s old=%s new=%s at=%s", f.Severity, f.Rule, orHash(op, f.OldLocation), orHash(np, f.NewLocation), orHash(f.InstancePath, "x"))
					if f.HasCounterexample {
						b.WriteString(" witness")
					}
					b.WriteByte('\n')
				}
			}
			if !seen {
				t.Errorf("fixture never triggers %s", rule)
			}
			golden := filepath.Join(d, "want.txt")
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./compat -run TestRuleFixtures -update)", err)
			}
			if string(want) != b.String() {
				t.Errorf("findings differ from %s:\n--- got\n%s--- want\n%s", golden, b.String(), want)
			}
		})
	}
	var missing []string
	for _, r := range Rules() {
		if !have[r.ID] {
			missing = append(missing, r.ID)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("rules without a fixture in testdata/rules: %s", strings.Join(missing, ", "))
	}
}

func orHash(p, full string) string {
	if full == "" {
		return "-"
	}
	if p == "" {
		return "#"
	}
	return p
}

func compileFile(t testing.TB, path string) *Side {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return compileDoc(t, filepath.Base(path), string(data))
}

func TestCompareStopsWhenContextDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var props []string
	for i := range 2000 {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"string","maxLength":%d}`, i, i+5))
	}
	doc := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	old := compileDoc(t, "old.json", doc)
	new := compileDoc(t, "new.json", strings.ReplaceAll(doc, `"string"`, `"integer"`))
	fs := Compare(old, new, engine.Backward, engine.Options{Context: ctx})
	stopped := false
	for _, f := range fs {
		if f.Kind == KindIncomplete && strings.Contains(f.Message, "stopped") {
			stopped = true
		}
	}
	if !stopped {
		t.Fatalf("a canceled comparison must say it stopped, got %d findings", len(fs))
	}
}

// TestCompareStopsInStringSearch: the deadline reaches the search for a
// property name (an automaton product over every pattern, up to
// maxSearchWork threads per search and one search per pattern pair), not
// only the checker's steps: schemas with 60 patternProperties took
// minutes past the deadline (a registry server's --check-timeout).
func TestCompareStopsInStringSearch(t *testing.T) {
	pats := func(override string) string {
		var ps []string
		for i := range 60 {
			schema := fmt.Sprintf(`{"type":"integer","minimum":%d}`, i)
			if i == 7 && override != "" {
				schema = override
			}
			ps = append(ps, fmt.Sprintf(`"^p%d(a|b)*%s$":%s`, i, strings.Repeat("x", i), schema))
		}
		return `{"type":"object","additionalProperties":false,"minProperties":40,"patternProperties":{` + strings.Join(ps, ",") + `}}`
	}
	old := compileDoc(t, "old.json", pats(""))
	new := compileDoc(t, "new.json", pats(`{"type":"string"}`))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan []Finding, 1)
	go func() { done <- Compare(old, new, engine.Backward, engine.Options{Context: ctx}) }()
	select {
	case fs := <-done:
		if ctx.Err() == nil {
			return // finished before its deadline: nothing to stop
		}
		stopped := false
		for _, f := range fs {
			if f.Kind == KindIncomplete && strings.Contains(f.Message, "stopped") {
				stopped = true
			}
		}
		if !stopped {
			t.Fatalf("a comparison past its deadline must say it stopped, got %d findings", len(fs))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the comparison ran 30s past a 100ms deadline")
	}
}

// TestNoDocumentTriedSaysSo: a break the rules prove when no document of
// the writer could be generated (its strings are longer than the sampler
// writes) says that, not "found in 0 documents".
func TestNoDocumentTriedSaysSo(t *testing.T) {
	old := compileDoc(t, "old.json", `{"type":"object","required":["s"],"properties":{"s":{"type":"string","minLength":70000}}}`)
	new := compileDoc(t, "new.json", `{"type":"object","required":["s"],"properties":{"s":{"type":"string","minLength":70000,"maxLength":80000}}}`)
	fs := Compare(old, new, engine.Backward, engine.Options{})
	if len(fs) != 1 || fs[0].Severity != report.SeverityError {
		t.Fatalf("findings %+v, want one error", fs)
	}
	if want := "(no counterexample: no document of the old schema could be generated to try)"; !strings.HasSuffix(fs[0].Message, want) {
		t.Fatalf("message %q, want it to end %q", fs[0].Message, want)
	}
}
