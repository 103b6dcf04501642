// Package replaytest runs evtool's chaos plans against a consumer's handler
// in-process, for `go test`: no Kafka, no processes, deterministic, in
// milliseconds.
//
// It delivers the events to fresh consumers: twice clean, in input order
// (the baseline; the two must agree, or the consumer is nondeterministic),
// and once through the fault plan of package chaos, then compares the
// final states the way `evtool replay` does (as JSON, ignore pointers
// removed). For the same events, keys, partition count, chaos settings and
// seed, the plan is the one `evtool replay` applies through Kafka, fault
// for fault, so a failure found by the harness can be reproduced and fixed
// in a unit test:
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
//
// Every fault kind has an in-process meaning:
//
//   - duplicate, reorder: the delivery sequence of the plan;
//   - skew: the event delivered as another version (its dataschema
//     rewritten; needs the catalog, as LoadScenario and LoadEvents load);
//   - poison: a poison event delivered after its source event. Handle
//     rejects it by returning DeadLetter(err) (the event goes to the
//     dead-letter queue and is committed); any other error, a panic, or a
//     Handle that does not return within Options.HandleTimeout fails the
//     run, as a consumer that crashes or stalls on it would. With
//     Options.DLQ every poison event, and nothing else, must be
//     dead-lettered;
//   - crash: the consumer is crashed at the fault's delivery (Progress of
//     the sequence) in the fault's Phase (before it, after its effect but
//     before its commit, or after its commit) and restarted with Restart
//     (see Restarter): what it keeps in memory is lost, what it stored
//     durably stays, and the deliveries from the last commit on come
//     again. A consumer commits each delivery when Handle returns, or
//     itself by calling Commit (then a crash can strike inside Commit:
//     before the commit is stored, or after it, before Handle goes on).
//   - rebalance: one consumer stands for the group. Each fault moves the
//     partitions to a new owner, modelled as a restart (Restart: memory
//     lost, durable state kept, deliveries from the last commit again):
//     kill and stall after an effect and before its commit, join, leave
//     and eager between deliveries with everything committed. Not
//     modelled: several instances at once (state kept per instance, a
//     shared store's races), the zombie a stall makes (a stalled instance
//     that resumes and applies or commits its stale batch), commits of
//     revoked partitions. Those need `evtool replay` with
//     consumer.instances.
package replaytest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cloudevents/sdk-go/v2/event"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/replay"
)

// Consumer is the consumer under test.
type Consumer interface {
	// Handle applies one delivered event. An error ends the run (a
	// consumer that retries it forever, or crashes), unless it is a
	// DeadLetter error: the event went to the dead-letter queue.
	Handle(ctx context.Context, e event.Event) error
	// State returns the consumer's state after the last event; it is
	// compared as JSON (marshalled with encoding/json).
	State(ctx context.Context) (any, error)
}

