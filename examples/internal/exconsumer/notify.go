package exconsumer

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"sync"

	"github.com/evtool/evtool/internal/callout"
)

// Notify calls a downstream service once per event, as a consumer with an
// external effect should (examples/orders/consumer/notify.go says why
// each rule):
//
//   - the request's Idempotency-Key (and Ce-Id) is the event id, the same
//     on every attempt and redelivery, and Body derives the effect's id
//     from it: the service applies each effect once whatever is retried;
//   - Caller retries 429, 5xx, timeouts and resets with capped exponential
//     backoff and full jitter (Retry-After honoured), a bounded number of
//     times, and gives up at once on a terminal answer (another 4xx): the
//     event is then dead-lettered (Loop.Call);
//   - Caller bounds the calls in flight and per second; the calls of one
//     Key go one after another, in the order of their events, different
//     keys in parallel;
//   - an event Seen before (in the inbox: applied before a crash or a
//     rebalance) is not called again.
type Notify[E any] struct {
	Caller *callout.Caller
	Path   string
	ID     func(E) string
	Key    func(E) string
	Body   func(E) any
	Seen   func(ctx context.Context, ids []string) (map[string]bool, error)
}

// NewCaller returns a caller of the service whose URL is in the variable
// env (EVTOOL_DOWNSTREAM_<NAME> under evtool replay), or nil when it is
// not set.
func NewCaller(env string, concurrency int, rate float64) *callout.Caller {
	url := os.Getenv(env)
	if url == "" {
		return nil
	}
	return callout.New(callout.Config{URL: url, Concurrency: concurrency, Rate: rate})
}

// Call makes the calls of a batch (Loop.Call) and returns the errors of
// the events whose call failed for good, by index.
func (n Notify[E]) Call(ctx context.Context, events []E) map[int]error {
	ids := make([]string, len(events))
	for i, e := range events {
		ids[i] = n.ID(e)
	}
	failed := map[int]error{}
	seen, err := n.Seen(ctx, ids)
	if err != nil {
		for i := range events {
			failed[i] = err
		}
		return failed
	}
	var keys []string
	byKey := map[string][]int{}
	for i, e := range events {
		if seen[ids[i]] {
			continue
		}
		seen[ids[i]] = true // a copy later in the batch
		k := n.Key(e)
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Go(func() {
			for _, i := range byKey[k] {
				_, err := n.Caller.Call(ctx, callout.Request{Path: n.Path, Key: ids[i], EventID: ids[i], Body: n.Body(events[i])})
				if err != nil && ctx.Err() == nil {
					mu.Lock()
					failed[i] = err
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return failed
}

// InboxSeen returns a Seen that looks the ids up in the inbox table's
// event_id column; nil db (a consumer without an inbox): nothing seen.
func InboxSeen(db *sql.DB) func(context.Context, []string) (map[string]bool, error) {
	return func(ctx context.Context, ids []string) (map[string]bool, error) {
		out := map[string]bool{}
		if db == nil {
			return out, nil
		}
		for _, id := range ids {
			var one int
			err := db.QueryRowContext(ctx, `SELECT 1 FROM inbox WHERE event_id = ?`, id).Scan(&one)
			switch {
			case err == nil:
				out[id] = true
			case !errors.Is(err, sql.ErrNoRows):
				return nil, err
			}
		}
		return out, nil
	}
}
