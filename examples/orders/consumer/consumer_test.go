package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudevents/sdk-go/v2/event"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/examples/internal/exconsumer"
	"github.com/evtool/evtool/replay/replaytest"
)

// handler runs the consumer's store in-process for replaytest: the same
// validation and SQL as under Kafka, one transaction per event. Events it
// cannot apply are dead-lettered; a crash reopens the database.
type handler struct {
	t     testing.TB
	st    *store
	path  string
	naive bool
}

func newHandler(t testing.TB, naive bool) replaytest.Consumer {
	return openHandler(t, filepath.Join(t.TempDir(), "orders.db"), naive)
}

func openHandler(t testing.TB, path string, naive bool) handler {
	st, err := openStore(path, naive)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return handler{t, st, path, naive}
}

func (h handler) Handle(ctx context.Context, e event.Event) error {
	ev, err := readEvent(e)
	if err != nil {
		return replaytest.DeadLetter(err)
	}
	_, err = h.st.Apply(ctx, []orderEvent{ev})
	return err
}

func (h handler) State(ctx context.Context) (any, error) { return h.st.State(ctx) }

// Restart is the process restarted after a crash: the database file stays.
func (h handler) Restart(context.Context) (replaytest.Consumer, error) {
	h.st.Close()
	return openHandler(h.t, h.path, h.naive), nil
}

func loadScenario(t *testing.T) (*replaytest.Events, replaytest.Options) {
	t.Helper()
	in, opts, err := replaytest.LoadScenario("../replay.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return in, opts
}

// The plans of replay.yaml (every fault kind), for five seeds, in-process:
// the store is idempotent, order tolerant, reads placed v1 and v2 alike,
// dead-letters every poison event and survives crashes. (replay's tests
// run it through Kafka.)
func TestStoreSurvivesReplayPlans(t *testing.T) {
	in, opts := loadScenario(t)
	if !opts.DLQ {
		t.Fatal("replay.yaml has no expect.dlq")
	}
	seeds := uint64(5)
	if testing.Short() {
		// One seed's plan applies every fault kind (checked below); the
		// full tier tries five.
		seeds = 1
	}
	for seed := range seeds {
		opts.Seed = seed
		res := replaytest.Check(t, in, func(t testing.TB) replaytest.Consumer { return newHandler(t, false) }, opts)
		if res == nil || t.Failed() {
			return
		}
		for _, k := range opts.Chaos.Kinds() {
			if res.Stats.Applied[k] == 0 {
				t.Fatalf("seed %d: no %s fault: %v", seed, k, res.Stats.Applied)
			}
		}
		if len(res.Kills) == 0 || len(res.DeadLettered) == 0 {
			t.Fatalf("seed %d: %d kills, %d dead letters", seed, len(res.Kills), len(res.DeadLettered))
		}
	}
}

// Every poison kind is rejected with its kind; a placed event read as
// either version gives the same order.
func TestReadEvent(t *testing.T) {
	in, _ := loadScenario(t)
	placed := in.List[0]
	if _, err := readEvent(placed); err != nil {
		t.Fatal(err)
	}
	v2 := placed.Clone()
	v2.SetDataSchema("https://schemas.example.com/com.example.order.placed/v2.json")
	a, _ := readEvent(placed)
	b, err := readEvent(v2)
	if err != nil || a != b {
		t.Fatalf("v1 %+v, v2 %+v (%v)", a, b, err)
	}
	for _, tt := range []struct {
		mutate func(*event.Event)
		kind   string
	}{
		{func(e *event.Event) { e.SetType("com.example.order.placed.unknown") }, "unknown-type"},
		{func(e *event.Event) {
			e.SetDataSchema("https://schemas.example.com/com.example.order.placed/v3.json")
		}, "unknown-version"},
		{func(e *event.Event) { e.DataEncoded = []byte(`{"orderId":"ord-1"}`) }, "invalid-data"},
		{func(e *event.Event) { e.DataEncoded = []byte{0, 0, 0, 0, 42} }, "undecodable"},
	} {
		e := placed.Clone()
		tt.mutate(&e)
		_, err := readEvent(e)
		var re *exconsumer.Reject
		if !errors.As(err, &re) || re.Kind != tt.kind {
			t.Errorf("want %s, got %v", tt.kind, err)
		}
	}
}

func TestNaiveStoreFails(t *testing.T) {
	in, opts := loadScenario(t)
	for _, cfg := range []chaos.Config{
		{Duplicate: &chaos.DuplicateConfig{Rate: 0.02}},
		{Reorder: &chaos.ReorderConfig{Window: 40, Scope: chaos.ScopeKey, Rate: 0.05}},
	} {
		opts.Chaos = cfg
		res, err := replaytest.Run(context.Background(), in, func() (replaytest.Consumer, error) { return newHandler(t, true), nil }, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Equal() {
			t.Fatalf("%v: the naive store passed", cfg)
		}
		if !strings.Contains(res.Report(), "/orders/ord-") {
			t.Errorf("%v: report:\n%s", cfg, res.Report())
		}
	}
}

func TestParseEvent(t *testing.T) {
	if _, err := parseEvent("1", "com.example.other", []byte(`{}`)); err == nil {
		t.Error("unknown type accepted")
	}
	if _, err := parseEvent("1", typePaid, []byte(`{"orderId":"ord-1"}`)); err == nil {
		t.Error("event without orderVersion accepted")
	}
	e, err := parseEvent("1", typePaid, []byte(`{"orderId":"ord-00001","orderVersion":2,"paymentId":"p","amount":{"amountMinor":5,"currency":"EUR"},"method":"card"}`))
	if err != nil || e.Amount.AmountMinor != 5 || e.ID != "1" {
		t.Fatalf("%+v %v", e, err)
	}
}
