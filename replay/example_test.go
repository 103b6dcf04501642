package replay

import (
	"bytes"
	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/internal/gobuild"
	"strings"
	"sync"
	"testing"
)

// exampleConsumer builds examples/orders/consumer once per test binary
// (go run's cache keeps it between test binaries).
var exampleConsumer = sync.OnceValues(func() (string, error) {
	return gobuild.Executable("..", "./examples/orders/consumer")
})

func exampleScenario(t *testing.T, naive bool, events, chaosYAML string) *Scenario {
	t.Helper()
	exe, err := exampleConsumer()
	if err != nil {
		t.Fatal(err)
	}
	run := "[" + exe + "]"
	if naive {
		run = "[" + exe + ", -naive]"
	}
	return writeScenario(t, `catalog: `+examplesDir+`
events: {file: `+events+`}
kafka: {partitions: 3}
consumer:
  run: `+run+`
  state: {http: "http://${EVTOOL_ADDR}/state"}
  ignore: [/orders/*/updatedAt]
  settle_timeout: `+settleHangBound+`
  quiet: 150ms
expect:
  state:
    - {pointer: /orders, count: 50}
`+chaosYAML)
}

// The example consumer (SQLite, inbox, version guard) survives ten fault
// plans through Kafka: one baseline, ten chaos runs with different seeds.
func TestExampleConsumerTenSeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	sc := exampleScenario(t, false, testEvents(t, 400), dupAndReorder)
	passesSeeds(t, sc, 10, nil, func(seed uint64, ch *RunResult) {
		if ch.Seed != seed || ch.Records <= ch.Events || ch.Applied["reorder"] == 0 {
			t.Fatalf("seed %d: %+v", seed, ch)
		}
	})
}

