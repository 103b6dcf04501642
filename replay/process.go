package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
// (`go run`, a shell script) stops with everything it started.
type Process struct {
	argv []string
	dir  string
	env  []string

	cmd            *exec.Cmd
	stdout, stderr *tail
	logs           []*os.File
	done           chan struct{}
	state          *os.ProcessState
	waitErr        error
	started        time.Time
	mu             sync.Mutex
}

// ProcessSpec says how to start a consumer.
type ProcessSpec struct {
	Argv []string
	Dir  string
	// Env is the complete environment.
	Env []string
	// LogDir, when set, receives <Name>.stdout and <Name>.stderr.
	LogDir string
	Name   string
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

// StartProcess starts a consumer.
func StartProcess(spec ProcessSpec) (*Process, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("no consumer command")
	}
	path, err := resolveCommand(spec.Argv[0], spec.Dir, spec.Env)
	if err != nil {
		return nil, err
	}
	p := &Process{argv: spec.Argv, dir: spec.Dir, env: spec.Env, stdout: newTail(tailLines), stderr: newTail(tailLines)}
	cmd := exec.Command(path, spec.Argv[1:]...)
	cmd.Args[0] = spec.Argv[0]
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	setProcessGroup(cmd)
	var outW, errW io.Writer = p.stdout, p.stderr
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
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.Stdin = nil
	if err := cmd.Start(); err != nil {
		p.closeLogs()
		return nil, fmt.Errorf("cannot start consumer %s: %w", strings.Join(spec.Argv, " "), err)
	}
	p.cmd = cmd
	p.started = time.Now()
	p.done = make(chan struct{})
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.state, p.waitErr = cmd.ProcessState, err
		p.mu.Unlock()
		p.closeLogs()
		close(p.done)
	}()
	return p, nil
}

func (p *Process) closeLogs() {
	for _, f := range p.logs {
		f.Close()
	}
}

// Pid returns the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has exited, and how.
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

// Stop sends SIGTERM to the process group, and SIGKILL if it is still
// running after grace. It returns how the process ended.
func (p *Process) Stop(grace time.Duration) string {
	if grace <= 0 {
		grace = DefaultStopGrace
	}
	select {
	case <-p.done:
	default:
		terminate(p.cmd)
		select {
		case <-p.done:
		case <-time.After(grace):
			kill(p.cmd)
			<-p.done
		}
	}
	_, how := p.Exited()
	return how
}

// Kill sends SIGKILL to the process group and waits for the exit (a crash,
// for fault injection).
func (p *Process) Kill() {
	select {
	case <-p.done:
		return
	default:
	}
	kill(p.cmd)
	<-p.done
}

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
