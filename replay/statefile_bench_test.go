package replay

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// writeExampleState writes a state shaped as examples/orders' consumer
// serves it after n events (indented by two spaces, as its handler
// encodes it): n inbox entries, a payment and a shipment for about a third
// of them each, and 5,000 orders. diff changes one inbox entry's type.
func writeExampleState(tb testing.TB, path string, n int, diff bool) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString("{\n  \"inbox\": [")
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		typ := "com.example.order.paid"
		if diff && i == n/2 {
			typ = "com.example.order.shipped"
		}
		fmt.Fprintf(w, "\n    {\n      \"eventId\": \"evt-%08d\",\n      \"orderId\": \"ord-%05d\",\n      \"type\": %q\n    }", i, i%5000, typ)
	}
	w.WriteString("\n  ],\n  \"orders\": {")
	for i := range 5000 {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, "\n    \"ord-%05d\": {\n      \"currency\": \"EUR\",\n      \"customerId\": \"cus-%04d\",\n      \"fullyPaid\": true,\n      \"orderVersion\": %d,\n      \"paidMinor\": %d,\n      \"parcels\": 2,\n      \"status\": \"shipped\",\n      \"totalMinor\": %d,\n      \"updatedAt\": \"2026-12-02T08:00:%02d.123456Z\"\n    }", i, i%900, n/5000, i*100, i*100, i%60)
	}
	w.WriteString("\n  },\n  \"payments\": [")
	for i := range n / 3 {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, "\n    {\n      \"amountMinor\": %d,\n      \"currency\": \"EUR\",\n      \"method\": \"card\",\n      \"orderId\": \"ord-%05d\",\n      \"paymentId\": \"pay-%08d\"\n    }", i*7, i%5000, i)
	}
	w.WriteString("\n  ],\n  \"shipments\": [")
	for i := range n / 3 {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, "\n    {\n      \"carrier\": \"dhl\",\n      \"orderId\": \"ord-%05d\",\n      \"parcels\": 2,\n      \"shipmentId\": \"shp-%08d\",\n      \"trackingNumber\": \"TRK%010d\"\n    }", i%5000, i, i)
	}
	w.WriteString("\n  ]")
	w.WriteString("\n}\n")
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkStoreState stores (canonicalizes) and compares states of
// examples/orders' shape.
func BenchmarkStoreState(b *testing.B) {
	n := 100000
	if s := os.Getenv("BENCH_STATE_EVENTS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	dir := b.TempDir()
	a, c := filepath.Join(dir, "a.json"), filepath.Join(dir, "c.json")
	writeExampleState(b, a, n, false)
	writeExampleState(b, c, n, false)
	fi, _ := os.Stat(a)
	ignore := []string{"/orders/*/updatedAt"}
	b.SetBytes(fi.Size())
	b.Run("store", func(b *testing.B) {
		b.SetBytes(fi.Size())
		b.ReportAllocs()
		for b.Loop() {
			if _, err := storeState(a, ignore); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("compare", func(b *testing.B) {
		sa, err := storeState(a, ignore)
		if err != nil {
			b.Fatal(err)
		}
		sc, err := storeState(c, ignore)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if cmp, err := compareStored(sa, sc, ignore); err != nil || !cmp.Equal {
				b.Fatal(err, cmp)
			}
		}
	})
}
