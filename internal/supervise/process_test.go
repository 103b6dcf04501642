//go:build unix

package supervise

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evtool/evtool/internal/supervise/supervisetest"
)

// The test binary doubles as a program that starts a process as a
// harness does (see starter).
func TestMain(m *testing.M) {
	if os.Getenv("SUPERVISE_TEST_STARTER") != "" {
		os.Exit(starter())
	}
	os.Exit(m.Run())
}

// starter starts `sleep 60` as a harness starts a consumer, prints its
// pid and waits to be killed.
func starter() int {
	sp := NewSpawner()
	p, err := sp.Start(Spec{Argv: []string{"sleep", "60"}, Env: os.Environ()})
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 2
	}
	os.Stdout.WriteString(strconv.Itoa(p.Pid()) + "\n")
	select {}
}

// script returns the absolute path of a script in testdata.
func script(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func startScript(t *testing.T, sp *Spawner, spec Spec, name string, args ...string) *Process {
	t.Helper()
	spec.Argv = append([]string{script(t, name)}, args...)
	spec.Env = os.Environ()
	p, err := sp.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Kill() })
	return p
}

// startWithPid runs a script that writes the pid of a descendant to the
// file named by its argument, and returns that pid.
func startWithPid(t *testing.T, name string) (*Process, int) {
	sp := NewSpawner()
	t.Cleanup(sp.Close)
	pidFile := filepath.Join(t.TempDir(), "pid")
	p := startScript(t, sp, Spec{}, name, pidFile)
	return p, supervisetest.PidFrom(t, pidFile)
}

func hasNote(p *Process, s string) bool {
	for _, n := range p.Notes() {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// lineSignal closes seen once a line equal to want has been written to
// it: a process's readiness, read from its output.
type lineSignal struct {
	want string
	seen chan struct{}
	mu   sync.Mutex
	buf  []byte
	once sync.Once
}

func newLineSignal(want string) *lineSignal {
	return &lineSignal{want: want, seen: make(chan struct{})}
}

func (l *lineSignal) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		if string(l.buf[:i]) == l.want {
			l.once.Do(func() { close(l.seen) })
		}
		l.buf = l.buf[i+1:]
	}
}

// A descendant that left the group (setsid) and holds the consumer's
// output does not hold up the stop: evtool stops reading after
// outputDrain and says so. (exec.Cmd without WaitDelay waited the 30 s of
// the descendant.)
func TestStopDoesNotWaitForSetsidDescendant(t *testing.T) {
	t.Parallel()
	p, _ := startWithPid(t, "setsid-holder.sh")
	stopped := make(chan string, 1)
	go func() { stopped <- p.Stop(5 * time.Second) }()
	select {
	case how := <-stopped:
		if how != "signal: terminated" {
			t.Errorf("exit %q", how)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Stop waited for the setsid descendant holding the output")
	}
	if !hasNote(p, "ended, but a process outside its process group (started with setsid?) still held its stdout or stderr") {
		t.Errorf("notes %q", p.Notes())
	}
}

// A process that exits on its own takes the rest of its process group
// with it, and Done does not wait for the child holding its output.
func TestSelfExitKillsTheGroup(t *testing.T) {
	t.Parallel()
	p, child := startWithPid(t, "leaves-child.sh")
	select {
	case <-p.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("Done waited for the child left in the group")
	}
	supervisetest.MustEnd(t, child, "the child left in the group after its parent exited")
	if !hasNote(p, "exited, but its process group still had processes: they were killed") {
		t.Errorf("notes %q", p.Notes())
	}
	if _, how := p.Exited(); how != "exit status 0" {
		t.Errorf("exit %q", how)
	}
	if l := p.Stderr(); len(l) != 1 || l[0] != "done" {
		t.Errorf("output %q", l)
	}
}

// A consumer that ignores SIGTERM is killed after the grace period, and
// the notes say so. The SIGTERM is sent only once the script says its
// trap is set: sent before (a guessed sleep was too short under load) it
// ended the shell, and the test saw "signal: terminated".
func TestStopKillsAfterGrace(t *testing.T) {
	t.Parallel()
	sp := NewSpawner()
	defer sp.Close()
	ready := newLineSignal("ready")
	p := startScript(t, sp, Spec{Stdout: ready}, "ignores-term.sh")
	select {
	case <-ready.seen:
	case <-p.Done():
		t.Fatalf("the script ended before it was ready: %q", p.Stderr())
	case <-time.After(20 * time.Second):
		t.Fatal("the script did not set its trap within 20s")
	}
	if how := p.Stop(200 * time.Millisecond); how != "signal: killed" {
		t.Errorf("exit %q", how)
	}
	if !hasNote(p, "did not exit within 200ms of SIGTERM: its process group was killed (SIGKILL)") {
		t.Errorf("notes %q", p.Notes())
	}
}

// A process that exits on SIGTERM is not killed, and nothing is noted.
func TestStopGraceful(t *testing.T) {
	t.Parallel()
	sp := NewSpawner()
	defer sp.Close()
	p, err := sp.Start(Spec{Argv: []string{"sleep", "60"}, Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	if how := p.Stop(20 * time.Second); how != "signal: terminated" {
		t.Errorf("exit %q", how)
	}
	if n := p.Notes(); len(n) != 0 {
		t.Errorf("notes %q", n)
	}
}

// After Close nothing starts, and the zero Spawner starts nothing either.
func TestClosedSpawnerStartsNothing(t *testing.T) {
	sp := NewSpawner()
	sp.Close()
	select {
	case <-sp.done:
	default:
		t.Error("Close left the spawner's goroutine running")
	}
	sp.Close() // twice: no panic
	for name, s := range map[string]*Spawner{"closed": sp, "zero": {}} {
		if _, err := s.Start(Spec{Argv: []string{"true"}, Env: os.Environ()}); err == nil || !strings.HasSuffix(err.Error(), "the process starter is closed") {
			t.Errorf("%s: %v", name, err)
		}
	}
	(&Spawner{}).Close()
}

// When evtool is SIGKILLed (a CI timeout), the consumer it started dies
// with it (Linux: the parent-death signal).
func TestConsumerDiesWithEvtool(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Pdeathsig is Linux only")
	}
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), "SUPERVISE_TEST_STARTER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if !supervisetest.Running(pid) {
		t.Fatalf("consumer %d not running", pid)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	supervisetest.MustEnd(t, pid, "the consumer of the SIGKILLed evtool")
}

// A relative command resolves to an absolute path whatever the scenario's
// directory looks like ("." or relative), so exec neither searches $PATH
// for it nor joins it with the working directory a second time.
func TestResolveCommandRelative(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "sub", "c.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	for _, tt := range []struct{ argv0, dir string }{
		{"./c.sh", "sub"},
		{"c.sh", "sub"}, // no slash: $PATH, not found
		{"./sub/c.sh", "."},
		{"sub/c.sh", "."},
		{"../sub/c.sh", "sub"},
	} {
		got, err := resolveCommand(tt.argv0, tt.dir, os.Environ())
		if tt.argv0 == "c.sh" {
			if err == nil {
				t.Errorf("%s in %s: found %s in $PATH", tt.argv0, tt.dir, got)
			}
			continue
		}
		if err != nil || got != filepath.Join(root, "sub", "c.sh") {
			t.Errorf("%s in %s: %q, %v", tt.argv0, tt.dir, got, err)
		}
	}
}
