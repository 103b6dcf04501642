package replaytest_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudevents/sdk-go/v2/event"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/internal/bugs"
	"github.com/evtool/evtool/replay/replaytest"
)

// bugHandler runs a consumer of the bug catalogue in-process: its store
// is the durable part (it survives Restart), the rest is memory.
type bugHandler struct{ c *bugs.Consumer }

func newBug(bug bugs.Bug) func() (replaytest.Consumer, error) {
	return func() (replaytest.Consumer, error) { return bugHandler{bugs.New(bug, bugs.NewStore())}, nil }
}

func (h bugHandler) Handle(ctx context.Context, e event.Event) error {
	in, err := bugs.Decode(e)
	if err != nil {
		if h.c.CrashesOnPoison() {
			return err // retried forever: the partition stalls
		}
		return replaytest.DeadLetter(err)
	}
	d := replaytest.DeliveryOf(ctx)
	if h.c.CommitsFirst() {
		replaytest.Commit(ctx)
	}
	h.c.Apply(in, d.Partition, d.Offset)
	return nil
}

func (h bugHandler) State(context.Context) (any, error) { return h.c.State(), nil }

func (h bugHandler) Restart(context.Context) (replaytest.Consumer, error) {
	return bugHandler{bugs.New(h.c.Bug, h.c.Store)}, nil
}

// firstSeed returns the first seed whose crash plan has every phase in
// want (the phases a random crash strikes in are seeded).
func firstSeed(t *testing.T, cfg chaos.Config, want ...chaos.CrashPhase) uint64 {
	t.Helper()
	cfg, err := cfg.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(1000) {
		var got []chaos.CrashPhase
		for _, f := range chaos.CrashPlan(cfg, seed) {
			got = append(got, f.Phase)
		}
		ok := true
		for _, w := range want {
			ok = ok && slices.Contains(got, w)
		}
		if ok {
			return seed
		}
	}
	t.Fatalf("no seed with crash phases %v", want)
	return 0
}

// exposing is, per bug, a plan of the fault that exposes it alone.
func exposing(t *testing.T, bug bugs.Bug) replaytest.Options {
	switch bug {
	case bugs.NonIdempotent, bugs.WrongDedupeKey:
		return replaytest.Options{Chaos: chaos.Config{Duplicate: &chaos.DuplicateConfig{Rate: 0.02, Spread: 10}}, Seed: 1}
	case bugs.MemoryDedupe:
		return replaytest.Options{Chaos: chaos.Config{Crash: &chaos.CrashConfig{Count: 1, At: chaos.CrashAfterEffect}}, Seed: 1}
	case bugs.LastWriteWins:
		return replaytest.Options{Chaos: chaos.Config{Reorder: &chaos.ReorderConfig{Window: 40, Scope: chaos.ScopeKey, Rate: 0.05}}, Seed: 1}
	case bugs.PoisonCrash:
		return replaytest.Options{Chaos: chaos.Config{Poison: &chaos.PoisonConfig{Rate: 0.01}}, Seed: 1, DLQ: true}
	case bugs.CommitFirst:
		cfg := chaos.Config{Crash: &chaos.CrashConfig{Count: 2, At: chaos.CrashRandom}}
		return replaytest.Options{Chaos: cfg, Seed: firstSeed(t, cfg, chaos.PhaseAfterCommit)}
	}
	t.Fatalf("no exposing plan for %s", bug)
	return replaytest.Options{}
}

// every is a plan with every fault kind.
func every(seed uint64, at chaos.CrashAt) replaytest.Options {
	return replaytest.Options{Seed: seed, DLQ: true, Chaos: chaos.Config{
		Duplicate: &chaos.DuplicateConfig{Rate: 0.1, Max: 2, Spread: 10},
		Reorder:   &chaos.ReorderConfig{Window: 8, Scope: chaos.ScopeKey, Rate: 0.3},
		Skew:      &chaos.SkewConfig{Rate: 0.5},
		Poison:    &chaos.PoisonConfig{Rate: 0.02},
		Crash:     &chaos.CrashConfig{Count: 3, At: at},
	}}
}

func kinds(fs []chaos.Fault) []chaos.Kind {
	var out []chaos.Kind
	for _, f := range fs {
		if !slices.Contains(out, f.Kind) {
			out = append(out, f.Kind)
		}
	}
	return out
}

