package chaos

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

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
		if d.Value != int(d.Event.Index) {
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
			if f.After <= f.Event.Index || f.After > f.Event.Index+int64(cfg.Reorder.Window) {
				t.Fatalf("%v: target outside the window", f)
			}
			if cfg.Reorder.Scope == ScopeKey && evs[f.After].Key != f.Key {
				t.Fatalf("%v: target has key %s", f, evs[f.After].Key)
			}
		}
	}
	if copies != wantCopies {
		t.Fatalf("%d copies delivered, %d duplicate faults applied", copies, wantCopies)
	}
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
	// Keys never repeat within the window: scope key cannot reorder.
	evs := events(100, 50)
	_, faults, st := run(t, Config{Reorder: &ReorderConfig{Window: 3, Scope: ScopeKey, Rate: 1}}, 1, All(), evs)
	if st.Planned[Reorder] != 0 || len(faults) != 0 {
		t.Fatalf("planned %v", faults)
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
