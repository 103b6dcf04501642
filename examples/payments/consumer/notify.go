package main

import (
	"context"

	"github.com/evtool/evtool/examples/internal/exconsumer"
)

// notifier returns the call that posts every event to the ledger service
// in EVTOOL_DOWNSTREAM_LEDGER (nil without the variable), done right (exconsumer.Notify): the
// effect's id and the Idempotency-Key from the event id, capped backoff
// with full jitter, terminal answers dead-lettered, at most 8 calls in
// flight and 900 a second, one key's calls in the order of its events,
// nothing called again for an event in the inbox.
func (s *store) notifier() func(context.Context, []paymentEvent) map[int]error {
	c := exconsumer.NewCaller("EVTOOL_DOWNSTREAM_LEDGER", 8, 900)
	if c == nil {
		return nil
	}
	db := s.db
	if s.naive {
		db = nil // no inbox
	}
	return exconsumer.Notify[paymentEvent]{
		Caller: c,
		Path:   "/v1/entries",
		ID:     func(e paymentEvent) string { return e.ID },
		Key:    func(e paymentEvent) string { return e.PaymentID },
		Body: func(e paymentEvent) any {
			return map[string]any{"entryId": "entry-" + e.ID, "account": e.AccountID, "payment": e.PaymentID, "type": e.Type, "amountMinor": e.AmountMinor}
		},
		Seen: exconsumer.InboxSeen(db),
	}.Call
}
