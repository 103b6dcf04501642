package envelope

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cloudevents/sdk-go/v2/binding"
	"github.com/cloudevents/sdk-go/v2/binding/spec"
	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kgo"
)

// newEvent builds a valid event with JSON data and some extensions.
func newEvent(t testing.TB) *event.Event {
	t.Helper()
	e := event.New()
	e.SetID("A234-1234-1234")
	e.SetSource("https://shop.example.com/orders")
	e.SetType("com.example.order.placed")
	e.SetSubject("order-17")
	e.SetDataSchema("https://schemas.example.com/com.example.order.placed/v1.json")
	e.SetTime(time.Date(2024, 3, 1, 9, 30, 0, 250e6, time.FixedZone("", 3600)))
	e.SetExtension("partitionkey", "order-17")
	e.SetExtension("retries", 3)
	e.SetExtension("sampled", true)
	if err := e.SetData(event.ApplicationJSON, map[string]any{"orderId": "order-17", "qty": 2, "paid": false, "total": map[string]any{"amount": 12.5}}); err != nil {
		t.Fatal(err)
	}
	if err := e.Validate(); err != nil {
		t.Fatal(err)
	}
	return &e
}

func headers(r *kgo.Record) []string {
	var out []string
	for _, h := range r.Headers {
		out = append(out, h.Key+"="+string(h.Value))
	}
	return out
}

func TestToRecordBinary(t *testing.T) {
	e := newEvent(t)
	r, err := ToRecord(context.Background(), e, ModeBinary)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"ce_id=A234-1234-1234",
		"ce_source=https://shop.example.com/orders",
		"ce_specversion=1.0",
		"ce_type=com.example.order.placed",
		"content-type=application/json",
		"ce_dataschema=https://schemas.example.com/com.example.order.placed/v1.json",
		"ce_subject=order-17",
		"ce_time=2024-03-01T09:30:00.25+01:00",
		"ce_partitionkey=order-17",
		"ce_retries=3",
		"ce_sampled=true",
	}
	if diff := cmp.Diff(want, headers(r)); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	if string(r.Value) != string(e.Data()) {
		t.Errorf("value = %s, want %s", r.Value, e.Data())
	}
	if r.Key != nil {
		t.Errorf("key = %q without a key option", r.Key)
	}
}

func TestToRecordStructured(t *testing.T) {
	e := newEvent(t)
	r, err := ToRecord(context.Background(), e, ModeStructured)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"content-type=application/cloudevents+json"}, headers(r)); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	want := `{"specversion":"1.0","id":"A234-1234-1234","source":"https://shop.example.com/orders","type":"com.example.order.placed","datacontenttype":"application/json","dataschema":"https://schemas.example.com/com.example.order.placed/v1.json","subject":"order-17","time":"2024-03-01T09:30:00.25+01:00","data":{"orderId":"order-17","paid":false,"qty":2,"total":{"amount":12.5}},"partitionkey":"order-17","retries":3,"sampled":true}`
	if string(r.Value) != want {
		t.Errorf("value:\n%s\nwant\n%s", r.Value, want)
	}
}

