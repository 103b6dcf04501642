package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudevents/sdk-go/v2/event"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/replay/replaytest"
)

// handler runs the consumer's store in-process for replaytest: the same
// SQL as under Kafka, one transaction per event.
type handler struct{ st *store }

func newHandler(t testing.TB, naive bool) replaytest.Consumer {
	st, err := openStore(filepath.Join(t.TempDir(), "orders.db"), naive)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return handler{st}
}

func (h handler) Handle(ctx context.Context, e event.Event) error {
	ev, err := parseEvent(e.ID(), e.Type(), e.Data())
	if err != nil {
		return err
	}
	_, err = h.st.Apply(ctx, []orderEvent{ev})
	return err
}

func (h handler) State(ctx context.Context) (any, error) { return h.st.State(ctx) }

func loadScenario(t *testing.T) (*replaytest.Events, replaytest.Options) {
	t.Helper()
	in, opts, err := replaytest.LoadScenario("../replay.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return in, opts
}

// The plans of replay.yaml, for five seeds, in-process: the store is
// idempotent and order tolerant. (replay's tests run ten seeds of it
// through Kafka.)
func TestStoreSurvivesReplayPlans(t *testing.T) {
	in, opts := loadScenario(t)
	for seed := range uint64(5) {
		opts.Seed = seed
		res := replaytest.Check(t, in, func(t testing.TB) replaytest.Consumer { return newHandler(t, false) }, opts)
		if res == nil || t.Failed() {
			return
		}
		if res.Stats.Applied[chaos.Duplicate] == 0 || res.Stats.Applied[chaos.Reorder] == 0 {
			t.Fatalf("seed %d: faults %v", seed, res.Stats.Applied)
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
