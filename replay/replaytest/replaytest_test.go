package replaytest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/cloudevents/sdk-go/v2/event"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/replay"
	"github.com/evtool/evtool/replay/replaytest"
)

const (
	catalog  = "../../examples/orders"
	events   = "../../examples/orders/events.jsonl"
	scenario = "../../examples/orders/replay.yaml"
)

// orders is an in-memory read model of the example events: with dedupe
// and a version guard (correct), or without (naive).
type orders struct {
	naive bool
	seen  map[string]bool
	state map[string]*order
}

type order struct {
	Version int64  `json:"version"`
	Status  string `json:"status"`
	Paid    int64  `json:"paid"`
}

func newOrders(naive bool) *orders {
	return &orders{naive: naive, seen: map[string]bool{}, state: map[string]*order{}}
}

func (o *orders) Handle(_ context.Context, e event.Event) error {
	if !o.naive {
		if o.seen[e.ID()] {
			return nil
		}
		o.seen[e.ID()] = true
	}
	var d struct {
		OrderID      string `json:"orderId"`
		OrderVersion int64  `json:"orderVersion"`
		Amount       struct {
			AmountMinor int64 `json:"amountMinor"`
		} `json:"amount"`
	}
	if err := json.Unmarshal(e.Data(), &d); err != nil {
		return err
	}
	s := o.state[d.OrderID]
	if s == nil {
		s = &order{}
		o.state[d.OrderID] = s
	}
	s.Paid += d.Amount.AmountMinor
	if o.naive || d.OrderVersion > s.Version {
		s.Version, s.Status = d.OrderVersion, e.Type()
	}
	return nil
}

func (o *orders) State(context.Context) (any, error) { return o.state, nil }

var loadOnce = sync.OnceValues(func() (*replaytest.Events, error) { return replaytest.LoadEvents(catalog, events) })

func load(t *testing.T) *replaytest.Events {
	t.Helper()
	in, err := loadOnce()
	if err != nil {
		t.Fatal(err)
	}
	return in
}

var both = chaos.Config{
	Duplicate: &chaos.DuplicateConfig{Rate: 0.2, Max: 2, Spread: 20},
	Reorder:   &chaos.ReorderConfig{Window: 40, Scope: chaos.ScopeKey, Rate: 0.5},
}

func TestCorrectPassesManySeeds(t *testing.T) {
	t.Parallel()
	in := load(t)
	if len(in.List) != 1000 || in.Keys[0] != "ord-00023" {
		t.Fatalf("loaded %d events, first key %q", len(in.List), in.Keys[0])
	}
	for seed := range uint64(20) {
		res := replaytest.Check(t, in, func(testing.TB) replaytest.Consumer { return newOrders(false) }, replaytest.Options{Chaos: both, Seed: seed})
		if res != nil && (res.Stats.Applied[chaos.Duplicate] == 0 || res.Stats.Applied[chaos.Reorder] == 0) {
			t.Fatalf("seed %d applied %v", seed, res.Stats.Applied)
		}
	}
}

