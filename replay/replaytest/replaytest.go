// Package replaytest runs evtool's chaos plans against a consumer's handler
// in-process, for `go test`: no Kafka, no processes, deterministic, in
// milliseconds.
//
// It delivers the events twice, to two fresh consumers: once clean, in
// input order (the baseline), and once through the fault plan of package
// chaos (duplicates, reordering), then compares the two final states the
// way `evtool replay` does (as JSON, ignore pointers removed). For the same
// events, keys, partition count, chaos settings and seed, the plan is the
// one `evtool replay` applies through Kafka, fault for fault, so a failure
// found by the harness can be reproduced and fixed in a unit test:
//
//	func TestIdempotent(t *testing.T) {
//		in, opts, err := replaytest.LoadScenario("../replay.yaml")
//		if err != nil {
//			t.Fatal(err)
//		}
//		for seed := range uint64(20) {
//			opts.Seed = seed
//			replaytest.Check(t, in, func(t testing.TB) replaytest.Consumer { return newHandler(t) }, opts)
//		}
//	}
package replaytest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cloudevents/sdk-go/v2/event"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/replay"
)

// Consumer is the consumer under test.
type Consumer interface {
	// Handle applies one delivered event. An error ends the run: the
	// harness does not redeliver.
	Handle(ctx context.Context, e event.Event) error
	// State returns the consumer's state after the last event; it is
	// compared as JSON (marshalled with encoding/json).
	State(ctx context.Context) (any, error)
}

// Funcs adapts two functions to Consumer.
type Funcs struct {
	HandleFunc func(ctx context.Context, e event.Event) error
	StateFunc  func(ctx context.Context) (any, error)
}

// Handle calls HandleFunc.
func (f Funcs) Handle(ctx context.Context, e event.Event) error { return f.HandleFunc(ctx, e) }

// State calls StateFunc.
func (f Funcs) State(ctx context.Context) (any, error) { return f.StateFunc(ctx) }

// Events are the input of a run: events and their record keys.
type Events struct {
	List []event.Event
	// Keys[i] is List[i]'s record key (its type's partition key); "" for
	// none.
	Keys []string
}

// NewEvents pairs events with keys computed by key (nil: the
// partitionkey extension, else the subject, else none).
func NewEvents(list []event.Event, key func(event.Event) string) *Events {
	if key == nil {
		key = DefaultKey
	}
	in := &Events{List: list, Keys: make([]string, len(list))}
	for i, e := range list {
		in.Keys[i] = key(e)
	}
	return in
}

// DefaultKey is the partitionkey extension (CloudEvents Partitioning), else
// the subject, else "".
func DefaultKey(e event.Event) string {
	if v, ok := e.Extensions()["partitionkey"]; ok {
		return fmt.Sprint(v)
	}
	return e.Subject()
}

// Options configure a run.
type Options struct {
	// Chaos is the fault plan's configuration (a scenario's chaos section).
	Chaos chaos.Config
	// Seed seeds the plan.
	Seed uint64
	// Faults selects the faults applied (zero value: all).
	Faults chaos.Selection
	// Partitions is the topic's partition count, for reorder scope
	// partition (default 3, as in evtool replay).
	Partitions int
	// Ignore lists JSON pointers left out of the comparison ("*" matches
	// any member or element).
	Ignore []string
}

// Result is the outcome of a run.
type Result struct {
	// Baseline and Chaos are the two final states, decoded from JSON.
	Baseline, Chaos any
	Comparison      replay.Comparison
	// Faults are the applied faults, in plan order.
	Faults []chaos.Fault
	Stats  chaos.Stats
	// Near are the applied faults whose key or event id appears near a
	// difference.
	Near []chaos.Fault
	// Seed and Selection reproduce the chaos run.
	Seed      uint64
	Selection chaos.Selection
}

// Equal reports whether the chaos state equals the baseline.
func (r *Result) Equal() bool { return r.Comparison.Equal }

