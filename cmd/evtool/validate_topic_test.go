package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/internal/waitfor"
	"github.com/evtool/evtool/kafka"
)

// placed is an order.placed v1 event in binary mode: data, then headers.
func placed(id, order string, version int, key string) *kgo.Record {
	data := fmt.Sprintf(`{"orderId":%q,"customerId":"cus-297286","orderVersion":%d,"items":[{"sku":"TSH-0042","quantity":1,"unitPrice":{"amountMinor":1999,"currency":"GBP"}}],"total":{"amountMinor":1999,"currency":"GBP"},"placedAt":"2025-03-03T08:00:05Z"}`, order, version)
	h := func(k, v string) kgo.RecordHeader { return kgo.RecordHeader{Key: k, Value: []byte(v)} }
	return &kgo.Record{Key: []byte(key), Value: []byte(data), Headers: []kgo.RecordHeader{
		h("ce_specversion", "1.0"), h("ce_id", id), h("ce_source", "/orders-service"),
		h("ce_type", "com.example.order.placed"), h("ce_subject", order),
		h("ce_dataschema", "https://schemas.example.com/com.example.order.placed/v1.json"),
		// What the CloudEvents JavaScript SDK writes: both, equal.
		h("content-type", "application/json"), h("ce_datacontenttype", "application/json"),
	}}
}

func startBrokerWith(t *testing.T, topic string, partitions int, recs ...*kgo.Record) string {
	t.Helper()
	b, err := kafka.StartBroker(kafka.BrokerConfig{Addr: "127.0.0.1:0", Partitions: partitions, Topics: []string{topic}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	opts, err := kafka.ClientConfig{Brokers: b.Addrs()}.Options()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, r := range recs {
		r.Topic = topic
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(b.Addrs(), ",")
}

// TestValidateTopic: validate --topic reports every record check with
// topic/partition@offset, and exits 1 on findings.
func TestValidateTopic(t *testing.T) {
	onPart := func(p int32, r *kgo.Record) *kgo.Record { r.Partition = p; return r }
	addr := startBrokerWith(t, "orders", 2,
		onPart(0, placed("e1", "ord-00001", 1, "ord-00001")),             // 0@0 fine (JS SDK headers)
		onPart(0, placed("e1", "ord-00001", 1, "ord-00001")),             // 0@1 same id repeated: warning
		onPart(0, placed("e2", "ord-00002", 2, "ord-00009")),             // 0@2 wrong key
		onPart(0, placed("e1", "ord-00003", 1, "ord-00003")),             // 0@3 id reused for another event
		onPart(0, placed("e4", "ord-00005", 3, "ord-00005")),             // 0@4
		onPart(0, placed("e5", "ord-00005", 2, "ord-00005")),             // 0@5 sequence backwards
		onPart(1, placed("e6", "ord-00005", 4, "ord-00005")),             // 1@0 key on two partitions
		onPart(1, &kgo.Record{Key: []byte("x"), Value: []byte("hello")}), // 1@1 not a CloudEvent
	)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"validate", "--dir", "../../examples/orders", "--brokers", addr, "--topic", "orders", "--format", "json"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitFindings {
		t.Fatalf("exit %d, stderr %s\n%s", code, stderr.String(), stdout.String())
	}
	var rep struct {
		Findings []struct {
			Rule     string
			Severity string
			Message  string
			Record   *struct {
				Topic     string
				Partition int32
				Offset    int64
			}
		}
		Checked int
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	got := map[string]string{}
	for _, f := range rep.Findings {
		if f.Record == nil {
			t.Fatalf("finding %s without a record location", f.Rule)
		}
		at := fmt.Sprintf("%s/%d@%d %s", f.Record.Topic, f.Record.Partition, f.Record.Offset, f.Severity)
		if f.Rule == "key-partitions" {
			// The finding sits on the record that revealed the second
			// partition, and which partition a consumer fetches first is
			// the broker's and client's choice: 0@4 or 1@0. Its message
			// names the first record on each partition either way.
			if at == "orders/0@4 warning" {
				at = "orders/1@0 warning"
			}
			if !strings.Contains(f.Message, "[orders/0@4 orders/1@0]") {
				t.Errorf("key-partitions message %q does not name both partitions' first records", f.Message)
			}
		}
		got[f.Rule] = at
	}
	want := map[string]string{
		"id-repeated":            "orders/0@0 warning",
		"partition-key-mismatch": "orders/0@2 error",
		"id-reused":              "orders/0@3 error",
		"sequence-backwards":     "orders/0@5 error",
		"key-partitions":         "orders/1@0 warning", // or 0@4: see above
		"record-not-cloudevent":  "orders/1@1 error",
	}
	for rule, w := range want {
		if got[rule] != w {
			t.Errorf("%s: got %q, want %q (all: %v)", rule, got[rule], w, got)
		}
	}
	if len(got) != len(want) || rep.Checked != 8 {
		t.Errorf("checked %d, findings %v", rep.Checked, got)
	}
	// The text format names the record the same way.
	stdout.Reset()
	run(context.Background(), []string{"validate", "--dir", "../../examples/orders", "--brokers", addr, "--topic", "orders", "--max", "3"}, strings.NewReader(""), &stdout, &stderr)
	if !strings.Contains(stdout.String(), "orders/0@2: error [partition-key-mismatch]") || !strings.Contains(stdout.String(), "3 records checked") {
		t.Errorf("text output:\n%s", stdout.String())
	}
}

// TestValidateTopicClean: a topic of valid records exits 0; a group
// resumes after what it read.
func TestValidateTopicClean(t *testing.T) {
	addr := startBrokerWith(t, "clean", 1, placed("e1", "ord-00001", 1, "ord-00001"), placed("e2", "ord-00001", 2, "ord-00001"))
	args := []string{"validate", "--dir", "../../examples/orders", "--brokers", addr, "--topic", "clean", "--group", "g1"}
	for i, want := range []string{"2 records checked: 0 errors", "0 records checked"} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), want) {
			t.Fatalf("run %d: exit %d, %s%s", i, code, stdout.String(), stderr.String())
		}
	}
}

// TestValidateTopicFollow: with --until follow, a finding is printed when
// its record arrives, before the command is interrupted.
func TestValidateTopicFollow(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs child consumers or producers through kfake end to end (minutes on a loaded machine); TestScripts and TestDocSamples stand for the CLI in the short tier")
	}
	addr := startBrokerWith(t, "live", 1, placed("e1", "ord-00001", 1, "ord-00009"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"validate", "--dir", "../../examples/orders", "--brokers", addr, "--topic", "live", "--until", "follow"}, strings.NewReader(""), out, &bytes.Buffer{})
	}()
	if !waitfor.Condition(30*time.Second, func() bool { return strings.Contains(out.String(), "partition-key-mismatch") }) {
		t.Fatalf("no finding printed while following: %q", out.String())
	}
	cancel()
	select {
	case code := <-done:
		if code != exitFindings || !strings.Contains(out.String(), "1 record checked") {
			t.Fatalf("exit %d, %s", code, out.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("follow did not stop when interrupted")
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
