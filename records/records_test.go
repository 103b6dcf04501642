package records

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
)

// jsBinary is an order.placed event as the CloudEvents JavaScript SDK
// writes binary mode: content-type and an equal ce_datacontenttype.
func jsBinary(id, order string, version int, key string, offset int64) *kgo.Record {
	data := fmt.Sprintf(`{"orderId":%q,"customerId":"cus-297286","orderVersion":%d,"items":[{"sku":"TSH-0042","quantity":1,"unitPrice":{"amountMinor":1999,"currency":"GBP"}}],"total":{"amountMinor":1999,"currency":"GBP"},"placedAt":"2025-03-03T08:00:05Z"}`, order, version)
	h := func(k, v string) kgo.RecordHeader { return kgo.RecordHeader{Key: k, Value: []byte(v)} }
	return &kgo.Record{Topic: "t", Offset: offset, Key: []byte(key), Value: []byte(data), Headers: []kgo.RecordHeader{
		h("content-type", "application/json"), h("ce_id", id), h("ce_time", "2026-12-01T10:00:00.000Z"),
		h("ce_type", "com.example.order.placed"), h("ce_source", "/orders-service"), h("ce_specversion", "1.0"),
		h("ce_dataschema", "https://schemas.example.com/com.example.order.placed/v1.json"),
		h("ce_datacontenttype", "application/json"),
	}}
}

// TestChecker: per-record and cross-record findings, in order.
func TestChecker(t *testing.T) {
	cat, err := catalog.Load("../examples/orders")
	if err != nil {
		t.Fatal(err)
	}
	c := NewChecker(cat)
	for _, tc := range []struct {
		rec    *kgo.Record
		rules  []string
		repeat bool
		seq    float64
	}{
		{jsBinary("a", "ord-00001", 2, "ord-00001", 0), nil, false, 2},
		// A repeat of an earlier id is counted, not taken for a sequence
		// going backwards.
		{jsBinary("b", "ord-00001", 3, "ord-00001", 1), nil, false, 3},
		{jsBinary("a", "ord-00001", 2, "ord-00001", 2), nil, true, 2},
		{jsBinary("c", "ord-00001", 1, "ord-00001", 3), []string{RuleSequenceBackwards}, false, 1},
		{jsBinary("d", "ord-00002", 1, "", 4), []string{RulePartitionKey}, false, 1},
		{jsBinary("a", "ord-00003", 1, "ord-00003", 5), []string{RuleIDReused}, true, 1},
	} {
		r := c.Check(tc.rec)
		var rules []string
		for _, f := range r.Findings {
			rules = append(rules, f.Rule)
			if f.Record == nil || f.Record.Offset != tc.rec.Offset {
				t.Errorf("offset %d: finding %s without its record", tc.rec.Offset, f.Rule)
			}
		}
		if fmt.Sprint(rules) != fmt.Sprint(tc.rules) || r.Repeat != tc.repeat || r.Seq != tc.seq || !r.HasSeq {
			t.Errorf("offset %d: rules %v repeat %v seq %v, want %v %v %v", tc.rec.Offset, rules, r.Repeat, r.Seq, tc.rules, tc.repeat, tc.seq)
		}
	}
	fs := c.Finish()
	if len(fs) != 1 || fs[0].Rule != RuleIDRepeated || fs[0].Record.Offset != 0 || !strings.Contains(fs[0].Message, "arrived 2 times") {
		t.Errorf("finish: %+v", fs)
	}
}

// paidBinary is an order.paid event in the JavaScript SDK's binary mode.
func paidBinary(id, order string, version int, offset int64) *kgo.Record {
	r := jsBinary(id, order, version, order, offset)
	r.Value = []byte(fmt.Sprintf(`{"orderId":%q,"orderVersion":%d,"paymentId":"f408594a-21b6-4b17-a785-6c5e5d406ccf","amount":{"amountMinor":416,"currency":"GBP"},"method":"card","paidAt":"2025-03-03T08:04:28Z"}`, order, version))
	for i, h := range r.Headers {
		switch h.Key {
		case "ce_type":
			r.Headers[i].Value = []byte("com.example.order.paid")
		case "ce_dataschema":
			r.Headers[i].Value = []byte("https://schemas.example.com/com.example.order.paid/v1.json")
		}
	}
	return r
}

