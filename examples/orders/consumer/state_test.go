package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The state as GET /state serves it: orders by id (channel only when
// known, fullyPaid only with a total), payments, shipments and the inbox
// sorted by their keys, in the correct and the naive store.
func TestWriteState(t *testing.T) {
	evs := []orderEvent{
		{ID: "e2", Type: typePaid, OrderID: "o1", OrderVersion: 2, PaymentID: "p1", Amount: money{500, "EUR"}, Method: "card"},
		{ID: "e1", Type: typePlaced, OrderID: "o1", OrderVersion: 1, CustomerID: "c1", Total: money{500, "EUR"}, Channel: "web"},
		{ID: "e3", Type: typeShipped, OrderID: "o1", OrderVersion: 3, ShipmentID: "s1", Carrier: "dhl", TrackingNumber: "T<1>", Parcels: 2},
		{ID: "e4", Type: typePaid, OrderID: "o2", OrderVersion: 2, PaymentID: "p2", Amount: money{100, "USD"}, Method: "cash"},
	}
	order1 := `{"channel":"web","currency":"EUR","customerId":"c1","fullyPaid":true,"orderVersion":3,"paidMinor":500,"parcels":2,"status":"shipped","totalMinor":500,"updatedAt":"T"}`
	order2 := `{"currency":"","customerId":"","orderVersion":2,"paidMinor":100,"parcels":0,"status":"paid","totalMinor":0,"updatedAt":"T"}`
	tables := `"orders":{"o1":` + order1 + `,"o2":` + order2 + `},` +
		`"payments":[{"amountMinor":500,"currency":"EUR","method":"card","orderId":"o1","paymentId":"p1"},{"amountMinor":100,"currency":"USD","method":"cash","orderId":"o2","paymentId":"p2"}],` +
		`"shipments":[{"carrier":"dhl","orderId":"o1","parcels":2,"shipmentId":"s1","trackingNumber":"T<1>"}]}`
	for _, tc := range []struct {
		naive bool
		want  string
	}{
		{false, `{"inbox":[{"eventId":"e1","orderId":"o1","type":"com.example.order.placed"},{"eventId":"e2","orderId":"o1","type":"com.example.order.paid"},{"eventId":"e3","orderId":"o1","type":"com.example.order.shipped"},{"eventId":"e4","orderId":"o2","type":"com.example.order.paid"}],` + tables},
		{true, `{` + tables},
	} {
		st, err := openStore(filepath.Join(t.TempDir(), "orders.db"), tc.naive)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		st.now = func() time.Time { return time.Time{} }
		ctx := context.Background()
		// Two batches, the second repeating the first event (skipped by
		// the inbox; naive applies the placed event again, which changes
		// nothing here).
		if _, err := st.Apply(ctx, evs[:2]); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Apply(ctx, append([]orderEvent{evs[1]}, evs[2:]...)); err != nil {
			t.Fatal(err)
		}
		got, err := st.State(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if err := json.Unmarshal(got.(json.RawMessage), &g); err != nil {
			t.Fatalf("naive %v: not JSON: %v\n%s", tc.naive, err, got)
		}
		if err := json.Unmarshal([]byte(tc.want), &w); err != nil {
			t.Fatal(err)
		}
		// updatedAt is the wall clock's: compared as written.
		for _, o := range g.(map[string]any)["orders"].(map[string]any) {
			o.(map[string]any)["updatedAt"] = "T"
		}
		if d := cmp.Diff(w, g); d != "" {
			t.Errorf("naive %v: state (-want +got):\n%s", tc.naive, d)
		}
	}
}
