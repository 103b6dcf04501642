package replay

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kgo"

	"fmt"
	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/dlq"
	"github.com/evtool/evtool/dlq/dlqtest"
)

func poisonSet(ids ...string) map[string]chaos.Fault {
	m := map[string]chaos.Fault{}
	for i, id := range ids {
		m[id] = chaos.Fault{Index: i, Kind: chaos.Poison, PoisonID: id}
	}
	return m
}

func TestDLQID(t *testing.T) {
	poison := poisonSet("evtool-poison-42-2", "evtool-poison-42-21", "evtool-poison-42-210")
	hdr := func(kv ...string) []kgo.RecordHeader {
		var h []kgo.RecordHeader
		for i := 0; i < len(kv); i += 2 {
			h = append(h, kgo.RecordHeader{Key: kv[i], Value: []byte(kv[i+1])})
		}
		return h
	}
	for _, tt := range []struct {
		name    string
		headers []kgo.RecordHeader
		value   string
		want    string
	}{
		{"binary mode ce_id", hdr("ce_id", "evtool-poison-42-21"), `{"x":1}`, "evtool-poison-42-21"},
		{"structured mode id", nil, `{"specversion":"1.0","id":"evtool-poison-42-2","type":"t"}`, "evtool-poison-42-2"},
		// The shorter id is a prefix of the longer: never mistaken for it,
		// whatever the map order.
		{"prefix id in a truncated envelope", nil, `{"specversion":"1.0","id":"evtool-poison-42-21","ty`, "evtool-poison-42-21"},
		{"longest of nested matches", nil, `wrapped: evtool-poison-42-210!`, "evtool-poison-42-210"},
		{"id as a custom header", hdr("x-original-id", "evtool-poison-42-210", "ce_id", "other"), ``, "evtool-poison-42-210"},
		{"valid event, CE_ID in upper case", hdr("CE_ID", "e-1"), `not json`, "e-1"},
		{"valid structured event", nil, `{"id":"e-2"}`, "e-2"},
		{"nothing to go by", nil, `\x00\xff`, ""},
		{"id continued is not the id", nil, `evtool-poison-42-2x`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for range 20 { // map order varies between calls
				if got := dlqID(&kgo.Record{Headers: tt.headers, Value: []byte(tt.value)}, poison); got != tt.want {
					t.Fatalf("dlqID = %q, want %q", got, tt.want)
				}
			}
		})
	}
}

