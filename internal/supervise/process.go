// Package supervise starts and stops child processes for evtool's
// harnesses (replay's consumers and state commands, verify's producers):
// each in a process group of its own, with a parent-death signal where the
// platform has one, output read through pipes it owns, a graceful stop
// (SIGTERM, a grace period, then SIGKILL of the group) and crash injection
// (Kill, Pause, Resume).
package supervise

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// DefaultStopGrace is how long a consumer has to exit after SIGTERM before
// it is killed.
const DefaultStopGrace = 5 * time.Second

// tailLines is how many lines of the consumer's output a failure shows.
const tailLines = 20

// Process is a running consumer. The harness starts it in its own process
// group and signals the group, so a consumer started through a wrapper
// (`go run`, a shell script) stops with everything it started. Its output
// goes through pipes the harness owns: once the group has ended, a
// descendant that left the group (setsid) and still holds them is waited
// for at most outputDrain.
type Process struct {
	argv []string

	cmd            *exec.Cmd
	stdout, stderr *tail
	logs           []*os.File
	// readers are the read ends of the output pipes; copied is closed
	// when both are drained.
	readers []*os.File
	copied  chan struct{}
	// exited is closed when the main process has exited, done when its
	// group has been dealt with and its output drained.
	exited  chan struct{}
	done    chan struct{}
	finish  sync.Once
	state   *os.ProcessState
	waitErr error

	mu sync.Mutex
	// stopping: the harness is stopping or killing it (Stop, Kill);
	// selfExit: it exited before that.
	stopping, selfExit bool
	notes              []string
}

// outputDrain bounds the wait for the output pipes to close once the
// consumer's process group has ended: only a process outside the group
// can still hold them.
const outputDrain = time.Second

// Spec says how to start a process.
type Spec struct {
	Argv []string
	Dir  string
	// Env is the complete environment.
	Env []string
	// LogDir, when set, receives <Name>.stdout and <Name>.stderr.
	LogDir string
	Name   string
	// Stdout, when set, receives the standard output instead of the
	// tail Stderr falls back to; Stderr, when set, the standard error
	// (both may be one writer safe for concurrent writes).
	Stdout, Stderr io.Writer
}

// resolveCommand finds argv[0] the way exec does, relative to dir for a
// path, and explains a miss.
func resolveCommand(argv0, dir string, env []string) (string, error) {
	if strings.ContainsRune(argv0, filepath.Separator) || strings.ContainsRune(argv0, '/') {
		p := argv0
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		info, err := os.Stat(p)
		switch {
		case err != nil:
			return "", fmt.Errorf("command %s not found (looked for %s)", argv0, p)
		case info.IsDir():
			return "", fmt.Errorf("command %s is a directory", p)
		case info.Mode()&0o111 == 0:
			return "", fmt.Errorf("command %s is not executable", p)
		}
		// Absolute: exec would look a slash-free path up in $PATH, and
		// resolve a relative one against cmd.Dir a second time.
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		return p, nil
	}
	path := os.Getenv("PATH")
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, argv0)
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(argv0); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("command %q not found in $PATH", argv0)
}

// Spawner starts processes from one goroutine locked to its OS thread.
// On Linux a child gets a parent-death signal (SIGKILL), which fires when
// the thread that started it exits, not the process; Go ends a thread only
// when a goroutine locked to it returns, as this one does at Close (taking
// any child still running with it). The zero Spawner starts nothing, as a
// closed one.
type Spawner struct {
	mu     sync.Mutex
	closed bool
	reqs   chan func()
	done   chan struct{}
}

// NewSpawner starts a spawner's goroutine; Close ends it.
func NewSpawner() *Spawner {
	sp := &Spawner{reqs: make(chan func()), done: make(chan struct{})}
	go func() {
		runtime.LockOSThread() // never unlocked: see Spawner
		for f := range sp.reqs {
			f()
		}
		close(sp.done)
	}()
	return sp
}

// run calls start on the spawner's thread.
func (sp *Spawner) run(start func() error) error {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.closed || sp.reqs == nil {
		return errors.New("the process starter is closed")
	}
	errc := make(chan error, 1)
	sp.reqs <- func() { errc <- start() }
	return <-errc
}

