package replay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/internal/supervise"
)

// MaxStateSize bounds the state a consumer may return.
const MaxStateSize = 256 << 20

// StateError is a state that cannot be read or is not JSON; it names the
// source.
type StateError struct {
	Source string
	Msg    string
}

func (e *StateError) Error() string { return fmt.Sprintf("state from %s: %s", e.Source, e.Msg) }

// MaxStoredStateSize bounds the state of a replay run, which is kept on
// disk (see storedState), not in memory.
const MaxStoredStateSize = 4 << 30

// readState reads a consumer's state into memory: GET on the URL, or the
// command's stdout. A connection refused is retried for a few seconds (the
// consumer may serve its state lazily); anything else is final. killed
// says what of the state command the harness had to kill or abandon
// (RunResult.Killed). timeout and key are fetchState's.
func readState(ctx context.Context, sp *supervise.Spawner, spec StateSpec, dir string, env []string, expand func(string) string, timeout time.Duration, key string) (state any, raw []byte, killed []string, err error) {
	var buf bytes.Buffer
	src, ctype, killed, err := fetchState(ctx, sp, spec, dir, env, expand, &buf, MaxStateSize, timeout, key)
	if err != nil {
		return nil, nil, killed, err
	}
	v, err := decodeState(buf.Bytes())
	if err != nil {
		return nil, nil, killed, &StateError{Source: src, Msg: withContentType(err, ctype)}
	}
	return v, buf.Bytes(), killed, nil
}

// readStateFile reads a consumer's state as readState does, into the file
// path, and stores it (storeState): the state is never held in memory.
// timeout bounds the GET or the command (0: StateHTTPTimeout or
// StateCommandTimeout).
func readStateFile(ctx context.Context, sp *supervise.Spawner, spec StateSpec, dir string, env []string, expand func(string) string, path string, ignore []string, timeout time.Duration) (*storedState, []string, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	src, ctype, killed, err := fetchState(ctx, sp, spec, dir, env, expand, w, MaxStoredStateSize, timeout, "consumer.state_timeout")
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, killed, err
	}
	st, err := storeState(path, ignore)
	if err != nil {
		return nil, killed, &StateError{Source: src, Msg: withContentType(err, ctype)}
	}
	return st, killed, nil
}

func withContentType(err error, ctype string) string {
	if ctype != "" {
		return fmt.Sprintf("%v (Content-Type %s)", err, ctype)
	}
	return err.Error()
}

