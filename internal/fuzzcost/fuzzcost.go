// Package fuzzcost lets a fuzz target check what an input costs, not only
// that it does not panic: the principle every parser of outside input
// keeps is that an input of a few kilobytes finishes in well under a
// second and 100 MB, or is refused. A fuzz target measures its work on
// each input with Measure and fails when the cost is beyond the target's
// Bound for the input's size.
//
// The bound is linear in the input: Bound{Bytes: b, BytesPerByte: k}
// lets an input of n bytes allocate b + k*n bytes in total (the sum of
// every allocation, an upper bound of the memory it holds at once), and
// CPU: c, CPUPerByte: d lets it use c + d*n of processor time (the
// process's user and system time where the system reports it, wall time
// elsewhere). Default() is 64 MiB + 16 KiB per byte and 5 s + 2 ms per
// byte: a 4 KB input may allocate 128 MiB and use 13 s, far above what
// the bounded paths cost (a few MB and milliseconds) and far below the
// blow-ups the bounds guard against (gigabytes, minutes). Allocation is
// the sharp check; the time bound is loose because fuzz workers and
// parallel test runs share the machine.
//
// Measure reads process-wide counters, so it is exact only when nothing
// else runs: in a fuzz worker, or in the seed run of a fuzz target (Go
// runs them after the package's tests).
package fuzzcost

import (
	"runtime"
	"testing"
	"time"
)

// Bound is the most one input may cost: a fixed allowance plus a
// multiple of its size.
type Bound struct {
	Bytes, BytesPerByte int64
	CPU, CPUPerByte     time.Duration
}

// Default is the bound of the principle; see the package comment.
func Default() Bound {
	return Bound{Bytes: 64 << 20, BytesPerByte: 16 << 10, CPU: 5 * time.Second, CPUPerByte: 2 * time.Millisecond}
}

// Cost is what one call measured.
type Cost struct {
	Bytes int64
	CPU   time.Duration
}

// Allowed is b's limit for an input of size bytes.
func (b Bound) Allowed(size int) Cost {
	return Cost{Bytes: b.Bytes + b.BytesPerByte*int64(size), CPU: b.CPU + b.CPUPerByte*time.Duration(size)}
}

// Measure runs fn and returns the bytes it allocated and the processor
// time it used.
func Measure(fn func()) Cost {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := cpuTime()
	fn()
	used := cpuTime() - start
	runtime.ReadMemStats(&after)
	return Cost{Bytes: int64(after.TotalAlloc - before.TotalAlloc), CPU: used}
}

// Check runs fn on an input of size bytes and fails t when it cost more
// than b allows.
func (b Bound) Check(t testing.TB, size int, fn func()) Cost {
	t.Helper()
	c := Measure(fn)
	if lim := b.Allowed(size); c.Bytes > lim.Bytes || c.CPU > lim.CPU {
		t.Errorf("an input of %d bytes cost %d bytes allocated and %v; the bound is %d bytes and %v (fuzzcost: %d + %d per byte, %v + %v per byte)",
			size, c.Bytes, c.CPU.Round(time.Millisecond), lim.Bytes, lim.CPU, b.Bytes, b.BytesPerByte, b.CPU, b.CPUPerByte)
	}
	return c
}

// wallClock is the fallback clock where the process's CPU time is not
// known.
func wallClock() time.Duration { return time.Duration(time.Now().UnixNano()) }
