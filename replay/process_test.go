//go:build unix

package replay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evtool/evtool/internal/supervise"
	"github.com/evtool/evtool/internal/supervise/supervisetest"
)

// procScript returns the absolute path of a script in testdata/proc.
func procScript(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "proc", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A state command past its time limit is killed with its group (its
// background child held its stdout: exec.CommandContext waited for that
// too), and the error names the limit.
func TestStateCommandLimits(t *testing.T) {
	t.Parallel()
	sp := supervise.NewSpawner()
	defer sp.Close()
	for _, tc := range []struct {
		name string
		argv []string
		lim  stateLimits
		want string
	}{
		{"time", []string{procScript(t, "state-slow-child.sh")}, stateLimits{Time: 300 * time.Millisecond, Size: MaxStateSize},
			"did not finish within 300ms (the limit on a state command): killed"},
		{"size", []string{"yes", "{}"}, stateLimits{Time: time.Minute, Size: 1 << 20},
			"wrote more than 1 MiB (the limit on a consumer's state) to stdout: killed"},
		{"size in bytes", []string{"yes", "{}"}, stateLimits{Time: time.Minute, Size: 1000},
			"wrote more than 1000 bytes (the limit on a consumer's state)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := runStateCommand(context.Background(), sp, tc.argv, "", os.Environ(), tc.lim, io.Discard)
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("err = %v, want %q", err, tc.want)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the state command was waited for past its limit")
			}
		})
	}
}

