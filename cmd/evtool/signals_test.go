package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evtool/evtool/catalog/catalogtest"
)

// Started under nohup (SIGHUP ignored), evtool does not catch SIGHUP:
// signal.Notify would undo the ignore and a closed terminal would stop it.
func TestStopSignalsKeepNohup(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs child consumers or producers through kfake end to end (minutes on a loaded machine); TestScripts and TestDocSamples stand for the CLI in the short tier")
	}
	if signal.Ignored(syscall.SIGHUP) {
		t.Skip("the test itself runs under nohup")
	}
	if !slices.Contains(stopSignals(), os.Signal(syscall.SIGHUP)) {
		t.Error("SIGHUP does not stop a command")
	}
	signal.Ignore(syscall.SIGHUP)
	defer signal.Reset(syscall.SIGHUP)
	if slices.Contains(stopSignals(), os.Signal(syscall.SIGHUP)) {
		t.Error("SIGHUP caught although ignored (nohup)")
	}
}

// TestLintStopsOnSignal: SIGTERM or SIGINT during a long lint stops it
// soon, while it loads or between types, exit 2 with what it did, no
// report (a partial one would read as a clean catalog).
func TestLintStopsOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: lints a generated catalog of 300 types until a signal stops it")
	}
	dir := t.TempDir()
	if err := catalogtest.Generate(dir, catalogtest.GenOptions{Types: 300, Versions: 3, Mix: catalogtest.MixAll}); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			// Caught here as well for the whole test binary, never let go:
			// a signal sent before runUntilSignalled catches it, or
			// delivered after, must not end the test binary.
			signal.Notify(make(chan os.Signal, 1), sig)
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() {
				done <- runUntilSignalled([]string{"lint", "--dir", dir}, strings.NewReader(""), &stdout, &stderr)
			}()
			// Sent until it stops: the first may come before the command
			// listens.
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			var code int
		wait:
			for {
				if err := syscall.Kill(os.Getpid(), sig); err != nil {
					t.Fatal(err)
				}
				select {
				case code = <-done:
					break wait
				case <-tick.C:
				}
			}
			msg := stderr.String()
			if code != exitError || stdout.Len() > 0 {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and no report", code, stdout.String(), msg)
			}
			m := regexp.MustCompile(`^evtool: interrupted while (loading the catalog |linting .*: ([0-9]+) of 300 type\(s\) checked\n$)`).FindStringSubmatch(msg)
			if m == nil || m[2] == "300" {
				t.Fatalf("stderr %q: want it interrupted while loading, or linting before the last type", msg)
			}
		})
	}
}

// TestLintInterruptedBeforeLoad: lint with its context done reads
// nothing: exit 2, interrupted while loading.
func TestLintInterruptedBeforeLoad(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"lint", "--dir", "../../examples/orders"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitError || stdout.Len() > 0 || !strings.HasPrefix(stderr.String(), "evtool: interrupted while loading the catalog ../../examples/orders: ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// TestLintStopsBetweenTypes: lint looks at its context between types:
// cancelled while it checks them, it stops at the next one.
func TestLintStopsBetweenTypes(t *testing.T) {
	dir := t.TempDir()
	if err := catalogtest.Generate(dir, catalogtest.GenOptions{Types: 30, Versions: 2, Mix: catalogtest.MixAll, Shared: 2}); err != nil {
		t.Fatal(err)
	}
	lint := func(ctx context.Context) (int, string) {
		var stdout, stderr bytes.Buffer
		return run(ctx, []string{"lint", "--dir", dir}, strings.NewReader(""), &stdout, &stderr), stderr.String()
	}
	// How often a whole run asks: the load once per file it reads, then
	// once per type, the same on every run.
	count := &countdownContext{Context: context.Background(), left: -1, done: make(chan struct{})}
	if code, stderr := lint(count); code != exitOK {
		t.Fatalf("uncancelled: exit %d, stderr %q", code, stderr)
	}
	// Done as the checks of the last 10 types would begin.
	ctx := &countdownContext{Context: context.Background(), left: count.asked - 10, done: make(chan struct{})}
	code, stderr := lint(ctx)
	if want := "evtool: interrupted while linting " + dir + ": 20 of 30 type(s) checked\n"; code != exitError || stderr != want {
		t.Fatalf("exit %d, stderr %q; want exit 2, %q", code, stderr, want)
	}
}

// countdownContext is done from the left-th call of Err on (never when
// left is negative), and counts the calls in asked.
type countdownContext struct {
	context.Context
	mu    sync.Mutex
	left  int
	asked int
	done  chan struct{}
}

func (c *countdownContext) Done() <-chan struct{} { return c.done }

func (c *countdownContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked++
	if c.left < 0 {
		return nil
	}
	if c.left == 0 {
		select {
		case <-c.done:
		default:
			close(c.done)
		}
		return context.Canceled
	}
	c.left--
	return nil
}

// TestCompatAgainstInterruptedBeforeLoad: compat check --against REV with
// its context done says it was interrupted, whichever of git's commands
// the signal stopped (it said "--against HEAD: git cat-file: signal:
// killed", as if git had failed), with contracts (the base read whole) or
// without (the prefilter).
func TestCompatAgainstInterruptedBeforeLoad(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, contracts := range []bool{false, true} {
		dir := t.TempDir()
		files := map[string]string{
			"evtool.yaml":                      "version: 1\nschemas: schemas\n",
			"schemas/com.example.a/v1.json":    `{"type":"object","properties":{"n":{"type":"string"}}}`,
			"schemas/com.example.a/event.yaml": "description: a\n",
		}
		if contracts {
			files["consumers/c.yaml"] = "owner: t\nreads:\n  com.example.a:\n    versions: [1]\n    fields: [/n]\n"
		}
		writeFiles(t, dir, files)
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "base"}} {
			if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var stdout, stderr bytes.Buffer
		code := run(ctx, []string{"compat", "check", "--dir", dir, "--against", "HEAD"}, strings.NewReader(""), &stdout, &stderr)
		if code != exitError || stdout.Len() > 0 || !strings.HasPrefix(stderr.String(), "evtool: interrupted while loading the catalog ") {
			t.Errorf("contracts %v: exit %d, stdout %q, stderr %q", contracts, code, stdout.String(), stderr.String())
		}
	}
}