// passesSeeds runs one baseline of sc, then a chaos run for each seed
// 1..seeds (before(seed) may change the scenario first), each of which
// must pass; check inspects each chaos run.
func passesSeeds(t *testing.T, sc *Scenario, seeds uint64, before func(seed uint64, sc *Scenario), check func(seed uint64, ch *RunResult)) {
	t.Helper()
	ctx, opts := watchProgress(t, Options{})
	h, err := NewHarness(sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	inv, err := h.Validate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	base, err := h.Run(ctx, RunSpec{Name: "baseline"})
	if err != nil || base.Failure != nil {
		t.Fatalf("baseline: %v %+v", err, base)
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		if before != nil {
			before(seed, h.sc)
		}
		ch, err := h.Run(ctx, RunSpec{Name: "chaos", Chaos: true, Seed: &seed})
		if err != nil {
			t.Fatal(err)
		}
		rep := h.newReport(inv)
		rep.Runs = []*RunResult{base, ch}
		if err := h.Judge(ctx, rep, base, ch); err != nil {
			t.Fatal(err)
		}
		if rep.Verdict != Pass {
			var b bytes.Buffer
			_ = WriteText(&b, rep)
			t.Fatalf("seed %d:\n%s", seed, b.String())
		}
		check(seed, ch)
	}
}

// The naive mode fails under duplicates alone and under reordering alone.
func TestExampleConsumerNaive(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	for _, tt := range []struct{ chaos, want string }{
		{"chaos: {seed: 1, duplicate: {rate: 0.05, spread: 10}}\n", "/paidMinor: baseline"},
		{"chaos: {seed: 1, reorder: {window: 40, scope: key, rate: 0.2}}\n", "/orderVersion: baseline"},
	} {
		sc := exampleScenario(t, true, testEvents(t, 400), tt.chaos)
		ctx, opts := watchProgress(t, Options{})
		rep, err := Replay(ctx, sc, opts)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		_ = WriteText(&b, rep)
		if rep.Verdict != Fail || !strings.Contains(b.String(), tt.want) || len(rep.NearFaults) == 0 {
			t.Fatalf("%s: verdict %s, want a failure with %q:\n%s", tt.chaos, rep.Verdict, tt.want, b.String())
		}
	}
}

// The example consumer survives every fault kind through Kafka: killed
// and restarted on its database, poison events dead-lettered (expect.dlq),
// placed events re-emitted as v1 or v2; three seeds, crash points after
// effects and at random times.
func TestExampleConsumerEveryFault(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	sc := exampleScenario(t, false, testEvents(t, 400), `  dlq: {count: poison}
chaos:
  duplicate: {rate: 0.1, max: 2, spread: 10}
  reorder: {window: 40, scope: key, rate: 0.3}
  skew: {rate: 1}
  poison: {rate: 0.02}
  crash: {count: 2}
`)
	passesSeeds(t, sc, 3, func(seed uint64, sc *Scenario) {
		if seed == 3 {
			sc.Chaos.Crash.At = "random"
		}
	}, func(seed uint64, ch *RunResult) {
		if len(ch.Kills) != 2 || ch.Applied["skew"] == 0 || ch.Applied["poison"] == 0 || len(ch.DLQ) < ch.Applied["poison"] {
			t.Fatalf("seed %d: kills %d, applied %v, %d dead letters", seed, len(ch.Kills), ch.Applied, len(ch.DLQ))
		}
	})
}

// The example consumer runs as three instances of one group on one SQLite
// database and passes every rebalance kind, with duplicates and
// reordering on top, over several seeds.
func TestExampleConsumerInstances(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	sc := exampleScenario(t, false, testEvents(t, 400), dupAndReorder+"  rebalance: {count: 3, kinds: [join, leave, kill, stall], eager: true, stall: 2s}\n")
	sc.Consumer.Instances = 3
	moves := map[chaos.RebalanceKind]int{}
	passesSeeds(t, sc, 5, nil, func(seed uint64, ch *RunResult) {
		if len(ch.Rebalances) != 3 || ch.Instances != 3 || len(ch.Generations) == 0 {
			t.Fatalf("seed %d: %d rebalances, %d instances, %d generations", seed, len(ch.Rebalances), ch.Instances, len(ch.Generations))
		}
		for _, r := range ch.Rebalances {
			moves[r.Move]++
		}
	})
	t.Logf("faults applied: %v", moves)
}

// The example consumer notifies the email stand-in of every event the
// right way and passes every downstream fault kind and an outage, with
// crashes, duplicates and reordering on top: each notification sent once,
// in order per order, under the provider's limits, the refused address's
// events dead-lettered.
func TestExampleConsumerDownstream(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	sc := exampleScenario(t, false, testEvents(t, 300), `  effects: {email: exactly-once}
  retries: {email: {max_attempts: 20}}
  effects_order: per-key
downstream:
  email:
    effect: {key: /notificationId}
    idempotency: {header: Idempotency-Key}
    answer: {status: 202}
    terminal: {when: {pointer: /to, matches: "^ord-00023@"}, status: 422}
    limits: {rate: 1000, concurrency: 16}
chaos:
  duplicate: {rate: 0.1, spread: 10}
  reorder: {window: 40, scope: key, rate: 0.3}
  crash: {count: 1}
  downstream:
    email: {rate: 0.2, kinds: [429, 500, 503, timeout, reset, slow], outage: {count: 1, duration: 2s}}
`)
	// A provider limited to 1000 requests/s: the consumer keeps to 450,
	// so that a crashed process's last second and its restart's first
	// stay under the limit together (a limiter does not survive a
	// restart). Not lower: the consumer has all the events at once, so
	// its limiter always has a queue, and a retry waits its turn in it
	// besides its backoff. At 45/s that wait (the calls in flight / the
	// rate) was longest when the outage failed every call at once, so the
	// gaps before the first retries came out longer than the backoff of
	// the late ones, and at load 30 the oracle saw no backoff (seed 2:
	// retry-too-soon, upper quartiles 378ms before retry 1, 436ms before
	// retry 7).
	sc.Consumer.Run = append(sc.Consumer.Run, "-email-rate", "450")
	passesSeeds(t, sc, 2, nil, func(seed uint64, ch *RunResult) {
		if len(ch.Downstream) != 1 || ch.Applied[chaos.Downstream] == 0 || ch.Applied[chaos.Outage] != 1 || len(ch.DLQ) == 0 {
			t.Fatalf("seed %d: applied %v, downstream %+v, %d dead letters", seed, ch.Applied, ch.Downstream, len(ch.DLQ))
		}
		if s := ch.Downstream[0].Summary; s.PeakRate > 1000 || s.PeakConcurrency > 16 || s.Effects == 0 {
			t.Fatalf("seed %d: %s", seed, s)
		}
	})
}