// Close ends the spawner's thread, and with it (Linux) every child still
// running; nothing starts after it.
func (sp *Spawner) Close() {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if !sp.closed && sp.reqs != nil {
		sp.closed = true
		close(sp.reqs)
		<-sp.done
	}
}

// Start starts a process on the spawner's dedicated thread (see
// Spawner).
func (sp *Spawner) Start(spec Spec) (*Process, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("no consumer command")
	}
	path, err := resolveCommand(spec.Argv[0], spec.Dir, spec.Env)
	if err != nil {
		return nil, err
	}
	p := &Process{argv: spec.Argv, stdout: newTail(tailLines), stderr: newTail(tailLines),
		copied: make(chan struct{}), exited: make(chan struct{}), done: make(chan struct{})}
	cmd := exec.Command(path, spec.Argv[1:]...)
	cmd.Args[0] = spec.Argv[0]
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	setProcessGroup(cmd)
	var outW, errW io.Writer = p.stdout, p.stderr
	if spec.Stdout != nil {
		outW = spec.Stdout
	}
	if spec.Stderr != nil {
		errW = spec.Stderr
	}
	if spec.LogDir != "" {
		if err := os.MkdirAll(spec.LogDir, 0o755); err != nil {
			return nil, err
		}
		for _, s := range []struct {
			suffix string
			w      *io.Writer
		}{{".stdout", &outW}, {".stderr", &errW}} {
			f, err := os.Create(filepath.Join(spec.LogDir, spec.Name+s.suffix))
			if err != nil {
				p.closeLogs()
				return nil, err
			}
			p.logs = append(p.logs, f)
			*s.w = io.MultiWriter(*s.w, f)
		}
	}
	// Pipes of its own, not exec's: exec.Cmd.Wait would wait for every
	// descendant holding them, and the group is to be killed as soon as
	// the main process exits.
	var writers []*os.File
	for range 2 {
		r, w, err := os.Pipe()
		if err != nil {
			closeFiles(p.readers, writers)
			p.closeLogs()
			return nil, err
		}
		p.readers, writers = append(p.readers, r), append(writers, w)
	}
	cmd.Stdout, cmd.Stderr = writers[0], writers[1]
	cmd.Stdin = nil
	err = sp.run(cmd.Start)
	closeFiles(writers)
	if err != nil {
		closeFiles(p.readers)
		p.closeLogs()
		return nil, fmt.Errorf("cannot start %s: %w", strings.Join(spec.Argv, " "), err)
	}
	p.cmd = cmd
	var copying sync.WaitGroup
	for i, w := range []io.Writer{outW, errW} {
		copying.Go(func() {
			// A writer that fails (a state past its limit) stops the
			// copy; the rest of the output is drained unread so the
			// process is not blocked on a full pipe.
			if _, err := io.Copy(w, p.readers[i]); err != nil {
				_, _ = io.Copy(io.Discard, p.readers[i])
			}
		})
	}
	go func() {
		copying.Wait()
		close(p.copied)
	}()
	go p.wait()
	return p, nil
}

func closeFiles(lists ...[]*os.File) {
	for _, l := range lists {
		for _, f := range l {
			f.Close()
		}
	}
}

// wait reaps the main process. When it exited on its own, what is left of
// its group is killed at once.
func (p *Process) wait() {
	err := p.cmd.Wait()
	p.mu.Lock()
	p.state, p.waitErr = p.cmd.ProcessState, err
	self := !p.stopping
	p.selfExit = self
	p.mu.Unlock()
	close(p.exited)
	if !self {
		return // Stop or Kill deals with the group
	}
	if groupAlive(p.cmd) {
		kill(p.cmd)
		p.note("exited, but its process group still had processes: they were killed (SIGKILL)")
	}
	p.drain()
}

// drain waits for the output pipes to close, at most outputDrain, and
// marks the process done.
func (p *Process) drain() {
	p.finish.Do(func() {
		select {
		case <-p.copied:
		case <-time.After(outputDrain):
			p.note(fmt.Sprintf("ended, but a process outside its process group (started with setsid?) still held its stdout or stderr %s later: evtool stopped reading them; that process may still run", outputDrain))
			closeFiles(p.readers)
			// Closing wakes the readers where pipes are pollable; where
			// not, they finish when that process lets go.
			select {
			case <-p.copied:
			case <-time.After(100 * time.Millisecond):
			}
		}
		closeFiles(p.readers)
		p.closeLogs()
		close(p.done)
	})
}

