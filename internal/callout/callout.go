// Package callout calls a downstream HTTP service the way a consumer
// should: with an idempotency key derived from the event and reused on
// every attempt, capped exponential backoff with full jitter (a delay
// uniform in [0, min(cap, base × 2^n)]), Retry-After honoured, retryable
// failures (429, 5xx, 409 "idempotency key in use", timeouts, connection
// errors) told apart from
// terminal ones (any other 4xx), a bounded number of attempts, and bounded
// concurrency and rate. The example consumers and the bug catalogue
// (internal/bugs) use it; the catalogue's knobs (Faults) break one rule
// each.
package callout

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Config configures a Caller.
type Config struct {
	// URL is the service's base URL.
	URL string
	// Timeout bounds one attempt (default 500ms).
	Timeout time.Duration
	// Base and Cap shape the backoff (default 50ms and 1s).
	Base, Cap time.Duration
	// MaxAttempts bounds the attempts of one call (default 20).
	MaxAttempts int
	// Concurrency bounds the attempts in flight (default 4); Rate the
	// attempts per second (0: unbounded).
	Concurrency int
	Rate        float64
	// Faults break the rules on purpose (the bug catalogue).
	Faults Faults
}

// Faults are the rules a Caller can break.
type Faults struct {
	// FreshKey sends a new idempotency key on every attempt.
	FreshKey bool
	// NoKey sends no idempotency key.
	NoKey bool
	// NoBackoff retries at once.
	NoBackoff bool
	// RetryTerminal retries terminal failures as if retryable.
	RetryTerminal bool
	// Unbounded lifts the concurrency and rate bounds.
	Unbounded bool
}

// Defaults.
const (
	DefaultTimeout     = 500 * time.Millisecond
	DefaultBase        = 50 * time.Millisecond
	DefaultCap         = time.Second
	DefaultMaxAttempts = 20
	DefaultConcurrency = 4
)

// terminalRetries is how many attempts RetryTerminal makes of a terminal
// failure: enough to show, few enough for a test.
const terminalRetries = 3

// Errors of Call.
var (
	// ErrTerminal: the service answered a status that never succeeds.
	ErrTerminal = errors.New("terminal failure")
	// ErrExhausted: every attempt failed retryably.
	ErrExhausted = errors.New("attempts exhausted")
)

// Caller calls one service.
type Caller struct {
	cfg    Config
	client *http.Client
	sem    chan struct{}

	mu   sync.Mutex
	next time.Time // the rate limiter's next free slot
}

// New returns a caller.
func New(cfg Config) *Caller {
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Base == 0 {
		cfg.Base = DefaultBase
	}
	if cfg.Cap == 0 {
		cfg.Cap = DefaultCap
	}
	if cfg.MaxAttempts == 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	c := &Caller{cfg: cfg, client: &http.Client{Timeout: cfg.Timeout}}
	if !cfg.Faults.Unbounded {
		c.sem = make(chan struct{}, cfg.Concurrency)
	}
	return c
}

// Request is one call.
type Request struct {
	// Path is appended to the URL.
	Path string
	// Body is sent as JSON.
	Body any
	// Key is the idempotency key (sent as Idempotency-Key), derived from
	// the event; EventID is sent as Ce-Id.
	Key, EventID string
}

// Result is what a call did.
type Result struct {
	Attempts int
	Status   int
	// RetryAfter is the last answer's Retry-After (0: none).
	RetryAfter time.Duration
}

// Call makes the request until it succeeds (2xx), fails terminally
// (ErrTerminal), runs out of attempts (ErrExhausted) or ctx ends.
func (c *Caller) Call(ctx context.Context, req Request) (Result, error) {
	body, err := json.Marshal(req.Body)
	if err != nil {
		return Result{}, err
	}
	var res Result
	for attempt := 0; ; attempt++ {
		res.Attempts = attempt + 1
		status, retryAfter, err := c.attempt(ctx, req, body)
		res.Status, res.RetryAfter = status, retryAfter
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if err == nil && status/100 == 2 {
			return res, nil
		}
		if err == nil && status/100 == 4 && status != http.StatusTooManyRequests && status != http.StatusConflict &&
			(!c.cfg.Faults.RetryTerminal || res.Attempts >= terminalRetries) {
			return res, fmt.Errorf("%w: status %d", ErrTerminal, status)
		}
		if res.Attempts >= c.cfg.MaxAttempts {
			if err == nil {
				err = fmt.Errorf("status %d", status)
			}
			return res, fmt.Errorf("%w after %d: %v", ErrExhausted, res.Attempts, err)
		}
		delay := c.backoff(attempt)
		if retryAfter > delay {
			delay = retryAfter
		}
		if c.cfg.Faults.NoBackoff {
			delay = 0
		}
		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return res, ctx.Err()
			case <-t.C:
			}
		}
	}
}

// backoff is full jitter: uniform in [0, min(cap, base × 2^n)].
func (c *Caller) backoff(n int) time.Duration {
	bound := c.cfg.Cap
	if n < 30 && c.cfg.Base<<n < bound {
		bound = c.cfg.Base << n
	}
	return time.Duration(mrand.Int64N(int64(bound) + 1))
}

// attempt sends the request once. It returns the status (0 on a
// transport error) and the answer's Retry-After.
func (c *Caller) attempt(ctx context.Context, req Request, body []byte) (int, time.Duration, error) {
	if c.sem != nil {
		select {
		case c.sem <- struct{}{}:
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		}
		defer func() { <-c.sem }()
		if err := c.wait(ctx); err != nil {
			return 0, 0, err
		}
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.URL+req.Path, bytes.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	r.Header.Set("Content-Type", "application/json")
	if req.EventID != "" {
		r.Header.Set("Ce-Id", req.EventID)
	}
	switch {
	case c.cfg.Faults.NoKey:
	case c.cfg.Faults.FreshKey:
		var b [8]byte
		_, _ = rand.Read(b[:])
		r.Header.Set("Idempotency-Key", hex.EncodeToString(b[:]))
	case req.Key != "":
		r.Header.Set("Idempotency-Key", req.Key)
	}
	resp, err := c.client.Do(r)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	var ra time.Duration
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 && s < 3600 {
		ra = time.Duration(s) * time.Second
	}
	return resp.StatusCode, ra, nil
}

// wait takes the rate limiter's next slot.
func (c *Caller) wait(ctx context.Context) error {
	if c.cfg.Rate <= 0 {
		return nil
	}
	c.mu.Lock()
	now := time.Now()
	slot := c.next
	if slot.Before(now) {
		slot = now
	}
	c.next = slot.Add(time.Duration(float64(time.Second) / c.cfg.Rate))
	c.mu.Unlock()
	if d := time.Until(slot); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}
