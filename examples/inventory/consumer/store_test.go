package main

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/examples/internal/exampletest"
)

var stockEvents = []stockEvent{
	{ID: "e1", Type: typeReceived, SKU: "SKU-1", Warehouse: "ams-1", Bin: "A-1", Quantity: 24, Ref: "rcv-1"},
	{ID: "e2", Type: typeReserved, SKU: "SKU-1", Warehouse: "ams-1", Bin: "A-1", Quantity: 3, Ref: "rsv-1"},
	{ID: "e3", Type: typeCounted, SKU: "SKU-1", Warehouse: "ams-1", Bin: "A-1", Quantity: 21, Revision: 1},
	{ID: "e4", Type: typeReceived, SKU: "SKU-1", Warehouse: "ams-1", Bin: "A-1", Quantity: 12, Ref: "rcv-2"},
	{ID: "e5", Type: typeCounted, SKU: "SKU-1", Warehouse: "ams-1", Bin: "A-1", Quantity: 32, Revision: 2},
}

func stock(t *testing.T, naive bool, batches ...[]stockEvent) map[string]any {
	t.Helper()
	return exampletest.StateAfter(t, "inventory.db", func(path string) (*store, error) { return openStore(path, naive) }, batches...)
}

// Redelivered and reordered events leave the correct stock as the clean
// delivery does; the naive one counts a receipt twice or keeps an old
// count.
func TestStockAtLeastOnce(t *testing.T) {
	e := stockEvents
	reversed := slices.Clone(e)
	slices.Reverse(reversed)
	for _, tt := range []struct {
		name      string
		batches   [][]stockEvent
		naiveDiff bool
	}{
		{"redelivered after a restart", [][]stockEvent{e[:4], e[3:]}, true},
		{"reversed", [][]stockEvent{reversed}, true},
		{"duplicate count", [][]stockEvent{e, e[4:]}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(stock(t, false, e), stock(t, false, tt.batches...)); diff != "" {
				t.Errorf("correct stock differs (-clean +faulty):\n%s", diff)
			}
			if got := cmp.Diff(stock(t, true, e), stock(t, true, tt.batches...)) != ""; got != tt.naiveDiff {
				t.Errorf("naive stock differs: %v, want %v", got, tt.naiveDiff)
			}
		})
	}
	want := []any{map[string]any{"sku": "SKU-1", "warehouse": "ams-1", "bin": "A-1", "received": int64(36), "reserved": int64(3), "available": int64(33), "countRevision": int64(2), "counted": int64(32)}}
	if diff := cmp.Diff(want, stock(t, false, e)["stock"]); diff != "" {
		t.Errorf("stock (-want +got):\n%s", diff)
	}
}