// Deliver returns the chaos sequence: the events as the plan delivers
// them, each with the fault that moved or copied it (nil when in place),
// and the applied faults.
func Deliver(in *Events, opts Options) ([]chaos.Delivery[event.Event], []chaos.Fault, chaos.Stats, error) {
	var out []chaos.Delivery[event.Event]
	var faults []chaos.Fault
	s, err := chaos.NewStream(opts.Chaos, opts.Seed, opts.Faults, func(d chaos.Delivery[event.Event]) error {
		out = append(out, d)
		return nil
	})
	if err != nil {
		return nil, nil, chaos.Stats{}, err
	}
	s.Observe(func(f chaos.Fault, applied bool) {
		if applied {
			faults = append(faults, f)
		}
	})
	parts := opts.Partitions
	if parts <= 0 {
		parts = replay.DefaultPartitions
	}
	for i, e := range in.List {
		if err := s.Push(meta(e, in.Keys[i], parts), e); err != nil {
			return nil, nil, chaos.Stats{}, err
		}
	}
	if err := s.Close(); err != nil {
		return nil, nil, chaos.Stats{}, err
	}
	return out, faults, s.Stats(), nil
}

// meta is the plan's view of an event, exactly as evtool replay computes it.
func meta(e event.Event, key string, parts int) chaos.Event {
	pk := key
	if pk == "" {
		pk = e.ID()
	}
	return chaos.Event{ID: e.ID(), Type: e.Type(), Key: key, Partition: chaos.PartitionOf([]byte(pk), parts)}
}

// Run delivers the events clean to one new consumer and through the plan
// to another, and compares their states. The error is for a handler or
// state error (naming the run and the delivery) or a bad configuration; a
// difference is a Result that is not Equal.
func Run(ctx context.Context, in *Events, newConsumer func() (Consumer, error), opts Options) (*Result, error) {
	if len(in.Keys) != len(in.List) {
		return nil, errors.New("replaytest: Events.Keys and Events.List differ in length")
	}
	deliveries, faults, st, err := Deliver(in, opts)
	if err != nil {
		return nil, err
	}
	res := &Result{Faults: faults, Stats: st, Seed: opts.Seed, Selection: opts.Faults}
	clean := make([]chaos.Delivery[event.Event], len(in.List))
	for i, e := range in.List {
		clean[i] = chaos.Delivery[event.Event]{Event: chaos.Event{Index: int64(i), ID: e.ID(), Type: e.Type(), Key: in.Keys[i]}, Value: e}
	}
	if res.Baseline, err = feed(ctx, "baseline", clean, newConsumer); err != nil {
		return nil, err
	}
	if res.Chaos, err = feed(ctx, "chaos", deliveries, newConsumer); err != nil {
		return nil, err
	}
	res.Comparison = replay.Compare(res.Baseline, res.Chaos, opts.Ignore)
	if !res.Comparison.Equal {
		near := map[string]bool{}
		for _, s := range res.Comparison.Near {
			near[s] = true
		}
		for _, f := range faults {
			if near[f.Key] || near[f.ID] {
				res.Near = append(res.Near, f)
			}
		}
	}
	return res, nil
}