// Restarter is a Consumer that can be crashed in-process: Restart returns
// the consumer a restarted process would be, on the same durable state
// (its database, its files) and with nothing it only kept in memory.
// Crash faults are skipped (Result.Skipped) for consumers that are not
// Restarters.
type Restarter interface {
	Restart(ctx context.Context) (Consumer, error)
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

// DeadLetterError is a Handle error that dead-letters the event.
type DeadLetterError struct{ Err error }

func (e *DeadLetterError) Error() string { return "dead-lettered: " + e.Err.Error() }
func (e *DeadLetterError) Unwrap() error { return e.Err }

// DeadLetter wraps the reason an event cannot be applied: Handle returns
// it when it sends the event to the dead-letter queue (and moves on).
func DeadLetter(err error) error { return &DeadLetterError{Err: err} }

// DeliveryInfo is where a delivery would be in Kafka.
type DeliveryInfo struct {
	// Partition and Offset of the record; a redelivery after a crash has
	// the same offset, a duplicate a new one.
	Partition int32
	Offset    int64
	// Redelivery reports that the record came before, and a crash
	// brought it again.
	Redelivery bool
}

type ctxKey struct{}

type deliveryCtx struct {
	info   DeliveryInfo
	commit func()
	down   *standIns
}

// DeliveryOf returns where the delivery being handled would be in Kafka
// (ctx is Handle's).
func DeliveryOf(ctx context.Context) DeliveryInfo {
	if d, ok := ctx.Value(ctxKey{}).(*deliveryCtx); ok {
		return d.info
	}
	return DeliveryInfo{}
}

// Commit commits the delivery being handled (ctx is Handle's), for a
// consumer that commits its offsets itself. A consumer that never calls it
// is committed when Handle returns.
func Commit(ctx context.Context) {
	if d, ok := ctx.Value(ctxKey{}).(*deliveryCtx); ok && d.commit != nil {
		d.commit()
	}
}

// Events are the input of a run: events and their record keys.
type Events struct {
	List []event.Event
	// Keys[i] is List[i]'s record key (its type's partition key); "" for
	// none.
	Keys []string

	// versions and skew: each event's version and the versions it may be
	// re-emitted as (from the catalog; nil without one).
	versions []int
	skew     []chaos.VersionSet
	mut      *replay.Mutator
}

// NewEvents pairs events with keys computed by key (nil: the
// partitionkey extension, else the subject, else none). Without a
// catalog there is no skew, and poison events are built without schemas.
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

// DefaultHandleTimeout is how long Handle may take before a delivery
// counts as stalled.
const DefaultHandleTimeout = 10 * time.Second

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
	// DLQ: every poison event, and nothing else, must be dead-lettered
	// (a scenario's expect.dlq with count: poison).
	DLQ bool
	// HandleTimeout is how long one Handle may take (default
	// DefaultHandleTimeout).
	HandleTimeout time.Duration
	// Baseline says what the clean run may do that otherwise fails, as
	// expect.baseline does for evtool replay: by default a baseline whose
	// state is empty ({}, [], null) or that dead-lettered clean events is
	// an error, because a consumer that applies nothing passes every chaos
	// run. (The state before the first event is not compared in-process.)
	Baseline replay.BaselineSpec
	// Downstream are the stand-ins each run gets (a scenario's downstream
	// section with its expect keys; see DownstreamURL).
	Downstream []replay.DownstreamSpec
}

// Kill is a crash fault applied in-process.
type Kill struct {
	Fault chaos.Fault
	// Delivery is the position in the delivery sequence it struck at, and
	// Resume where the restarted consumer went on (the last commit).
	Delivery, Resume int
}

// Result is the outcome of a run.
type Result struct {
	// Baseline and Chaos are the two final states, decoded from JSON
	// (Chaos is nil when the chaos run failed).
	Baseline, Chaos any
	Comparison      replay.Comparison
	// Failure says how the chaos run failed other than by its state: a
	// handler error, panic or stall, a poison event not dead-lettered.
	Failure string
	// Faults are the applied faults, in plan order.
	Faults []chaos.Fault
	// Skipped are crash faults not applied: the consumer is not a
	// Restarter.
	Skipped []chaos.Fault
	Kills   []Kill
	// DeadLettered are the ids the chaos run dead-lettered, in order.
	DeadLettered []string
	Stats        chaos.Stats
	// Near are the applied faults whose key or event id appears near a
	// difference (or that concern the failing delivery), and the applied
	// crashes.
	Near []chaos.Fault
	// Seed and Selection reproduce the chaos run.
	Seed      uint64
	Selection chaos.Selection
	// Reproduce is the smallest selection Report prints to reproduce the
	// failure: the faults near it when Check has seen them fail again on
	// their own, else Selection.
	Reproduce chaos.Selection
	// Downstream is what each stand-in saw in the chaos run and the
	// oracle found in it.
	Downstream []replay.DownstreamResult
}

// Equal reports whether the chaos state equals the baseline.
func (r *Result) Equal() bool { return r.Comparison.Equal }

// Failed reports whether the chaos run failed: a failure, or a state
// that differs.
func (r *Result) Failed() bool { return r.Failure != "" || !r.Comparison.Equal }

// NondeterministicError reports a consumer whose two clean runs ended in
// different states.
type NondeterministicError struct{ Comparison replay.Comparison }

func (e *NondeterministicError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the consumer is nondeterministic: two clean runs ended in different states (%d place(s)):", len(e.Comparison.Differences)+e.Comparison.More)
	for i, d := range e.Comparison.Differences {
		if i == 10 {
			b.WriteString("\n  ...")
			break
		}
		fmt.Fprintf(&b, "\n  %s", d)
	}
	return b.String()
}