// A state command that exits leaving a child in its group: the state is
// read, the child killed at once, and that is reported.
func TestStateCommandLeavesChild(t *testing.T) {
	t.Parallel()
	sp := supervise.NewSpawner()
	defer sp.Close()
	var out bytes.Buffer
	killed, err := runStateCommand(context.Background(), sp, []string{procScript(t, "state-leaves-child.sh")}, "", os.Environ(),
		stateLimits{Time: time.Minute, Size: MaxStateSize}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if raw := out.String(); raw != "{\"n\": 1}\n" {
		t.Errorf("state %q", raw)
	}
	if len(killed) != 1 || !strings.HasPrefix(killed[0], "the state command (pid ") ||
		!strings.HasSuffix(killed[0], "exited, but its process group still had processes: they were killed (SIGKILL)") {
		t.Errorf("killed %q", killed)
	}
}

// startLeftover starts what a replay killed in root would have left
// running (a process whose EVTOOL_WORKDIR is a run's directory in root),
// and returns once a scan of /proc can see that: right after Start the
// kernel may not have finished the exec, and the process's environment
// reads empty (under load the scan then missed it, one run in a few
// hundred). It is killed when the test ends.
func startLeftover(t *testing.T, root string) *exec.Cmd {
	t.Helper()
	entry := "EVTOOL_WORKDIR=" + filepath.Join(root, "baseline")
	cmd := exec.Command("sleep", "60")
	cmd.Env = append(os.Environ(), entry)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	supervisetest.EnvironHas(t, cmd.Process.Pid, entry)
	return cmd
}

// Only work roots that carry the marker (a regular file) and whose replay
// no longer holds it locked are removed; a marker that is a FIFO does not
// block the scan. On Linux what the killed replay left running in its root
// is killed, and nothing else.
func TestRemoveStaleWorkRoots(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	mk := func(name string) string {
		d := filepath.Join(parent, name)
		if err := os.MkdirAll(filepath.Join(d, "baseline"), 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	stale := mk(workRootPrefix + "stale")
	f, err := lockWorkRoot(stale)
	if err != nil {
		t.Fatal(err)
	}
	f.Close() // as the kernel does when evtool is SIGKILLed
	live := mk(workRootPrefix + "live")
	lf, err := lockWorkRoot(live)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	unmarked := mk(workRootPrefix + "unmarked")
	other := mk("other")
	if err := os.WriteFile(filepath.Join(other, workRootLockName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := mk(workRootPrefix + "fifo")
	if err := syscall.Mkfifo(filepath.Join(fifo, workRootLockName), 0o600); err != nil {
		t.Fatal(err)
	}
	target := mk("target")
	if err := os.WriteFile(filepath.Join(target, "lock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	symlinked := mk(workRootPrefix + "symlink")
	if err := os.Symlink(filepath.Join(target, "lock"), filepath.Join(symlinked, workRootLockName)); err != nil {
		t.Fatal(err)
	}
	orphan, busy := startLeftover(t, stale), startLeftover(t, live)
	// Running the same binary, named like the stale root but outside it.
	neighbour := startLeftover(t, stale+"-not")

	done := make(chan []staleRoot, 1)
	go func() { done <- removeStaleWorkRoots(parent) }()
	var removed []staleRoot
	select {
	case removed = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("removeStaleWorkRoots blocked (on the FIFO marker?)")
	}
	if len(removed) != 1 || removed[0].Dir != stale {
		t.Fatalf("removed %+v, want only %s", removed, stale)
	}
	for _, d := range []string{live, unmarked, other, fifo, symlinked, filepath.Join(target, "lock")} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
	if runtime.GOOS != "linux" {
		return
	}
	if k := removed[0].Killed; len(k) != 1 || k[0] != orphan.Process.Pid {
		t.Errorf("killed %v, want the stale root's leftover %d", k, orphan.Process.Pid)
	}
	if err := orphan.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("the stale root's leftover: %v", err)
	}
	for _, c := range []*exec.Cmd{busy, neighbour} {
		if !supervisetest.Running(c.Process.Pid) {
			t.Errorf("pid %d (%s) was killed", c.Process.Pid, c.Env[len(c.Env)-1])
		}
	}
}

// A root kept with --keep carries no marker: the next replay must not
// remove it, even when the replay that kept it was killed before Close.
func TestKeptWorkRootIsNotStale(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for _, keep := range []bool{false, true} {
		h := &Harness{sc: &Scenario{File: "s.yaml"}, opts: Options{Keep: keep}}
		root, err := h.workRoot()
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(root) != tmp {
			t.Fatalf("root %s not in %s", root, tmp)
		}
		_, err = os.Stat(filepath.Join(root, workRootLockName))
		if keep != os.IsNotExist(err) {
			t.Errorf("keep %t: marker: %v", keep, err)
		}
		if h.rootLock != nil {
			h.rootLock.Close() // killed: no Close
		}
		removed := removeStaleWorkRoots(tmp)
		if _, err := os.Stat(root); keep && err != nil || !keep && len(removed) != 1 {
			t.Errorf("keep %t: removed %+v, %s: %v", keep, removed, root, err)
		}
	}
}

// --workdir DIR: existing directories named like runs (baseline, chaos,
// logs) are left alone; the runs get a new directory inside DIR, named in
// the report; a relative DIR reaches the consumer as an absolute
// EVTOOL_WORKDIR (it runs in consumer.dir).
func TestWorkDirKeepsWhatExists(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	dir := t.TempDir()
	keep := map[string]string{"baseline/keep.txt": "mine", "chaos/chaos.go": "package chaos", "logs/baseline.stdout": "old log"}
	for name, text := range keep {
		p := filepath.Join(dir, "out", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	consumerDir := filepath.Join(dir, "consumer")
	if err := os.Mkdir(consumerDir, 0o755); err != nil {
		t.Fatal(err)
	}
	text := scenarioText(t, "correct", testEvents(t, 30), "") + `  dir: ` + consumerDir + `
`
	text = strings.Replace(text, "env: {REPLAY_TEST_CONSUMER: correct}", "env: {REPLAY_TEST_CONSUMER: correct, REPLAY_TEST_TOUCH: touched}", 1)
	sc := writeScenario(t, text)
	t.Chdir(dir)
	ctx, opts := watchProgress(t, Options{WorkDir: "out", Baselines: 1, ShrinkBudget: -1})
	rep, err := Replay(ctx, sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != Pass {
		t.Fatalf("verdict %s: %s", rep.Verdict, rep.Summary)
	}
	for name, text := range keep {
		if b, err := os.ReadFile(filepath.Join(dir, "out", name)); err != nil || string(b) != text {
			t.Errorf("%s: %q, %v", name, b, err)
		}
	}
	if !filepath.IsAbs(rep.Workdir) || filepath.Dir(rep.Workdir) != filepath.Join(dir, "out") ||
		!strings.HasPrefix(filepath.Base(rep.Workdir), workRootPrefix+"scenario-") {
		t.Fatalf("workdir %q, want a new directory in %s", rep.Workdir, filepath.Join(dir, "out"))
	}
	for _, run := range rep.Runs {
		if _, err := os.Stat(filepath.Join(rep.Workdir, run.ID, "touched")); err != nil {
			t.Errorf("the consumer's EVTOOL_WORKDIR %s: %v", run.Workdir, err)
		}
	}
	var b strings.Builder
	if err := WriteText(&b, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "work directory and consumer logs: "+rep.Workdir+"\n") {
		t.Errorf("the report does not say where the work directory is:\n%s", b.String())
	}
}

// A consumer that ignores SIGTERM is SIGKILLed after the grace period,
// and the report says so.
func TestReplayReportsKilledConsumer(t *testing.T) {
	t.Parallel()
	text := strings.Replace(scenarioText(t, "correct", testEvents(t, 30), ""),
		"env: {REPLAY_TEST_CONSUMER: correct}", "env: {REPLAY_TEST_CONSUMER: correct, REPLAY_TEST_IGNORE_TERM: '1'}", 1)
	rep, err := replayText(t, text, Options{Baselines: 1, ShrinkBudget: -1, StopGrace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != Pass {
		t.Fatalf("verdict %s: %s", rep.Verdict, rep.Summary)
	}
	base := rep.Run("baseline")
	if len(base.Killed) != 1 || !strings.Contains(base.Killed[0], "did not exit within 300ms of SIGTERM: its process group was killed (SIGKILL)") {
		t.Errorf("baseline killed %q", base.Killed)
	}
	var b strings.Builder
	if err := WriteText(&b, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "warning: baseline run: the consumer (pid ") || !strings.Contains(b.String(), "did not exit within 300ms of SIGTERM") {
		t.Errorf("the text report does not say the consumer was killed:\n%s", b.String())
	}
}

// A consumer that commits past the end offsets fails the run (a lag of
// zero hid it); one that produces a retry to its own topic after the
// events were produced, and commits it, does not (the end offsets listed
// when producing ended are behind).
func TestCommitBeyondEnd(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode string
		fail bool
	}{
		{"over-commit", true},
		{"republish", false},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			text, opts := scenarioText(t, tc.mode, testEvents(t, 30), ""), Options{Baselines: 1, ShrinkBudget: -1}
			if tc.mode == "republish" {
				text, opts = waitForListing(t, text, opts)
			}
			rep, err := replayText(t, text, opts)
			if err != nil {
				t.Fatal(err)
			}
			base := rep.Run("baseline")
			if !tc.fail {
				if rep.Verdict != Pass {
					t.Fatalf("verdict %s: %s", rep.Verdict, rep.Summary)
				}
				return
			}
			if rep.Verdict != Fail || base.Failure == nil || base.Failure.Reason != "committed-beyond-end" {
				t.Fatalf("verdict %s, baseline failure %+v", rep.Verdict, base.Failure)
			}
			if !strings.Contains(base.Failure.Message, "committed offsets beyond the end of the topic (partition ") || !strings.Contains(base.Failure.Message, ", end offset ") {
				t.Errorf("message %q", base.Failure.Message)
			}
		})
	}
}

// A state endpoint that does not answer in time: the error names the
// limit, not "context deadline exceeded".
func TestStateHTTPTimeoutNamesLimit(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	for key, want := range map[string]string{
		"consumer.state_timeout": "no complete answer within 200ms (the limit on a state request: consumer.state_timeout)",
		// verify's producers: no scenario key sets the limit, none is named.
		"": "no complete answer within 200ms (the limit on a state request)",
	} {
		_, err := httpGet(context.Background(), srv.URL, 200*time.Millisecond, io.Discard, MaxStateSize, key)
		if err == nil || err.Error() != want {
			t.Fatalf("key %q: err = %v, want %q", key, err, want)
		}
	}
}

// A harness starts its process starter (a goroutine locked to an OS
// thread) only when it starts a process: one used for ListFaults or the
// mutator and never closed holds no thread. After Close nothing starts.
func TestHarnessSpawnerIsLazy(t *testing.T) {
	sc := writeScenario(t, "catalog: "+examplesDir+"\nevents: {file: "+examplesDir+"/events.jsonl}\nconsumer: {run: [x], state: {http: \"http://x\"}}\n")
	h, err := NewHarness(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h.spawn != nil {
		t.Fatal("NewHarness started a spawner")
	}
	sp := h.spawner()
	if sp != h.spawner() {
		t.Error("a second spawner")
	}
	h.Close()
	if _, err := h.spawner().Start(supervise.Spec{Argv: []string{"true"}, Env: os.Environ()}); err == nil {
		t.Error("a process started after Close")
	}
	h2, err := NewHarness(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	h2.Close()
	if _, err := h2.spawner().Start(supervise.Spec{Argv: []string{"true"}, Env: os.Environ()}); err == nil {
		t.Error("a process started after Close (no run before)")
	}
}

// With a relative TMPDIR the next replay still finds what a killed one
// left running: the scan compares absolute paths, as EVTOOL_WORKDIR is.
func TestStaleScanRelativeTmpdir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("leftovers are found through /proc")
	}
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("TMPDIR", "tmp")
	stale := filepath.Join(dir, "tmp", workRootPrefix+"killed")
	if err := os.MkdirAll(filepath.Join(stale, "baseline"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := lockWorkRoot(stale)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	cmd := startLeftover(t, stale)
	h := &Harness{sc: &Scenario{File: "s.yaml"}}
	defer h.Close()
	if _, err := h.workRoot(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale root: %v", err)
	}
	supervisetest.MustEnd(t, cmd.Process.Pid, "the leftover of the killed replay")
}

// A descendant that left the consumer's process group (setsid) is killed
// once the run has stopped, found by its EVTOOL_WORKDIR (Linux), and the
// run says so; before, it was only abandoned and ran on.
func TestStopKillsSetsidDescendant(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("found through /proc")
	}
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	text := `catalog: ` + examplesDir + `
events: {file: ` + testEvents(t, 10) + `}
consumer:
  run: [` + procScript(t, "../../../internal/supervise/testdata/setsid-holder.sh") + `, ` + pidFile + `]
  state: {http: "http://${EVTOOL_ADDR}/state"}
  settle_timeout: 1s
  quiet: 100ms
`
	rep, err := replayText(t, text, Options{Baselines: 1, ShrinkBudget: -1, StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	base := rep.Run("baseline")
	if base == nil || base.Failure == nil || base.Failure.Reason != "not-settled" {
		t.Fatalf("baseline %+v", base)
	}
	pid := supervisetest.PidFrom(t, pidFile)
	supervisetest.MustEnd(t, pid, "the setsid descendant, after the replay")
	want := fmt.Sprintf("processes [%d] with the run's EVTOOL_WORKDIR had left the process groups", pid)
	found := false
	for _, k := range base.Killed {
		found = found || strings.Contains(k, want)
	}
	if !found {
		t.Errorf("killed %q, want %q", base.Killed, want)
	}
}
