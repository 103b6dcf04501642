package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"github.com/evtool/evtool/internal/jsonstrict"
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

// readState reads a consumer's state: GET on the URL, or the command's
// stdout. A connection refused is retried for a few seconds (the consumer
// may serve its state lazily); anything else is final.
func readState(ctx context.Context, spec StateSpec, dir string, env []string, expand func(string) string) (any, []byte, error) {
	if spec.HTTP != "" {
		url := expand(spec.HTTP)
		src := "GET " + url
		var body []byte
		var err error
		deadline := time.Now().Add(5 * time.Second)
		for {
			body, err = httpGet(ctx, url)
			if err == nil || !isRefused(err) || time.Now().After(deadline) {
				break
			}
			select {
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
		if err != nil {
			var se *StateError
			if errors.As(err, &se) {
				se.Source = src
				return nil, nil, se
			}
			return nil, nil, &StateError{Source: src, Msg: err.Error()}
		}
		v, err := decodeState(body)
		if err != nil {
			return nil, nil, &StateError{Source: src, Msg: err.Error()}
		}
		return v, body, nil
	}
	argv := make([]string, len(spec.Command))
	for i, a := range spec.Command {
		argv[i] = expand(a)
	}
	src := "state.command " + strings.Join(argv, " ")
	path, err := resolveCommand(argv[0], dir, env)
	if err != nil {
		return nil, nil, &StateError{Source: src, Msg: err.Error()}
	}
	out, err := runStateCommand(ctx, path, argv, dir, env, MaxStateSize, StateCommandTimeout)
	if err != nil {
		return nil, nil, &StateError{Source: src, Msg: err.Error()}
	}
	v, err := decodeState(out)
	if err != nil {
		return nil, nil, &StateError{Source: src, Msg: err.Error()}
	}
	return v, out, nil
}

// StateCommandTimeout bounds a state.command's run.
const StateCommandTimeout = time.Minute

// runStateCommand runs a state command and returns its stdout. A command
// that outgrows limit or timeout is stopped, and the error names the limit
// (not the broken pipe or the kill it caused).
func runStateCommand(ctx context.Context, path string, argv []string, dir string, env []string, limit int64, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	errs := newTail(10)
	stdout := &limitWriter{w: &out, n: limit}
	cmd.Stdout, cmd.Stderr = stdout, errs
	err := cmd.Run()
	switch {
	case stdout.over:
		return nil, fmt.Errorf("state larger than %d bytes (the limit of a state; the command was stopped)", limit)
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Errorf("state.command did not finish within %s (its time limit): killed", timeout)
	case err != nil:
		msg := err.Error()
		if l := errs.lines(); len(l) > 0 {
			msg += ": " + strings.Join(l, " | ")
		}
		return nil, errors.New(msg)
	}
	return out.Bytes(), nil
}

func isRefused(err error) bool {
	return strings.Contains(err.Error(), "connection refused")
}

func httpGet(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxStateSize+1))
	if err != nil {
		return nil, err
	}
	if len(body) > MaxStateSize {
		return nil, fmt.Errorf("larger than %d bytes", MaxStateSize)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &StateError{Msg: fmt.Sprintf("HTTP status %s: %s", resp.Status, snippet(body))}
	}
	if _, err := decodeState(body); err != nil {
		ct := resp.Header.Get("Content-Type")
		if ct != "" {
			return nil, &StateError{Msg: fmt.Sprintf("%v (Content-Type %s)", err, ct)}
		}
	}
	return body, nil
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

type limitWriter struct {
	w    io.Writer
	n    int64
	over bool
}

func (l *limitWriter) Write(b []byte) (int, error) {
	if int64(len(b)) > l.n {
		l.over = true
		return 0, errors.New("state too large")
	}
	l.n -= int64(len(b))
	return l.w.Write(b)
}