// Deliver returns the chaos sequence: the events as the plan delivers
// them, each with the fault that moved, copied or injected it (nil when in
// place), and the applied faults (crash faults included: they have no
// delivery).
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
	s.Mutate(func(f chaos.Fault, e event.Event) event.Event {
		if f.Kind == chaos.Skew {
			return in.mut.SkewEvent(e, f.To)
		}
		return in.mut.PoisonEvent(f, e)
	})
	parts := opts.Partitions
	if parts <= 0 {
		parts = replay.DefaultPartitions
	}
	for i, e := range in.List {
		m := meta(e, in.Keys[i], parts)
		if opts.Chaos.Skew != nil && i < len(in.skew) {
			m.Version, m.SkewTo = in.versions[i], in.skew[i]
		}
		if err := s.Push(m, e); err != nil {
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

// Run delivers the events clean to two new consumers (they must agree)
// and through the plan to a third, and compares the states; a failing run
// is run again with only the faults near the failure, to print those in
// Report when they reproduce it. The error is
// for a baseline that fails or is nondeterministic (*NondeterministicError),
// or a bad configuration; a chaos run that fails is a Result that Failed.
func Run(ctx context.Context, in *Events, newConsumer func() (Consumer, error), opts Options) (*Result, error) {
	r, err := newRunner(ctx, in, newConsumer, opts)
	if err != nil {
		return nil, err
	}
	res, err := r.chaos(ctx, opts.Faults)
	if err == nil && res.Failed() {
		err = r.narrowReproduce(ctx, res)
	}
	return res, err
}

// runner runs chaos runs against one baseline.
type runner struct {
	in          *Events
	newConsumer func() (Consumer, error)
	opts        Options
	baseline    any
	// cur holds the stand-ins of the run being fed; effects the
	// baseline's effects (expected in the chaos run).
	cur     *standIns
	effects map[string][]string
}

func newRunner(ctx context.Context, in *Events, newConsumer func() (Consumer, error), opts Options) (*runner, error) {
	if len(in.Keys) != len(in.List) {
		return nil, errors.New("replaytest: Events.Keys and Events.List differ in length")
	}
	if opts.HandleTimeout <= 0 {
		opts.HandleTimeout = DefaultHandleTimeout
	}
	r := &runner{in: in, newConsumer: newConsumer, opts: opts}
	clean := make([]chaos.Delivery[event.Event], len(in.List))
	for i, e := range in.List {
		clean[i] = chaos.Delivery[event.Event]{Event: chaos.Event{Index: int64(i), ID: e.ID(), Type: e.Type(), Key: in.Keys[i]}, Value: e}
	}
	var states [2]any
	for i, name := range []string{"baseline", "second baseline"} {
		cur, err := startStandIns(opts.Downstream, nil, clean, len(clean))
		if err != nil {
			return nil, err
		}
		r.cur = cur
		f := r.feed(ctx, name, clean, nil)
		cur.close()
		if f.failure != "" {
			return nil, errors.New(f.failure)
		}
		var terminal map[string]bool
		if cur != nil {
			var expected map[string][]string
			if i > 0 {
				expected = r.effects
			}
			j := cur.judge(f.dead, expected)
			if i == 0 {
				r.effects = j.Effects
			}
			if j.Message != "" {
				return nil, fmt.Errorf("replaytest: the %s run: %s", name, j.Message)
			}
			terminal = j.Terminal
		}
		states[i] = f.state
		if i == 0 {
			if err := checkBaseline(f, len(in.List), opts.Baseline, terminal); err != nil {
				return nil, err
			}
		}
	}
	if c := replay.Compare(states[0], states[1], opts.Ignore); !c.Equal {
		return nil, &NondeterministicError{Comparison: c}
	}
	r.baseline = states[0]
	return r, nil
}

// checkBaseline refuses a clean run that tests nothing (see
// Options.Baseline).
// Events a stand-in answered terminally belong on the DLQ: they do not
// count.
func checkBaseline(f fed, events int, spec replay.BaselineSpec, terminal map[string]bool) error {
	if !spec.EmptyOK && replay.IsEmptyState(f.state) {
		return fmt.Errorf("replaytest: the baseline state is empty (%s): the consumer applied none of the %d events, and a consumer that applies nothing passes every chaos run (if the events leave the state empty, set Options.Baseline.EmptyOK)", compactState(f.state), events)
	}
	dead := map[string]bool{}
	for _, id := range f.dead {
		if !terminal[id] {
			dead[id] = true
		}
	}
	if len(dead) != spec.DLQ {
		first := f.dead
		if len(first) > 3 {
			first = first[:3]
		}
		return fmt.Errorf("replaytest: the consumer dead-lettered %d distinct clean event(s) of %d in the baseline run (first: %s), where Options.Baseline.DLQ says %d", len(dead), events, strings.Join(first, ", "), spec.DLQ)
	}
	return nil
}

func compactState(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func (r *runner) chaos(ctx context.Context, sel chaos.Selection) (*Result, error) {
	opts := r.opts
	opts.Faults = sel
	deliveries, faults, st, err := Deliver(r.in, opts)
	if err != nil {
		return nil, err
	}
	res := &Result{Faults: faults, Stats: st, Seed: opts.Seed, Selection: sel, Reproduce: sel, Baseline: r.baseline}
	var crashes []chaos.Fault
	poison := map[string]chaos.Fault{}
	for _, f := range faults {
		switch f.Kind {
		case chaos.Crash:
			crashes = append(crashes, f)
		case chaos.Rebalance:
			// The partitions move to a new owner: a fresh consumer
			// (Restart) over the same durable state, from the last
			// commit. A kill or stall strikes after an effect, before
			// its commit; join, leave and eager between deliveries,
			// all committed (a clean revoke).
			if f.Move == chaos.Kill || f.Move == chaos.Stall {
				f.Phase = chaos.PhaseAfterEffect
			} else {
				f.Phase = chaos.PhaseBefore
			}
			crashes = append(crashes, f)
		case chaos.Poison:
			poison[f.PoisonID] = f
		}
	}
	cur, err := startStandIns(opts.Downstream, faults, deliveries, len(r.in.List))
	if err != nil {
		return nil, err
	}
	r.cur = cur
	f := r.feed(ctx, "chaos", deliveries, crashes)
	cur.close()
	res.Kills, res.Skipped, res.DeadLettered = f.kills, f.skipped, f.dead
	res.Failure = f.failure
	var findingKeys []string
	terminal := map[string]bool{}
	if cur != nil {
		j := cur.judge(f.dead, r.effects)
		terminal = j.Terminal
		res.Downstream = j.Results
		if res.Failure == "" && j.Message != "" {
			res.Failure = "chaos run: " + j.Message
			for _, d := range j.Results {
				for _, fd := range d.Findings {
					if fd.Event != nil {
						findingKeys = append(findingKeys, fd.Event.ID, fd.Event.Key)
					}
				}
			}
		}
	}
	if res.Failure == "" && opts.DLQ {
		// Events a stand-in answered terminally belong on the DLQ too.
		res.Failure = checkDLQ(poison, slices.DeleteFunc(slices.Clone(f.dead), func(id string) bool { return terminal[id] }))
	}
	var near map[string]bool
	if res.Failure == "" {
		res.Chaos = f.state
		res.Comparison = replay.Compare(r.baseline, f.state, opts.Ignore)
		if !res.Comparison.Equal {
			near = map[string]bool{}
			for _, s := range res.Comparison.Near {
				near[s] = true
			}
		}
	} else {
		res.Comparison.Equal = true // no state to compare: see Failure
		near = f.near
		if findingKeys != nil {
			near = map[string]bool{}
			for _, k := range findingKeys {
				near[k] = k != ""
			}
		}
	}
	for _, f := range faults {
		// Every applied crash too: it has no key, and a failure may need
		// it (redeliveries after the last commit).
		if near[f.Key] || near[f.ID] || near[f.PoisonID] || ((f.Kind == chaos.Crash || f.Kind == chaos.Rebalance || f.Kind == chaos.Outage) && len(near) > 0) {
			res.Near = append(res.Near, f)
		}
	}
	if res.Failure != "" && len(res.Near) == 0 {
		for _, k := range res.Kills {
			res.Near = append(res.Near, k.Fault)
		}
	}
	return res, nil
}

// checkDLQ checks that exactly the poison events were dead-lettered.
func checkDLQ(poison map[string]chaos.Fault, dead []string) string {
	seen := map[string]bool{}
	var other []string
	for _, id := range dead {
		if seen[id] {
			continue
		}
		seen[id] = true
		if _, ok := poison[id]; !ok {
			other = append(other, id)
		}
	}
	var missing []string
	for id, f := range poison {
		if !seen[id] {
			missing = append(missing, fmt.Sprintf("%s (%s, from event %d)", id, f.Poison, f.Event.Index))
		}
	}
	sort.Strings(missing)
	var probs []string
	if len(missing) > 0 {
		probs = append(probs, fmt.Sprintf("%d of %d poison event(s) not dead-lettered (accepted as valid): %s", len(missing), len(poison), strings.Join(missing, ", ")))
	}
	if len(other) > 0 {
		probs = append(probs, fmt.Sprintf("%d valid event(s) dead-lettered: %s", len(other), strings.Join(other, ", ")))
	}
	return strings.Join(probs, "; ")
}

type fed struct {
	state   any
	failure string
	near    map[string]bool
	kills   []Kill
	skipped []chaos.Fault
	dead    []string
}

// crashSignal unwinds Handle when a crash strikes inside Commit.
type crashSignal struct{}

type outcome struct {
	err       error
	crashed   bool
	committed bool // Commit was called (and stored)
	panicked  any
	stack     []byte
}

// feed delivers ds to a new consumer, crashing and restarting it for the
// crash faults, and returns its state or how it failed.
func (r *runner) feed(ctx context.Context, run string, ds []chaos.Delivery[event.Event], crashes []chaos.Fault) fed {
	var out fed
	c, err := r.newConsumer()
	if err != nil {
		out.failure = fmt.Sprintf("%s run: new consumer: %v", run, err)
		return out
	}
	// Crash points: positions in the sequence.
	at := map[int][]chaos.Fault{}
	for _, f := range crashes {
		if _, ok := c.(Restarter); !ok {
			out.skipped = append(out.skipped, f)
			continue
		}
		p := int(f.Progress * float64(len(ds)))
		p = min(max(p, 0), max(len(ds)-1, 0))
		at[p] = append(at[p], f)
	}
	// Offsets per partition, as Kafka would number the records.
	infos := make([]DeliveryInfo, len(ds))
	next := map[int32]int64{}
	for i, d := range ds {
		infos[i] = DeliveryInfo{Partition: d.Event.Partition, Offset: next[d.Event.Partition]}
		next[d.Event.Partition]++
	}
	restart := func(f chaos.Fault, pos, resume int) bool {
		rs, ok := c.(Restarter)
		if !ok {
			return false
		}
		nc, err := rs.Restart(ctx)
		if err != nil {
			out.failure = fmt.Sprintf("%s run: restart after crash %d (fault #%d): %v", run, f.Crash, f.Index, err)
			return false
		}
		c = nc
		out.kills = append(out.kills, Kill{Fault: f, Delivery: pos, Resume: resume})
		return true
	}
	seen := make([]bool, len(ds))
	committed := 0
	for i := 0; i < len(ds); {
		// A crash before this delivery.
		if fs := at[i]; len(fs) > 0 && fs[0].Phase == chaos.PhaseBefore {
			f := fs[0]
			at[i] = fs[1:]
			if !restart(f, i, committed) {
				return out
			}
			i = committed
			continue
		}
		var strike *chaos.Fault
		if fs := at[i]; len(fs) > 0 {
			strike = &fs[0]
		}
		d := ds[i]
		info := infos[i]
		info.Redelivery = seen[i]
		seen[i] = true
		dc := &deliveryCtx{info: info, down: r.cur}
		resume := i + 1
		dc.commit = func() {
			if strike != nil {
				if strike.Phase == chaos.PhaseAfterCommit {
					committed = i + 1
				}
				panic(crashSignal{})
			}
			committed = i + 1
		}
		o := r.handle(ctx, c, d.Value.Clone(), dc)
		what := func() string {
			s := fmt.Sprintf("event %d (id %s, %s)", d.Event.Index, d.Event.ID, d.Event.Type)
			if d.Fault != nil {
				s += fmt.Sprintf(" delivered by fault %s", d.Fault)
			}
			return s
		}
		fail := func(msg string) fed {
			out.failure = fmt.Sprintf("%s run: delivery %d, %s: %s", run, i, what(), msg)
			out.near = map[string]bool{d.Event.Key: d.Event.Key != "", d.Event.ID: true}
			return out
		}
		switch {
		case o.panicked != nil:
			return fail(fmt.Sprintf("the handler panicked: %v\n%s", o.panicked, o.stack))
		case o.err == errStalled:
			return fail(fmt.Sprintf("the handler did not return within %s (stalled)", r.opts.HandleTimeout))
		case o.crashed:
			f := *strike
			at[i] = at[i][1:]
			if !restart(f, i, committed) {
				return out
			}
			i = committed
			continue
		}
		var dl *DeadLetterError
		switch {
		case errors.As(o.err, &dl):
			out.dead = append(out.dead, d.Event.ID)
		case o.err != nil:
			return fail(o.err.Error())
		}
		if !o.committed {
			// Committed by the harness after Handle: a crash at this
			// delivery strikes after the effect.
			if strike != nil {
				if strike.Phase == chaos.PhaseAfterCommit {
					committed = i + 1
				}
				f := *strike
				at[i] = at[i][1:]
				if !restart(f, i, committed) {
					return out
				}
				i = committed
				continue
			}
			committed = i + 1
		}
		i = resume
	}
	// Crash faults past the last delivery (none: positions are clamped).
	st, err := c.State(ctx)
	if err != nil {
		out.failure = fmt.Sprintf("%s run: state: %v", run, err)
		return out
	}
	b, err := json.Marshal(st)
	if err != nil {
		out.failure = fmt.Sprintf("%s run: state is not JSON-marshallable: %v", run, err)
		return out
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		out.failure = fmt.Sprintf("%s run: state: %v", run, err)
		return out
	}
	out.state = v
	return out
}

var errStalled = errors.New("stalled")

// handle runs one Handle with the run's timeout, catching crashes and
// panics.
func (r *runner) handle(ctx context.Context, c Consumer, e event.Event, dc *deliveryCtx) outcome {
	done := make(chan outcome, 1)
	hctx, cancel := context.WithCancel(context.WithValue(ctx, ctxKey{}, dc))
	defer cancel()
	called := false
	commit := dc.commit
	dc.commit = func() {
		called = true
		commit()
	}
	go func() {
		var o outcome
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(crashSignal); ok {
					o.crashed = true
				} else {
					o.panicked, o.stack = p, debug.Stack()
				}
			}
			o.committed = called && !o.crashed
			done <- o
		}()
		o.err = c.Handle(hctx, e)
	}()
	t := time.NewTimer(r.opts.HandleTimeout)
	defer t.Stop()
	select {
	case o := <-done:
		return o
	case <-t.C:
		return outcome{err: errStalled}
	}
}

// Check runs Run and fails t when the chaos run fails or the states
// differ, printing the differences, the faults near them, and the options
// that reproduce the failure. newConsumer is called for each run
// (baseline twice, chaos).
func Check(t testing.TB, in *Events, newConsumer func(t testing.TB) Consumer, opts Options) *Result {
	t.Helper()
	res, err := Run(context.Background(), in, func() (Consumer, error) { return newConsumer(t), nil }, opts)
	if err != nil {
		t.Fatalf("replaytest (seed %d): %v", opts.Seed, err)
		return nil
	}
	if res.Failed() {
		t.Error(res.Report())
	}
	return res
}

// narrowReproduce sets res.Reproduce to the faults near the failure when
// they fail on their own: a reproduce line must reproduce.
func (r *runner) narrowReproduce(ctx context.Context, res *Result) error {
	if len(res.Near) == 0 || len(res.Near) == len(res.Faults) {
		return nil
	}
	idx := make([]int, len(res.Near))
	for i, f := range res.Near {
		idx[i] = f.Index
	}
	near, err := r.chaos(ctx, chaos.Only(idx...))
	if err != nil {
		return err
	}
	if near.Failed() {
		res.Reproduce = near.Selection
	}
	return nil
}

// Shrunk is the smallest failing set of faults Shrink found.
type Shrunk struct {
	// Faults are the faults of the set and Result the chaos run with only
	// them.
	Faults []chaos.Fault
	Result *Result
	// From is the number of faults the failing run applied; Runs counts
	// the chaos runs shrinking made; Minimal reports a 1-minimal set
	// (false: the budget ran out first).
	From    int
	Runs    int
	Minimal bool
}

// Selection returns the faults of the set, for Options.Faults.
func (s *Shrunk) Selection() chaos.Selection {
	idx := make([]int, len(s.Faults))
	for i, f := range s.Faults {
		idx[i] = f.Index
	}
	return chaos.Only(idx...)
}

// Shrink runs the chaos run of opts and, when it fails, shrinks its
// faults to a 1-minimal failing set (delta debugging, as evtool replay
// does) with at most budget more runs. It returns nil when the run passes.
func Shrink(ctx context.Context, in *Events, newConsumer func() (Consumer, error), opts Options, budget int) (*Shrunk, error) {
	r, err := newRunner(ctx, in, newConsumer, opts)
	if err != nil {
		return nil, err
	}
	first, err := r.chaos(ctx, opts.Faults)
	if err != nil || !first.Failed() {
		return nil, err
	}
	byIndex := map[int]chaos.Fault{}
	idx := make([]int, 0, len(first.Faults))
	for _, f := range first.Faults {
		byIndex[f.Index] = f
		idx = append(idx, f.Index)
	}
	var hints [][]int
	if len(first.Near) > 0 {
		var near []int
		for _, f := range first.Near {
			near = append(near, f.Index)
		}
		hints = append(hints, near)
	}
	results := map[string]*Result{chaos.Only(idx...).String(): first}
	res, err := chaos.Shrink(ctx, idx, hints, budget, func(ctx context.Context, sub []int) (bool, error) {
		rr, err := r.chaos(ctx, chaos.Only(sub...))
		if err != nil {
			return false, err
		}
		results[chaos.Only(sub...).String()] = rr
		return rr.Failed(), nil
	})
	if err != nil {
		return nil, err
	}
	s := &Shrunk{From: len(idx), Runs: res.Tests, Minimal: res.Minimal, Result: results[chaos.Only(res.Faults...).String()]}
	for _, i := range res.Faults {
		s.Faults = append(s.Faults, byIndex[i])
	}
	return s, nil
}

// Report describes a failing result.
func (r *Result) Report() string {
	var b strings.Builder
	c := r.Comparison
	if r.Failure != "" {
		fmt.Fprintf(&b, "the chaos run failed (seed %d, %d faults applied): %s\n", r.Seed, len(r.Faults), r.Failure)
	} else {
		fmt.Fprintf(&b, "the chaos state differs from the baseline state in %d place(s) (seed %d, %d faults applied):\n", len(c.Differences)+c.More, r.Seed, len(r.Faults))
		for i, d := range c.Differences {
			if i == 20 {
				fmt.Fprintf(&b, "  ...\n")
				break
			}
			fmt.Fprintf(&b, "  %s\n", d)
		}
		fmt.Fprintf(&b, "diff (-baseline +chaos):\n%s\n", c.Diff)
	}
	for _, k := range r.Kills {
		fmt.Fprintf(&b, "crash %d (fault #%d, %s) at delivery %d; restarted from delivery %d\n", k.Fault.Crash, k.Fault.Index, k.Fault.Phase, k.Delivery, k.Resume)
	}
	writeDownstream(&b, r.Downstream)
	if len(r.Near) > 0 {
		b.WriteString("faults near the differences:\n")
		for i, f := range r.Near {
			if i < 30 {
				fmt.Fprintf(&b, "  %s\n", f)
			}
		}
	}
	b.WriteString(reproduceText(r.Seed, r.Reproduce))
	if len(r.Skipped) > 0 {
		fmt.Fprintf(&b, "%d crash fault(s) skipped: the consumer is not a replaytest.Restarter\n", len(r.Skipped))
	}
	return b.String()
}

// reproduceText is the line of Report that reproduces a failure: the
// Options for replaytest and the flags for evtool replay.
func reproduceText(seed uint64, sel chaos.Selection) string {
	if sel.IsAll() {
		return fmt.Sprintf("reproduce with Options{Seed: %d} (for evtool replay on a scenario of the same events and chaos: --seed %d)\n", seed, seed)
	}
	idx := sel.Indexes()
	list := make([]string, len(idx))
	for i, x := range idx {
		list[i] = strconv.Itoa(x)
	}
	return fmt.Sprintf("reproduce with Options{Seed: %d, Faults: chaos.Only(%s)} (for evtool replay on a scenario of the same events and chaos: --seed %d --faults %s)\n",
		seed, strings.Join(list, ", "), seed, sel)
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
	opts := Options{Chaos: sc.Chaos, Partitions: sc.Kafka.Partitions, Ignore: sc.Consumer.Ignore, DLQ: sc.DLQ != nil && sc.DLQ.Count == replay.CountPoison, Baseline: sc.Baseline,
		Downstream: sc.Downstream}
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
	in := &Events{mut: h.Mutator()}
	err = h.ForEachEvent(ctx, func(d *envelope.Decoded, m chaos.Event) error {
		in.List = append(in.List, d.Event)
		in.Keys = append(in.Keys, m.Key)
		v, skew := in.mut.EventMeta(&d.Event)
		in.versions = append(in.versions, v)
		in.skew = append(in.skew, skew)
		return nil
	})
	return in, err
}