func (p *Process) note(s string) {
	p.mu.Lock()
	p.notes = append(p.notes, s)
	p.mu.Unlock()
}

// Notes says what the harness had to kill or abandon beyond a clean exit
// (nil when nothing).
func (p *Process) Notes() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.notes...)
}

func (p *Process) closeLogs() {
	for _, f := range p.logs {
		f.Close()
	}
}

// Pid returns the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the process has exited, its group has ended and its
// output is drained.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has exited, and how: once Done, so
// that its output is complete.
func (p *Process) Exited() (bool, string) {
	select {
	case <-p.done:
	default:
		return false, ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return true, describeExit(p.state, p.waitErr)
}

// Succeeded reports whether the process has exited with status 0: once
// Done (false before).
func (p *Process) Succeeded() bool {
	select {
	case <-p.done:
	default:
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waitErr == nil && p.state != nil && p.state.Success()
}

func describeExit(st *os.ProcessState, err error) string {
	if st == nil {
		if err != nil {
			return err.Error()
		}
		return "exited"
	}
	if st.Exited() {
		return fmt.Sprintf("exit status %d", st.ExitCode())
	}
	return st.String() // "signal: killed"
}

// claim marks the process as ended by the harness; false when it had
// already exited on its own (wait deals with it).
func (p *Process) claim() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.selfExit {
		return false
	}
	p.stopping = true
	return true
}

// Stop sends SIGTERM to the process group and waits until the group has
// ended; what is still running after grace is killed (SIGKILL), and
// Notes says so. It returns how the main process ended.
func (p *Process) Stop(grace time.Duration) string {
	if grace <= 0 {
		grace = DefaultStopGrace
	}
	if !p.claim() {
		<-p.done
		_, how := p.Exited()
		return how
	}
	terminate(p.cmd)
	deadline := time.Now().Add(grace)
	for {
		select {
		case <-p.exited:
			if !groupAlive(p.cmd) {
				p.drain()
				_, how := p.Exited()
				return how
			}
		default:
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case <-p.exited:
		p.note(fmt.Sprintf("exited on SIGTERM, but processes of its group were still running %s later: they were killed (SIGKILL)", grace))
	default:
		p.note(fmt.Sprintf("did not exit within %s of SIGTERM: its process group was killed (SIGKILL)", grace))
	}
	kill(p.cmd)
	<-p.exited
	p.drain()
	_, how := p.Exited()
	return how
}

// Kill sends SIGKILL to the process group and waits for the exit (a crash,
// for fault injection).
func (p *Process) Kill() {
	if !p.claim() {
		<-p.done
		return
	}
	kill(p.cmd)
	<-p.exited
	p.drain()
}

// Pause stops the process group (SIGSTOP) until Resume: a consumer stalled
// past its session, for fault injection.
func (p *Process) Pause() { pause(p.cmd) }

// Resume continues a paused process group (SIGCONT; harmless otherwise).
func (p *Process) Resume() { resume(p.cmd) }

// Stderr returns the last lines the process wrote to stderr, or to stdout
// when stderr is empty.
func (p *Process) Stderr() []string {
	if l := p.stderr.lines(); len(l) > 0 {
		return l
	}
	return p.stdout.lines()
}

// tail keeps the last n lines written to it.
type tail struct {
	mu      sync.Mutex
	n       int
	buf     []string
	partial []byte
}

func newTail(n int) *tail { return &tail{n: n} }

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			t.partial = append(t.partial, b...)
			if len(t.partial) > 4096 {
				t.partial = t.partial[len(t.partial)-4096:]
			}
			break
		}
		line := string(append(t.partial, b[:i]...))
		t.partial = t.partial[:0]
		b = b[i+1:]
		t.add(line)
	}
	return n, nil
}

func (t *tail) add(line string) {
	line = strings.TrimRight(line, "\r")
	if len(line) > 500 {
		line = line[:500] + "…"
	}
	t.buf = append(t.buf, line)
	if len(t.buf) > t.n {
		t.buf = t.buf[len(t.buf)-t.n:]
	}
}

func (t *tail) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]string(nil), t.buf...)
	if len(t.partial) > 0 {
		out = append(out, string(t.partial))
		if len(out) > t.n {
			out = out[len(out)-t.n:]
		}
	}
	return out
}