// TestSequenceAcrossTypes: the sequence is the key's, whichever of its
// types carries it: an order's paid (version 2) before its placed
// (version 1) went backwards.
func TestSequenceAcrossTypes(t *testing.T) {
	cat, err := catalog.Load("../examples/orders")
	if err != nil {
		t.Fatal(err)
	}
	c := NewChecker(cat)
	if r := c.Check(paidBinary("p", "ord-00001", 2, 0)); len(r.Findings) != 0 {
		t.Fatalf("paid: %+v", r.Findings)
	}
	if r := c.Check(jsBinary("a", "ord-00001", 1, "ord-00001", 1)); !r.Backwards() {
		t.Errorf("placed version 1 after paid version 2: %+v", r.Findings)
	}
}

// TestPartitionKeyInFormattedData: the partition key of a type whose data
// is Avro or Protobuf binary (examples/payments, partitionkey /paymentId;
// examples/inventory, /sku) is read from the datum, not reported missing
// because the data is not JSON.
func TestPartitionKeyInFormattedData(t *testing.T) {
	h := func(k, v string) kgo.RecordHeader { return kgo.RecordHeader{Key: k, Value: []byte(v)} }
	for _, tc := range []struct {
		catalog, data, source, typ, schema, contentType, key, pointer string
	}{
		// The first events of the examples' events.jsonl, in binary mode.
		{"../examples/payments", "EHBheS0wMDMxDGFjYy0wMgIGAuE3BkdCUAA=", "/payments-service", "com.example.payment.authorized", "https://schemas.example.com/com.example.payment.authorized/v2.avsc", "application/avro", "pay-0031", "/paymentId"},
		{"../examples/inventory", "CghTS1UtMDAwNhIPCgVhbXMtMRIGRS0xOC0zGIQBIghyY3YtMDAxOSoGCPqB9cEG", "/warehouse-service", "com.example.inventory.stock.received", "https://schemas.example.com/com.example.inventory.stock.received/v3.proto", "application/protobuf", "SKU-0006", "/sku"},
	} {
		cat, err := catalog.Load(tc.catalog)
		if err != nil {
			t.Fatal(err)
		}
		data, err := base64.StdEncoding.DecodeString(tc.data)
		if err != nil {
			t.Fatal(err)
		}
		record := func(key string, offset int64) *kgo.Record {
			return &kgo.Record{Topic: "t", Offset: offset, Key: []byte(key), Value: data, Headers: []kgo.RecordHeader{
				h("ce_specversion", "1.0"), h("ce_id", fmt.Sprint("id-", offset)), h("ce_source", tc.source),
				h("ce_type", tc.typ), h("ce_dataschema", tc.schema), h("content-type", tc.contentType),
			}}
		}
		c := NewChecker(cat)
		for i, k := range []struct{ key, want string }{
			{tc.key, ""},
			{"wrong", fmt.Sprintf("record key \"wrong\", but %s's partitionkey %s is %q", tc.typ, tc.pointer, tc.key)},
		} {
			r := c.Check(record(k.key, int64(i)))
			var got []string
			for _, f := range r.Findings {
				got = append(got, f.Message)
			}
			if k.want == "" && len(got) != 0 || k.want != "" && fmt.Sprint(got) != "["+k.want+"]" {
				t.Errorf("%s key %q: findings %q, want %q", tc.typ, k.key, got, k.want)
			}
		}
	}
}

// TestPartitionKeyInReframedAvroData: the partition key of Avro binary
// data is read from the datum as the type's framing says, the frame taken
// off once. The datum {counter: 0, steps: [1, 1, 1, 1]}
// (00 08 02 02 02 02 00) starts like a frame whose rest is a datum too
// ({counter: 1, steps: []}): taking a frame off the framed payload a second
// time, or guessing one under framing none, read the key as 1. (Unframed
// under framing confluent it is taken for framed, as the validator takes
// it: a known ambiguity.)
func TestPartitionKeyInReframedAvroData(t *testing.T) {
	h := func(k, v string) kgo.RecordHeader { return kgo.RecordHeader{Key: k, Value: []byte(v)} }
	cat, err := catalog.Load("testdata/framed")
	if err != nil {
		t.Fatal(err)
	}
	datum := []byte{0x00, 0x08, 0x02, 0x02, 0x02, 0x02, 0x00}
	for _, tc := range []struct {
		name, typ string
		value     []byte
	}{
		{"framed under framing confluent", "com.example.counter.moved", append([]byte{0, 0, 0, 0, 1}, datum...)},
		{"unframed under framing none", "com.example.counter.reset", datum},
	} {
		r := NewChecker(cat).Check(&kgo.Record{Topic: "counters", Key: []byte("0"), Value: tc.value, Headers: []kgo.RecordHeader{
			h("ce_specversion", "1.0"), h("ce_id", "m-1"), h("ce_source", "/counters"), h("ce_type", tc.typ),
			h("ce_dataschema", "https://schemas.example.com/"+tc.typ+"/v1.avsc"), h("content-type", "application/avro"),
		}})
		if len(r.Findings) != 0 {
			t.Errorf("%s: findings %+v, want none (partition key 0)", tc.name, r.Findings)
		}
	}
}