// TestToRecordStructuredVendorJSON: data of a */*+json type is a JSON value
// in the structured format. sdk-go's own format.JSON writes it as a string.
func TestToRecordStructuredVendorJSON(t *testing.T) {
	e := event.New()
	e.SetID("1")
	e.SetSource("/s")
	e.SetType("t")
	e.SetDataContentType("application/vnd.example+json")
	e.DataEncoded = []byte(`{"a":1}`)
	r, err := ToRecord(context.Background(), &e, ModeStructured)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.Value), `"data":{"a":1}`) {
		t.Errorf("value = %s, want data as a JSON object", r.Value)
	}
	sdk, _ := e.MarshalJSON()
	if !strings.Contains(string(sdk), `"data":"{\"a\":1}"`) {
		t.Logf("sdk-go now writes +json data as JSON: %s", sdk)
	}
	// Binary data goes to data_base64, text to a string.
	e.SetDataContentType("text/plain")
	e.DataEncoded = []byte("hé\n")
	if r, err = ToRecord(context.Background(), &e, ModeStructured); err != nil || !strings.Contains(string(r.Value), `"data":"hé\n"`) {
		t.Errorf("text data: %s %v", r.Value, err)
	}
	e.SetDataContentType("application/octet-stream")
	e.DataEncoded = []byte{0xff, 0}
	if r, err = ToRecord(context.Background(), &e, ModeStructured); err != nil || !strings.Contains(string(r.Value), `"data_base64":"/wA="`) {
		t.Errorf("binary data: %s %v", r.Value, err)
	}
	// JSON content type with data that is not JSON: refused.
	e.SetDataContentType("application/json")
	e.DataEncoded = []byte("{oops")
	if _, err = ToRecord(context.Background(), &e, ModeStructured); err == nil {
		t.Error("structured record with invalid JSON data was produced")
	}
}

