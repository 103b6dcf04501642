package bugs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/internal/callout"
)

// Downstream bugs: consumers that send a receipt email per event to the
// stand-in in EVTOOL_DOWNSTREAM_EMAIL, each breaking one rule of calling a
// dependency (see DownstreamCatalogue). Every catalogue consumer sends the
// receipts when the variable is set, the way correct does unless it is one
// of these.
const (
	FreshKey           Bug = "fresh-idempotency-key"
	NoBackoff          Bug = "no-backoff"
	RetryTerminal      Bug = "retry-terminal"
	Unbounded          Bug = "unbounded-concurrency"
	EffectBeforeDedupe Bug = "effect-before-dedupe"
	RetryTopic         Bug = "retry-topic-reorder"
	ProcessSaltedKey   Bug = "process-salted-key"
)

// DownstreamCatalogue lists the downstream bugs: the consumer calls the
// email stand-in per event (receiptId "receipt-<event id>", to
// "<orderId>@customers.example", the event id as Idempotency-Key and
// Ce-Id) with internal/callout, breaking one rule.
//
//	(k) fresh-idempotency-key  a new idempotency key per attempt: a timeout
//	                           (effect applied, answer lost) sends it twice
//	(l) no-backoff             retries at once: an outage gets a storm
//	(m) retry-terminal         retries terminal answers (422)
//	(n) unbounded-concurrency  a request per event at once, no rate limit
//	(o) effect-before-dedupe   no idempotency key, and its dedupe record
//	                           saved only after the commit: a crash at the
//	                           commit sends the batch's emails again
//	(p) retry-topic-reorder    a failed call is retried after the rest of
//	                           the batch (as a retry topic does): a later
//	                           event of the same order overtakes it
//	(r) process-salted-key     the idempotency key is the event id with a
//	                           salt drawn once per process, and a failed
//	                           call is retried after the chunk's commit of
//	                           what succeeded: a timeout alone is retried
//	                           with the same key, a crash alone redelivers
//	                           only events recorded done, but a crash at
//	                           that commit after a timeout sends the
//	                           receipt again under a new key
var DownstreamCatalogue = []Entry{
	{"k", FreshKey, "a fresh idempotency key per attempt", []chaos.Kind{chaos.Downstream}},
	{"l", NoBackoff, "retries without backoff", []chaos.Kind{chaos.Outage}},
	{"m", RetryTerminal, "retries of terminal errors", nil},
	{"n", Unbounded, "unbounded concurrency", nil},
	{"o", EffectBeforeDedupe, "the effect before the dedupe record", []chaos.Kind{chaos.Crash}},
	{"p", RetryTopic, "a retry topic that reorders a key", []chaos.Kind{chaos.Downstream}},
	{"r", ProcessSaltedKey, "an idempotency key salted per process", []chaos.Kind{chaos.Downstream, chaos.Crash}},
}

// EmailEnv is the variable of the email stand-in.
const EmailEnv = "EVTOOL_DOWNSTREAM_EMAIL"

// mailer sends a consumer's receipts.
type mailer struct {
	bug    Bug
	caller *callout.Caller
	// retry is the first pass of retry-topic-reorder and
	// process-salted-key: one attempt.
	retry *callout.Caller
	// salt is process-salted-key's part of every idempotency key, drawn
	// when the process starts.
	salt string
}

// newMailer returns the mailer of a bug, or nil without the stand-in.
// BUGS_EMAIL_CONCURRENCY and BUGS_EMAIL_RATE bound the correct ones.
func newMailer(bug Bug) *mailer {
	url := os.Getenv(EmailEnv)
	if url == "" {
		return nil
	}
	cfg := callout.Config{URL: url}
	if n, err := strconv.Atoi(os.Getenv("BUGS_EMAIL_CONCURRENCY")); err == nil && n > 0 {
		cfg.Concurrency = n
	}
	if r, err := strconv.ParseFloat(os.Getenv("BUGS_EMAIL_RATE"), 64); err == nil && r > 0 {
		cfg.Rate = r
	}
	switch bug {
	case FreshKey:
		cfg.Faults.FreshKey = true
	case NoBackoff:
		cfg.Faults.NoBackoff = true
	case RetryTerminal:
		cfg.Faults.RetryTerminal = true
	case Unbounded:
		cfg.Faults.Unbounded = true
	case EffectBeforeDedupe:
		cfg.Faults.NoKey = true
	}
	m := &mailer{bug: bug, caller: callout.New(cfg)}
	if bug == ProcessSaltedKey {
		var b [8]byte
		_, _ = rand.Read(b[:])
		m.salt = hex.EncodeToString(b[:])
	}
	if bug == RetryTopic || bug == ProcessSaltedKey {
		one := cfg
		one.MaxAttempts = 1
		m.retry = callout.New(one)
	}
	return m
}

