package main

import (
	"context"
	"os"
	"strings"
	"sync"

	"github.com/evtool/evtool/internal/callout"
)

// notifier sends a notification per event (a receipt when an order is
// placed, a confirmation when it is paid, a notice when it ships) to the
// email service in EVTOOL_DOWNSTREAM_EMAIL, as a consumer with an external
// effect should:
//
//   - the notification id and the Idempotency-Key are derived from the
//     event id, and the same on every attempt and every redelivery, so the
//     provider sends each notification once whatever is retried;
//   - retryable failures (429, 5xx, timeouts, resets) are retried with
//     capped exponential backoff and full jitter, after Retry-After when
//     the provider gives one, up to a bounded number of attempts;
//   - a terminal failure (another 4xx: an address the provider refuses)
//     is not retried: the event goes to the dead-letter topic;
//   - the calls are bounded in concurrency and rate, and an order's
//     notifications are sent one after another, in the order of its
//     events, while different orders go in parallel;
//   - an event already in the inbox (applied before a crash or a
//     rebalance) is not notified again.
type notifier struct {
	c    *callout.Caller
	seen func(ctx context.Context, ids []string) (map[string]bool, error)
}

// newNotifier returns the notifier, or nil without EVTOOL_DOWNSTREAM_EMAIL.
func newNotifier(concurrency int, rate float64, seen func(context.Context, []string) (map[string]bool, error)) *notifier {
	url := os.Getenv("EVTOOL_DOWNSTREAM_EMAIL")
	if url == "" {
		return nil
	}
	return &notifier{c: callout.New(callout.Config{URL: url, Concurrency: concurrency, Rate: rate}), seen: seen}
}

// call notifies a batch's events and returns the errors of those whose
// notification failed for good, by index.
func (n *notifier) call(ctx context.Context, events []orderEvent) map[int]error {
	ids := make([]string, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	failed := map[int]error{}
	seen, err := n.seen(ctx, ids)
	if err != nil {
		for i := range events {
			failed[i] = err
		}
		return failed
	}
	var orders []string
	byOrder := map[string][]int{}
	for i, e := range events {
		if seen[e.ID] {
			continue
		}
		seen[e.ID] = true // a copy later in the batch
		if _, ok := byOrder[e.OrderID]; !ok {
			orders = append(orders, e.OrderID)
		}
		byOrder[e.OrderID] = append(byOrder[e.OrderID], i)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, o := range orders {
		wg.Go(func() {
			for _, i := range byOrder[o] {
				e := events[i]
				_, err := n.c.Call(ctx, callout.Request{Path: "/v1/send", Key: e.ID, EventID: e.ID, Body: map[string]string{
					"notificationId": "notify-" + e.ID,
					"to":             e.OrderID + "@customers.example",
					"template":       strings.TrimPrefix(e.Type, "com.example.order."),
				}})
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
