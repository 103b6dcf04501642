package main

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/examples/internal/exampletest"
)

var ledgerEvents = []paymentEvent{
	{ID: "e1", Type: typeAuthorized, PaymentID: "pay-1", AccountID: "acc-1", Sequence: 1, AmountMinor: 1000, Currency: "EUR", Method: "CARD"},
	{ID: "e2", Type: typeCaptured, PaymentID: "pay-1", AccountID: "acc-1", Sequence: 2, AmountMinor: 1000, Currency: "EUR", FeeBasisPoints: 150},
	{ID: "e3", Type: typeRefunded, PaymentID: "pay-1", AccountID: "acc-1", Sequence: 3, AmountMinor: 300, Currency: "EUR", RefundID: "ref-1"},
	{ID: "e4", Type: typeRefunded, PaymentID: "pay-1", AccountID: "acc-1", Sequence: 4, AmountMinor: 200, Currency: "EUR", RefundID: "ref-2"},
	{ID: "e5", Type: typeAuthorized, PaymentID: "pay-2", AccountID: "acc-1", Sequence: 1, AmountMinor: 500, Currency: "EUR", Method: "WALLET"},
}

func ledger(t *testing.T, naive bool, batches ...[]paymentEvent) map[string]any {
	t.Helper()
	return exampletest.StateAfter(t, "payments.db", func(path string) (*store, error) { return openStore(path, naive) }, batches...)
}

// Redelivered and reordered events leave the correct ledger as the clean
// delivery does; the naive one counts a refund twice or sets a status
// back.
func TestLedgerAtLeastOnce(t *testing.T) {
	e := ledgerEvents
	reversed := slices.Clone(e)
	slices.Reverse(reversed)
	for _, tt := range []struct {
		name      string
		batches   [][]paymentEvent
		naiveDiff bool
	}{
		{"redelivered after a restart", [][]paymentEvent{e[:4], e[2:]}, true},
		{"reversed", [][]paymentEvent{reversed}, true},
		{"duplicate authorization", [][]paymentEvent{{e[0], e[0]}, e[1:]}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(ledger(t, false, e), ledger(t, false, tt.batches...)); diff != "" {
				t.Errorf("correct ledger differs (-clean +faulty):\n%s", diff)
			}
			if got := cmp.Diff(ledger(t, true, e), ledger(t, true, tt.batches...)) != ""; got != tt.naiveDiff {
				t.Errorf("naive ledger differs: %v, want %v", got, tt.naiveDiff)
			}
		})
	}
	want := map[string]any{"payments": int64(2), "capturedMinor": int64(1000), "refundedMinor": int64(500), "netMinor": int64(500)}
	acc := ledger(t, false, e)["accounts"].(map[string]any)["acc-1"]
	if diff := cmp.Diff(want, acc); diff != "" {
		t.Errorf("account acc-1 (-want +got):\n%s", diff)
	}
}
