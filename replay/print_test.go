package replay

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evtool/evtool/chaos"
)

// TestShrunkCrashSaysWhatHappened: a shrunk after-effect crash is
// described as it struck. On the embedded broker the commit is dropped;
// against --brokers the harness can only poll, so the kill comes once the
// commit is stored, as the kill line says, and the fault must not claim
// otherwise.
func TestShrunkCrashSaysWhatHappened(t *testing.T) {
	crash := chaos.Fault{Index: 0, Kind: chaos.Crash, Crash: 1, At: chaos.CrashAfterEffect, Progress: 0.4}
	for _, tc := range []struct {
		brokers     string
		want, never string
	}{
		{"embedded", "before that commit is stored (embedded broker)", "cannot be intercepted"},
		{"127.0.0.1:9092", "once its group's committed records pass 40% of the events and that commit is stored (a real cluster's commits cannot be intercepted)", "before that commit is stored"},
	} {
		rep := &Report{Scenario: "s.yaml", Brokers: tc.brokers, Verdict: Fail, Summary: "the chaos state differs",
			Reproduce: "evtool replay s.yaml --seed 1", NearFaults: []chaos.Fault{crash},
			Comparison: &Comparison{Equal: false}}
		var near bytes.Buffer
		if err := WriteText(&near, rep); err != nil {
			t.Fatal(err)
		}
		rep.Shrink = &ShrinkReport{Budget: 30, Runs: 2, From: 3, Minimal: true, Faults: []chaos.Fault{crash}, Reproduce: "evtool replay s.yaml --seed 1 --faults 0"}
		var shrunk bytes.Buffer
		if err := WriteText(&shrunk, rep); err != nil {
			t.Fatal(err)
		}
		for name, out := range map[string]string{"near faults": near.String(), "shrunk faults": shrunk.String()} {
			if !strings.Contains(out, tc.want) || strings.Contains(out, tc.never) {
				t.Errorf("brokers %s, %s: want %q, never %q:\n%s", tc.brokers, name, tc.want, tc.never, out)
			}
		}
	}
}