// fetchState writes a consumer's state to w, at most limit bytes, and
// returns where it came from (for messages) and, for HTTP, the answer's
// Content-Type. timeout bounds the GET or the command (0: the
// defaults, StateHTTPTimeout and StateCommandTimeout); key is the
// scenario key that sets it, for the message when a GET runs out of it
// ("": none sets it, as for verify's producers).
func fetchState(ctx context.Context, sp *supervise.Spawner, spec StateSpec, dir string, env []string, expand func(string) string, w io.Writer, limit int64, timeout time.Duration, key string) (src, ctype string, killed []string, err error) {
	if timeout <= 0 {
		timeout = defaultStateTimeout(spec, 0)
	}
	if spec.HTTP != "" {
		url := expand(spec.HTTP)
		src = "GET " + url
		deadline := time.Now().Add(5 * time.Second)
		for {
			ctype, err = httpGet(ctx, url, timeout, w, limit, key)
			if err == nil || !isRefused(err) || time.Now().After(deadline) {
				break
			}
			select {
			case <-ctx.Done():
				return src, "", nil, ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
		if err != nil {
			var se *StateError
			if errors.As(err, &se) {
				se.Source = src
				return src, "", nil, se
			}
			return src, "", nil, &StateError{Source: src, Msg: err.Error()}
		}
		return src, ctype, nil, nil
	}
	argv := make([]string, len(spec.Command))
	for i, a := range spec.Command {
		argv[i] = expand(a)
	}
	src = "state.command " + strings.Join(argv, " ")
	killed, err = runStateCommand(ctx, sp, argv, dir, env, stateLimits{Time: timeout, Size: limit, Key: key}, w)
	if err != nil {
		if ctx.Err() != nil {
			return src, "", killed, ctx.Err()
		}
		return src, "", killed, &StateError{Source: src, Msg: err.Error()}
	}
	return src, "", killed, nil
}

// StateCommandTimeout bounds a state command; StateHTTPTimeout the GET of
// a state; each is the base of the default limit of a run's final state
// read, to which StateTimeoutPerRecord is added for every record produced
// (consumer.state_timeout replaces it).
const (
	StateCommandTimeout   = time.Minute
	StateHTTPTimeout      = 30 * time.Second
	StateTimeoutPerRecord = time.Millisecond
)

// maxStateTimeout caps the scaled default: past a day a consumer is hung,
// and the product cannot overflow.
const maxStateTimeout = 24 * time.Hour

// defaultStateTimeout is the limit on reading a state after records
// records: a consumer's state, and the time to serialize it, grow with
// what it consumed, so a fixed limit that suits a thousand events fails a
// million on a loaded machine.
func defaultStateTimeout(spec StateSpec, records int64) time.Duration {
	base := StateHTTPTimeout
	if spec.HTTP == "" {
		base = StateCommandTimeout
	}
	if records <= 0 {
		return base
	}
	if records >= int64((maxStateTimeout-base)/StateTimeoutPerRecord) {
		return maxStateTimeout
	}
	return base + time.Duration(records)*StateTimeoutPerRecord
}

// stateTimeout is the limit on reading a run's state after it produced
// records records: consumer.state_timeout, or the scaled default.
func (c ConsumerSpec) stateTimeout(records int64) time.Duration {
	if c.StateTimeout > 0 {
		return c.StateTimeout
	}
	return defaultStateTimeout(c.State, records)
}

// stateLimits bound a state command. Key names the scenario setting
// Time comes from, for the message when it runs out ("": none).
type stateLimits struct {
	Time time.Duration
	Size int64
	Key  string
}

// stateLimitText names a limit on the state's size in messages.
func stateLimitText(size int64) string {
	n := fmt.Sprintf("%d bytes", size)
	switch {
	case size%(1<<30) == 0:
		n = fmt.Sprintf("%d GiB", size>>30)
	case size%(1<<20) == 0:
		n = fmt.Sprintf("%d MiB", size>>20)
	}
	return n + " (the limit on a consumer's state)"
}

// runStateCommand runs a state command like the consumer (own process
// group, its output through the harness's pipes) and writes its stdout to
// w. Past the time or size limit its group is killed; it is never waited
// for beyond them. killed says what else the harness had to kill or
// abandon (a background child left in its group, a descendant holding
// stdout).
func runStateCommand(ctx context.Context, sp *supervise.Spawner, argv []string, dir string, env []string, lim stateLimits, w io.Writer) (killed []string, err error) {
	lw := &limitWriter{w: w, n: lim.Size, limit: lim.Size, full: make(chan struct{})}
	p, err := sp.Start(supervise.Spec{Argv: argv, Dir: dir, Env: env, Stdout: lw})
	if err != nil {
		return nil, err
	}
	timer := time.NewTimer(lim.Time)
	defer timer.Stop()
	select {
	case <-p.Done():
		for _, n := range p.Notes() {
			killed = append(killed, fmt.Sprintf("the state command (pid %d) %s", p.Pid(), n))
		}
	case <-lw.full:
		p.Kill()
		return nil, fmt.Errorf("wrote more than %s to stdout: killed", stateLimitText(lim.Size))
	case <-timer.C:
		p.Kill()
		if lim.Key != "" {
			return nil, fmt.Errorf("did not finish within %s (the limit on a state command: %s): killed", lim.Time, lim.Key)
		}
		return nil, fmt.Errorf("did not finish within %s (the limit on a state command): killed", lim.Time)
	case <-ctx.Done():
		p.Kill()
		return nil, ctx.Err()
	}
	if _, how := p.Exited(); how != "exit status 0" {
		if l := p.Stderr(); len(l) > 0 {
			how += ": " + strings.Join(l, " | ")
		}
		return killed, errors.New(how)
	}
	return killed, nil
}

func isRefused(err error) bool {
	return strings.Contains(err.Error(), "connection refused")
}

// httpGet writes the body of a GET to w (at most limit bytes) and returns
// its Content-Type. key names the scenario key that sets timeout ("":
// none).
func httpGet(ctx context.Context, url string, timeout time.Duration, w io.Writer, limit int64, key string) (string, error) {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	timedOut := func(err error) error {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			if key == "" {
				return fmt.Errorf("no complete answer within %s (the limit on a state request)", timeout)
			}
			return fmt.Errorf("no complete answer within %s (the limit on a state request: %s)", timeout, key)
		}
		return err
	}
	req, err := http.NewRequestWithContext(tctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", timedOut(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		head, err := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		if err != nil {
			return "", timedOut(err)
		}
		return "", &StateError{Msg: fmt.Sprintf("HTTP status %s: %s", resp.Status, snippet(head))}
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return "", timedOut(err)
	}
	if n > limit {
		return "", fmt.Errorf("larger than %s", stateLimitText(limit))
	}
	return resp.Header.Get("Content-Type"), nil
}

// decodeState decodes one JSON value, numbers as json.Number, nothing
// after it. It is strict (internal/jsonstrict): a state with a duplicate
// key, invalid UTF-8, absurd nesting or an exponent past 10^9999 is an
// error with its line, column and JSON pointer, not silently resolved (the
// comparison would then judge something the consumer did not say).
func decodeState(b []byte) (any, error) {
	v, err := jsonstrict.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("not JSON (%v): %s", err, snippet(b))
	}
	return v, nil
}

func snippet(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// limitWriter passes n bytes on; past them it fails and closes full.
type limitWriter struct {
	w        io.Writer
	n, limit int64
	full     chan struct{}
	once     sync.Once
}

func (l *limitWriter) Write(b []byte) (int, error) {
	if int64(len(b)) > l.n {
		l.once.Do(func() { close(l.full) })
		return 0, fmt.Errorf("state larger than %s", stateLimitText(l.limit))
	}
	l.n -= int64(len(b))
	return l.w.Write(b)
}
