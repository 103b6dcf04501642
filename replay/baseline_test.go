package replay

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evtool/evtool/kafka"
)

// TestBaselineThatTestsNothing: a consumer that applies nothing passes
// every chaos run, so its baseline fails the replay, with the DLQ errors
// that say why, unless expect.baseline says it is expected.
func TestBaselineThatTestsNothing(t *testing.T) {
	t.Parallel()
	events := testEvents(t, 20)
	data, err := os.ReadFile(events)
	if err != nil {
		t.Fatal(err)
	}
	paid := strings.Count(string(data), `"type":"com.example.order.paid"`)
	if paid == 0 || paid == 20 {
		t.Fatalf("%d paid events of 20", paid)
	}
	for _, tc := range []struct {
		name, mode, expect string
		want               Verdict
		summary            []string
	}{
		{"rejects every event", "reject-all", "", Fail, []string{
			"the consumer failed the baseline run (no faults): the baseline state equals the state the consumer served before the first event: the consumer applied none of the 20 events; it dead-lettered 20 of them to ",
			"first errors: dlq.error: rejected com.example.order.", "expect.baseline: {empty: ok}"}},
		{"rejects every event, expected", "reject-all", "expect: {baseline: {empty: ok, dlq: 20}}\n", Pass, nil},
		{"serves an empty state", "empty-state", "", Fail, []string{"the baseline state is empty ({}): the consumer applied none of the 20 events; a consumer"}},
		{"serves an empty state, expected", "empty-state", "expect: {baseline: {empty: ok}}\n", Pass, nil},
		{"dead-letters clean events", "reject-paid", "", Fail, []string{
			fmt.Sprintf("the consumer dead-lettered %d distinct clean event(s) of 20 in the baseline run, where expect.baseline.dlq is not set; first errors: dlq.error: rejected com.example.order.paid (event ", paid)}},
		{"dead-letters clean events, expected", "reject-paid", fmt.Sprintf("expect: {baseline: {dlq: %d}}\n", paid), Pass, nil},
		{"dead-letters clean events, expected with the poison", "reject-paid", fmt.Sprintf("expect: {baseline: {dlq: %d}, dlq: {count: poison}}\n", paid), Pass, nil},
		{"dead-letters other than expected", "reject-paid", fmt.Sprintf("expect:\n  baseline: {dlq: %d}\n", paid+1), Fail, []string{
			fmt.Sprintf("where expect.baseline.dlq (%%s:%d) says %d; first errors: dlq.error: rejected com.example.order.paid", 15, paid+1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sc := writeScenario(t, scenarioText(t, tc.mode, events, dupAndReorder+tc.expect))
			rep, err := replayScenario(t, sc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s: %s\n%s", rep.Verdict, tc.want, rep.Summary, reportText(rep))
			}
			for _, s := range tc.summary {
				if strings.Contains(s, "%s") {
					s = fmt.Sprintf(s, sc.File)
				}
				if !strings.Contains(rep.Summary, s) {
					t.Errorf("summary lacks %q:\n%s", s, rep.Summary)
				}
			}
			if tc.want == Fail && len(rep.Runs) != 1 {
				t.Errorf("%d runs after a baseline that tests nothing, want 1", len(rep.Runs))
			}
		})
	}
}

func replayScenario(t *testing.T, sc *Scenario, opts Options) (*Report, error) {
	t.Helper()
	ctx, opts := watchProgress(t, opts)
	return Replay(ctx, sc, opts)
}

// TestInitialStateNotWaitedFor: a consumer that answers a state request
// only once it has consumed something is not judged by its state before
// the first event, and the baseline does not wait the initial-state bound
// for it: once the consumer is in its group (and a grace period after)
// the harness produces. The bound is lifted out of load's reach, so the
// grace after the join is the only way out of the wait: the test asserts
// that, not how long the wait took (at load 30 the harness's polling of
// the group ran past any fixed allowance).
func TestInitialStateNotWaitedFor(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	sc := writeScenario(t, scenarioText(t, "held-state", testEvents(t, 20), ""))
	ctx, opts := watchProgress(t, Options{})
	h, err := NewHarness(sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	// Past the progress watch's stall bound: a wait that the join's grace
	// does not end fails the test as hung.
	h.initialWait = 2 * stallBound
	if _, err := h.Validate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	// When the broker saw the consumer join: the harness can only have
	// seen the join after that.
	var joinedAt atomic.Pointer[time.Time]
	remove := h.embedded.OnGroupRequest(h.groupName("baseline"), func(r kafka.GroupRequest) {
		if r.Kind == "SyncGroup" || r.Kind == "ConsumerGroupHeartbeat" {
			now := time.Now()
			joinedAt.CompareAndSwap(nil, &now)
		}
	})
	defer remove()
	res, err := h.Run(ctx, RunSpec{Name: "baseline", Initial: true})
	waitEnd := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatalf("baseline failed: %s", res.Failure.Message)
	}
	if res.InitialRead {
		t.Errorf("an initial state was read from a consumer that serves none before its first record: %v", res.initial)
	}
	if res.initialEnd != "joined" {
		t.Errorf("the wait for the initial state ended by %q after %s, want by the grace after the consumer joined", res.initialEnd, time.Duration(res.InitialWait))
	}
	if wait := time.Duration(res.InitialWait); wait < initialStateGrace {
		t.Errorf("the wait for the initial state took %s, shorter than the grace %s", wait, initialStateGrace)
	}
	if at := joinedAt.Load(); at == nil || at.After(waitEnd) {
		t.Errorf("the broker saw no SyncGroup or ConsumerGroupHeartbeat of the baseline's group before the harness gave up (%v)", at)
	}
}

// TestNearLineIsChecked: without shrinking, the "only the faults near the
// differences" line is printed only when those faults, replayed alone,
// fail. This consumer fails only in the run named chaos: the near faults
// (its crash) pass alone, and a line with them would not reproduce.
func TestNearLineIsChecked(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	sc := writeScenario(t, scenarioText(t, "flaky", testEvents(t, 30), "chaos: {seed: 1, duplicate: {rate: 0.2}, crash: {count: 1}}\n"))
	rep, err := replayScenario(t, sc, Options{ShrinkBudget: -1, Command: "evtool replay s.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != Fail {
		t.Fatalf("verdict %s: %s", rep.Verdict, rep.Summary)
	}
	if len(rep.NearFaults) == 0 {
		t.Fatalf("no near faults:\n%s", reportText(rep))
	}
	if rep.ReproduceNear != "" {
		t.Errorf("printed %q, whose faults pass alone:\n%s", rep.ReproduceNear, reportText(rep))
	}
	if !slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.Contains(w, "pass on their own") }) {
		t.Errorf("no warning that the near faults pass alone: %q", rep.Warnings)
	}
}
