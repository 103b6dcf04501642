package replay

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/downstream"
	"github.com/evtool/evtool/internal/bugs"
)

// process-salted-key needs two faults: a timeout alone is retried with
// the same key, a crash alone redelivers only events recorded done. A
// plan of many faults (downstream faults of every kind, crashes) fails
// with a duplicate effect, shrinks to exactly one timeout and one crash,
// and its reproduce line fails again; each of the two alone passes.
func TestMixedFailureShrinksToTimeoutAndCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("several replays of 150 events")
	}
	t.Parallel()
	rest := strings.Replace(emailScenario(mixedSeed, allDownstreamKinds, ""), "chaos:\n", "chaos:\n  crash: {count: 2}\n", 1)
	sc := writeScenario(t, bugScenarioText(t, bugs.ProcessSaltedKey, 150, "", rest))
	ctx, opts := watchProgress(t, Options{Baselines: 1, ShrinkBudget: 30})
	rep, err := Replay(ctx, sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	text := reportText(rep)
	if rep.Verdict != Fail || !strings.Contains(text, downstream.DuplicateEffect) {
		t.Fatalf("verdict %s, want a failure with %s:\n%s", rep.Verdict, downstream.DuplicateEffect, text)
	}
	sr := rep.Shrink
	if sr == nil {
		t.Fatalf("no shrink:\n%s", text)
	}
	t.Logf("%d of %d faults in %d runs: %v", len(sr.Faults), sr.From, sr.Runs, sr.Faults)
	kinds := func(fs []chaos.Fault) []string {
		var out []string
		for _, f := range fs {
			k := string(f.Kind)
			if f.Kind == chaos.Downstream {
				k += "/" + string(f.Answer)
			}
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	if got := kinds(sr.Faults); !slices.Equal(got, []string{"crash", "downstream/timeout"}) {
		t.Fatalf("shrunk to %v, want one crash and one downstream timeout:\n%s", got, text)
	}
	_, sel, ok := strings.Cut(sr.Reproduce, "--faults ")
	if !ok {
		t.Fatalf("reproduce line %q has no --faults", sr.Reproduce)
	}
	sel, _, _ = strings.Cut(sel, " ")
	for _, tt := range []struct {
		faults string
		want   Verdict
	}{
		{sel, Fail},
		{fmt.Sprint(sr.Faults[0].Index), Pass},
		{fmt.Sprint(sr.Faults[1].Index), Pass},
	} {
		fs, err := chaos.ParseSelection(tt.faults)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Replay(ctx, sc, Options{Baselines: 1, Faults: fs, ShrinkBudget: -1})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Verdict != tt.want {
			t.Errorf("--faults %s: verdict %s, want %s:\n%s", tt.faults, rep.Verdict, tt.want, reportText(rep))
		}
	}
}

// mixedSeed is a seed whose plan (27 faults: 2 crashes, the rest
// downstream) crashes the consumer at the commit that follows a
// timed-out call. With 4 crashes (seed 13) the shrink did not always
// reach two: an earlier crash restarts the consumer, its polls are cut
// into chunks at other records, and whether a later crash's commit is the
// one right after the timeout changes from run to run.
const mixedSeed = 16
