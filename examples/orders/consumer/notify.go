package main

import (
	"context"
	"strings"

	"github.com/evtool/evtool/examples/internal/exconsumer"
)

// newNotifier returns the call that notifies the email service in
// EVTOOL_DOWNSTREAM_EMAIL of every event (a receipt when an order is
// placed, a confirmation when it is paid, a notice when it ships), or nil
// without the variable. It does what a consumer with an external effect
// should (exconsumer.Notify):
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
func newNotifier(concurrency int, rate float64, seen func(context.Context, []string) (map[string]bool, error)) func(context.Context, []orderEvent) map[int]error {
	c := exconsumer.NewCaller("EVTOOL_DOWNSTREAM_EMAIL", concurrency, rate)
	if c == nil {
		return nil
	}
	return exconsumer.Notify[orderEvent]{
		Caller: c,
		Path:   "/v1/send",
		ID:     func(e orderEvent) string { return e.ID },
		Key:    func(e orderEvent) string { return e.OrderID },
		Body: func(e orderEvent) any {
			return map[string]string{
				"notificationId": "notify-" + e.ID,
				"to":             e.OrderID + "@customers.example",
				"template":       strings.TrimPrefix(e.Type, "com.example.order."),
			}
		},
		Seen: seen,
	}.Call
}