func TestToRecordRejectsInvalidEvent(t *testing.T) {
	e := event.New()
	e.SetSource("/s")
	e.SetType("t")
	if _, err := ToRecord(context.Background(), &e, ModeBinary); err == nil || !strings.Contains(err.Error(), "id") {
		t.Errorf("err = %v, want a complaint about id", err)
	}
	old := event.New(event.CloudEventsVersionV03)
	old.SetID("1")
	old.SetSource("/s")
	old.SetType("t")
	if _, err := ToRecord(context.Background(), &old, ModeBinary); err == nil || !strings.Contains(err.Error(), "1.0 only") {
		t.Errorf("0.3 event: err = %v", err)
	}
	if _, err := ToRecord(context.Background(), nil, ModeBinary); err == nil {
		t.Error("nil event accepted")
	}
	if _, err := ToRecord(context.Background(), newEvent(t), Mode(7)); err == nil {
		t.Error("unknown mode accepted")
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range []Mode{ModeBinary, ModeStructured} {
		got, err := ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseMode("Binary"); err == nil {
		t.Error(`ParseMode("Binary") accepted`)
	}
}

func TestRecordKey(t *testing.T) {
	e := newEvent(t)
	tests := []struct {
		name string
		opt  RecordOption
		want string
		err  string
	}{
		{"partitionkey", WithKeyFromPartitionKey(), "order-17", ""},
		{"subject", WithKeyFromSubject(), "order-17", ""},
		{"pointer string", WithKeyFromData("/orderId"), "order-17", ""},
		{"pointer number", WithKeyFromData("/qty"), "2", ""},
		{"pointer bool", WithKeyFromData("/paid"), "false", ""},
		{"pointer nested", WithKeyFromData("/total/amount"), "12.5", ""},
		{"pointer missing", WithKeyFromData("/customerId"), "", `record key pointer "/customerId": not found in the event data (no member /customerId)`},
		{"pointer object", WithKeyFromData("/total"), "", `record key pointer "/total": the value is an object; a key must be a string, number or boolean`},
		{"pointer whole data", WithKeyFromData(""), "", `record key pointer "": the value is an object; a key must be a string, number or boolean`},
		{"pointer below scalar", WithKeyFromData("/qty/x"), "", `record key pointer "/qty/x": not found in the event data (/qty/x is inside a number)`},
		{"pointer without slash", WithKeyFromData("orderId"), "", `record key pointer "orderId": a JSON pointer starts with '/' (e.g. /orderId)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mode := range []Mode{ModeBinary, ModeStructured} {
				r, err := ToRecord(context.Background(), e, mode, tt.opt)
				if tt.err != "" {
					if err == nil || err.Error() != tt.err {
						t.Errorf("%v: err = %v, want %q", mode, err, tt.err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if string(r.Key) != tt.want {
					t.Errorf("%v: key = %q, want %q", mode, r.Key, tt.want)
				}
			}
		})
	}

	bare := event.New()
	bare.SetID("1")
	bare.SetSource("/s")
	bare.SetType("t")
	for _, opt := range []RecordOption{WithKeyFromPartitionKey(), WithKeyFromSubject(), WithKeyFromData("/a")} {
		if _, err := ToRecord(context.Background(), &bare, ModeBinary, opt); err == nil {
			t.Error("key from an absent source did not fail")
		}
	}
	arr := event.New()
	arr.SetID("1")
	arr.SetSource("/s")
	arr.SetType("t")
	_ = arr.SetData(event.ApplicationJSON, map[string]any{"a/b": []any{"x", "y"}, "m~n": "z"})
	for ptr, want := range map[string]string{"/a~1b/1": "y", "/m~0n": "z"} {
		r, err := ToRecord(context.Background(), &arr, ModeBinary, WithKeyFromData(ptr))
		if err != nil || string(r.Key) != want {
			t.Errorf("pointer %s: key %q, %v; want %q", ptr, r.Key, err, want)
		}
	}
	for _, ptr := range []string{"/a~1b/2", "/a~1b/01", "/a~1b/-"} {
		if _, err := ToRecord(context.Background(), &arr, ModeBinary, WithKeyFromData(ptr)); err == nil {
			t.Errorf("pointer %s resolved", ptr)
		}
	}
}

func rec(value string, hs ...string) *kgo.Record {
	r := &kgo.Record{Value: []byte(value)}
	if value == "" {
		r.Value = nil
	}
	for i := 0; i+1 < len(hs); i += 2 {
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: hs[i], Value: []byte(hs[i+1])})
	}
	return r
}

var validHeaders = []string{"ce_specversion", "1.0", "ce_id", "1", "ce_source", "/s", "ce_type", "t"}

func withValid(hs ...string) []string { return append(append([]string{}, validHeaders...), hs...) }

func TestNewMessage(t *testing.T) {
	tests := []struct {
		name string
		r    *kgo.Record
		enc  binding.Encoding
		err  string
	}{
		{"binary", rec(`{}`, withValid("content-type", "application/json")...), binding.EncodingBinary, ""},
		{"binary without content-type", rec(`{}`, validHeaders...), binding.EncodingBinary, ""},
		{"binary upper-case headers", rec(`{}`, "CE_SPECVERSION", "1.0", "Ce_Id", "1", "content-TYPE", "application/json"), binding.EncodingBinary, ""},
		{"content-type only", rec(`{}`, "content-type", "application/json"), binding.EncodingBinary, ""},
		{"structured", rec(`{}`, "content-type", "application/cloudevents+json"), binding.EncodingStructured, ""},
		{"structured with charset", rec(`{}`, "Content-Type", "Application/CloudEvents+JSON; charset=utf-8"), binding.EncodingStructured, ""},
		{"not a cloudevent", rec(`{}`, "traceparent", "x"), 0, "record is not a CloudEvent: it has no content-type header and no ce_ headers"},
		{"no headers", rec(`{}`), 0, "record is not a CloudEvent: it has no content-type header and no ce_ headers"},
		{"duplicate attribute", rec(`{}`, withValid("CE_ID", "2")...), 0, `record has two headers for attribute "id": "ce_id" and "CE_ID"; keep one`},
		{"duplicate exact", rec(`{}`, withValid("ce_x", "1", "ce_x", "2")...), 0, `record has two headers for attribute "x": "ce_x" and "ce_x"; keep one`},
		{"duplicate content-type", rec(`{}`, "content-type", "a/b", "Content-Type", "a/b"), 0, `record has two headers for attribute "datacontenttype": "content-type" and "Content-Type"; keep one`},
		{"content-type and ce_datacontenttype equal (CloudEvents JS SDK)", rec(`{}`, withValid("content-type", "application/json", "ce_datacontenttype", "application/json")...), binding.EncodingBinary, ""},
		{"ce_datacontenttype first, media type case differs", rec(`{}`, withValid("ce_datacontenttype", "Application/JSON; charset=utf-8", "content-type", "application/json; charset=utf-8")...), binding.EncodingBinary, ""},
		{"content-type and ce_datacontenttype differ", rec(`{}`, withValid("content-type", "a/b", "ce_datacontenttype", "a/c")...), 0, `record has two headers for attribute "datacontenttype" with different values: content-type "a/b" and ce_datacontenttype "a/c"; keep one`},
		{"content-type and ce_datacontenttype parameters differ", rec(`{}`, withValid("content-type", "a/b; charset=utf-8", "ce_datacontenttype", "a/b; charset=UTF-8")...), 0, `record has two headers for attribute "datacontenttype" with different values: content-type "a/b; charset=utf-8" and ce_datacontenttype "a/b; charset=UTF-8"; keep one`},
		{"ce_datacontenttype twice", rec(`{}`, withValid("ce_datacontenttype", "a/b", "CE_datacontenttype", "a/b")...), 0, `record has two headers for attribute "datacontenttype": "ce_datacontenttype" and "CE_datacontenttype"; keep one`},
		{"batch", rec(`[]`, "content-type", "application/cloudevents-batch+json"), 0, `content-type "application/cloudevents-batch+json": the Kafka binding has no batch mode; send one event per record`},
		{"other format", rec(`x`, "content-type", "application/cloudevents+avro"), 0, `content-type "application/cloudevents+avro": unsupported event format; evtool reads application/cloudevents+json`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := NewMessage(tt.r)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.ReadEncoding() != tt.enc {
				t.Errorf("encoding = %v, want %v", m.ReadEncoding(), tt.enc)
			}
		})
	}
	if _, err := NewMessage(rec("", "x", "y")); !errors.Is(err, ErrNotCloudEvent) {
		t.Errorf("err = %v, want ErrNotCloudEvent", err)
	}
}

// TestMessageWithSDK: sdk-go's own machinery reads a Message, both modes.
func TestMessageWithSDK(t *testing.T) {
	e := newEvent(t)
	for _, mode := range []Mode{ModeBinary, ModeStructured} {
		r, err := ToRecord(context.Background(), e, mode)
		if err != nil {
			t.Fatal(err)
		}
		r.Offset, r.Partition, r.Key = 42, 3, []byte("k")
		m, err := NewMessage(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := binding.ToEvent(context.Background(), m)
		if err != nil {
			t.Fatalf("%v: binding.ToEvent: %v", mode, err)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("%v: %v", mode, err)
		}
		want := eventView(e, mode)
		if diff := cmp.Diff(want, eventView(got, mode)); diff != "" {
			t.Errorf("%v: binding.ToEvent (-want +got):\n%s", mode, diff)
		}
		if err := m.Finish(nil); err != nil {
			t.Error(err)
		}
	}
	// Metadata reader, binary mode.
	r, _ := ToRecord(context.Background(), e, ModeBinary)
	m, _ := NewMessage(r)
	_, id := m.GetAttribute(spec.ID)
	if id != "A234-1234-1234" {
		t.Errorf("GetAttribute(ID) = %v", id)
	}
	if got := m.GetExtension("PartitionKey"); got != "order-17" {
		t.Errorf("GetExtension = %v", got)
	}
	if got := m.GetExtension("nope"); got != nil {
		t.Errorf("GetExtension(nope) = %v", got)
	}
	if err := m.ReadStructured(context.Background(), nil); err != binding.ErrNotStructured {
		t.Errorf("ReadStructured on binary: %v", err)
	}
}

// eventView is an event as plain data for comparison. Binary mode carries
// every extension as a string header, so it compares their string forms.
func eventView(e *event.Event, mode Mode) map[string]any {
	v := map[string]any{
		"id": e.ID(), "source": e.Source(), "type": e.Type(), "specversion": e.SpecVersion(),
		"datacontenttype": e.DataContentType(), "dataschema": e.DataSchema(), "subject": e.Subject(),
		"time": e.Time().UTC().Format(time.RFC3339Nano), "data": string(e.Data()), "base64": e.DataBase64,
	}
	for k, x := range e.Extensions() {
		if mode == ModeBinary {
			x = fmt.Sprint(x)
		}
		v["ext:"+k] = x
	}
	return v
}

func TestFromRecordBinaryRules(t *testing.T) {
	tests := []struct {
		name string
		r    *kgo.Record
		want []string
	}{
		{"valid", rec(`{"a":1}`, withValid("content-type", "application/json")...), nil},
		{"valid upper-case headers", rec(`{"a":1}`, "CE_SPECVERSION", "1.0", "CE_ID", "1", "Ce_Source", "/s", "ce_TYPE", "t", "Content-Type", "application/json"), nil},
		{"ce_data header", rec(``, withValid("ce_data", "x")...), []string{"error ce-extension-name-reserved /data"}},
		{"bad extension name", rec(``, withValid("ce_order-id", "x")...), []string{"error ce-attribute-name /order-id"}},
		{"empty attribute name", rec(``, withValid("ce_", "x")...), []string{"error ce-attribute-name /"}},
		{"long extension name", rec(``, withValid("ce_abcdefghijklmnopqrstu", "x")...), []string{"warning ce-attribute-name-length /abcdefghijklmnopqrstu"}},
		{"specversion", rec(``, "ce_specversion", "0.3", "ce_id", "1", "ce_source", "/s", "ce_type", "t"), []string{"error ce-specversion /specversion"}},
		{"missing id", rec(``, "ce_specversion", "1.0", "ce_source", "/s", "ce_type", "t"), []string{"error ce-required-attribute /id"}},
		{"content-type only", rec(`{}`, "content-type", "application/json"), []string{"error ce-required-attribute /id", "error ce-required-attribute /source", "error ce-required-attribute /specversion", "error ce-required-attribute /type"}},
		{"control character", rec(``, withValid("ce_subject", "a\rb")...), []string{"error ce-control-character /subject"}},
		{"invalid utf8", rec(``, withValid("ce_x", "\xff")...), []string{"error ce-attribute-invalid-utf8 /x"}},
		{"time", rec(``, withValid("ce_time", "2018-04-05T03:56:24")...), []string{"error ce-time /time"}},
		{"source", rec(``, "ce_specversion", "1.0", "ce_id", "1", "ce_source", "a b", "ce_type", "t"), []string{"error ce-source /source"}},
		{"dataschema", rec(``, withValid("ce_dataschema", "v1.json")...), []string{"error ce-dataschema /dataschema"}},
		{"content-type", rec(`x`, withValid("content-type", "text")...), []string{"error ce-datacontenttype /datacontenttype"}},
		{"subject", rec(``, withValid("ce_subject", "")...), []string{"error ce-subject /subject"}},
		{"data not JSON", rec(`{oops`, withValid("content-type", "application/json")...), []string{"error json-syntax /data"}},
		{"data not JSON without content-type", rec(`oops`, validHeaders...), []string{"error json-syntax /data"}},
		{"data duplicate key", rec(`{"a":1,"a":2}`, validHeaders...), []string{"error json-duplicate-key /data/a"}},
		{"text data", rec(`oops`, withValid("content-type", "text/plain")...), nil},
		{"blank id (sdk-go)", rec(``, "ce_specversion", "1.0", "ce_id", " ", "ce_source", "/s", "ce_type", "t"), []string{"error ce-sdk-validate /id"}},
		{"other headers ignored", rec(``, withValid("traceparent", "00-x", "user-agent", "foo")...), nil},
		// Only the binding's content-type header selects structured mode.
		{"ce_datacontenttype cannot switch modes", rec(`{"a":1}`, withValid("ce_datacontenttype", "application/cloudevents+json")...), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, fs, err := FromRecord(tt.r)
			if err != nil {
				t.Fatal(err)
			}
			if d == nil {
				t.Fatal("nil Decoded")
			}
			want := tt.want
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, ruleHits(fs)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, fs)
			}
		})
	}
}

func TestFromRecordNamesHeaders(t *testing.T) {
	_, fs, err := FromRecord(rec(`{oops`, "CE_SPECVERSION", "1.0", "ce_id", "1", "ce_source", "/s", "ce_type", "t", "ce_Time", "now", "Content-Type", "application/json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 {
		t.Fatalf("findings: %v", fs)
	}
	if !strings.HasSuffix(fs[0].Message, "(header ce_Time)") {
		t.Errorf("message %q does not name the header", fs[0].Message)
	}
	if !strings.HasSuffix(fs[1].Message, "(record value)") {
		t.Errorf("message %q does not name the record value", fs[1].Message)
	}
}

func TestFromRecordStructured(t *testing.T) {
	d, fs, err := FromRecord(rec(ev(`"Bad":1.5,"data":{"a":1}`), "content-type", "application/cloudevents+json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := ruleHits(fs); !cmp.Equal(got, []string{"error ce-attribute-name /Bad", "error ce-extension-value /Bad"}) {
		t.Errorf("findings: %v", got)
	}
	if d == nil || string(d.RawData) != `{"a":1}` {
		t.Errorf("decoded: %+v", d)
	}
	// Unusable JSON: no Decoded, a finding, no error.
	d, fs, err = FromRecord(rec(`{"id":`, "content-type", "application/cloudevents+json"))
	if err != nil || d != nil || len(fs) != 1 || fs[0].Rule != RuleJSONSyntax {
		t.Errorf("got %v %v %v", d, fs, err)
	}
}

// TestFromRecordNoKafkaExtensions: offsets, partitions, keys, timestamps
// and unrelated headers never turn into extensions.
func TestFromRecordNoKafkaExtensions(t *testing.T) {
	for _, mode := range []Mode{ModeBinary, ModeStructured} {
		e := event.New()
		e.SetID("1")
		e.SetSource("/s")
		e.SetType("t")
		r, err := ToRecord(context.Background(), &e, mode)
		if err != nil {
			t.Fatal(err)
		}
		r.Key, r.Offset, r.Partition, r.Topic, r.Timestamp = []byte("key"), 99, 2, "orders", time.Now()
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: "user-agent", Value: []byte("foo")})
		d, fs, err := FromRecord(r)
		if err != nil || len(fs) != 0 {
			t.Fatal(err, fs)
		}
		if ext := d.Event.Extensions(); len(ext) != 0 {
			t.Errorf("%v: extensions %v", mode, ext)
		}
	}
}

// content-type and ce_datacontenttype are one attribute only when they
// are the same value up to the case of type/subtype and the space around
// ';': any other difference (parameters, their order, quoting, charset
// case) stays an error, since the record is then ambiguous.
func TestSameMediaType(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"application/json", "application/json", true},
		{"application/json", "Application/JSON", true},
		{"application/json; charset=utf-8", "application/json;charset=utf-8", true},
		{"application/json; charset=utf-8", "application/json;charset=UTF-8", false},
		{"application/json; charset=utf-8", `application/json; charset="utf-8"`, false},
		{"text/plain; a=1; b=2", "text/plain; b=2; a=1", false},
		{"application/json", "application/json; charset=utf-8", false},
		{"application/json; charset=utf-8", "application/json; charset=utf-16", false},
		{"text/plain; format=flowed", "text/plain; format=Flowed", false},
		{"application/json", "application/cloudevents+json", false},
		{"application/json; charset=utf-8", "application/json; charset=utf-8; x=1", false},
		{"application/json;;", "application/json", false},
		{"", "", true},
		{"", "application/json", false},
	} {
		if got := sameMediaType(c.a, c.b); got != c.same {
			t.Errorf("sameMediaType(%q, %q) = %t, want %t", c.a, c.b, got, c.same)
		}
	}
}
