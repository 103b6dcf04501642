package chaos

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

// Random stream ids, one per kind (see the package comment).
const (
	streamDuplicate = 0x6475706c69636174 // "duplicat"
	streamReorder   = 0x72656f7264657221 // "reorder!"
	streamSkew      = 0x736b65772d766572 // "skew-ver"
	streamPoison    = 0x706f69736f6e2121 // "poison!!"
	streamCrash     = 0x63726173682d6b69 // "crash-ki"
	streamRebalance = 0x7265626c6e636521 // "reblnce!"
)

// Delivery is one item of the perturbed stream.
type Delivery[T any] struct {
	Event Event
	Value T
	// Fault is nil for an event delivered in its place, the duplicate
	// fault for a copy, the reorder fault for an event delivered late, the
	// poison fault for a poison event (whose Event is the event it was
	// built from, with the poison's id).
	Fault *Fault
	// Skew is the skew fault that rewrote the payload (of the event and
	// its copies), or nil.
	Skew *Fault
}

// Stats counts what a Stream did.
type Stats struct {
	// Events pushed and items delivered (events plus copies).
	Events, Delivered int64
	// Planned counts every fault of the plan by kind; Applied the selected
	// ones.
	Planned, Applied map[Kind]int
	// MaxHeld is the most events the stream held at once (lookahead plus
	// events and copies waiting for their turn).
	MaxHeld int
}

// Total returns the number of faults planned and applied.
func (s Stats) Total() (planned, applied int) {
	for _, n := range s.Planned {
		planned += n
	}
	for _, n := range s.Applied {
		applied += n
	}
	return
}

// Stream plans faults over a stream of events and applies the selected
// ones, handing the perturbed stream to emit. T is the caller's payload (a
// Kafka record, a decoded event); copies share their original's payload.
// A Stream is not safe for concurrent use.
type Stream[T any] struct {
	cfg     Config
	sel     Selection
	emit    func(Delivery[T]) error
	observe func(f Fault, applied bool)
	clone   func(T) T
	mutate  func(f Fault, v T) T

	seed                               uint64
	dupRNG, reoRNG, skewRNG, poisonRNG *rand.Rand
	downRNG                            *rand.Rand
	// window is the reorder window (0: no reorder) and lookahead the most
	// events look holds (see ReorderLookahead).
	window, lookahead int
	crashesPlanned    bool

	look fifo[slot[T]] // pushed, not yet planned (at most lookahead+1)
	// inScope holds the events of look per scope value (scopeOf), in
	// look's order: the candidates of a reorder. Each slot of look points
	// to its queue, so that only Push hashes the scope value.
	inScope map[string]*scopeQueue
	targets map[int64]struct{}
	waiting map[int64][]slot[T] // released when event k is delivered
	moved   map[int64]struct{}  // originals held back, not yet delivered
	held    int                 // items in waiting

	next      int64
	nextFault int
	stats     Stats
	err       error
	closed    bool
}

type slot[T any] struct {
	ev    Event
	v     T
	fault *Fault
	skew  *Fault
	// scope is the queue of the event's reorder scope while it is in the
	// lookahead (nil: it has none).
	scope *scopeQueue
}

// scopeQueue holds the indexes of the lookahead's events of one scope
// value, oldest first.
type scopeQueue struct {
	value   string // its key in Stream.inScope
	indexes []int64
}

// NewStream returns a stream for cfg (normalized with Normalize), seeded
// with seed, applying the faults sel selects.
func NewStream[T any](cfg Config, seed uint64, sel Selection, emit func(Delivery[T]) error) (*Stream[T], error) {
	cfg, err := cfg.Normalize()
	if err != nil {
		return nil, err
	}
	s := &Stream[T]{
		cfg:       cfg,
		sel:       sel,
		emit:      emit,
		seed:      seed,
		dupRNG:    rand.New(rand.NewPCG(seed, streamDuplicate)),
		reoRNG:    rand.New(rand.NewPCG(seed, streamReorder)),
		skewRNG:   rand.New(rand.NewPCG(seed, streamSkew)),
		poisonRNG: rand.New(rand.NewPCG(seed, streamPoison)),
		downRNG:   rand.New(rand.NewPCG(seed, streamDownstream)),
		targets:   map[int64]struct{}{},
		inScope:   map[string]*scopeQueue{},
		waiting:   map[int64][]slot[T]{},
		moved:     map[int64]struct{}{},
		stats:     Stats{Planned: map[Kind]int{}, Applied: map[Kind]int{}},
	}
	if cfg.Reorder != nil {
		s.window, s.lookahead = cfg.Reorder.Window, ReorderLookahead(*cfg.Reorder)
	}
	return s, nil
}