// TestPartitionKeyAtProtobufDefault: a Protobuf key field set to its
// default (bin 0) is absent from the JSON mapping but is the message's
// value, the key replay writes (docs/protobuf.md): it is checked, not
// reported missing, in binary and in the JSON form alike. So is a key
// named by the field's proto name (/bin_id), which replay reads too.
func TestPartitionKeyAtProtobufDefault(t *testing.T) {
	h := func(k, v string) kgo.RecordHeader { return kgo.RecordHeader{Key: k, Value: []byte(v)} }
	cat, err := catalog.Load("testdata/proto")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, typ, contentType, key string
		value                       []byte
		want                        string // the one finding's message; "" for none
	}{
		{"binary, bin 0", "com.example.bin.counted", "application/protobuf", "0", []byte{0x10, 0x05}, ""},
		{"binary, bin 7", "com.example.bin.counted", "application/protobuf", "7", []byte{0x08, 0x07, 0x10, 0x05}, ""},
		{"binary, bin 0 under key 1", "com.example.bin.counted", "application/protobuf", "1", []byte{0x10, 0x05}, `record key "1", but com.example.bin.counted's partitionkey /bin is "0"`},
		{"JSON form, bin 0", "com.example.bin.counted", "application/json", "0", []byte(`{"bin": 0, "quantity": "5"}`), ""},
		{"JSON form, bin left out", "com.example.bin.counted", "application/json", "0", []byte(`{"quantity": "5"}`), ""},
		// partitionkey /bin_id: the proto name, whose JSON name is binId.
		{"proto name, binary", "com.example.bin.moved", "application/protobuf", "3", []byte{0x08, 0x03}, ""},
		{"proto name, JSON form", "com.example.bin.moved", "application/json", "3", []byte(`{"bin_id": 3}`), ""},
		{"proto name, JSON form by JSON name", "com.example.bin.moved", "application/json", "3", []byte(`{"binId": 3}`), ""},
		{"proto name at its default", "com.example.bin.moved", "application/protobuf", "0", []byte{0x12, 0x01, 'b'}, ""},
	} {
		r := NewChecker(cat).Check(&kgo.Record{Topic: "bins", Key: []byte(tc.key), Value: tc.value, Headers: []kgo.RecordHeader{
			h("ce_specversion", "1.0"), h("ce_id", "b-1"), h("ce_source", "/bins"), h("ce_type", tc.typ),
			h("ce_dataschema", "https://schemas.example.com/"+tc.typ+"/v1.proto"), h("content-type", tc.contentType),
		}})
		var got []string
		for _, f := range r.Findings {
			got = append(got, f.Message)
		}
		if tc.want == "" && len(got) != 0 || tc.want != "" && fmt.Sprint(got) != "["+tc.want+"]" {
			t.Errorf("%s: findings %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestUndecodableDataNoKeyFinding: data that does not decode is reported
// once; that the undecoded data has no value at the partitionkey is not a
// second, misleading finding.
func TestUndecodableDataNoKeyFinding(t *testing.T) {
	h := func(k, v string) kgo.RecordHeader { return kgo.RecordHeader{Key: k, Value: []byte(v)} }
	cat, err := catalog.Load("testdata/proto")
	if err != nil {
		t.Fatal(err)
	}
	const typ = "com.example.bin.counted"
	r := NewChecker(cat).Check(&kgo.Record{Topic: "bins", Key: []byte("0"), Value: []byte{0x0a, 0xff}, Headers: []kgo.RecordHeader{
		h("ce_specversion", "1.0"), h("ce_id", "b-1"), h("ce_source", "/bins"), h("ce_type", typ),
		h("ce_dataschema", "https://schemas.example.com/"+typ+"/v1.proto"), h("content-type", "application/protobuf"),
	}})
	if len(r.Findings) == 0 {
		t.Fatal("undecodable data reported nothing")
	}
	for _, f := range r.Findings {
		if f.Rule == RulePartitionKey {
			t.Errorf("a partition-key finding beside the data's: %v", r.Findings)
		}
	}
}
