package chaos

import (
	"errors"
	"math/rand/v2"
	"sort"
)

// Random stream ids, one per kind (see the package comment).
const (
	streamDuplicate = 0x6475706c69636174 // "duplicat"
	streamReorder   = 0x72656f7264657221 // "reorder!"
)

// Delivery is one item of the perturbed stream.
type Delivery[T any] struct {
	Event Event
	Value T
	// Fault is nil for an event delivered in its place, the duplicate
	// fault for a copy, the reorder fault for an event delivered late.
	Fault *Fault
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

	dupRNG, reoRNG *rand.Rand
	window         int

	look    []slot[T] // pushed, not yet planned (a FIFO of at most window)
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
}

// NewStream returns a stream for cfg (normalized with Normalize), seeded
// with seed, applying the faults sel selects.
func NewStream[T any](cfg Config, seed uint64, sel Selection, emit func(Delivery[T]) error) (*Stream[T], error) {
	cfg, err := cfg.Normalize()
	if err != nil {
		return nil, err
	}
	s := &Stream[T]{
		cfg:     cfg,
		sel:     sel,
		emit:    emit,
		dupRNG:  rand.New(rand.NewPCG(seed, streamDuplicate)),
		reoRNG:  rand.New(rand.NewPCG(seed, streamReorder)),
		targets: map[int64]struct{}{},
		waiting: map[int64][]slot[T]{},
		moved:   map[int64]struct{}{},
		stats:   Stats{Planned: map[Kind]int{}, Applied: map[Kind]int{}},
	}
	if cfg.Reorder != nil {
		s.window = cfg.Reorder.Window
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
	e.Index = s.next
	s.next++
	s.stats.Events++
	s.look = append(s.look, slot[T]{ev: e, v: v})
	s.noteHeld()
	if len(s.look) > s.window {
		it := s.look[0]
		var zero slot[T]
		s.look[0] = zero
		s.look = s.look[1:]
		s.plan(it)
	}
	return s.err
}

// Close plans the events still in the lookahead and delivers everything
// held, copies waiting for events past the end last.
func (s *Stream[T]) Close() error {
	if s.closed {
		return s.err
	}
	s.closed = true
	for len(s.look) > 0 && s.err == nil {
		it := s.look[0]
		s.look = s.look[1:]
		s.plan(it)
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
	if n := len(s.look) + s.held; n > s.stats.MaxHeld {
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
			var cands []int64
			for _, c := range s.look {
				if sameScope(r.Scope, it.ev, c.ev) {
					cands = append(cands, c.ev.Index)
				}
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

	if move != nil {
		s.moved[i] = struct{}{}
		s.hold(move.After, slot[T]{ev: it.ev, v: it.v, fault: move})
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
	if err := s.emit(Delivery[T]{Event: it.ev, Value: it.v, Fault: it.fault}); err != nil {
		s.err = err
		return false
	}
	return true
}

func sameScope(scope Scope, a, b Event) bool {
	switch scope {
	case ScopeKey:
		return a.Key != "" && a.Key == b.Key
	case ScopePartition:
		return a.Partition == b.Partition
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
