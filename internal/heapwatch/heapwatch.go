// Package heapwatch measures the live heap for tests that guard a memory
// bound by design (what a run keeps, how far a step makes the heap rise).
package heapwatch

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

const liveBytes = "/gc/heap/live:bytes"

func live() uint64 {
	s := []metrics.Sample{{Name: liveBytes}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// PeakGrowth returns how far the live heap rose above its level before f
// while f ran, sampled every millisecond (collections made frequent, so
// that the live figure follows what f holds).
func PeakGrowth(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	before := live()
	var peak atomic.Uint64
	raise := func(v uint64) {
		if v > peak.Load() {
			peak.Store(v)
		}
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			raise(live())
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	runtime.GC()
	close(stop)
	<-done
	raise(live())
	return peak.Load() - min(before, peak.Load())
}

// Retained returns how much the live heap grew while build ran, with what
// it returned still reachable: the memory kept for it.
func Retained(build func() any) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	before := live()
	kept := build()
	runtime.GC()
	after := live()
	runtime.KeepAlive(kept)
	return after - min(before, after)
}