// Observe registers fn to be called with every planned fault, selected or
// not, in plan order.
func (s *Stream[T]) Observe(fn func(f Fault, applied bool)) { s.observe = fn }

// Clone registers fn to copy a payload for each duplicate, before its
// original is delivered: then every delivery carries a payload of its
// own, which emit may hand on (to a Kafka client that writes into its
// records, say). Without it copies share their original's payload.
func (s *Stream[T]) Clone(fn func(T) T) { s.clone = fn }

// Mutate registers fn to build the payload of a skew fault (the event
// re-emitted as version f.To) or of a poison fault (the poison event built
// from the event, with id f.PoisonID) from the event's payload. Without it
// a skewed event keeps its payload and a poison event carries its
// source's.
func (s *Stream[T]) Mutate(fn func(f Fault, v T) T) { s.mutate = fn }

// planCrashes numbers the crash and rebalance faults before any event
// fault.
func (s *Stream[T]) planCrashes() {
	if s.crashesPlanned {
		return
	}
	s.crashesPlanned = true
	for _, f := range PrePlan(s.cfg, s.seed) {
		s.nextFault++
		s.record(&f)
	}
}

// CrashPlan returns the crash faults of a plan (cfg normalized), in order
// of their point in the run: numbered 0..count-1, as a Stream numbers
// them. Crash k strikes at Progress in ((k-1+0.15)/count, (k-1+0.85)/count).
func CrashPlan(cfg Config, seed uint64) []Fault {
	c := cfg.Crash
	if c == nil {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, streamCrash))
	out := make([]Fault, 0, c.Count)
	phases := []CrashPhase{PhaseBefore, PhaseAfterEffect, PhaseAfterCommit}
	for k := range c.Count {
		f := Fault{Index: k, Kind: Crash, Crash: k + 1, At: c.At}
		f.Progress = (float64(k) + 0.15 + 0.7*rng.Float64()) / float64(c.Count)
		f.Phase = PhaseAfterEffect
		switch p := phases[rng.IntN(len(phases))]; c.At {
		case CrashRandom:
			f.Phase = p
		case CrashAfterCommit:
			f.Phase = PhaseAfterCommit
		}
		out = append(out, f)
	}
	return out
}

// Push adds the next input event. Push sets e.Index (events are numbered
// from 0 in push order). It returns the first error of emit, after which
// the stream is dead.
func (s *Stream[T]) Push(e Event, v T) error {
	if s.err != nil {
		return s.err
	}
	if s.closed {
		return errors.New("chaos: Push after Close")
	}
	s.planCrashes()
	e.Index = s.next
	s.next++
	s.stats.Events++
	it := slot[T]{ev: e, v: v}
	if k, ok := s.scopeOf(e); ok {
		q := s.inScope[k]
		if q == nil {
			// A key aliases its event's text (a caller's buffer): the
			// queue, which may outlive the event, keeps a copy.
			q = &scopeQueue{value: strings.Clone(k)}
			s.inScope[q.value] = q
		}
		q.indexes = append(q.indexes, e.Index)
		it.scope = q
	}
	s.look.push(it)
	s.noteHeld()
	for s.look.len() > 0 && s.ready() && s.err == nil {
		s.plan(s.popLook())
	}
	return s.err
}

// ready reports whether the oldest event of the lookahead can be
// planned: the lookahead holds the next window events of its scope, or
// is full, or it has no scope to be reordered in.
func (s *Stream[T]) ready() bool {
	if s.look.len() > s.lookahead {
		return true
	}
	q := s.look.front().scope
	return q == nil || len(q.indexes)-1 >= s.window
}

func (s *Stream[T]) popLook() slot[T] {
	it := s.look.pop()
	if q := it.scope; q != nil {
		// it is the oldest event of look, so the first of its scope.
		if q.indexes = q.indexes[1:]; len(q.indexes) == 0 {
			delete(s.inScope, q.value)
		}
	}
	return it
}

// scopeOf is the value events of one reorder scope share; false for an
// event no other can overtake (without reorder, or keyless under scope
// key).
func (s *Stream[T]) scopeOf(e Event) (string, bool) {
	r := s.cfg.Reorder
	if r == nil {
		return "", false
	}
	switch r.Scope {
	case ScopeKey:
		return e.Key, e.Key != ""
	case ScopePartition:
		return strconv.Itoa(int(e.Partition)), true
	}
	return "", true
}

