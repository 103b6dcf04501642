package protocompat

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/report"
)

// selfReferencing is a message with rep repeated fields and maps map
// fields of its own type: a sample of depth 4 would hold (rep·3 +
// maps·2)^4 messages.
func selfReferencing(rep, maps int) string {
	var b strings.Builder
	n := 1
	for i := 0; i < rep; i++ {
		fmt.Fprintf(&b, "  repeated M f%d = %d;\n", i, n)
		n++
	}
	for i := 0; i < maps; i++ {
		fmt.Fprintf(&b, "  map<string, M> m%d = %d;\n", i, n)
		n++
	}
	return p3("message M {\n" + b.String() + "}\n")
}

// The witness search is bounded by a budget, not by the schema's shape:
// six self-referencing repeated fields (170 bytes) took 9.5 s, eight took
// 117 s, twenty and twenty maps were killed at 60 s and 1.78 GB.
func TestSelfReferencingCost(t *testing.T) {
	for _, c := range []struct{ rep, maps int }{{6, 0}, {8, 0}, {20, 20}} {
		src := selfReferencing(c.rep, c.maps)
		old := load(t, "old.proto", src)
		// The new version changes a field's kind (a break both ways), so
		// that the findings' targeted searches run too.
		new := load(t, "new.proto", strings.Replace(src, "repeated M f0 = 1;", "repeated string f0 = 1;", 1))
		for _, pair := range []struct {
			name   string
			compat bool
		}{{"same", true}, {"changed", false}} {
			for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
				for _, prof := range []Profile{ProfileWire, ProfileWireJSON} {
					name := fmt.Sprintf("%d+%d/%s/%s/%s", c.rep, c.maps, pair.name, dir, prof)
					t.Run(name, func(t *testing.T) {
						n := new
						if pair.compat {
							n = old
						}
						var fs []report.Finding
						start := time.Now()
						allocs := testing.AllocsPerRun(1, func() { fs = Compare(old, n, dir, engine.Options{Profile: prof}) })
						// Generous bounds against a blow-up: the cost before
						// the budget was millions of allocations and seconds.
						if allocs > 1_500_000 {
							t.Errorf("%.0f allocations", allocs)
						}
						if d := time.Since(start); d > 10*time.Second {
							t.Errorf("took %v", d)
						}
						if Compatible(fs) != pair.compat {
							t.Errorf("compatible = %v, want %v: %v", Compatible(fs), pair.compat, rulesOf(fs))
						}
						if !hasIncomplete(fs, "levels of nesting") {
							t.Errorf("no warning that samples were cut: %+v", fs)
						}
					})
				}
			}
		}
	}
}

func hasIncomplete(fs []report.Finding, text string) bool {
	for _, f := range fs {
		if f.Rule == RuleIncomplete && f.Severity == report.SeverityWarning && strings.Contains(f.Message, text) {
			return true
		}
	}
	return false
}

// A search that runs out of budget says so, and the rules' breaks stay
// errors: never a silent pass.
func TestWitnessBudgetRunsOut(t *testing.T) {
	old, new := benchPair(&testing.B{})
	for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
		fs := Compare(old, new, dir, engine.Options{Budget: 1})
		if !hasIncomplete(fs, "budget of 1 bytes") {
			t.Errorf("%s: no budget warning: %+v", dir, fs)
		}
		if Compatible(fs) {
			t.Errorf("%s: breaks dropped when the budget ran out", dir)
		}
		full := Compare(old, new, dir, engine.Options{})
		if hasIncomplete(full, "") {
			t.Errorf("%s: the default budget does not cover the bench pair: %+v", dir, full)
		}
		if got, want := rulesOf(fs), rulesOf(full); !slicesEqual(got, want) {
			t.Errorf("%s: rules %v with a budget of 1, %v without", dir, got, want)
		}
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

// An enum of n values whose numbers are all reversed is n
// proto-enum-value-number-changed findings; each finding's search tried
// every value of the enum (n² messages: 2000 values took 35 s).
func TestEnumRenumberedCost(t *testing.T) {
	const n = 3000
	var a, b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&a, "V%d = %d;\n", i, i)
		fmt.Fprintf(&b, "V%d = %d;\n", i, n+1-i)
	}
	old := load(t, "a.proto", p3("enum E { Z = 0;\n"+a.String()+"}\nmessage M { E e = 1; }\n"))
	new := load(t, "b.proto", p3("enum E { Z = 0;\n"+b.String()+"}\nmessage M { E e = 1; }\n"))
	start := time.Now()
	fs := Compare(old, new, engine.Forward, engine.Options{Profile: ProfileWire})
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
	// n is even: every value moves (V_i takes n+1-i).
	count := 0
	for _, f := range fs {
		if f.Rule == RuleEnumNumberChanged {
			count++
		}
	}
	if count != n {
		t.Errorf("%d findings of %s, want %d", count, RuleEnumNumberChanged, n)
	}
	checkWitnessed(t, fs)
}
