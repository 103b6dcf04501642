package records

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/registry"
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
	cat, err := registry.Load("../examples/orders")
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
	cat, err := registry.Load("../examples/orders")
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

// TestPartitionKeyInAvroData: the partition key of a type whose data is
// Avro binary (examples/payments, partitionkey /paymentId) is read from the
// datum, not reported missing because the data is not JSON.
func TestPartitionKeyInAvroData(t *testing.T) {
	cat, err := registry.Load("../examples/payments")
	if err != nil {
		t.Fatal(err)
	}
	// The first event of examples/payments/events.jsonl, in binary mode.
	data, err := base64.StdEncoding.DecodeString("EHBheS0wMDMxDGFjYy0wMgIGAuE3BkdCUAA=")
	if err != nil {
		t.Fatal(err)
	}
	h := func(k, v string) kgo.RecordHeader { return kgo.RecordHeader{Key: k, Value: []byte(v)} }
	record := func(key string, offset int64) *kgo.Record {
		return &kgo.Record{Topic: "payments", Offset: offset, Key: []byte(key), Value: data, Headers: []kgo.RecordHeader{
			h("ce_specversion", "1.0"), h("ce_id", fmt.Sprint("c564df24-", offset)), h("ce_source", "/payments-service"),
			h("ce_type", "com.example.payment.authorized"), h("ce_subject", "pay-0031"),
			h("ce_dataschema", "https://schemas.example.com/com.example.payment.authorized/v2.avsc"),
			h("content-type", "application/avro"),
		}}
	}
	c := NewChecker(cat)
	for _, tc := range []struct {
		key, want string
	}{
		{"pay-0031", ""},
		{"wrong", `record key "wrong", but com.example.payment.authorized's partitionkey /paymentId is "pay-0031"`},
	} {
		r := c.Check(record(tc.key, int64(len(tc.key))))
		var got []string
		for _, f := range r.Findings {
			got = append(got, f.Message)
		}
		if tc.want == "" && len(got) != 0 || tc.want != "" && fmt.Sprint(got) != "["+tc.want+"]" {
			t.Errorf("key %q: findings %q, want %q", tc.key, got, tc.want)
		}
	}
}