// ReorderLookahead is the most input events a stream looks ahead of the
// event it plans: the window for scope global; for key and partition,
// where the window counts only the events of the scope, at least
// MinReorderLookahead, so that the next window events of one key can be
// far apart in the stream while the memory of a stream stays bounded.
func ReorderLookahead(r ReorderConfig) int {
	if r.Scope == ScopeGlobal {
		return r.Window
	}
	return max(r.Window, MinReorderLookahead)
}

// MinReorderLookahead is how far ahead (input events) a stream looks for
// the next events of a key or partition: an event whose next same-key
// events are further apart moves behind those within it.
const MinReorderLookahead = 10000

// Close plans the events still in the lookahead and delivers everything
// held, copies waiting for events past the end last.
func (s *Stream[T]) Close() error {
	if s.closed {
		return s.err
	}
	s.closed = true
	s.planCrashes()
	for s.look.len() > 0 && s.err == nil {
		s.plan(s.popLook())
	}
	if s.err != nil {
		return s.err
	}
	keys := make([]int64, 0, len(s.waiting))
	for k := range s.waiting {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		ws := s.waiting[k]
		delete(s.waiting, k)
		for _, w := range ws {
			s.held--
			s.send(w)
		}
	}
	return s.err
}

// Stats returns the counts so far.
func (s *Stream[T]) Stats() Stats { return s.stats }

func (s *Stream[T]) noteHeld() {
	if n := s.look.len() + s.held; n > s.stats.MaxHeld {
		s.stats.MaxHeld = n
	}
}

func (s *Stream[T]) newFault(kind Kind, ev Event) *Fault {
	f := &Fault{Index: s.nextFault, Kind: kind, Event: ev}
	s.nextFault++
	return f
}

func (s *Stream[T]) record(f *Fault) bool {
	applied := s.sel.Has(f.Index)
	s.stats.Planned[f.Kind]++
	if applied {
		s.stats.Applied[f.Kind]++
	}
	if s.observe != nil {
		s.observe(*f, applied)
	}
	return applied
}

// plan decides the faults of it (its lookahead is s.look) and delivers or
// holds it.
func (s *Stream[T]) plan(it slot[T]) {
	i := it.ev.Index
	// Decide first, number after: duplicates, then reorder.
	var moveAfter int64 = -1
	if r := s.cfg.Reorder; r != nil {
		_, isTarget := s.targets[i]
		delete(s.targets, i)
		if draw := s.reoRNG.Float64(); !isTarget && draw < r.Rate {
			// The next window events of its scope in the lookahead.
			var cands []int64
			if q := it.scope; q != nil {
				cands = q.indexes[:min(len(q.indexes), r.Window)]
			}
			if len(cands) > 0 {
				moveAfter = cands[s.reoRNG.IntN(len(cands))]
				s.targets[moveAfter] = struct{}{}
			}
		}
	}
	var copies []int64 // After of each copy
	if d := s.cfg.Duplicate; d != nil {
		if s.dupRNG.Float64() < d.Rate {
			n := 1 + s.dupRNG.IntN(d.Max)
			for range n {
				copies = append(copies, i+int64(s.dupRNG.IntN(d.Spread+1)))
			}
		}
	}
	var copySlots []slot[T]
	for c, after := range copies {
		f := s.newFault(Duplicate, it.ev)
		f.Copy, f.After = c+1, after
		if s.record(f) {
			v := it.v
			if s.clone != nil {
				v = s.clone(v)
			}
			copySlots = append(copySlots, slot[T]{ev: it.ev, v: v, fault: f})
		}
	}
	var move *Fault
	if moveAfter >= 0 {
		f := s.newFault(Reorder, it.ev)
		f.After = moveAfter
		if s.record(f) {
			move = f
		}
	}
	// Skew and poison draw from their own streams, after the older kinds
	// are numbered, so plans without them keep their indexes.
	if k := s.cfg.Skew; k != nil {
		if draw := s.skewRNG.Float64(); draw < k.Rate && it.ev.SkewTo != 0 {
			alts := it.ev.SkewTo.List()
			f := s.newFault(Skew, it.ev)
			f.After, f.From, f.To = i, it.ev.Version, alts[s.skewRNG.IntN(len(alts))]
			if s.record(f) {
				if s.mutate != nil {
					it.v = s.mutate(*f, it.v)
				}
				it.skew = f
				for c := range copySlots {
					// Copies were cloned from the original payload: they
					// are copies of the record as produced, skewed too.
					copySlots[c].v = it.v
					if s.clone != nil {
						copySlots[c].v = s.clone(it.v)
					}
					copySlots[c].skew = f
				}
			}
		}
	}
	var poison *slot[T]
	if p := s.cfg.Poison; p != nil {
		if s.poisonRNG.Float64() < p.Rate {
			f := s.newFault(Poison, it.ev)
			f.After, f.Poison = i, p.Kinds[s.poisonRNG.IntN(len(p.Kinds))]
			f.PoisonID = fmt.Sprintf("%s%d-%d", PoisonIDPrefix, s.seed, f.Index)
			if s.record(f) {
				v := it.v
				if s.mutate != nil {
					v = s.mutate(*f, v)
				} else if s.clone != nil {
					v = s.clone(v)
				}
				ev := it.ev
				ev.ID = f.PoisonID
				poison = &slot[T]{ev: ev, v: v, fault: f}
			}
		}
	}
	// Downstream faults last: they strike the consumer's requests, not
	// the delivery, and are planned before the event is delivered.
	s.planDownstream(it.ev)

	if move != nil {
		s.moved[i] = struct{}{}
		s.hold(move.After, slot[T]{ev: it.ev, v: it.v, fault: move, skew: it.skew})
	} else {
		s.deliver(it)
	}
	for _, cp := range copySlots {
		if _, held := s.moved[i]; !held && cp.fault.After == i {
			s.send(cp)
			continue
		}
		s.hold(cp.fault.After, cp)
	}
	if poison != nil {
		// Right after the event's place in the input, even when the
		// event itself was moved later.
		s.emitOne(*poison)
	}
	s.noteHeld()
}