// Bugs (a) to (f) each fail under the fault that exposes them, and
// shrink to at most 3 faults that include it.
func TestCatalogueBugsFailAndShrink(t *testing.T) {
	t.Parallel()
	in := load(t)
	for _, e := range bugs.Catalogue {
		if e.Bug == bugs.Correct {
			continue
		}
		t.Run(e.Letter+"-"+string(e.Bug), func(t *testing.T) {
			opts := exposing(t, e.Bug)
			opts.HandleTimeout = 2e9
			s, err := replaytest.Shrink(context.Background(), in, newBug(e.Bug), opts, 30)
			if err != nil {
				t.Fatal(err)
			}
			if s == nil {
				t.Fatalf("(%s) %s passed under %s", e.Letter, e.What, opts.Chaos)
			}
			if len(s.Faults) == 0 || len(s.Faults) > 3 || !s.Minimal || !s.Result.Failed() {
				t.Fatalf("shrunk to %d faults (minimal %v) in %d runs: %v", len(s.Faults), s.Minimal, s.Runs, s.Faults)
			}
			if !slices.ContainsFunc(s.Faults, func(f chaos.Fault) bool { return slices.Contains(e.Exposes, f.Kind) }) {
				t.Fatalf("shrunk to %v, none of kind %v", s.Faults, e.Exposes)
			}
			// The minimal set, replayed alone, fails again.
			opts.Faults = s.Selection()
			again, err := replaytest.Run(context.Background(), in, newBug(e.Bug), opts)
			if err != nil || !again.Failed() {
				t.Fatalf("the minimal set passes on its own: %v", err)
			}
			t.Logf("(%s) %s: %d fault(s) of %d, %d runs: %s", e.Letter, e.Bug, len(s.Faults), s.From, s.Runs, s.Faults[0])
		})
	}
}

// Under every fault kind at once, each bug still fails, and shrinking
// isolates faults of a kind that exposes it.
func TestCatalogueBugsUnderEveryFault(t *testing.T) {
	t.Parallel()
	in := load(t)
	for _, e := range bugs.Catalogue {
		if e.Bug == bugs.Correct {
			continue
		}
		t.Run(e.Letter+"-"+string(e.Bug), func(t *testing.T) {
			opts := every(0, chaos.CrashRandom)
			opts.Seed = firstSeed(t, opts.Chaos, chaos.PhaseAfterEffect, chaos.PhaseAfterCommit)
			opts.HandleTimeout = 2e9
			s, err := replaytest.Shrink(context.Background(), in, newBug(e.Bug), opts, 30)
			if err != nil {
				t.Fatal(err)
			}
			if s == nil {
				t.Fatalf("(%s) passed every fault kind", e.Letter)
			}
			if len(s.Faults) > 3 || !slices.ContainsFunc(s.Faults, func(f chaos.Fault) bool { return slices.Contains(e.Exposes, f.Kind) }) {
				t.Fatalf("shrunk to %v (kinds %v), want at most 3 with one of %v", s.Faults, kinds(s.Faults), e.Exposes)
			}
			t.Logf("(%s) %s: %d fault(s) %v of %d, %d runs (minimal %v)", e.Letter, e.Bug, len(s.Faults), kinds(s.Faults), s.From, s.Runs, s.Minimal)
		})
	}
}

// Only a crash exposes an in-memory dedupe; only a duplicate a dedupe on
// the offset.
func TestCatalogueCaughtOnlyBy(t *testing.T) {
	in := load(t)
	pass := func(bug bugs.Bug, opts replaytest.Options) {
		t.Helper()
		res, err := replaytest.Run(context.Background(), in, newBug(bug), opts)
		if err != nil || res.Failed() {
			t.Fatalf("%s failed under %s:\n%v%s", bug, opts.Chaos, err, res.Report())
		}
	}
	dupReorder := replaytest.Options{Seed: 4, Chaos: chaos.Config{
		Duplicate: &chaos.DuplicateConfig{Rate: 0.2, Max: 2, Spread: 20},
		Reorder:   &chaos.ReorderConfig{Window: 40, Rate: 0.5},
	}}
	pass(bugs.MemoryDedupe, dupReorder)
	crash := replaytest.Options{Seed: 4, Chaos: chaos.Config{Crash: &chaos.CrashConfig{Count: 5}}}
	pass(bugs.WrongDedupeKey, crash)
	dupOnly := dupReorder
	dupOnly.Chaos.Reorder = nil
	pass(bugs.LastWriteWins, dupOnly)
}

