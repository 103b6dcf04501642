package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kgo"
)

// events returns n events over k keys (round robin with a twist so keys
// are not strictly periodic) on 3 partitions.
func events(n, k int) []Event {
	out := make([]Event, n)
	for i := range out {
		key := fmt.Sprintf("k%02d", (i*7+i/5)%k)
		out[i] = Event{Index: int64(i), ID: fmt.Sprintf("id-%d", i), Type: "t", Key: key, Partition: PartitionOf([]byte(key), 3)}
	}
	return out
}

func run(t *testing.T, cfg Config, seed uint64, sel Selection, evs []Event) ([]Delivery[int], []Fault, Stats) {
	t.Helper()
	var out []Delivery[int]
	var faults []Fault
	s, err := NewStream(cfg, seed, sel, func(d Delivery[int]) error { out = append(out, d); return nil })
	if err != nil {
		t.Fatal(err)
	}
	s.Observe(func(f Fault, applied bool) {
		if applied {
			faults = append(faults, f)
		}
	})
	for i, e := range evs {
		if err := s.Push(e, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return out, faults, s.Stats()
}

var both = Config{
	Duplicate: &DuplicateConfig{Rate: 0.3, Max: 2, Spread: 5},
	Reorder:   &ReorderConfig{Window: 8, Scope: ScopeKey, Rate: 0.7},
}

func TestDeterministic(t *testing.T) {
	evs := events(500, 10)
	a, fa, _ := run(t, both, 42, All(), evs)
	b, fb, _ := run(t, both, 42, All(), evs)
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(fa, fb) {
		t.Fatal("same seed gave different streams")
	}
	_, fc, _ := run(t, both, 43, All(), evs)
	if reflect.DeepEqual(fa, fc) {
		t.Fatal("different seeds gave the same faults")
	}
	for i, f := range fa {
		if f.Index != i {
			t.Fatalf("fault %d has index %d", i, f.Index)
		}
	}
}

// check verifies the invariants of a perturbed stream: every original
// once, copies after their original and after the event they wait for,
// moved events after their target and late by at most the window.
func check(t *testing.T, cfg Config, evs []Event, out []Delivery[int], faults []Fault) {
	t.Helper()
	pos := map[int64]int{} // original's delivery position
	copies := 0
	for p, d := range out {
		if d.Fault != nil && d.Fault.Kind == Poison {
			if _, ok := pos[d.Event.Index]; !ok && !movedLater(faults, d.Event.Index) {
				t.Fatalf("poison %v delivered before its event", d.Fault)
			}
			continue
		}
		if d.Fault != nil && d.Fault.Kind == Duplicate {
			copies++
			op, ok := pos[d.Event.Index]
			if !ok {
				t.Fatalf("copy of event %d delivered before its original", d.Event.Index)
			}
			if d.Fault.After < int64(len(evs)) {
				if ap, ok := pos[d.Fault.After]; !ok || ap > p {
					t.Fatalf("copy %v delivered before event %d", d.Fault, d.Fault.After)
				}
			}
			_ = op
			continue
		}
		if _, dup := pos[d.Event.Index]; dup {
			t.Fatalf("event %d delivered twice as an original", d.Event.Index)
		}
		pos[d.Event.Index] = p
		if d.Value != int(d.Event.Index) && d.Skew == nil {
			t.Fatalf("payload %d with event %d", d.Value, d.Event.Index)
		}
	}
	if len(pos) != len(evs) {
		t.Fatalf("%d originals delivered, want %d", len(pos), len(evs))
	}
	wantCopies := 0
	for _, f := range faults {
		switch f.Kind {
		case Duplicate:
			wantCopies++
		case Reorder:
			if pos[f.Event.Index] < pos[f.After] {
				t.Fatalf("%v: delivered before its target", f)
			}
			// The window counts the events of the scope: the target is
			// one of the next Window events of the same scope.
			if f.After <= f.Event.Index || !sameScope(cfg.Reorder.Scope, evs[f.Event.Index], evs[f.After]) {
				t.Fatalf("%v: target not later in the scope %s", f, cfg.Reorder.Scope)
			}
			between := 0
			for j := f.Event.Index + 1; j < f.After; j++ {
				if sameScope(cfg.Reorder.Scope, evs[f.Event.Index], evs[j]) {
					between++
				}
			}
			if between >= cfg.Reorder.Window {
				t.Fatalf("%v: target outside the window (%d events of the scope before it)", f, between)
			}
		}
	}
	if copies != wantCopies {
		t.Fatalf("%d copies delivered, %d duplicate faults applied", copies, wantCopies)
	}
}

func movedLater(faults []Fault, i int64) bool {
	for _, f := range faults {
		if f.Kind == Reorder && f.Event.Index == i {
			return true
		}
	}
	return false
}

func TestInvariants(t *testing.T) {
	for _, scope := range []Scope{ScopeKey, ScopePartition, ScopeGlobal} {
		for seed := uint64(0); seed < 20; seed++ {
			cfg := both
			r := *both.Reorder
			r.Scope = scope
			cfg.Reorder = &r
			evs := events(300, 7)
			out, faults, st := run(t, cfg, seed, All(), evs)
			check(t, cfg, evs, out, faults)
			if st.Applied[Reorder] == 0 || st.Applied[Duplicate] == 0 {
				t.Fatalf("scope %s seed %d: no faults of some kind: %v", scope, seed, st.Applied)
			}
		}
	}
}

func TestSubsetsReplayExactly(t *testing.T) {
	evs := events(200, 5)
	_, all, _ := run(t, both, 7, All(), evs)
	if len(all) < 10 {
		t.Fatalf("only %d faults", len(all))
	}
	// No fault selected: the input, in order.
	out, applied, _ := run(t, both, 7, Only(), evs)
	if len(applied) != 0 || len(out) != len(evs) {
		t.Fatalf("empty selection applied %d faults, delivered %d", len(applied), len(out))
	}
	for i, d := range out {
		if d.Event.Index != int64(i) || d.Fault != nil {
			t.Fatalf("position %d: %+v", i, d)
		}
	}
	// A subset: exactly those faults, with the same indexes as in the full plan.
	pick := []int{all[1].Index, all[4].Index, all[9].Index}
	out, applied, _ = run(t, both, 7, Only(pick...), evs)
	if len(applied) != 3 {
		t.Fatalf("applied %v", applied)
	}
	for i, f := range applied {
		if !reflect.DeepEqual(f, all[pick[i]]) {
			t.Fatalf("subset fault %v differs from plan fault %v", f, all[pick[i]])
		}
	}
	check(t, both, evs, out, applied)
	// Only the selected faults changed the stream.
	changed := 0
	for i, d := range out {
		if d.Fault != nil {
			changed++
		}
		_ = i
	}
	if changed != 3 {
		t.Fatalf("%d deliveries carry a fault, want 3", changed)
	}
}

func TestKindsIndependent(t *testing.T) {
	evs := events(400, 9)
	dupOnly := Config{Duplicate: both.Duplicate}
	_, a, _ := run(t, dupOnly, 5, All(), evs)
	_, b, _ := run(t, both, 5, All(), evs)
	var bd []Fault
	for _, f := range b {
		if f.Kind == Duplicate {
			bd = append(bd, f)
		}
	}
	if len(a) != len(bd) {
		t.Fatalf("duplicate faults change when reorder is on: %d vs %d", len(a), len(bd))
	}
	for i := range a {
		a[i].Index, bd[i].Index = 0, 0
		if a[i] != bd[i] {
			t.Fatalf("duplicate fault %d: %v vs %v", i, a[i], bd[i])
		}
	}
}

func TestMemoryBounded(t *testing.T) {
	cfg := Config{Duplicate: &DuplicateConfig{Rate: 0.5, Max: 3, Spread: 20}, Reorder: &ReorderConfig{Window: 16, Scope: ScopeGlobal, Rate: 1}}
	s, err := NewStream(cfg, 1, All(), func(Delivery[struct{}]) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200000; i++ {
		if err := s.Push(Event{ID: "x", Key: fmt.Sprint(i % 100)}, struct{}{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	// lookahead (16) + moved (<=16) + copies (<= 3 per event over ~36 events)
	if st.MaxHeld > 16+16+3*40 {
		t.Fatalf("held up to %d events", st.MaxHeld)
	}
	if st.Delivered != st.Events+int64(st.Applied[Duplicate]) {
		t.Fatalf("stats %+v", st)
	}
}

func TestNoCandidatesNoReorder(t *testing.T) {
	// Keys never repeat: scope key cannot reorder.
	evs := make([]Event, 50)
	for i := range evs {
		evs[i] = Event{Index: int64(i), ID: fmt.Sprintf("id-%d", i), Type: "t", Key: fmt.Sprintf("k%d", i)}
	}
	_, faults, st := run(t, Config{Reorder: &ReorderConfig{Window: 3, Scope: ScopeKey, Rate: 1}}, 1, All(), evs)
	if st.Planned[Reorder] != 0 || len(faults) != 0 {
		t.Fatalf("planned %v", faults)
	}
}

// TestReorderWindowCountsTheScope: the window is the next Window events of
// the event's own scope, however far apart they are in the stream, so a
// last-write-wins consumer of 20 keys loses writes under {window: 8,
// scope: key}. (Counted over the stream, 8 events of 20 keys rarely hold
// two of one key, and the consumer passed.)
func TestReorderWindowCountsTheScope(t *testing.T) {
	cfg := Config{Reorder: &ReorderConfig{Window: 8, Scope: ScopeKey, Rate: 0.5}}
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 1))
		evs := make([]Event, 300)
		for i := range evs {
			evs[i] = Event{Index: int64(i), ID: fmt.Sprintf("id-%d", i), Type: "t", Key: fmt.Sprintf("k%02d", rng.IntN(20))}
		}
		out, faults, st := run(t, cfg, seed, All(), evs)
		check(t, cfg, evs, out, faults)
		// Most events have 8 later events of their key: about rate of
		// them move (targets and the last events of a key do not).
		if st.Applied[Reorder] < 90 {
			t.Errorf("seed %d: %d of 300 events moved, want about 100", seed, st.Applied[Reorder])
		}
		// Last write wins: the state is the last event delivered per key.
		want, got := map[string]int64{}, map[string]int64{}
		for _, e := range evs {
			want[e.Key] = e.Index
		}
		for _, d := range out {
			got[d.Event.Key] = d.Event.Index
		}
		if reflect.DeepEqual(want, got) {
			t.Errorf("seed %d: a last-write-wins consumer passed %d moves over 20 keys", seed, st.Applied[Reorder])
		}
	}
}

// TestReorderLookaheadBounded: under scope key the stream looks at most
// MinReorderLookahead events ahead, however rare a key is.
func TestReorderLookaheadBounded(t *testing.T) {
	const n = MinReorderLookahead + 5000
	evs := make([]Event, n)
	for i := range evs {
		evs[i] = Event{Index: int64(i), ID: fmt.Sprintf("id-%d", i), Type: "t", Key: fmt.Sprintf("k%d", i)}
	}
	evs[0].Key, evs[n-1].Key = "rare", "rare" // further apart than the lookahead
	_, faults, st := run(t, Config{Reorder: &ReorderConfig{Window: 1, Scope: ScopeKey, Rate: 1}}, 1, All(), evs)
	if len(faults) != 0 {
		t.Fatalf("planned %v", faults)
	}
	if st.MaxHeld > MinReorderLookahead+1 {
		t.Fatalf("held %d events, want at most %d", st.MaxHeld, MinReorderLookahead+1)
	}
}

func TestNormalize(t *testing.T) {
	c, err := Config{Duplicate: &DuplicateConfig{Rate: 0.1}, Reorder: &ReorderConfig{Window: 4}}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if c.Duplicate.Max != 1 || c.Reorder.Scope != ScopeKey || c.Reorder.Rate != DefaultReorderRate {
		t.Fatalf("defaults: %+v %+v", c.Duplicate, c.Reorder)
	}
	for _, bad := range []Config{
		{Duplicate: &DuplicateConfig{Rate: 2}},
		{Duplicate: &DuplicateConfig{Rate: 0.1, Max: 1000}},
		{Reorder: &ReorderConfig{Window: 0}},
		{Reorder: &ReorderConfig{Window: 3, Scope: "planet"}},
	} {
		if _, err := bad.Normalize(); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if got := c.String(); !strings.Contains(got, "reorder{window 4, scope key") {
		t.Errorf("String = %q", got)
	}
}

func TestSelection(t *testing.T) {
	s, err := ParseSelection("3, 7,10-12,13")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.String(); got != "3,7,10-13" {
		t.Fatalf("String = %q", got)
	}
	if !s.Has(11) || s.Has(4) || s.IsAll() {
		t.Fatal("Has")
	}
	if got := Only(1, 2).String(); got != "1,2" {
		t.Fatalf("Only(1,2) = %q", got)
	}
	for _, bad := range []string{"x", "-1", "5-3", "1,,2"} {
		if _, err := ParseSelection(bad); err == nil {
			t.Errorf("ParseSelection(%q) succeeded", bad)
		}
	}
	if !All().Has(123456) || All().String() != "all" {
		t.Fatal("All")
	}
}

func TestPartitionOf(t *testing.T) {
	// The same partition as franz-go's StickyKeyPartitioner (Kafka's
	// murmur2 default) for keyed records.
	p := kgo.StickyKeyPartitioner(nil).ForTopic("t")
	for i := range 2000 {
		key := []byte(fmt.Sprintf("ord-%05d", i))
		for _, n := range []int{1, 3, 7, 64} {
			if got, want := PartitionOf(key, n), int32(p.Partition(&kgo.Record{Key: key}, n)); got != want {
				t.Fatalf("PartitionOf(%s, %d) = %d, franz-go says %d", key, n, got, want)
			}
		}
	}
}

func TestFaultString(t *testing.T) {
	f := Fault{Index: 3, Kind: Reorder, Event: Event{Index: 5, Line: 6, ID: "e5", Type: "t", Key: "k"}, After: 9}
	if got := f.String(); got != "#3 reorder: event 5 (line 6, key k, t, id e5) delivered after event 9" {
		t.Errorf("String = %q", got)
	}
}

// skewEvents are events whose even-indexed ones may be re-emitted as v2 or
// v3 (they are v1).
func skewEvents(n, k int) []Event {
	evs := events(n, k)
	for i := range evs {
		evs[i].Version = 1
		if i%2 == 0 {
			evs[i].SkewTo = VersionSet(0).Add(2).Add(3)
		}
	}
	return evs
}

var all = Config{
	Duplicate: &DuplicateConfig{Rate: 0.3, Max: 2, Spread: 5},
	Reorder:   &ReorderConfig{Window: 8, Scope: ScopeKey, Rate: 0.7},
	Skew:      &SkewConfig{Rate: 0.5},
	Poison:    &PoisonConfig{Rate: 0.1},
	Crash:     &CrashConfig{Count: 3},
}

// The newer kinds leave the duplicate and reorder faults of a seed alone:
// the same faults, and without crash the same indexes.
func TestNewKindsKeepOldPlans(t *testing.T) {
	evs := skewEvents(400, 9)
	_, old, _ := run(t, both, 7, All(), evs)
	noCrash := all
	noCrash.Crash = nil
	_, withNew, _ := run(t, noCrash, 7, All(), evs)
	_, withCrash, _ := run(t, all, 7, All(), evs)
	pick := func(fs []Fault, shift int) []Fault {
		var out []Fault
		for _, f := range fs {
			if f.Kind == Duplicate || f.Kind == Reorder {
				f.Index -= shift
				out = append(out, f)
			}
		}
		return out
	}
	if got := pick(withNew, 0); !reflect.DeepEqual(old, renumber(got)) {
		t.Fatal("skew and poison change the duplicate and reorder faults")
	}
	if got := pick(withCrash, 3); !reflect.DeepEqual(renumber(pick(withNew, 0)), renumber(got)) {
		t.Fatal("crash changes the duplicate and reorder faults")
	}
	for i, f := range withCrash[:3] {
		if f.Kind != Crash || f.Index != i || f.Crash != i+1 {
			t.Fatalf("crash faults are not numbered first: %v", f)
		}
	}
}

// renumber gives the faults consecutive indexes (what a plan with only
// these kinds would give them).
func renumber(fs []Fault) []Fault {
	out := append([]Fault(nil), fs...)
	for i := range out {
		out[i].Index = i
	}
	return out
}

func TestSkewAndPoison(t *testing.T) {
	evs := skewEvents(600, 12)
	seen := map[PoisonKind]int{}
	for seed := range uint64(10) {
		var muts []Fault
		var out []Delivery[int]
		s, err := NewStream(all, seed, All(), func(d Delivery[int]) error { out = append(out, d); return nil })
		if err != nil {
			t.Fatal(err)
		}
		var faults []Fault
		s.Observe(func(f Fault, applied bool) { faults = append(faults, f) })
		s.Mutate(func(f Fault, v int) int {
			muts = append(muts, f)
			if f.Kind == Poison {
				return -1000 - f.Index
			}
			return 1000*f.To + v
		})
		for i, e := range evs {
			if err := s.Push(e, i); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		check(t, all, evs, out, faults)
		skewed := map[int64]int{}
		for _, f := range faults {
			switch f.Kind {
			case Skew:
				if evs[f.Event.Index].SkewTo == 0 || (f.To != 2 && f.To != 3) || f.From != 1 {
					t.Fatalf("%v", f)
				}
				skewed[f.Event.Index] = f.To
			case Poison:
				seen[f.Poison]++
				if f.PoisonID != fmt.Sprintf("evtool-poison-%d-%d", seed, f.Index) {
					t.Fatalf("poison id %q", f.PoisonID)
				}
			}
		}
		if len(muts) != len(faults)-3-countKind(faults, Duplicate)-countKind(faults, Reorder) {
			t.Fatalf("mutate called %d times for %d skew and poison faults", len(muts), len(faults))
		}
		for _, d := range out {
			switch {
			case d.Fault != nil && d.Fault.Kind == Poison:
				if d.Value != -1000-d.Fault.Index || d.Event.ID != d.Fault.PoisonID {
					t.Fatalf("poison delivery %+v", d)
				}
			case skewed[d.Event.Index] != 0:
				// The event and its copies carry the skewed payload.
				if d.Value != 1000*skewed[d.Event.Index]+int(d.Event.Index) || d.Skew == nil {
					t.Fatalf("delivery of skewed event %d: %+v", d.Event.Index, d)
				}
			default:
				if d.Value != int(d.Event.Index) || d.Skew != nil {
					t.Fatalf("delivery %+v", d)
				}
			}
		}
	}
	for _, k := range PoisonKinds {
		if seen[k] == 0 {
			t.Errorf("no %s poison in 10 seeds", k)
		}
	}
}

func countKind(fs []Fault, k Kind) int {
	n := 0
	for _, f := range fs {
		if f.Kind == k {
			n++
		}
	}
	return n
}

func TestCrashPlan(t *testing.T) {
	cfg, err := Config{Crash: &CrashConfig{Count: 4, At: CrashRandom}}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	a, b := CrashPlan(cfg, 9), CrashPlan(cfg, 9)
	if !reflect.DeepEqual(a, b) || len(a) != 4 {
		t.Fatalf("%v %v", a, b)
	}
	phases := map[CrashPhase]bool{}
	for seed := range uint64(20) {
		for k, f := range CrashPlan(cfg, seed) {
			lo, hi := (float64(k)+0.15)/4, (float64(k)+0.85)/4
			if f.Progress < lo || f.Progress > hi || f.Index != k || f.Crash != k+1 || f.At != CrashRandom {
				t.Fatalf("%+v", f)
			}
			phases[f.Phase] = true
		}
	}
	if len(phases) != 3 {
		t.Fatalf("phases %v", phases)
	}
	cfg.Crash.At = CrashAfterEffect
	for _, f := range CrashPlan(cfg, 3) {
		if f.Phase != PhaseAfterEffect {
			t.Fatalf("%+v", f)
		}
	}
	// Listed by a stream too, first, with no delivery.
	_, faults, st := run(t, cfg, 3, Only(1), events(10, 2))
	if len(faults) != 1 || faults[0].Crash != 2 || st.Planned[Crash] != 4 || st.Applied[Crash] != 1 || st.Delivered != 10 {
		t.Fatalf("%v %+v", faults, st)
	}
}

func TestNormalizeNewKinds(t *testing.T) {
	c, err := Config{Crash: &CrashConfig{}, Poison: &PoisonConfig{Rate: 0.1, Kinds: []PoisonKind{UnknownType, UnknownType}}, Skew: &SkewConfig{Rate: 1}}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if c.Crash.Count != 1 || c.Crash.At != CrashAfterEffect || len(c.Poison.Kinds) != 1 {
		t.Fatalf("%+v %+v", c.Crash, c.Poison)
	}
	if got := c.String(); got != "skew{rate 1} poison{rate 0.1, kinds unknown-type} crash{count 1, at after-effect}" {
		t.Fatalf("String = %q", got)
	}
	if d, _ := (Config{Poison: &PoisonConfig{Rate: 0.5}}).Normalize(); len(d.Poison.Kinds) != 4 {
		t.Fatalf("default kinds %v", d.Poison.Kinds)
	}
	for _, bad := range []Config{
		{Crash: &CrashConfig{Count: 101}},
		{Crash: &CrashConfig{Count: 1, At: "sometimes"}},
		{Poison: &PoisonConfig{Rate: -1}},
		{Poison: &PoisonConfig{Rate: 0.1, Kinds: []PoisonKind{"spicy"}}},
		{Skew: &SkewConfig{Rate: 1.1}},
	} {
		if _, err := bad.Normalize(); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestVersionSet(t *testing.T) {
	s := VersionSet(0).Add(3).Add(1).Add(64).Add(65).Add(0)
	if fmt.Sprint(s.List()) != "[1 3 64]" || !s.Has(3) || s.Has(2) || s.Has(65) {
		t.Fatalf("%v", s.List())
	}
}

func TestNewFaultStrings(t *testing.T) {
	ev := Event{Index: 5, Line: 6, ID: "e5", Type: "t", Key: "k"}
	for _, tt := range []struct {
		f    Fault
		want string
	}{
		{Fault{Index: 1, Kind: Skew, Event: ev, After: 5, From: 1, To: 2}, "#1 skew: event 5 (line 6, key k, t, id e5) re-emitted as v2 (was v1)"},
		{Fault{Index: 2, Kind: Poison, Event: ev, After: 5, Poison: UnknownType, PoisonID: "p-2"}, "#2 poison: unknown-type event p-2 built from event 5 (line 6, key k, t, id e5), delivered right after it"},
		{Fault{Index: 0, Kind: Crash, Crash: 1, At: CrashAfterEffect, Progress: 0.414}, "#0 crash 1 (after-effect): the consumer is killed when its group's committed records pass 41% of the events, before that commit is stored (embedded broker), and restarted"},
		{Fault{Index: 0, Kind: Crash, Crash: 1, At: CrashAfterCommit, Progress: 0.414}, "#0 crash 1 (after-commit): the consumer is killed when its group's committed records pass 41% of the events, once that commit is stored, and restarted"},
		{Fault{Index: 0, Kind: Crash, Crash: 2, At: CrashRandom, Progress: 0.7}, "#0 crash 2 (random): the consumer is killed at 70% of its consumption time and restarted"},
	} {
		if got := tt.f.String(); got != tt.want {
			t.Errorf("String = %q\nwant     %q", got, tt.want)
		}
	}
	// Against a real cluster a harness cannot intercept commits: an
	// after-effect crash strikes once the commit is stored, and says so.
	for _, tt := range []struct {
		f    Fault
		want string
	}{
		{Fault{Index: 0, Kind: Crash, Crash: 1, At: CrashAfterEffect, Progress: 0.414}, "#0 crash 1 (after-effect): the consumer is killed once its group's committed records pass 41% of the events and that commit is stored (a real cluster's commits cannot be intercepted), and restarted"},
		{Fault{Index: 0, Kind: Crash, Crash: 1, At: CrashAfterCommit, Progress: 0.414}, "#0 crash 1 (after-commit): the consumer is killed when its group's committed records pass 41% of the events, once that commit is stored, and restarted"},
		{Fault{Index: 1, Kind: Skew, Event: ev, After: 5, From: 1, To: 2}, "#1 skew: event 5 (line 6, key k, t, id e5) re-emitted as v2 (was v1)"},
	} {
		if got := tt.f.Describe(false); got != tt.want {
			t.Errorf("Describe(false) = %q\nwant              %q", got, tt.want)
		}
	}
	b, _ := Fault{Index: 0, Kind: Crash, Crash: 1, At: CrashRandom, Progress: 0.5, Phase: PhaseBefore}.MarshalJSON()
	if string(b) != `{"index":0,"kind":"crash","crash":1,"at":"random","progress":0.5,"phase":"before"}` {
		t.Errorf("crash JSON %s", b)
	}
	b, _ = Fault{Index: 3, Kind: Reorder, Event: ev, After: 9}.MarshalJSON()
	if string(b) != `{"index":3,"kind":"reorder","event":5,"line":6,"id":"e5","type":"t","key":"k","partition":0,"after":9}` {
		t.Errorf("reorder JSON %s", b)
	}
}

func TestShrink(t *testing.T) {
	all := make([]int, 200)
	for i := range all {
		all[i] = i * 3
	}
	ctx := t.Context()
	// Fails when both 33 and 150 are applied.
	culprits := func(_ context.Context, s []int) (bool, error) {
		return slices.Contains(s, 33) && slices.Contains(s, 150), nil
	}
	res, err := Shrink(ctx, all, nil, 100, culprits)
	if err != nil || fmt.Sprint(res.Faults) != "[33 150]" || !res.Minimal || res.Tests > 60 {
		t.Fatalf("%+v %v", res, err)
	}
	// A good hint saves runs.
	hinted, _ := Shrink(ctx, all, [][]int{{300, 33, 150, 12}}, 100, culprits)
	if fmt.Sprint(hinted.Faults) != "[33 150]" || hinted.Tests >= res.Tests {
		t.Fatalf("hinted %+v, unhinted %d tests", hinted, res.Tests)
	}
	// Out of budget: the smallest failing set so far, not minimal.
	short, _ := Shrink(ctx, all, nil, 3, culprits)
	if short.Minimal || short.Tests != 3 || !slices.Contains(short.Faults, 33) || !slices.Contains(short.Faults, 150) {
		t.Fatalf("%+v", short)
	}
	// One fault: minimal at once, no run.
	one, _ := Shrink(ctx, []int{7}, nil, 10, culprits)
	if !one.Minimal || one.Tests != 0 {
		t.Fatalf("%+v", one)
	}
	// Never the whole set, never empty.
	_, _ = Shrink(ctx, all, nil, 50, func(_ context.Context, s []int) (bool, error) {
		if len(s) == 0 || len(s) == len(all) {
			t.Fatalf("tested %d faults", len(s))
		}
		return len(s) > 20, nil
	})
}

// sameScope reports whether b is in a's reorder scope.
func sameScope(scope Scope, a, b Event) bool {
	switch scope {
	case ScopeKey:
		return a.Key != "" && a.Key == b.Key
	case ScopePartition:
		return a.Partition == b.Partition
	}
	return true
}

// BenchmarkStreamReorderByKey plans reorder by key over many keys, where
// the lookahead is full (MinReorderLookahead): finding the candidates must
// not scan it.
func BenchmarkStreamReorderByKey(b *testing.B) {
	evs := events(100000, 5000)
	cfg := Config{Duplicate: &DuplicateConfig{Rate: 0.1, Spread: 10}, Reorder: &ReorderConfig{Window: 32, Scope: ScopeKey, Rate: 0.5}}
	for b.Loop() {
		s, err := NewStream(cfg, 1, All(), func(Delivery[int]) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		for i, e := range evs {
			if err := s.Push(e, i); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(evs)), "events/op")
}

// TestInvariantsLookaheadFull: when the next window events of a key are
// further apart than the lookahead, events are planned because the
// lookahead is full; still every event is delivered once, copies and moves
// keep their rules, and the plan is the same for the same seed.
func TestInvariantsLookaheadFull(t *testing.T) {
	evs := events(3*MinReorderLookahead, 5000) // a key every ~5000 events
	for _, scope := range []Scope{ScopeKey, ScopePartition} {
		cfg := Config{Duplicate: &DuplicateConfig{Rate: 0.1, Max: 1, Spread: 10}, Reorder: &ReorderConfig{Window: 8, Scope: scope, Rate: 0.5}}
		out, faults, st := run(t, cfg, 3, All(), evs)
		check(t, cfg, evs, out, faults)
		if st.Applied[Reorder] < len(evs)/4 {
			t.Errorf("scope %s: %d reorders of %d events", scope, st.Applied[Reorder], len(evs))
		}
		if st.MaxHeld > 2*MinReorderLookahead {
			t.Errorf("scope %s: held %d events", scope, st.MaxHeld)
		}
		again, faults2, _ := run(t, cfg, 3, All(), evs)
		if !reflect.DeepEqual(out, again) || !reflect.DeepEqual(faults, faults2) {
			t.Errorf("scope %s: same seed gave different streams", scope)
		}
	}
}

// TestScopeValueNotRetained: an event's key may alias a buffer of the
// caller (evtool's records alias the event text); once the event is
// delivered the stream must not keep that buffer alive, though later
// events of the key are still in the lookahead.
func TestScopeValueNotRetained(t *testing.T) {
	s, err := NewStream(Config{Reorder: &ReorderConfig{Window: 4, Scope: ScopeKey, Rate: 1e-9}}, 1, All(), func(Delivery[int]) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	push := func(tag bool) {
		buf := make([]byte, 64) // not a tiny allocation, which cleanups may skip
		copy(buf, "key-1")
		if tag {
			runtime.AddCleanup(&buf[0], func(struct{}) { close(released) }, struct{}{})
		}
		if err := s.Push(Event{ID: "e", Type: "t", Key: unsafe.String(&buf[0], len("key-1"))}, 0); err != nil {
			t.Fatal(err)
		}
	}
	push(true) // the first event of the key: planned once 4 more are in
	for range 6 {
		push(false)
	}
	defer runtime.KeepAlive(s) // the stream is alive, its lookahead too
	for range 20 {
		runtime.GC()
		select {
		case <-released:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("the stream keeps the key buffer of a delivered event")
}

func TestRebalancePlan(t *testing.T) {
	cfg, err := Config{Crash: &CrashConfig{Count: 2}, Rebalance: &RebalanceConfig{Count: 4, Eager: true}}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Rebalance.Kinds; !slices.Equal(got, []RebalanceKind{Join, Leave, Kill, Stall, Eager}) {
		t.Fatalf("kinds %v", got)
	}
	plan := GroupPlan(cfg, 7)
	if len(plan) != 6 {
		t.Fatalf("%d faults, want 6", len(plan))
	}
	for i, f := range plan {
		if f.Index != i {
			t.Errorf("fault %d has index %d", i, f.Index)
		}
		if i < 2 {
			continue
		}
		k := i - 2
		if f.Kind != Rebalance || f.Rebalance != k+1 || !slices.Contains(cfg.Rebalance.Kinds, f.Move) {
			t.Errorf("fault %d: %+v", i, f)
		}
		if lo, hi := (float64(k)+0.15)/4, (float64(k)+0.85)/4; f.Progress < lo || f.Progress > hi {
			t.Errorf("fault %d at %v, want within (%v, %v)", i, f.Progress, lo, hi)
		}
	}
	if again := GroupPlan(cfg, 7); !slices.Equal(again, plan) {
		t.Error("the plan is not a function of the seed")
	}
	// The stream numbers the event faults after them.
	var seen []Fault
	s, err := NewStream(Config{Rebalance: &RebalanceConfig{Count: 2}, Duplicate: &DuplicateConfig{Rate: 1}}, 7, All(), func(Delivery[int]) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	s.Observe(func(f Fault, _ bool) { seen = append(seen, f) })
	if err := s.Push(Event{ID: "a"}, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 || seen[0].Kind != Rebalance || seen[1].Kind != Rebalance || seen[2].Kind != Duplicate || seen[2].Index != 2 {
		t.Fatalf("faults %+v", seen)
	}
	if !strings.Contains(seen[0].String(), "rebalance 1 (") {
		t.Errorf("description %q", seen[0])
	}
}

func TestRebalanceConfigErrors(t *testing.T) {
	for _, c := range []RebalanceConfig{
		{Count: 101},
		{Kinds: []RebalanceKind{"shuffle"}},
		{At: CrashAfterCommit},
		{Stall: -time.Second},
	} {
		if _, err := (Config{Rebalance: &c}).Normalize(); err == nil || !strings.Contains(err.Error(), "chaos.rebalance.") {
			t.Errorf("%+v: error %v", c, err)
		}
	}
}
