package main

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/examples/internal/exampletest"
	"github.com/evtool/evtool/examples/internal/exconsumer"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonstrict"
)

// record is a binary-mode record of an event of typ written with version,
// its data value (the JSON mapping) in contentType (frame: Confluent-framed
// under id 7, with the message index).
func record(t *testing.T, d *decoder, typ string, version int, value, contentType string, frame bool) *kgo.Record {
	t.Helper()
	data := []byte(value)
	if contentType == format.ContentTypeProtobuf {
		v, err := jsonstrict.Decode([]byte(value))
		if err != nil {
			t.Fatal(err)
		}
		s := d.rd.Catalog.Lookup(typ).Version(version).Compiled
		if frame {
			data, err = s.FrameValue(7, v)
		} else {
			data, err = s.EncodeValue(v, contentType)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return binaryRecord(t, typ, d.rd.Catalog.DataSchema(typ, version), contentType, data)
}

func binaryRecord(t *testing.T, typ, dataschema, contentType string, data []byte) *kgo.Record {
	return exampletest.BinaryRecord(t, "/warehouse-service", typ, dataschema, contentType, data)
}

// Every version is read with the newest descriptor, in binary (framed or
// not) and in the JSON mapping; what is not a message of a known version
// is rejected with its kind.
func TestDecode(t *testing.T) {
	d, err := newDecoder()
	if err != nil {
		t.Fatal(err)
	}
	const received = `{"sku":"SKU-1","location":{"warehouse":"ams-1","bin":"A-1"},"quantity":"24","receiptId":"rcv-1","receivedAt":"2025-06-02T09:00:00Z"}`
	want := stockEvent{ID: "ev-1", Type: typeReceived, SKU: "SKU-1", Warehouse: "ams-1", Bin: "A-1", Quantity: 24, Ref: "rcv-1"}
	for _, tt := range []struct {
		name    string
		typ     string
		version int
		value   string
		ct      string
		frame   bool
		want    stockEvent
	}{
		{"received v1 binary", typeReceived, 1, received, format.ContentTypeProtobuf, false, want},
		{"received v1 framed", typeReceived, 1, received, format.ContentTypeProtobuf, true, want},
		{"received v1 JSON mapping", typeReceived, 1, received, format.ContentTypeJSON, false, want},
		{"received v3", typeReceived, 3, `{"sku":"SKU-1","location":{"warehouse":"ams-1","bin":"A-1"},"quantity":"24","receiptId":"rcv-1","supplier":"Acme","purchaseOrder":"po-1"}`,
			format.ContentTypeProtobuf, false, want},
		{"counted v2", typeCounted, 2, `{"sku":"SKU-1","location":{"warehouse":"ams-1","bin":"A-1"},"revision":"3","quantity":"20","method":"METHOD_MANUAL"}`,
			format.ContentTypeProtobuf, false, stockEvent{ID: "ev-1", Type: typeCounted, SKU: "SKU-1", Warehouse: "ams-1", Bin: "A-1", Quantity: 20, Revision: 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := d.decode(record(t, d, tt.typ, tt.version, tt.value, tt.ct, tt.frame))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
	for _, tt := range []struct {
		name, typ, dataschema string
		data                  []byte
		kind                  string
	}{
		{"future version", typeReceived, "https://schemas.example.com/" + typeReceived + "/v9.proto", []byte{0x0a, 0x01, 'x'}, "unknown-version"},
		{"unknown type", "com.example.inventory.stock.lost", "https://schemas.example.com/com.example.inventory.stock.lost/v1.proto", []byte{0x0a, 0x01, 'x'}, "unknown-type"},
		{"not a message", typeReceived, d.rd.Catalog.DataSchema(typeReceived, 1), []byte{0xff, 0xff}, "invalid-data"},
		{"no sku", typeReceived, d.rd.Catalog.DataSchema(typeReceived, 1), []byte{0x18, 0x05}, "invalid-data"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := d.decode(binaryRecord(t, tt.typ, tt.dataschema, format.ContentTypeProtobuf, tt.data))
			var rej *exconsumer.Reject
			if !errors.As(err, &rej) || rej.Kind != tt.kind {
				t.Fatalf("got %+v, %v; want a %s rejection", got, err, tt.kind)
			}
		})
	}
}
