//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestValidateFIFOInterrupted: validate of a named pipe nobody writes to
// (open blocks until a writer comes) stops at once when interrupted, as it
// does reading stdin, instead of ignoring Ctrl-C.
func TestValidateFIFOInterrupted(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "events.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"validate", "--dir", "../../examples/orders", fifo}, strings.NewReader(""), &stdout, &stderr)
	}()
	// A writer to test for a reader would unblock the open, so the
	// signal is the kernel's: a thread of this process blocked in
	// openat (Linux). Cancelled earlier (elsewhere, or had the signal been
	// a catalog file's open), validate must end the same way, so the
	// test cannot pass wrongly.
	blockedInOpen(t, done)
	cancel()
	select {
	case code := <-done:
		if code != exitError || !strings.Contains(stderr.String(), "evtool: interrupted while reading "+fifo) {
			t.Fatalf("exit %d, stderr %q", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("validate did not stop when interrupted")
	}
}

// openatSyscall is openat's number in /proc/PID/task/TID/syscall, by
// architecture.
func openatSyscall() string {
	switch runtime.GOARCH {
	case "amd64":
		return "257"
	case "arm64", "riscv64", "loong64":
		return "56"
	}
	return ""
}

// blockedInOpen waits until a thread of this process has been in openat
// on two looks 20 ms apart (an ordinary file's open is over by then), or
// run ended; it returns at once where /proc does not say (not Linux).
func blockedInOpen(t *testing.T, done <-chan int) {
	t.Helper()
	nr := openatSyscall()
	if _, err := os.Stat("/proc/self/task"); err != nil || nr == "" {
		return
	}
	inOpen := func() bool {
		tasks, _ := filepath.Glob("/proc/self/task/*/syscall")
		for _, f := range tasks {
			if b, err := os.ReadFile(f); err == nil && strings.HasPrefix(string(b), nr+" ") {
				return true
			}
		}
		return false
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	seen := false
	for {
		select {
		case code := <-done:
			t.Fatalf("validate ended (exit %d) before it was interrupted", code)
		case <-deadline:
			t.Fatal("no thread blocked opening the FIFO within 10 s")
		case <-tick.C:
			now := inOpen()
			if now && seen {
				return
			}
			seen = now
		}
	}
}