func (s *Stream[T]) hold(k int64, it slot[T]) {
	s.waiting[k] = append(s.waiting[k], it)
	s.held++
}

// deliver emits an original event and releases what waits for it.
func (s *Stream[T]) deliver(it slot[T]) {
	if !s.emitOne(it) {
		return
	}
	i := it.ev.Index
	delete(s.moved, i)
	ws, ok := s.waiting[i]
	if !ok {
		return
	}
	delete(s.waiting, i)
	for _, w := range ws {
		s.held--
		s.send(w)
	}
}

// send delivers a released item: a held original, or a copy (which waits
// on for its original if that is still held back).
func (s *Stream[T]) send(w slot[T]) {
	if w.fault != nil && w.fault.Kind == Duplicate {
		if _, held := s.moved[w.ev.Index]; held {
			s.hold(w.ev.Index, w)
			return
		}
		s.emitOne(w)
		return
	}
	s.deliver(w)
}

func (s *Stream[T]) emitOne(it slot[T]) bool {
	if s.err != nil {
		return false
	}
	s.stats.Delivered++
	if err := s.emit(Delivery[T]{Event: it.ev, Value: it.v, Fault: it.fault, Skew: it.skew}); err != nil {
		s.err = err
		return false
	}
	return true
}

// Plan returns every fault planned over events, and which are applied under
// sel. It holds all faults in memory: for listings and tests, not for
// streams of millions of events (use a Stream with Observe).
func Plan(cfg Config, seed uint64, sel Selection, events []Event) ([]Fault, error) {
	var out []Fault
	s, err := NewStream(cfg, seed, sel, func(Delivery[struct{}]) error { return nil })
	if err != nil {
		return nil, err
	}
	s.Observe(func(f Fault, _ bool) { out = append(out, f) })
	for _, e := range events {
		if err := s.Push(e, struct{}{}); err != nil {
			return nil, err
		}
	}
	return out, s.Close()
}

// fifo is a queue that reuses its storage as a ring. (A slice popped at
// the front and appended at the back reallocates and copies the whole
// lookahead every few pushes once it holds thousands of events.)
type fifo[T any] struct {
	buf     []T
	head, n int
}

func (q *fifo[T]) len() int { return q.n }

func (q *fifo[T]) push(x T) {
	if q.n == len(q.buf) {
		grown := make([]T, max(16, 2*len(q.buf)))
		for i := range q.n {
			grown[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.n)%len(q.buf)] = x
	q.n++
}

// front is the oldest element; the queue must not be empty.
func (q *fifo[T]) front() *T { return &q.buf[q.head] }

// pop removes and returns the oldest element; the queue must not be empty.
func (q *fifo[T]) pop() T {
	x := q.buf[q.head]
	var zero T
	q.buf[q.head] = zero // nothing popped stays reachable
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	return x
}
