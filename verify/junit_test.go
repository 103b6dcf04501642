package verify

import (
	"bytes"
	"flag"
	"path/filepath"
	"testing"

	"github.com/evtool/evtool/internal/golden"
)

var updateJUnit = flag.Bool("update", false, "rewrite the golden files in testdata/junit")

// TestJUnitGolden: one test case per verdict class of the chaos run (of
// the clean run when that one failed) and one for the expectations, each
// failure with its members, records and the reproduce commands.
func TestJUnitGolden(t *testing.T) {
	v := Judge([]Fact{{ID: "a<1>", Type: "T", Key: "k&1"}, {ID: "b", Type: "T", Key: "k2"}}, nil)
	chaosRun := &Report{Scenario: "orders", Seed: 9, Clean: &RunResult{Name: "clean", Verdict: Judge(nil, nil)},
		Chaos:     &RunResult{Name: "chaos", Verdict: v, Applied: []int{0}, Expect: []string{"want 2 facts, got 0", "want \"x\" in stderr"}},
		Plan:      []Fault{{Index: 0, Kind: KindCrash, Phase: BeforeAppend, Step: 0, Line: 1}},
		Reproduce: "evtool verify orders.yaml --seed 9",
		Shrink:    &ShrinkReport{Faults: []Fault{{Index: 0, Kind: KindCrash, Phase: BeforeAppend, Line: 1}}, Minimal: true, Reproduce: "evtool verify orders.yaml --seed 9 --faults 0"}}
	cleanFails := &Report{Scenario: "clean", Seed: 3, Clean: &RunResult{Name: "clean", Verdict: v}, Reproduce: "evtool verify clean.yaml --seed 3"}
	passing := &Report{Scenario: "fine", Pass: true, Clean: &RunResult{Name: "clean", Verdict: Judge(nil, nil)}, Chaos: &RunResult{Name: "chaos", Verdict: Judge(nil, nil)}}
	for name, rep := range map[string]*Report{"chaos": chaosRun, "clean": cleanFails, "pass": passing} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, FormatJUnit, rep); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "junit", name+".xml"), buf.Bytes(), *updateJUnit)
		})
	}
}
