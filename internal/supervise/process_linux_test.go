package supervise

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// The consumer gets a parent-death signal tied to the spawner's thread:
// when that thread ends (as when evtool is killed), the kernel kills it.
func TestParentDeathSignal(t *testing.T) {
	t.Parallel()
	sp := spawnerOffMainThread(t)
	p, err := sp.Start(Spec{Argv: []string{"sleep", "60"}, Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	sp.Close() // the locked goroutine returns: its thread exits
	select {
	case <-p.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the child survived the thread that started it")
	}
	if _, how := p.Exited(); how != "signal: killed" {
		t.Errorf("exit %q", how)
	}
}

// spawnerOffMainThread returns a spawner whose thread is not the
// process's main thread. A goroutine may run on the main thread, and when
// one locked to it returns the Go runtime parks that thread instead of
// ending it: no parent-death signal then (the test failed now and then
// under load). A spawner found on the main thread stays open until the
// test ends, so the next one cannot land there.
func spawnerOffMainThread(t *testing.T) *Spawner {
	t.Helper()
	for range 100 {
		sp := NewSpawner()
		tid := 0
		if err := sp.run(func() error { tid = syscall.Gettid(); return nil }); err != nil {
			t.Fatal(err)
		}
		if tid != os.Getpid() {
			return sp
		}
		t.Cleanup(sp.Close)
	}
	t.Fatal("every spawner ran on the main thread")
	return nil
}

// The spawner's thread can be the main thread, which does not end when
// its goroutine returns: spawnerOffMainThread is needed. The test finds
// such a spawner and checks that its child outlives close.
func TestSpawnerOnMainThreadKeepsChild(t *testing.T) {
	var sp *Spawner
	for range 200 {
		s := NewSpawner()
		tid := 0
		if err := s.run(func() error { tid = syscall.Gettid(); return nil }); err != nil {
			t.Fatal(err)
		}
		if tid == os.Getpid() {
			sp = s
			break
		}
		defer s.Close()
	}
	if sp == nil {
		t.Skip("no spawner ran on the main thread in 200 tries")
	}
	p, err := sp.Start(Spec{Argv: []string{"sleep", "60"}, Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	sp.Close()
	select {
	case <-p.Done():
		t.Fatal("the child died: the main thread ended after all")
	case <-time.After(time.Second):
	}
}