// mail is one receipt to send.
type mail struct {
	in  Input
	rec *kgo.Record
	// err is the call's outcome: a terminal or exhausted call dead-letters
	// the event.
	err error
	// retryAfter is the last answer's Retry-After.
	retryAfter time.Duration
}

// send sends the receipts of a chunk: the orders in parallel (bounded by
// the caller), each order's receipts in turn, so that an order's effects
// keep its events' order (unbounded-concurrency: every receipt at once).
func (m *mailer) send(ctx context.Context, ms []*mail) { m.sendWith(ctx, ms, m.retry) }

// sendWith sends with first as the one-attempt first pass (nil: none).
func (m *mailer) sendWith(ctx context.Context, ms []*mail, first *callout.Caller) {
	call := func(c *callout.Caller, x *mail) error {
		key := x.in.ID
		if m.salt != "" {
			key = m.salt + "-" + x.in.ID
		}
		res, err := c.Call(ctx, callout.Request{Path: "/send", Key: key, EventID: x.in.ID,
			Body: map[string]any{"receiptId": "receipt-" + x.in.ID, "to": x.in.OrderID + "@customers.example", "orderId": x.in.OrderID, "event": x.in.Type}})
		x.retryAfter = res.RetryAfter
		return err
	}
	var wg sync.WaitGroup
	if m.bug == Unbounded {
		for _, x := range ms {
			wg.Go(func() { x.err = call(m.caller, x) })
		}
		wg.Wait()
		return
	}
	var orders []string
	byOrder := map[string][]*mail{}
	for _, x := range ms {
		if _, ok := byOrder[x.in.OrderID]; !ok {
			orders = append(orders, x.in.OrderID)
		}
		byOrder[x.in.OrderID] = append(byOrder[x.in.OrderID], x)
	}
	var mu sync.Mutex
	var later []*mail
	for _, o := range orders {
		wg.Go(func() {
			var deferred bool
			for _, x := range byOrder[o] {
				if deferred {
					// process-salted-key keeps an order's receipts in
					// order: the rest wait for the failed one's retry.
					x.err = errDeferred
					continue
				}
				if first == nil {
					x.err = call(m.caller, x)
					continue
				}
				if x.err = call(first, x); x.err != nil && !errors.Is(x.err, callout.ErrTerminal) && ctx.Err() == nil && m.bug == RetryTopic {
					mu.Lock()
					later = append(later, x)
					mu.Unlock()
				}
				deferred = x.err != nil && m.bug == ProcessSaltedKey
			}
		})
	}
	wg.Wait()
	for _, x := range later {
		x.err = call(m.caller, x)
	}
}

// pause waits before process-salted-key's second pass, when the first
// had retryable failures: the longest Retry-After they were answered, at
// least the backoff's base. It waits before the first pass's commit, so
// that a process restarted after a crash there retries no sooner either.
func (m *mailer) pause(ctx context.Context, ms []*mail) {
	wait := time.Duration(0)
	for _, x := range ms {
		if x.err != nil && !errors.Is(x.err, callout.ErrTerminal) {
			wait = max(wait, callout.DefaultBase, x.retryAfter)
		}
	}
	if wait == 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// errDeferred is the outcome of a receipt not sent because an earlier
// one of its order failed (process-salted-key's first pass).
var errDeferred = errors.New("deferred after a failed receipt of the same order")

// retryFailed is process-salted-key's second pass: the calls of ms that
// failed retryably in the first (one attempt each) again, with every
// attempt the caller allows and the same process's key. It reports
// whether there were any.
func (m *mailer) retryFailed(ctx context.Context, ms []*mail) bool {
	var again []*mail
	for _, x := range ms {
		if x.err != nil && !errors.Is(x.err, callout.ErrTerminal) {
			x.err = nil
			again = append(again, x)
		}
	}
	if len(again) == 0 {
		return false
	}
	m.sendWith(ctx, again, nil)
	return true
}
