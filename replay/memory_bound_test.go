package replay

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/internal/heapwatch"
	"github.com/evtool/evtool/kafka"
)

// retainedHeap returns how much the live heap grew while build ran, with
// what it returned still reachable: the memory a run keeps for it.
func retainedHeap(t *testing.T, build func() any) uint64 {
	t.Helper()
	return heapwatch.Retained(build)
}

// TestDeadLettersMemoryBounded guards the design: reading a run's DLQ
// keeps what the checks need of each record (ids, offsets, the error
// header, a digest of key and value), not its value. 2,000 dead letters
// of 32 KiB each (64 MiB) keep less than 4 MiB; holding the records, as
// before, kept all of it.
func TestDeadLettersMemoryBounded(t *testing.T) {
	const n, size = 2000, 32 << 10
	poison := poisonIDs{}
	for i := range n {
		poison.add(chaos.Fault{Kind: chaos.Poison, Poison: chaos.InvalidData, Event: chaos.Event{Index: int64(i)}, PoisonID: fmt.Sprintf("evtool-poison-1-%d", i)})
	}
	pad := strings.Repeat("x", size)
	i := 0
	next := func() (*kgo.Record, error) {
		if i == n {
			return nil, kafka.ErrEnd
		}
		// The poison id only inside the value: found by the scan.
		r := &kgo.Record{Partition: int32(i % 3), Offset: int64(i), Key: []byte("k"),
			Value:   []byte(fmt.Sprintf(`{"wrapped": "evtool-poison-1-%d", "pad": "%s"}`, i, pad)),
			Headers: []kgo.RecordHeader{{Key: "x-exception-message", Value: []byte("bad data")}}}
		i++
		return r, nil
	}
	var dead []deadLetter
	grew := retainedHeap(t, func() any {
		var err error
		dead, err = collectDeadLetters(next, poison)
		if err != nil {
			t.Fatal(err)
		}
		return dead
	})
	if len(dead) != n || dead[n-1].ID != fmt.Sprintf("evtool-poison-1-%d", n-1) || dead[0].Poison != chaos.InvalidData || dead[0].Error != "x-exception-message: bad data" {
		t.Fatalf("%d dead letters, last %+v", len(dead), dead[len(dead)-1].DLQRecord)
	}
	const bound = 4 << 20
	if grew > bound {
		t.Errorf("%d dead letters of %d KiB kept %.1f MiB; the bound is %d MiB", n, size>>10, float64(grew)/(1<<20), bound>>20)
	}
}

// TestPoisonIDsMemoryBounded guards the design: a run keeps of each
// poison fault its id, kind and event, not the fault, whose strings alias
// the text of the event it was planned from. 5,000 poison faults of 8 KiB
// events keep less than 4 MiB; keeping the faults, as before, kept the 40
// MiB of event text.
func TestPoisonIDsMemoryBounded(t *testing.T) {
	const n, size = 5000, 8 << 10
	pad := strings.Repeat("y", size)
	grew := retainedHeap(t, func() any {
		p := poisonIDs{}
		for i := range n {
			// As fastRecord does: the id and key are slices of the text.
			text := fmt.Sprintf(`{"id":"e-%06d","key":"k-%06d","pad":"%s"}`, i, i, pad)
			f := chaos.Fault{Index: i, Kind: chaos.Poison, Poison: chaos.Undecodable,
				Event:    chaos.Event{Index: int64(i), ID: text[7:15], Key: text[24:32]},
				PoisonID: fmt.Sprintf("evtool-poison-7-%d", i)}
			p.add(f)
		}
		return p
	})
	const bound = 4 << 20
	if grew > bound {
		t.Errorf("%d poison faults of %d KiB events kept %.1f MiB; the bound is %d MiB", n, size>>10, float64(grew)/(1<<20), bound>>20)
	}
}

// A value of repeated poison-id prefixes (all id bytes) is read once:
// finding a poison id in it does not cost a pass per prefix.
func TestPoisonInValueRepeatedPrefixes(t *testing.T) {
	poison := poisonIDs{"evtool-poison-1-2": {}}
	v := []byte(strings.Repeat(chaos.PoisonIDPrefix, 200000) + "1-2")
	start := time.Now()
	// The id ends the run: found whole, as containsWhole finds it.
	if got := poisonInValue(v, poison); got != "evtool-poison-1-2" || !containsWhole(v, got) {
		t.Errorf("got %q", got)
	}
	if got := poisonInValue(v[:len(v)-1], poison); got != "" {
		t.Errorf("found %q in a run without it", got)
	}
	// Generous: a pass per prefix takes minutes.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
	if got := poisonInValue([]byte(`{"a": "evtool-poison-1-2"}`), poison); got != "evtool-poison-1-2" {
		t.Errorf("got %q", got)
	}
	// With more than a few ids the map hashes every key it looks up: a
	// candidate longer than any poison id must not be hashed (4 MiB of
	// prefixes once took a pass over the rest of the run per prefix).
	many := poisonIDs{}
	for i := range 100 {
		many[fmt.Sprintf("%s%d-%d", chaos.PoisonIDPrefix, int64(-9223372036854775807), i)] = poisonRef{}
	}
	long := fmt.Sprintf("%s%d-%d", chaos.PoisonIDPrefix, int64(-9223372036854775807), 99)
	if len(long) > chaos.MaxPoisonIDLen {
		t.Fatalf("%q is longer than MaxPoisonIDLen", long)
	}
	v = []byte(strings.Repeat(chaos.PoisonIDPrefix, 4<<20/len(chaos.PoisonIDPrefix)) + long[len(chaos.PoisonIDPrefix):])
	start = time.Now()
	if got := poisonInValue(v, many); got != long {
		t.Errorf("got %q, want %q", got, long)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("4 MiB of prefixes with 100 poison ids took %s", d)
	}
}
