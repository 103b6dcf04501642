package replaytest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cloudevents/sdk-go/v2/event"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/downstream"
	"github.com/evtool/evtool/internal/callout"
	"github.com/evtool/evtool/replay"
	"github.com/evtool/evtool/replay/replaytest"
)

// mailing is orders that sends a receipt per event to the email stand-in
// (internal/callout), dead-lettering the receipts that fail terminally.
type mailing struct {
	*orders
	faults callout.Faults
}

// mailTimeout is the receipt client's timeout: what a timeout fault costs,
// and longer than an answer without a fault takes on a loaded machine
// (150 ms was not: the retry of an answered request showed as a
// duplicate or a request after a terminal answer in a baseline).
const mailTimeout = time.Second

func (m *mailing) Handle(ctx context.Context, e event.Event) error {
	if m.seen[e.ID()] {
		return nil
	}
	c := callout.New(callout.Config{URL: replaytest.DownstreamURL(ctx, "email"), Timeout: mailTimeout, Base: 5 * time.Millisecond, Cap: 100 * time.Millisecond, Faults: m.faults})
	var d struct {
		OrderID string `json:"orderId"`
	}
	_ = e.DataAs(&d)
	_, err := c.Call(ctx, callout.Request{Path: "/send", Key: e.ID(), EventID: e.ID(),
		Body: map[string]string{"receiptId": "receipt-" + e.ID(), "to": d.OrderID + "@customers.example"}})
	if err := m.orders.Handle(ctx, e); err != nil {
		return err
	}
	if err != nil {
		return replaytest.DeadLetter(err)
	}
	return nil
}

func (m *mailing) State(ctx context.Context) (any, error) { return m.orders.State(ctx) }

// downstreamOptions parses a scenario's downstream sections, as
// LoadScenario does.
func downstreamOptions(t *testing.T, kinds string) replaytest.Options {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	text := `events: {file: e.jsonl}
consumer: {run: [x], state: {http: "http://x"}}
downstream:
  email:
    effect: {key: /receiptId}
    idempotency: {header: Idempotency-Key}
    terminal: {when: {pointer: /to, matches: "^ord-00023@"}, status: 422}
chaos:
  seed: 4
  downstream:
    email: {rate: 0.3, kinds: [` + kinds + `]}
expect:
  retries: {email: {max_attempts: 20}}
`
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := replay.LoadScenario(p)
	if err != nil {
		t.Fatal(err)
	}
	return replaytest.Options{Chaos: sc.Chaos, Seed: *sc.Seed, Downstream: sc.Downstream, Baseline: replay.BaselineSpec{}}
}

func firstEvents(t *testing.T, n int) *replaytest.Events {
	t.Helper()
	in, err := replaytest.LoadEvents(catalog, events)
	if err != nil {
		t.Fatal(err)
	}
	in.List, in.Keys = in.List[:n], in.Keys[:n]
	return in
}

// The stand-in and oracle in-process: the correct handler passes every
// downstream kind; a fresh idempotency key per attempt duplicates the
// receipt a timeout sent, and shrinks to that timeout.
func TestDownstreamInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: tens of client timeouts of a second each (fresh keys, shrinking); TestDownstreamCorrectTwentySeeds covers the stand-in and oracle in the short tier")
	}
	t.Parallel()
	in := firstEvents(t, 60)
	ctx := context.Background()
	opts := downstreamOptions(t, "429, 500, 503, timeout, reset, slow")
	res, err := replaytest.Run(ctx, in, func() (replaytest.Consumer, error) { return &mailing{orders: newOrders(false)}, nil }, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed() || len(res.Downstream) != 1 || res.Downstream[0].Summary.Effects == 0 {
		t.Fatalf("correct handler: %s\n%+v", res.Report(), res.Downstream)
	}
	kinds := map[chaos.DownstreamKind]bool{}
	for _, f := range res.Faults {
		kinds[f.Answer] = true
	}
	if len(kinds) < len(chaos.DownstreamKinds) {
		t.Errorf("kinds applied: %v", kinds)
	}

	opts = downstreamOptions(t, "timeout, 503")
	fresh := func() (replaytest.Consumer, error) {
		return &mailing{orders: newOrders(false), faults: callout.Faults{FreshKey: true}}, nil
	}
	res, err = replaytest.Run(ctx, in, fresh, opts)
	switch {
	case err != nil && strings.Contains(err.Error(), "baseline run") && strings.Contains(err.Error(), downstream.FreshKeyPerAttemptDetail):
		// On a loaded machine an answer without a fault can outlast the
		// 150 ms client timeout: the fresh key of the retry duplicates
		// the effect in a baseline already, which is the bug found, but
		// leaves no chaos run to shrink.
		t.Logf("the baseline found the fresh keys (a slow answer timed out): %v", err)
	case err != nil:
		t.Fatal(err)
	default:
		if !res.Failed() || !strings.Contains(res.Report(), downstream.FreshKeyPerAttemptDetail) {
			t.Fatalf("fresh keys passed: %s", res.Report())
		}
		sh, err := replaytest.Shrink(ctx, in, fresh, opts, 20)
		if err != nil && strings.Contains(err.Error(), "baseline run") && strings.Contains(err.Error(), downstream.FreshKeyPerAttemptDetail) {
			t.Logf("a shrink baseline found the fresh keys (a slow answer timed out): %v", err)
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(sh.Faults) != 1 || sh.Faults[0].Answer != chaos.Timeout {
			t.Fatalf("shrunk to %v", sh.Faults)
		}
	}
	// A handler that returns an error for the terminal receipts instead of
	// dead-lettering them fails the baseline.
	_, err = replaytest.Run(ctx, firstEvents(t, 60), func() (replaytest.Consumer, error) {
		return replaytest.Funcs{HandleFunc: func(ctx context.Context, e event.Event) error {
			m := &mailing{orders: newOrders(false)}
			if err := m.Handle(ctx, e); err != nil && errors.Is(err, callout.ErrTerminal) {
				return nil // swallowed: not on the DLQ
			}
			return nil
		}, StateFunc: func(context.Context) (any, error) { return map[string]int{"n": 1}, nil }}, nil
	}, opts)
	if err == nil || !strings.Contains(err.Error(), "terminal-not-dead-lettered") {
		t.Fatalf("swallowed terminal receipts: %v", err)
	}

}

// The correct handler passes every downstream kind over 20 seeds.
func TestDownstreamCorrectTwentySeeds(t *testing.T) {
	t.Parallel()
	in := firstEvents(t, 30)
	base := downstreamOptions(t, "429, 500, 503, timeout, reset, slow")
	// Each seed waits out its timeouts and slow answers (about 5 s of
	// wall, little CPU): -short runs 4 of them, the full tier all 20.
	seeds := uint64(20)
	if testing.Short() {
		seeds = 4
	}
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			opts := base
			opts.Seed = seed
			res, err := replaytest.Run(context.Background(), in, func() (replaytest.Consumer, error) { return &mailing{orders: newOrders(false)}, nil }, opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed() {
				t.Fatalf("seed %d: %s", seed, res.Report())
			}
		})
	}
}
