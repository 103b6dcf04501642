package replay

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// stallBound is how long a test's replay may go without progress (a
// phase begun, events produced, the group's lag changed) before the test
// calls it hung. It bounds a hang, not the work: a replay that moves,
// however slowly a loaded machine lets it, is never cut off, where a
// deadline on the whole replay failed it at load 30 (TestReplaySASL,
// TestGroupCorrectThroughKafka, seed 4 of
// TestGroupCorrectTwentySeeds, now TestGroupCorrectSixSeeds).
// Between two progress reports the harness waits at most its own bounds
// (a state read, a stop's grace, the group settling), each well under it.
const stallBound = 3 * time.Minute

// settleHangBound is consumer.settle_timeout in the scenarios of the
// tests whose consumer must settle (the correct ones): a bound on a hang
// only, as the progress watch fails a stuck replay sooner. The consumers
// whose failure is not settling keep short bounds, which are what those
// tests are about.
const settleHangBound = "5m"

// progressWatch is an Options.Progress that cancels its replay's context
// when nothing progressed for stallBound, and fails the test saying where
// the replay stood.
type progressWatch struct {
	t      testing.TB
	next   Progress
	cancel context.CancelFunc

	mu   sync.Mutex
	last time.Time
	what string
	lag  map[string]int64
}

// watchProgress returns a context that ends when the test ends or its
// replay stalls, and opts with the watch as Progress (in front of
// opts.Progress, which still gets every report).
func watchProgress(t testing.TB, opts Options) (context.Context, Options) {
	ctx, cancel := context.WithCancel(context.Background())
	w := &progressWatch{t: t, next: opts.Progress, cancel: cancel, last: time.Now(), what: "before the first run", lag: map[string]int64{}}
	opts.Progress = w
	done, stopped := make(chan struct{}), make(chan struct{})
	// The watch has stopped before the test ends: it may fail the test.
	t.Cleanup(func() { close(done); <-stopped; cancel() })
	go func() {
		defer close(stopped)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				w.mu.Lock()
				idle, what := time.Since(w.last), w.what
				w.mu.Unlock()
				if idle >= stallBound {
					t.Errorf("the replay made no progress for %s (last: %s): hung", idle.Round(time.Second), what)
					cancel()
					return
				}
			}
		}
	}()
	return ctx, opts
}

func (w *progressWatch) moved(what string) {
	w.mu.Lock()
	w.last, w.what = time.Now(), what
	w.mu.Unlock()
}

func (w *progressWatch) Phase(run, phase string) {
	w.moved(fmt.Sprintf("run %s: %s", run, phase))
	if w.next != nil {
		w.next.Phase(run, phase)
	}
}

func (w *progressWatch) Produced(run string, done, total int64) {
	w.moved(fmt.Sprintf("run %s: produced %d of %d", run, done, total))
	if w.next != nil {
		w.next.Produced(run, done, total)
	}
}

// Lag is reported at every poll while settling: only a change is
// progress.
func (w *progressWatch) Lag(run string, lag int64) {
	w.mu.Lock()
	prev, seen := w.lag[run]
	w.lag[run] = lag
	w.mu.Unlock()
	if !seen || prev != lag {
		w.moved(fmt.Sprintf("run %s: lag %d", run, lag))
	}
	if w.next != nil {
		w.next.Lag(run, lag)
	}
}
