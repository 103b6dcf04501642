package main

import (
	"errors"
	"os"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/examples/internal/exampletest"
	"github.com/evtool/evtool/examples/internal/exconsumer"
	"github.com/evtool/evtool/examples/payments"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonstrict"
)

// record is a binary-mode record of an event of typ written with version
// (v99: a version the catalog does not have), its data the value's
// encoding in contentType (frameID: Confluent-framed under that id, 0: unframed).
func record(t *testing.T, d *decoder, typ string, version int, value string, contentType string, frameID uint32) *kgo.Record {
	t.Helper()
	data := []byte(value)
	if contentType == format.ContentTypeAvro {
		v, err := jsonstrict.Decode([]byte(value))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = d.rd.Catalog.Lookup(typ).Version(version).Compiled.EncodeValue(v, contentType); err != nil {
			t.Fatal(err)
		}
		if frameID != 0 {
			data = format.Frame(frameID, data)
		}
	}
	return exampletest.BinaryRecord(t, "/payments-service", typ, d.rd.Catalog.DataSchema(typ, version), contentType, data)
}

// Every version of every type arrives in the newest layout (Avro's
// resolution: int to long, float to double, defaults for fields the
// writer had not), in binary, framed, or in the JSON encoding; what is
// not a datum of a known version is rejected with its kind.
func TestDecode(t *testing.T) {
	// v1 of the first type has registry id 7: framed data must carry it.
	dir := exampletest.CatalogWithIDs(t, payments.Catalog, map[string]uint32{typeAuthorized + "@v1": 7})
	d, err := newDecoderFrom(os.DirFS(dir), dir)
	if err != nil {
		t.Fatal(err)
	}
	const auth = `{"paymentId":"pay-1","accountId":"acc-1","sequence":1,"amount":{"amount":"\u0004\u00d2","currency":"EUR"},"method":"CARD"}`
	for _, tt := range []struct {
		name        string
		typ         string
		version     int
		value, ct   string
		frame       uint32
		want        paymentEvent
		wantRejects string
	}{
		{name: "authorized v1 binary", typ: typeAuthorized, version: 1, value: auth, ct: format.ContentTypeAvro,
			want: paymentEvent{PaymentID: "pay-1", AccountID: "acc-1", Sequence: 1, AmountMinor: 1234, Currency: "EUR", Method: "CARD"}},
		{name: "authorized v1 framed", typ: typeAuthorized, version: 1, value: auth, ct: format.ContentTypeAvro, frame: 7,
			want: paymentEvent{PaymentID: "pay-1", AccountID: "acc-1", Sequence: 1, AmountMinor: 1234, Currency: "EUR", Method: "CARD"}},
		{name: "authorized v1 JSON encoding", typ: typeAuthorized, version: 1, value: auth, ct: format.ContentTypeJSON,
			want: paymentEvent{PaymentID: "pay-1", AccountID: "acc-1", Sequence: 1, AmountMinor: 1234, Currency: "EUR", Method: "CARD"}},
		{name: "authorized v3 wallet", typ: typeAuthorized, version: 3, ct: format.ContentTypeAvro,
			value: `{"paymentId":"pay-1","accountId":"acc-1","sequence":1,"amount":{"amount":"\u0004\u00d2","currency":"EUR"},"method":"WALLET","merchantRef":{"string":"inv-1"}}`,
			want:  paymentEvent{PaymentID: "pay-1", AccountID: "acc-1", Sequence: 1, AmountMinor: 1234, Currency: "EUR", Method: "WALLET"}},
		{name: "captured v1 float fee", typ: typeCaptured, version: 1, ct: format.ContentTypeAvro,
			value: `{"paymentId":"pay-1","accountId":"acc-1","sequence":2,"captured":{"amount":"\u0004\u00d2","currency":"EUR"},"feeRate":0.015}`,
			want:  paymentEvent{PaymentID: "pay-1", AccountID: "acc-1", Sequence: 2, AmountMinor: 1234, Currency: "EUR", FeeBasisPoints: 150}},
		{name: "refunded v3 negative decimal", typ: typeRefunded, version: 3, ct: format.ContentTypeAvro,
			value: `{"paymentId":"pay-1","accountId":"acc-1","sequence":3,"refundId":"ref-1","refund":{"amount":"\u00ff\u0038","currency":"EUR"},"reason":{"com.example.payments.RefundReason":"FRAUD"}}`,
			want:  paymentEvent{PaymentID: "pay-1", AccountID: "acc-1", Sequence: 3, AmountMinor: -200, Currency: "EUR", RefundID: "ref-1"}},
		{name: "framed under an unknown id", typ: typeAuthorized, version: 1, value: auth, ct: format.ContentTypeAvro, frame: 9, wantRejects: "unknown-schema-id"},
		{name: "framed under another version's id", typ: typeAuthorized, version: 2, value: auth, ct: format.ContentTypeAvro, frame: 7, wantRejects: "invalid-data"},
		{name: "future version", typ: typeAuthorized, version: 99, value: "\x02x", ct: format.ContentTypeAvro, wantRejects: "unknown-version"},
		{name: "not a datum", typ: typeAuthorized, version: 1, value: "\x02", ct: format.ContentTypeAvro, wantRejects: "invalid-data"},
		{name: "unknown type", typ: "com.example.payment.lost", version: 1, value: "\x02", ct: format.ContentTypeAvro, wantRejects: "unknown-type"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r *kgo.Record
			if tt.wantRejects != "" && tt.frame == 0 {
				r = rawRecord(t, d, tt.typ, tt.version, []byte(tt.value))
			} else {
				r = record(t, d, tt.typ, tt.version, tt.value, tt.ct, tt.frame)
			}
			got, err := d.decode(r)
			if tt.wantRejects != "" {
				var rej *exconsumer.Reject
				if !errors.As(err, &rej) || rej.Kind != tt.wantRejects {
					t.Fatalf("got %+v, %v; want a %s rejection", got, err, tt.wantRejects)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.want.ID, tt.want.Type, tt.want.Version = "ev-1", tt.typ, tt.version
			if got != tt.want {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// rawRecord is a binary-mode record whose value is data as given.
func rawRecord(t *testing.T, d *decoder, typ string, version int, data []byte) *kgo.Record {
	t.Helper()
	ds := "https://schemas.example.com/" + typ + "/v99.avsc"
	if version != 99 {
		ds = d.rd.Catalog.DataSchema(typ, version)
	}
	if d.rd.Catalog.Lookup(typ) == nil {
		ds = "https://schemas.example.com/" + typ + "/v1.avsc"
	}
	return &kgo.Record{Value: data, Headers: []kgo.RecordHeader{
		{Key: "ce_specversion", Value: []byte("1.0")}, {Key: "ce_id", Value: []byte("ev-1")},
		{Key: "ce_source", Value: []byte("/payments-service")}, {Key: "ce_type", Value: []byte(typ)},
		{Key: "ce_dataschema", Value: []byte(ds)}, {Key: "content-type", Value: []byte(format.ContentTypeAvro)},
	}}
}
