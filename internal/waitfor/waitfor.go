// Package waitfor is how tests wait for something another goroutine or
// process makes true (a file written, a process gone, a record consumed):
// they watch the observable condition until a deadline instead of
// sleeping a guessed time, so a loaded machine makes them slower, never
// wrong.
package waitfor

import (
	"testing"
	"time"
)

// interval is how often a condition is checked: short beside any
// deadline, long enough not to load a busy machine.
const interval = 10 * time.Millisecond

// Condition reports whether cond became true within d, checking it at
// once and then every interval.
func Condition(d time.Duration, cond func() bool) bool {
	if cond() {
		return true
	}
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if cond() {
				return true
			}
		case <-deadline.C:
			return cond()
		}
	}
}

// Must fails the test when cond does not become true within d; what
// names the condition in the failure ("the pid file").
func Must(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Condition(d, cond) {
		t.Fatalf("%s: not within %s", what, d)
	}
}