// The correct consumer passes every fault kind across 20 seeds: no false
// alarm. Half the seeds crash after effects, half at random phases.
func TestCatalogueCorrectPassesEverything(t *testing.T) {
	t.Parallel()
	in := load(t)
	totals := map[chaos.Kind]int{}
	for seed := range uint64(20) {
		at := chaos.CrashAfterEffect
		if seed%2 == 1 {
			at = chaos.CrashRandom
		}
		opts := every(seed, at)
		res, err := replaytest.Run(context.Background(), in, newBug(bugs.Correct), opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed() {
			t.Fatalf("seed %d:\n%s", seed, res.Report())
		}
		for k, n := range res.Stats.Applied {
			totals[k] += n
		}
		if len(res.Kills) != 3 || len(res.Skipped) != 0 {
			t.Fatalf("seed %d: %d kills, %d skipped", seed, len(res.Kills), len(res.Skipped))
		}
	}
	for _, k := range every(0, chaos.CrashAfterEffect).Chaos.Kinds() {
		if totals[k] == 0 {
			t.Errorf("no %s fault applied in 20 seeds", k)
		}
	}
	t.Logf("applied over 20 seeds: %v", totals)
}

// recorder is a testing.TB that keeps what Check reports instead of
// failing the test.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Error(args ...any) { r.errors = append(r.errors, fmt.Sprint(args...)) }

var reproduceLine = regexp.MustCompile(`reproduce with Options\{Seed: (\d+)(?:, Faults: chaos\.Only\(([0-9, ]*)\))?\}`)

// The reproduce line Check prints reproduces the failure: parsed from its
// report and run, it fails. For a failure that needs a crash (the in-memory
// dedupe, commit before effect) the crash is no fault near the
// differences by key, and must not be left out.
func TestCheckReproduceLineReproduces(t *testing.T) {
	t.Parallel()
	in := load(t)
	for _, tc := range []struct {
		bug bugs.Bug
		at  chaos.CrashAt
	}{
		{bugs.MemoryDedupe, chaos.CrashAfterEffect},
		{bugs.CommitFirst, chaos.CrashAfterCommit},
		{bugs.NonIdempotent, chaos.CrashAfterEffect},
	} {
		for seed := range uint64(5) {
			opts := replaytest.Options{Seed: seed, Chaos: chaos.Config{
				Duplicate: &chaos.DuplicateConfig{Rate: 0.05, Spread: 10},
				Crash:     &chaos.CrashConfig{Count: 2, At: tc.at},
			}}
			rec := &recorder{TB: t}
			res := replaytest.Check(rec, in, func(testing.TB) replaytest.Consumer {
				c, _ := newBug(tc.bug)()
				return c
			}, opts)
			if res == nil || !res.Failed() || len(rec.errors) != 1 {
				t.Fatalf("%s seed %d: the bug passed (%d reports)", tc.bug, seed, len(rec.errors))
			}
			m := reproduceLine.FindStringSubmatch(rec.errors[0])
			if m == nil {
				t.Fatalf("%s seed %d: no reproduce line in\n%s", tc.bug, seed, rec.errors[0])
			}
			again := opts
			again.Seed, _ = strconv.ParseUint(m[1], 10, 64)
			if m[2] != "" || strings.Contains(m[0], "Faults") {
				var idx []int
				for _, f := range strings.Split(m[2], ", ") {
					i, err := strconv.Atoi(f)
					if err != nil {
						t.Fatalf("%q: %v", m[0], err)
					}
					idx = append(idx, i)
				}
				again.Faults = chaos.Only(idx...)
			}
			r, err := replaytest.Run(context.Background(), in, newBug(tc.bug), again)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Failed() {
				t.Errorf("%s seed %d: %s passes:\n%s", tc.bug, seed, m[0], rec.errors[0])
			}
		}
	}
}

// Rebalances in-process: each moves the partitions to a fresh consumer
// from the last commit. An in-memory dedupe fails under a kill (the next
// owner lacks the ids) and shrinks to that rebalance; a leave (a clean
// revoke, everything committed) does not expose it; the correct consumer
// passes every rebalance kind over 20 seeds.
func TestCatalogueRebalancesInProcess(t *testing.T) {
	t.Parallel()
	in := load(t)
	kill := replaytest.Options{Seed: 1, Chaos: chaos.Config{Rebalance: &chaos.RebalanceConfig{Count: 2, Kinds: []chaos.RebalanceKind{chaos.Kill}}}}
	s, err := replaytest.Shrink(context.Background(), in, newBug(bugs.MemoryDedupe), kill, 30)
	if err != nil {
		t.Fatal(err)
	}
	if s == nil || len(s.Faults) != 1 || s.Faults[0].Kind != chaos.Rebalance {
		t.Fatalf("memory-dedupe under rebalance kills: %+v", s)
	}
	leave := replaytest.Options{Seed: 1, Chaos: chaos.Config{Rebalance: &chaos.RebalanceConfig{Count: 3, Kinds: []chaos.RebalanceKind{chaos.Leave}}}}
	if res, err := replaytest.Run(context.Background(), in, newBug(bugs.MemoryDedupe), leave); err != nil || res.Failed() || len(res.Kills) != 3 {
		t.Fatalf("memory-dedupe under clean leaves: %v %+v", err, res)
	}
	for seed := range uint64(20) {
		opts := replaytest.Options{Seed: seed, Chaos: chaos.Config{
			Duplicate: &chaos.DuplicateConfig{Rate: 0.1, Max: 2, Spread: 10},
			Rebalance: &chaos.RebalanceConfig{Count: 4, Eager: true},
		}}
		res, err := replaytest.Run(context.Background(), in, newBug(bugs.Correct), opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed() || len(res.Kills) != 4 {
			t.Fatalf("seed %d: %d moves:\n%s", seed, len(res.Kills), res.Report())
		}
	}
}
