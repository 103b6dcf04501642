package pipeline

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evtool/evtool/internal/waitfor"
)

func counter(n int) func() (int, bool, error) {
	i := 0
	return func() (int, bool, error) {
		if i == n {
			return 0, false, nil
		}
		i++
		return i, true, nil
	}
}

func TestOrdered(t *testing.T) {
	var got []int
	err := Ordered(context.Background(), 4, 8, counter(1000), func(i int) int {
		if i%7 == 0 {
			time.Sleep(time.Microsecond * 50) // finish out of order: the delay is what is tested, not a wait
		}
		return i * 2
	}, func(o int) error {
		got = append(got, o)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1000 {
		t.Fatalf("got %d results", len(got))
	}
	for i, v := range got {
		if v != (i+1)*2 {
			t.Fatalf("result %d = %d: out of order", i, v)
		}
	}
}

func TestBoundedInFlight(t *testing.T) {
	var inFlight, peak atomic.Int64
	err := Ordered(context.Background(), 2, 5, counter(200), func(i int) int {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		return i
	}, func(int) error {
		inFlight.Add(-1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// 4 batches of 5 per worker in the queues, one batch per worker being
	// worked on, and one batch being assembled and emitted.
	if p := peak.Load(); p > 5*(4*2+2+2) {
		t.Fatalf("peak in flight %d exceeds the window", p)
	}
}

func TestErrors(t *testing.T) {
	boom := errors.New("boom")
	before := runtime.NumGoroutine()
	err := Ordered(context.Background(), 2, 4, counter(1000), func(i int) int { return i }, func(o int) error {
		if o == 10 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("emit error: %v", err)
	}
	i := 0
	err = Ordered(context.Background(), 2, 4, func() (int, bool, error) {
		i++
		if i == 5 {
			return 0, false, boom
		}
		return i, true, nil
	}, func(i int) int { return i }, func(int) error { return nil })
	if !errors.Is(err, boom) {
		t.Fatalf("read error: %v", err)
	}
	// The workers end after Ordered returns: wait for the count to come
	// down rather than for a guessed time.
	if !waitfor.Condition(10*time.Second, func() bool { return runtime.NumGoroutine() <= before+1 }) {
		t.Errorf("goroutines leaked: %d -> %d", before, runtime.NumGoroutine())
	}
}
