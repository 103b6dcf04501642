package main

import (
	"context"

	"github.com/evtool/evtool/examples/internal/exconsumer"
)

// notifier returns the call that posts every event to the wms service
// in EVTOOL_DOWNSTREAM_WMS (nil without the variable), done right (exconsumer.Notify): the
// effect's id and the Idempotency-Key from the event id, capped backoff
// with full jitter, terminal answers dead-lettered, at most 8 calls in
// flight and 900 a second, one key's calls in the order of its events,
// nothing called again for an event in the inbox.
func (s *store) notifier() func(context.Context, []stockEvent) map[int]error {
	c := exconsumer.NewCaller("EVTOOL_DOWNSTREAM_WMS", 8, 900)
	if c == nil {
		return nil
	}
	db := s.db
	if s.naive {
		db = nil // no inbox
	}
	return exconsumer.Notify[stockEvent]{
		Caller: c,
		Path:   "/v1/movements",
		ID:     func(e stockEvent) string { return e.ID },
		Key:    func(e stockEvent) string { return e.SKU },
		Body: func(e stockEvent) any {
			return map[string]any{"movementId": "move-" + e.ID, "sku": e.SKU, "warehouse": e.Warehouse, "quantity": e.Quantity, "type": e.Type}
		},
		Seen: exconsumer.InboxSeen(db),
	}.Call
}
