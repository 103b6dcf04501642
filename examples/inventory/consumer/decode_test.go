package main

import (
	"errors"
	"os"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/examples/internal/exampletest"
	"github.com/evtool/evtool/examples/internal/exconsumer"
	"github.com/evtool/evtool/examples/inventory"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonstrict"
)

// record is a binary-mode record of an event of typ written with version,
// its data value (the JSON mapping) in contentType (frameID: Confluent-framed
// under that id with the message index; 0: unframed).
func record(t *testing.T, d *decoder, typ string, version int, value, contentType string, frameID uint32) *kgo.Record {
	t.Helper()
	data := []byte(value)
	if contentType == format.ContentTypeProtobuf {
		v, err := jsonstrict.Decode([]byte(value))
		if err != nil {
			t.Fatal(err)
		}
		s := d.rd.Catalog.Lookup(typ).Version(version).Compiled
		if frameID != 0 {
			data, err = s.FrameValue(frameID, v)
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
	// v1 of the first type has registry id 7: framed data must carry it.
	dir := exampletest.CatalogWithIDs(t, inventory.Catalog, map[string]uint32{typeReceived + "@v1": 7})
	d, err := newDecoderFrom(os.DirFS(dir), dir)
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
		frame   uint32
		want    stockEvent
	}{
		{"received v1 binary", typeReceived, 1, received, format.ContentTypeProtobuf, 0, want},
		{"received v1 framed", typeReceived, 1, received, format.ContentTypeProtobuf, 7, want},
		{"received v1 JSON mapping", typeReceived, 1, received, format.ContentTypeJSON, 0, want},
		{"received v3", typeReceived, 3, `{"sku":"SKU-1","location":{"warehouse":"ams-1","bin":"A-1"},"quantity":"24","receiptId":"rcv-1","supplier":"Acme","purchaseOrder":"po-1"}`,
			format.ContentTypeProtobuf, 0, want},
		{"counted v2", typeCounted, 2, `{"sku":"SKU-1","location":{"warehouse":"ams-1","bin":"A-1"},"revision":"3","quantity":"20","method":"METHOD_MANUAL"}`,
			format.ContentTypeProtobuf, 0, stockEvent{ID: "ev-1", Type: typeCounted, SKU: "SKU-1", Warehouse: "ams-1", Bin: "A-1", Quantity: 20, Revision: 3}},
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
	// Framed under an id the catalog does not know, or under another
	// version's id: dead letters.
	for id, kind := range map[uint32]string{9: "unknown-schema-id", 7: "invalid-data"} {
		_, err := d.decode(record(t, d, typeReceived, 2, received, format.ContentTypeProtobuf, id))
		var rej *exconsumer.Reject
		if !errors.As(err, &rej) || rej.Kind != kind {
			t.Errorf("v2 framed under id %d: %v, want a %s rejection", id, err, kind)
		}
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