func feed(ctx context.Context, run string, ds []chaos.Delivery[event.Event], newConsumer func() (Consumer, error)) (any, error) {
	c, err := newConsumer()
	if err != nil {
		return nil, fmt.Errorf("%s run: new consumer: %w", run, err)
	}
	for i, d := range ds {
		// Each delivery gets its own copy, as each Kafka record decodes to
		// its own event.
		if err := c.Handle(ctx, d.Value.Clone()); err != nil {
			what := fmt.Sprintf("event %d (id %s, %s)", d.Event.Index, d.Event.ID, d.Event.Type)
			if d.Fault != nil {
				what += fmt.Sprintf(" delivered by fault %s", d.Fault)
			}
			return nil, fmt.Errorf("%s run: delivery %d, %s: %w", run, i, what, err)
		}
	}
	st, err := c.State(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s run: state: %w", run, err)
	}
	b, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("%s run: state is not JSON-marshallable: %w", run, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// Check runs Run and fails t when the states differ or a handler fails,
// printing the differences, the faults near them, and the options that
// reproduce the failure. newConsumer is called twice (baseline, chaos).
func Check(t testing.TB, in *Events, newConsumer func(t testing.TB) Consumer, opts Options) *Result {
	t.Helper()
	res, err := Run(context.Background(), in, func() (Consumer, error) { return newConsumer(t), nil }, opts)
	if err != nil {
		t.Fatalf("replaytest (seed %d): %v", opts.Seed, err)
		return nil
	}
	if !res.Equal() {
		t.Error(res.Report())
	}
	return res
}

// Report describes a failing result.
func (r *Result) Report() string {
	var b strings.Builder
	c := r.Comparison
	fmt.Fprintf(&b, "the chaos state differs from the baseline state in %d place(s) (seed %d, %d faults applied):\n", len(c.Differences)+c.More, r.Seed, len(r.Faults))
	for i, d := range c.Differences {
		if i == 20 {
			fmt.Fprintf(&b, "  ...\n")
			break
		}
		fmt.Fprintf(&b, "  %s\n", d)
	}
	fmt.Fprintf(&b, "diff (-baseline +chaos):\n%s\n", c.Diff)
	if len(r.Near) > 0 {
		b.WriteString("faults near the differences:\n")
		idx := make([]int, 0, len(r.Near))
		for i, f := range r.Near {
			if i < 30 {
				fmt.Fprintf(&b, "  %s\n", f)
			}
			idx = append(idx, f.Index)
		}
		sort.Ints(idx)
		fmt.Fprintf(&b, "reproduce with Options{Seed: %d, Faults: chaos.Only(%s)} (or evtool replay --seed %d --faults %s)\n",
			r.Seed, strings.Trim(strings.Join(strings.Fields(fmt.Sprint(idx)), ", "), "[]"), r.Seed, chaos.Only(idx...))
	} else {
		fmt.Fprintf(&b, "reproduce with Options{Seed: %d} (or evtool replay --seed %d)\n", r.Seed, r.Seed)
	}
	return b.String()
}

// LoadEvents reads the events of a file (JSON, a JSON array or JSONL),
// checks them against the catalog in catalogDir, and keys them with their
// types' partition keys, as evtool replay does.
func LoadEvents(catalogDir, file string) (*Events, error) {
	sc := &replay.Scenario{File: file, Dir: ".", Catalog: catalogDir, Events: replay.EventsSpec{File: file},
		Kafka: replay.KafkaSpec{Partitions: replay.DefaultPartitions}, Consumer: replay.ConsumerSpec{Dir: "."}}
	return loadScenarioEvents(sc)
}

// LoadScenario reads a scenario file (the one given to evtool replay) and
// returns its events, validated and keyed, and Options with its chaos
// settings, seed (0 when the scenario sets none), partition count and
// ignore pointers.
func LoadScenario(path string) (*Events, Options, error) {
	sc, err := replay.LoadScenario(path)
	if err != nil {
		return nil, Options{}, err
	}
	in, err := loadScenarioEvents(sc)
	if err != nil {
		return nil, Options{}, err
	}
	opts := Options{Chaos: sc.Chaos, Partitions: sc.Kafka.Partitions, Ignore: sc.Consumer.Ignore}
	if sc.Seed != nil {
		opts.Seed = *sc.Seed
	}
	return in, opts, nil
}

func loadScenarioEvents(sc *replay.Scenario) (*Events, error) {
	h, err := replay.NewHarness(sc, replay.Options{})
	if err != nil {
		return nil, err
	}
	defer h.Close()
	ctx := context.Background()
	if _, err := h.Validate(ctx); err != nil {
		return nil, err
	}
	in := &Events{}
	err = h.ForEachEvent(ctx, func(d *envelope.Decoded, m chaos.Event) error {
		in.List = append(in.List, d.Event)
		in.Keys = append(in.Keys, m.Key)
		return nil
	})
	return in, err
}