func naive(t *testing.T, cfg chaos.Config) *replaytest.Result {
	t.Helper()
	res, err := replaytest.Run(context.Background(), load(t), func() (replaytest.Consumer, error) { return newOrders(true), nil }, replaytest.Options{Chaos: cfg, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Equal() {
		t.Fatal("the naive consumer passed")
	}
	if len(res.Near) == 0 {
		t.Fatal("no fault near the differences")
	}
	return res
}

func TestNaiveFailsDuplicates(t *testing.T) {
	res := naive(t, chaos.Config{Duplicate: &chaos.DuplicateConfig{Rate: 0.02}})
	rep := res.Report()
	for _, s := range []string{"/paid: baseline", "seed 1", "reproduce with Options{Seed: 1, Faults: chaos.Only(", "duplicate: copy 1 of event"} {
		if !strings.Contains(rep, s) {
			t.Errorf("report lacks %q:\n%s", s, rep)
		}
	}
	// No evtool command without its scenario (it exits 2, usage): the
	// flags, for a scenario of the same events and chaos.
	if strings.Contains(rep, "evtool replay --") || !strings.Contains(rep, "for evtool replay on a scenario of the same events and chaos: --seed 1 --faults ") {
		t.Errorf("report prints an evtool replay line that cannot run:\n%s", rep)
	}
	// The faults near the differences alone reproduce the failure.
	var idx []int
	for _, f := range res.Near {
		idx = append(idx, f.Index)
	}
	again, err := replaytest.Run(context.Background(), load(t), func() (replaytest.Consumer, error) { return newOrders(true), nil },
		replaytest.Options{Chaos: chaos.Config{Duplicate: &chaos.DuplicateConfig{Rate: 0.02}}, Seed: 1, Faults: chaos.Only(idx...)})
	if err != nil || again.Equal() || len(again.Faults) != len(idx) {
		t.Fatalf("subset: %v equal=%v faults=%d", err, again.Equal(), len(again.Faults))
	}
}

func TestNaiveFailsReorder(t *testing.T) {
	res := naive(t, chaos.Config{Reorder: &chaos.ReorderConfig{Window: 40, Scope: chaos.ScopeKey, Rate: 0.1}})
	if !strings.Contains(res.Report(), "/version: baseline 20") {
		t.Errorf("report:\n%s", res.Report())
	}
	for _, f := range res.Faults {
		if f.Kind != chaos.Reorder {
			t.Fatalf("fault %v", f)
		}
	}
}

// replaytest applies exactly the plan evtool replay applies through Kafka.
func TestSamePlanAsEvtoolReplay(t *testing.T) {
	in, opts, err := replaytest.LoadScenario(scenario)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Seed != 42 || opts.Partitions != 3 || len(opts.Ignore) != 1 || opts.Chaos.Reorder == nil {
		t.Fatalf("options %+v", opts)
	}
	_, got, _, err := replaytest.Deliver(in, opts)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := replay.LoadScenario(scenario)
	if err != nil {
		t.Fatal(err)
	}
	h, err := replay.NewHarness(sc, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	var want []chaos.Fault
	if _, err := h.ListFaults(context.Background(), chaos.All(), func(f chaos.Fault, _ bool) error {
		f.Line = 0 // replaytest events have no lines
		want = append(want, f)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("replaytest planned %d faults, evtool replay %d; first: %v / %v", len(got), len(want), first(got), first(want))
	}
}

func first(fs []chaos.Fault) string {
	if len(fs) == 0 {
		return "none"
	}
	return fs[0].String()
}

// A handler error in the chaos run fails it (a consumer that retries the
// event forever, or crashes), naming the delivery; in a clean run it is an
// error.
func TestHandlerError(t *testing.T) {
	in := load(t)
	calls := 0
	newConsumer := func(failAt int) func() (replaytest.Consumer, error) {
		return func() (replaytest.Consumer, error) {
			calls++
			n := 0
			fail := calls == failAt
			return replaytest.Funcs{
				HandleFunc: func(_ context.Context, e event.Event) error {
					n++
					if fail && n == 5 {
						return errors.New("database is locked")
					}
					return nil
				},
				StateFunc: func(context.Context) (any, error) { return n, nil },
			}, nil
		}
	}
	res, err := replaytest.Run(context.Background(), in, newConsumer(3), replaytest.Options{Chaos: both, Seed: 3})
	if err != nil || !res.Failed() || !strings.Contains(res.Failure, "chaos run: delivery 4, event") || !strings.Contains(res.Failure, "database is locked") {
		t.Fatalf("err = %v, failure %q", err, res.Failure)
	}
	if !strings.Contains(res.Report(), "the chaos run failed (seed 3") {
		t.Errorf("report:\n%s", res.Report())
	}
	calls = 0
	_, err = replaytest.Run(context.Background(), in, newConsumer(1), replaytest.Options{Chaos: both, Seed: 3})
	if err == nil || !strings.Contains(err.Error(), "baseline run: delivery 4") {
		t.Fatalf("err = %v", err)
	}
}

func TestDeliverDeterministic(t *testing.T) {
	in := load(t)
	a, fa, _, err := replaytest.Deliver(in, replaytest.Options{Chaos: both, Seed: 8})
	if err != nil {
		t.Fatal(err)
	}
	b, fb, _, _ := replaytest.Deliver(in, replaytest.Options{Chaos: both, Seed: 8})
	if len(a) != len(b) || !reflect.DeepEqual(fa, fb) {
		t.Fatal("not deterministic")
	}
	for i := range a {
		if a[i].Event != b[i].Event {
			t.Fatalf("delivery %d differs", i)
		}
	}
}

func TestNewEventsDefaultKey(t *testing.T) {
	e := event.New()
	e.SetID("1")
	e.SetSubject("s")
	f := event.New()
	f.SetID("2")
	f.SetExtension("partitionkey", "pk")
	in := replaytest.NewEvents([]event.Event{e, f}, nil)
	if fmt.Sprint(in.Keys) != "[s pk]" {
		t.Fatalf("keys %v", in.Keys)
	}
}

// fakeTB records what Check reports.
type fakeTB struct {
	testing.TB
	errors []string
}

func (f *fakeTB) Helper()                   {}
func (f *fakeTB) Error(args ...any)         { f.errors = append(f.errors, fmt.Sprint(args...)) }
func (f *fakeTB) Fatalf(s string, a ...any) { f.errors = append(f.errors, fmt.Sprintf(s, a...)) }

func TestCheckReports(t *testing.T) {
	tb := &fakeTB{}
	replaytest.Check(tb, load(t), func(testing.TB) replaytest.Consumer { return newOrders(true) }, replaytest.Options{Chaos: both, Seed: 2})
	if len(tb.errors) != 1 || !strings.Contains(tb.errors[0], "the chaos state differs from the baseline state") {
		t.Fatalf("Check reported %q", tb.errors)
	}
}

// A consumer that applies nothing (empty state, or every event
// dead-lettered) passes every chaos run, so its baseline is refused unless
// Options.Baseline says it is expected.
func TestBaselineThatTestsNothing(t *testing.T) {
	in := load(t)
	empty := func() (replaytest.Consumer, error) {
		return replaytest.Funcs{
			HandleFunc: func(context.Context, event.Event) error { return nil },
			StateFunc:  func(context.Context) (any, error) { return map[string]any{}, nil },
		}, nil
	}
	rejectPaid := func() (replaytest.Consumer, error) {
		o := newOrders(false)
		return replaytest.Funcs{
			HandleFunc: func(ctx context.Context, e event.Event) error {
				if e.Type() == "com.example.order.paid" {
					return replaytest.DeadLetter(errors.New("unsupported type"))
				}
				return o.Handle(ctx, e)
			},
			StateFunc: o.State,
		}, nil
	}
	paid := 0
	for _, e := range in.List {
		if e.Type() == "com.example.order.paid" {
			paid++
		}
	}
	for _, c := range []struct {
		name     string
		consumer func() (replaytest.Consumer, error)
		baseline replay.BaselineSpec
		want     string // "" passes
	}{
		{"empty state", empty, replay.BaselineSpec{}, "the baseline state is empty ({})"},
		{"empty state expected", empty, replay.BaselineSpec{EmptyOK: true}, ""},
		{"clean events dead-lettered", rejectPaid, replay.BaselineSpec{}, fmt.Sprintf("dead-lettered %d distinct clean event(s)", paid)},
		{"dead letters expected", rejectPaid, replay.BaselineSpec{DLQ: paid}, ""},
		{"correct", func() (replaytest.Consumer, error) { return newOrders(false), nil }, replay.BaselineSpec{}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := replaytest.Run(context.Background(), in, c.consumer, replaytest.Options{Seed: 1, Baseline: c.baseline})
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("want a run, got %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}