func TestErrorHeader(t *testing.T) {
	long := strings.Repeat("é", 150) // 300 bytes
	for _, tt := range []struct {
		name    string
		headers []kgo.RecordHeader
		want    string
	}{
		{"dlq.error", []kgo.RecordHeader{{Key: "ce_id", Value: []byte("x")}, {Key: "dlq.error", Value: []byte("bad data")}}, "dlq.error: bad data"},
		{"exception class", []kgo.RecordHeader{{Key: "__connect.errors.exception.class.name", Value: []byte("E")}}, "__connect.errors.exception.class.name: E"},
		{"reason", []kgo.RecordHeader{{Key: "Reason", Value: []byte("r")}}, "Reason: r"},
		{"empty value does not count", []kgo.RecordHeader{{Key: "error", Value: nil}}, ""},
		{"no error header", []kgo.RecordHeader{{Key: "source", Value: []byte("x")}}, ""},
		{"cut on a rune boundary", []kgo.RecordHeader{{Key: "error", Value: []byte(long)}}, "error: " + strings.Repeat("é", 100) + "…"},
		{"invalid UTF-8 replaced", []kgo.RecordHeader{{Key: "error", Value: []byte("a\xffb")}}, "error: a\uFFFDb"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := errorHeader(&kgo.Record{Headers: tt.headers}); got != tt.want {
				t.Fatalf("errorHeader = %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzDLQRecord feeds records as a consumer might write them to its
// dead-letter topic: reading them never panics, names an event only by
// an id the record holds, and reports errors as valid UTF-8.
func FuzzDLQRecord(f *testing.F) {
	f.Add("ce_id", []byte("evtool-poison-1-3"), []byte(`{"id":"x"}`))
	f.Add("dlq.error", []byte("invalid data: /amount"), []byte(`{"id":"evtool-poison-1-30"}`))
	f.Add("error", []byte("\xff\xfe"), []byte("evtool-poison-1-3-evtool-poison-1-30"))
	f.Add("", []byte(nil), []byte(nil))
	f.Fuzz(func(t *testing.T, key string, hval, value []byte) {
		poison := poisonSet("evtool-poison-1-3", "evtool-poison-1-30")
		r := &kgo.Record{Headers: []kgo.RecordHeader{{Key: key, Value: hval}}, Value: value}
		id := dlqID(r, poison)
		if _, isPoison := poison[id]; isPoison {
			var v struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(value, &v)
			if string(hval) != id && v.ID != id && !containsWhole(value, id) {
				t.Fatalf("dlqID = %q, found in neither the header nor the value", id)
			}
			// Never the shorter of two ids when the longer is there whole.
			if id == "evtool-poison-1-3" && (containsWhole(value, "evtool-poison-1-30") && v.ID != id && string(hval) != id) {
				t.Fatalf("dlqID = %q for a record holding evtool-poison-1-30", id)
			}
		}
		if e := errorHeader(r); !utf8.ValidString(e) {
			t.Fatalf("errorHeader %q is not UTF-8", e)
		}
	})
}

// A DLQ topic that expands to nothing is an error naming expect.dlq.
func TestDLQTopicEmpty(t *testing.T) {
	t.Parallel()
	_, err := replayText(t, scenarioText(t, "correct", testEvents(t, 5), "expect: {dlq: {topic: \"${EVTOOL_TEST_UNSET_VARIABLE}\"}}\n"), Options{})
	if err == nil || !strings.Contains(err.Error(), `expect.dlq.topic "${EVTOOL_TEST_UNSET_VARIABLE}" (`) || !strings.Contains(err.Error(), "scenario.yaml:") || !strings.Contains(err.Error(), "expands to an empty topic name") {
		t.Fatalf("err = %v", err)
	}
}

// Dead letters written in a transaction leave a commit marker that takes
// an offset and is never returned: reading still ends, with every record.
func TestReadDLQTransactional(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	h, err := NewHarness(writeScenario(t, scenarioText(t, "correct", testEvents(t, 5), "")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.Validate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	d, err := h.prepareDLQ(ctx, "dead.letters.tx")
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(h.brokers...), kgo.TransactionalID("dlq-writer"), kgo.DefaultProduceTopic(d.topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Partition: 0, Value: []byte{byte('a' + i)}, Headers: []kgo.RecordHeader{{Key: "error", Value: []byte("x")}}}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	ends, err := h.endOffsets(ctx, d.topic)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, e := range ends {
		total += e
	}
	if total <= 3 {
		t.Skipf("no commit marker took an offset (end offsets %v)", ends)
	}
	recs, err := h.readDLQ(ctx, d)
	if err != nil || len(recs) != 3 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
}

// DLQ records whose origin headers (any convention) name another record
// than the one delivered are findings of expect.dlq.
func TestCheckOrigins(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	ctx := t.Context()
	h, err := NewHarness(writeScenario(t, scenarioText(t, "correct", testEvents(t, 5), "")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.Validate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := h.adm.CreateTopic(ctx, 2, -1, nil, "origins"); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(h.brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var in []*kgo.Record
	for i := range 4 {
		r := &kgo.Record{Topic: "origins", Partition: int32(i % 2), Key: []byte{'k', byte('0' + i)}, Value: []byte(fmt.Sprintf(`{"id":"ev-%d"}`, i))}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
		in = append(in, r)
	}
	// A consumer with retry topics (Spring's non-blocking retries)
	// dead-letters from the retry topic it last consumed the record from.
	if _, err := h.adm.CreateTopic(ctx, 1, -1, nil, "origins-retry-0"); err != nil {
		t.Fatal(err)
	}
	retried := *in[2]
	retried.Topic, retried.Partition = "origins-retry-0", 0
	if err := cl.ProduceSync(ctx, &retried).FirstErr(); err != nil {
		t.Fatal(err)
	}
	wrongRetry := retried
	wrongRetry.Value = []byte(`{"id":"ev-9"}`)
	// in[0] is origins/0@0, in[1] origins/1@0, in[2] origins/0@1, in[3] origins/1@1.
	moved := *in[2]
	moved.Offset = 0 // names 0@0, which holds ev-0
	wrongTopic := *in[1]
	wrongTopic.Topic = "elsewhere"
	past := *in[3]
	past.Offset = 7
	res := &RunResult{Topic: "origins"}
	h.sc.DLQ = &DLQSpec{Topic: "d", Count: 1}
	for _, tc := range []struct {
		name string
		dead *kgo.Record
		want string
	}{
		{"evtool right", dlqtest.DeadLetter(in[0], "d", dlq.ConventionEvtool, "x", "y"), ""},
		{"spring right", dlqtest.DeadLetter(in[1], "d", dlq.ConventionSpring, "x", "y"), ""},
		{"connect right", dlqtest.DeadLetter(in[2], "d", dlq.ConventionConnect, "x", "y"), ""},
		{"streams right", dlqtest.DeadLetter(in[3], "d", dlq.ConventionStreams, "x", "y"), ""},
		{"no origin", dlqtest.DeadLetter(in[3], "d", dlq.ConventionNone, "x", "y"), ""},
		{"another offset", dlqtest.DeadLetter(&moved, "d", dlq.ConventionStreams, "x", "y"), `names origins/0@0 as its origin, which holds event ev-0, not event ev-2`},
		{"another topic", dlqtest.DeadLetter(&wrongTopic, "d", dlq.ConventionSpring, "x", "y"), `names elsewhere/1@0 as its origin, but the run's records were delivered from topic origins (and elsewhere does not exist)`},
		{"retry topic", dlqtest.DeadLetter(&retried, "d", dlq.ConventionSpring, "x", "y"), ""},
		{"retry topic, another record", dlqtest.DeadLetter(&wrongRetry, "d", dlq.ConventionSpring, "x", "y"), `names origins-retry-0/0@0 as its origin, which holds event ev-2, not event ev-9`},
		{"past the end", dlqtest.DeadLetter(&past, "d", dlq.ConventionConnect, "x", "y"), `names origins/1@7 as its origin, which the run never wrote (2 partition(s); end offset 2)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.dead.Offset = 3
			problems, err := h.checkOrigins(ctx, res, []*kgo.Record{tc.dead}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(problems, "; ")
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("problems %q, want %q", got, tc.want)
			}
			er := h.checkDLQ(ctx, res, []*kgo.Record{tc.dead}, nil)
			if bad := strings.Contains(er.Got, "origin headers"); bad != (tc.want != "") {
				t.Errorf("checkDLQ: %q", er.Got)
			}
		})
	}
}
