package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/kafka"
)

// Interop of evtool produce and evtool consume with clients evtool did
// not write: kafkajs, the CloudEvents JavaScript SDK's Kafka binding
// (npm cloudevents) and @kafkajs/confluent-schema-registry, driven by
// testdata/clients/cloudevents_kafka.js. The tests never download: they
// take the node_modules directory from EVTOOL_TEST_NODE_MODULES (what
// testdata/clients/install.sh prints) and skip, saying so, when it, a
// module or node is absent.

// jsClients returns node and the node_modules directory holding the npm
// packages every test loads (pinned by install.sh) and more, or skips t.
func jsClients(t *testing.T, more ...string) (node, modules string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: interop with kafkajs and the CloudEvents JS SDK through kfake; TestProduceContentType and the envelope tests cover the wire form in the short tier")
	}
	modules = os.Getenv("EVTOOL_TEST_NODE_MODULES")
	if modules == "" {
		t.Skip("EVTOOL_TEST_NODE_MODULES is not set (sh cmd/evtool/testdata/clients/install.sh DIR installs the JS clients and prints it)")
	}
	for _, m := range append([]string{"kafkajs", "cloudevents", "@kafkajs/confluent-schema-registry"}, more...) {
		if _, err := os.Stat(filepath.Join(modules, filepath.FromSlash(m), "package.json")); err != nil {
			t.Skipf("%s is not in EVTOOL_TEST_NODE_MODULES %s (cmd/evtool/testdata/clients/install.sh installs it)", m, modules)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	return node, modules
}

// jsRecord is one line of `cloudevents_kafka.js consume`: a record as
// kafkajs read it and what the SDK's Kafka.toEvent made of it.
type jsRecord struct {
	Partition int32
	Offset    int64
	Key       *string
	Headers   map[string]any
	Decoded   json.RawMessage
	Event     map[string]any
	Error     string
}

// runJS runs cloudevents_kafka.js with args and stdin and returns its
// standard output; a failing run fails t with its standard error.
func runJS(t *testing.T, ctx context.Context, node, modules, stdin string, args ...string) []byte {
	t.Helper()
	return runScript(t, ctx, "cloudevents_kafka.js", node, modules, stdin, args...)
}

// runScript runs testdata/clients/script with node.
func runScript(t *testing.T, ctx context.Context, script, node, modules, stdin string, args ...string) []byte {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("testdata", "clients", script))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s %s: %v\n%s%s", filepath.Base(script), args[0], err, out, stderr.String())
	}
	return out
}

// jsConsume reads n records of topic with kafkajs and the SDK (with a
// registry URL, values framed by it are decoded first), by record key.
func jsConsume(t *testing.T, ctx context.Context, node, modules, brokers, topic string, n int, registry ...string) map[string]jsRecord {
	t.Helper()
	out := runJS(t, ctx, node, modules, "", append([]string{"consume", brokers, topic, strconv.Itoa(n)}, registry...)...)
	recs := map[string]jsRecord{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r jsRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("cloudevents_kafka.js printed %q: %v", line, err)
		}
		recs[r.key()] = r
	}
	if len(recs) != n {
		t.Fatalf("kafkajs read %d records of %s with distinct keys, want %d:\n%s", len(recs), topic, n, out)
	}
	return recs
}

// key is the record key, or "" for none.
func (r jsRecord) key() string {
	if r.Key == nil {
		return ""
	}
	return *r.Key
}

// jsTime is an RFC 3339 time as the SDK gives it back: a JavaScript Date
// has milliseconds, and toISOString prints UTC with three digits.
func jsTime(t *testing.T, s string) string {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm.UTC().Truncate(time.Millisecond).Format("2006-01-02T15:04:05.000Z")
}

// plainOrdersCatalog has one JSON Schema type, unframed, keyed by
// /orderId.
var plainOrdersCatalog = map[string]string{
	"evtool.yaml": "version: 1\nschemas: schemas\ndataschema: https://schemas.example.com/{type}/v{version}.json\n",
	"schemas/" + framedJSONType + "/event.yaml": "description: an order\ntopic: orders\npartitionkey: /orderId\n",
	"schemas/" + framedJSONType + "/v1.json":    `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"OrderPlaced","type":"object","required":["orderId"],"properties":{"orderId":{"type":"string"},"total":{"type":"integer"}}}`,
}

const orderSchemaURI = "https://schemas.example.com/" + framedJSONType + "/v1.json"

// TestProduceCloudEventsJS: what evtool produce writes in binary and in
// structured mode, a kafkajs consumer reads and the CloudEvents SDK's
// Kafka.toEvent accepts, with the attributes, extensions and data evtool
// was given. What the SDK changes is the binding's and the SDK's doing,
// checked as such: the record key comes back as the partitionkey
// extension, and time with a JavaScript Date's milliseconds. The SDK
// cannot read a structured event without time (its parser calls
// toISOString on an invalid Date); binary mode has no such limit.
func TestProduceCloudEventsJS(t *testing.T) {
	node, modules := jsClients(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, plainOrdersCatalog)
	brokers := startTopics(t, "binary", "structured")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	events := []string{
		// every attribute, a string extension, a time finer than a millisecond
		`{"specversion":"1.0","id":"o-1","source":"/shop","type":"` + framedJSONType + `","subject":"orders/A-1","time":"2026-01-05T10:00:00.123456789+01:00","datacontenttype":"application/json","dataschema":"` + orderSchemaURI + `","tenant":"acme","data":{"orderId":"A-1","total":3}}`,
		// no datacontenttype (JSON, as the JSON format implies) and no time
		`{"specversion":"1.0","id":"o-2","source":"/shop","type":"` + framedJSONType + `","dataschema":"` + orderSchemaURI + `","data":{"orderId":"A-2"}}`,
	}
	for _, mode := range []string{"binary", "structured"} {
		t.Run(mode, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(ctx, []string{"produce", "--dir", dir, "--brokers", brokers, "--topic", mode, "--mode", mode}, strings.NewReader(strings.Join(events, "\n")+"\n"), &stdout, &stderr); code != 0 {
				t.Fatalf("produce: exit %d\n%s%s", code, stdout.String(), stderr.String())
			}
			recs := jsConsume(t, ctx, node, modules, brokers, mode, len(events))
			for _, text := range events {
				var want map[string]any
				if err := json.Unmarshal([]byte(text), &want); err != nil {
					t.Fatal(err)
				}
				id := want["id"].(string)
				rec, ok := recs[want["data"].(map[string]any)["orderId"].(string)]
				if !ok {
					t.Errorf("kafkajs did not read %s: %v", id, recs)
					continue
				}
				_, timed := want["time"]
				if mode == "structured" && !timed {
					// The SDK's parseStructured does new Date(undefined).toISOString().
					if !strings.Contains(rec.Error, "Invalid time value") {
						t.Errorf("%s: the SDK read a structured event without time (%+v): the limit in docs/produce-consume.md is gone", id, rec)
					}
					continue
				}
				if rec.Error != "" {
					t.Errorf("%s: Kafka.toEvent: %s (headers %v)", id, rec.Error, rec.Headers)
					continue
				}
				want["partitionkey"] = rec.key() // the key, which is the data's /orderId
				if timed {
					want["time"] = jsTime(t, want["time"].(string))
				} else {
					delete(rec.Event, "time") // the SDK's constructor stamps now
				}
				if _, ok := want["datacontenttype"]; !ok {
					// The JSON format implies application/json; binary mode
					// has no format, so the content-type header says it.
					want["datacontenttype"] = "application/json"
				}
				if diff := cmp.Diff(want, rec.Event); diff != "" {
					t.Errorf("%s: the SDK's event differs from what evtool was given (-given +SDK):\n%s", id, diff)
				}
			}
		})
	}
}

// consumedLines parses evtool consume's JSONL output, by ce id.
func consumedLines(t *testing.T, out string) map[string]consumed {
	t.Helper()
	got := map[string]consumed{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var c consumed
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("consume printed %q: %v", l, err)
		}
		var e struct{ ID string }
		_ = json.Unmarshal(c.Event, &e)
		if e.ID == "" {
			for _, h := range c.Headers {
				if h.Key == "ce_id" && h.Value != nil {
					e.ID = *h.Value
				}
			}
		}
		got[e.ID] = c
	}
	return got
}

// jsEvent is an item of `cloudevents_kafka.js produce`'s input.
type jsEvent struct {
	Mode    string         `json:"mode"`
	Subject string         `json:"subject,omitempty"`
	Event   map[string]any `json:"event"`
}

func jsOrder(id, mode, data string) jsEvent {
	var d any
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		panic(err)
	}
	return jsEvent{Mode: mode, Event: map[string]any{"id": id, "source": "/js", "type": framedJSONType, "datacontenttype": "application/json",
		"dataschema": orderSchemaURI, "partitionkey": "J-" + id, "tenant": "acme", "data": d}}
}

// TestConsumeCloudEventsJS: events the CloudEvents SDK's Kafka.binary and
// Kafka.structured made and kafkajs produced, evtool consume prints as
// events of their mode with the SDK's attributes and data, and evtool
// validate --topic accepts the valid ones and names each invalid one by
// topic/partition@offset (exit 1). The SDK's binary messages carry a
// ce_datacontenttype header beside content-type and the partitionkey as
// both key and ce_partitionkey header: evtool takes them as they are.
func TestConsumeCloudEventsJS(t *testing.T) {
	node, modules := jsClients(t)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, plainOrdersCatalog)
	brokers := startTopics(t, "fromjs")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// One partition: the offsets are the input's order.
	sent := []jsEvent{
		jsOrder("1", "binary", `{"orderId":"J-1","total":5}`),
		jsOrder("2", "structured", `{"orderId":"J-2"}`),
		jsOrder("3", "binary", `{"orderId":"J-3","total":"five"}`),
		jsOrder("4", "structured", `{"total":4}`),
	}
	for _, e := range sent[2:] { // no value at /orderId, or not this one: no key
		delete(e.Event, "partitionkey")
	}
	spec, err := json.Marshal(sent)
	if err != nil {
		t.Fatal(err)
	}
	runJS(t, ctx, node, modules, string(spec), "produce", brokers, "fromjs")

	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"consume", "--dir", dir, "--brokers", brokers, "--topic", "fromjs"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("consume: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	got := consumedLines(t, stdout.String())
	for i, e := range sent {
		id := e.Event["id"].(string)
		c, ok := got[id]
		if !ok {
			t.Errorf("consume did not print event %s:\n%s", id, stdout.String())
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal(c.Event, &ev); err != nil || c.Error != "" {
			t.Errorf("%s: not read as an event (%v): %+v", id, err, c)
			continue
		}
		if c.Mode != e.Mode || c.Offset != int64(i) {
			t.Errorf("%s: mode %q at offset %d, want %q at %d", id, c.Mode, c.Offset, e.Mode, i)
		}
		for _, attr := range []string{"id", "source", "type", "datacontenttype", "dataschema", "tenant"} {
			if ev[attr] != e.Event[attr] {
				t.Errorf("%s: %s is %v, the SDK sent %v", id, attr, ev[attr], e.Event[attr])
			}
		}
		if diff := cmp.Diff(e.Event["data"], ev["data"]); diff != "" {
			t.Errorf("%s: data (-sent +consumed):\n%s", id, diff)
		}
		if valid := i < 2; valid != (len(c.Findings) == 0) {
			t.Errorf("%s: findings %q (valid: %v)", id, c.Findings, valid)
		}
	}

	stdout.Reset()
	stderr.Reset()
	code := run(ctx, []string{"validate", "--dir", dir, "--brokers", brokers, "--topic", "fromjs"}, strings.NewReader(""), &stdout, &stderr)
	out := stdout.String() + stderr.String()
	if code != exitFindings || !strings.Contains(out, "4 records checked") {
		t.Fatalf("validate --topic: exit %d, want %d\n%s", code, exitFindings, out)
	}
	for _, want := range []string{"fromjs/0@2: error [data-invalid] at /data/total", "fromjs/0@3: error [data-invalid] at /data: "} {
		if !strings.Contains(out, want) {
			t.Errorf("validate --topic does not say %q:\n%s", want, out)
		}
	}
	for _, valid := range []string{"fromjs/0@0", "fromjs/0@1"} {
		if strings.Contains(out, valid) {
			t.Errorf("validate --topic reports the valid record %s:\n%s", valid, out)
		}
	}
}

// framedClientsCatalog has a JSON Schema, an Avro and two Protobuf types,
// all Confluent-framed (kafka.framing: confluent). counted's event message
// is the second of its file, so its frame's message indexes are [1].
var framedClientsCatalog = map[string]string{
	"evtool.yaml": "version: 1\nschemas: schemas\ndataschema: https://schemas.example.com/{type}/v{version}.json\nkafka: {framing: confluent}\n",
	"schemas/" + framedJSONType + "/event.yaml":    "description: an order\ntopic: orders\npartitionkey: /orderId\n",
	"schemas/" + framedJSONType + "/v1.json":       plainOrdersCatalog["schemas/"+framedJSONType+"/v1.json"],
	"schemas/com.example.payment.paid/event.yaml":  "description: a payment\ntopic: payments\npartitionkey: /paymentId\n",
	"schemas/com.example.payment.paid/v1.avsc":     `{"type":"record","name":"Paid","namespace":"com.example","fields":[{"name":"paymentId","type":"string"},{"name":"amount","type":"long"},{"name":"note","type":["null","string"],"default":null}]}`,
	"schemas/com.example.stock.moved/event.yaml":   "description: stock moved\ntopic: stock\npartitionkey: /sku\n",
	"schemas/com.example.stock.moved/v1.proto":     "syntax = \"proto3\";\npackage example.stock;\nmessage Moved {\n  string sku = 1;\n  int32 qty = 2;\n  Where where = 3;\n}\nmessage Where {\n  string bin = 1;\n}\n",
	"schemas/com.example.stock.counted/event.yaml": "description: stock counted\ntopic: stock\npartitionkey: /sku\nmessage: Counted\n",
	"schemas/com.example.stock.counted/v1.proto":   "syntax = \"proto3\";\npackage example.count;\nmessage Bin {\n  string name = 1;\n}\nmessage Counted {\n  string sku = 1;\n  int32 qty = 2;\n}\n",
}

// startFramed writes framedClientsCatalog, serves it with `evtool
// registry serve` and starts a broker with the topics (one partition
// each): the catalog, the registry's URL and the brokers.
func startFramed(t *testing.T, topics ...string) (dir, url, brokers string) {
	t.Helper()
	dir = t.TempDir()
	writeFiles(t, dir, framedClientsCatalog)
	return dir, serveCatalog(t, dir), startTopics(t, topics...)
}

// startTopics starts a broker with the topics, one partition each (so
// that offsets follow the order of what is sent), until the test ends,
// and returns its address.
func startTopics(t *testing.T, topics ...string) string {
	t.Helper()
	b, err := kafka.StartBroker(kafka.BrokerConfig{Addr: "127.0.0.1:0", Partitions: 1, Topics: topics})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return strings.Join(b.Addrs(), ",")
}

// servedID is the id the registry at url serves for subject's v1.
func servedID(t *testing.T, ctx context.Context, url, subject string) uint32 {
	t.Helper()
	cl, err := sr.NewClient(sr.URLs(url), sr.HTTPClient(&http.Client{Timeout: time.Minute}))
	if err != nil {
		t.Fatal(err)
	}
	ss, err := cl.SchemaByVersion(ctx, subject, 1)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(ss.ID)
}

// framedCase is an event of framedClientsCatalog evtool produce writes.
type framedCase struct {
	key, typ, data string
	decoded        string // the JSON the JS clients make of the datum
	contentType    string
	message        string // the Protobuf event message when not the file's first
}

// produceFramed writes one event of each type of framedClientsCatalog
// to topic with evtool produce (ids f-0, f-1, ...).
func produceFramed(t *testing.T, ctx context.Context, dir, brokers, topic string) []framedCase {
	t.Helper()
	cases := []framedCase{
		{"A-1", framedJSONType, `{"orderId":"A-1","total":3}`, `{"orderId":"A-1","total":3}`, "application/json", ""},
		// avsc, which both clients use, gives a union's value without its branch name.
		{"P-1", "com.example.payment.paid", `{"paymentId":"P-1","amount":1200,"note":{"string":"hi"}}`, `{"paymentId":"P-1","amount":1200,"note":"hi"}`, "application/avro", ""},
		{"S-1", "com.example.stock.moved", `{"sku":"S-1","qty":2,"where":{"bin":"B7"}}`, `{"sku":"S-1","qty":2,"where":{"bin":"B7"}}`, "application/protobuf", ""},
		{"C-1", "com.example.stock.counted", `{"sku":"C-1","qty":9}`, `{"sku":"C-1","qty":9}`, "application/protobuf", "Counted"},
	}
	var input []string
	for i, c := range cases {
		input = append(input, framedEvent("f-"+strconv.Itoa(i), c.typ, c.data))
	}
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"produce", "--dir", dir, "--brokers", brokers, "--topic", topic}, strings.NewReader(strings.Join(input, "\n")), &stdout, &stderr); code != 0 {
		t.Fatalf("produce: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	return cases
}

// framedEvent is an event of type typ v1 of framedClientsCatalog.
func framedEvent(id, typ, data string) string {
	return `{"specversion":"1.0","id":"` + id + `","source":"/shop","type":"` + typ + `","time":"2026-01-05T10:00:00Z","datacontenttype":"application/json","dataschema":"https://schemas.example.com/` + typ + `/v1.json","data":` + data + `}`
}

// TestFramedConfluentJS: @kafkajs/confluent-schema-registry, asking
// `evtool registry serve` on the catalog, decodes the Confluent frames
// evtool produce wrote (JSON Schema, Avro, Protobuf; in structured mode the
// Avro and Protobuf frames in data_base64), and the CloudEvents SDK reads
// the events around them; what it encodes (JSON Schema, Avro)
// evtool consume prints as events under the served ids and validate
// --topic accepts. Two Protobuf limits of that client are pinned here and
// documented: it writes no message indexes (Confluent's wire format has
// them; evtool reports the record as data that does not decode, with its
// topic/partition@offset), and it decodes every frame as the first message
// of the file, skipping the indexes by stripping zero bytes.
func TestFramedConfluentJS(t *testing.T) {
	node, modules := jsClients(t)
	t.Parallel()
	dir, url, brokers := startFramed(t, "fromevtool", "structured", "fromjs", "fromjs-proto")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// evtool produce -> kafkajs + SchemaRegistry.decode + Kafka.toEvent.
	cases := produceFramed(t, ctx, dir, brokers, "fromevtool")
	recs := jsConsume(t, ctx, node, modules, brokers, "fromevtool", len(cases), url)
	for i, c := range cases {
		rec := recs[c.key]
		if c.message != "" {
			if rec.Error == "" && sameJSONText(string(rec.Decoded), c.data) {
				t.Errorf("%s: the client read a Protobuf frame of the file's second message (%s): its limit in docs/produce-consume.md is gone", c.typ, rec.Decoded)
			}
			continue
		}
		if rec.Error != "" {
			t.Errorf("%s: %s", c.typ, rec.Error)
			continue
		}
		if !sameJSONText(string(rec.Decoded), c.decoded) {
			t.Errorf("%s: SchemaRegistry.decode gave %s, want %s", c.typ, rec.Decoded, c.decoded)
		}
		if rec.Event["id"] != "f-"+strconv.Itoa(i) || rec.Event["type"] != c.typ || rec.Event["datacontenttype"] != c.contentType {
			t.Errorf("%s: the SDK's event %v", c.typ, rec.Event)
		}
	}
	// Structured mode: the Avro and Protobuf frames are the events'
	// data_base64, which the client decodes as well.
	var structured []string
	for i, c := range cases[1:3] {
		structured = append(structured, framedEvent("s-"+strconv.Itoa(i), c.typ, c.data))
	}
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"produce", "--dir", dir, "--brokers", brokers, "--topic", "structured", "--mode", "structured"}, strings.NewReader(strings.Join(structured, "\n")), &stdout, &stderr); code != 0 {
		t.Fatalf("produce --mode structured: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	recs = jsConsume(t, ctx, node, modules, brokers, "structured", len(structured), url)
	for _, c := range cases[1:3] {
		if rec := recs[c.key]; rec.Error != "" || !sameJSONText(string(rec.Decoded), c.decoded) || rec.Event["datacontenttype"] != c.contentType {
			t.Errorf("%s in structured mode: %+v, want data %s", c.typ, rec, c.decoded)
		}
	}

	// @kafkajs/confluent-schema-registry encode + Kafka.binary + kafkajs
	// -> evtool consume and validate --topic.
	jsFramed := func(id, typ, contentType, key, data string) jsEvent {
		var d any
		if err := json.Unmarshal([]byte(data), &d); err != nil {
			t.Fatal(err)
		}
		return jsEvent{Mode: "binary", Subject: typ, Event: map[string]any{"id": id, "source": "/js", "type": typ, "datacontenttype": contentType,
			"dataschema": "https://schemas.example.com/" + typ + "/v1.json", "partitionkey": key, "data": d}}
	}
	spec, _ := json.Marshal([]jsEvent{
		jsFramed("j-1", framedJSONType, "application/json", "J-1", `{"orderId":"J-1","total":7}`),
		jsFramed("j-2", "com.example.payment.paid", "application/avro", "J-2", `{"paymentId":"J-2","amount":99,"note":"n"}`),
	})
	runJS(t, ctx, node, modules, string(spec), "produce", brokers, "fromjs", url)
	stdout.Reset()
	if code := run(ctx, []string{"consume", "--dir", dir, "--brokers", brokers, "--topic", "fromjs"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("consume: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	got := consumedLines(t, stdout.String())
	for _, want := range []struct{ id, typ, data string }{
		{"j-1", framedJSONType, `{"orderId":"J-1","total":7}`},
		{"j-2", "com.example.payment.paid", `{"paymentId":"J-2","amount":99,"note":{"string":"n"}}`},
	} {
		c := got[want.id]
		var ev struct{ Data json.RawMessage }
		if err := json.Unmarshal(c.Event, &ev); err != nil || c.Error != "" || len(c.Findings) > 0 {
			t.Errorf("%s: %+v (%v)", want.id, c, err)
			continue
		}
		if id := servedID(t, ctx, url, want.typ); c.SchemaID == nil || *c.SchemaID != id {
			t.Errorf("%s: schema id %v, want %d", want.id, c.SchemaID, id)
		}
		if !sameJSONText(string(ev.Data), want.data) {
			t.Errorf("%s: data %s, want %s", want.id, ev.Data, want.data)
		}
	}
	stdout.Reset()
	if code := run(ctx, []string{"validate", "--dir", dir, "--brokers", brokers, "--topic", "fromjs"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Errorf("validate --topic fromjs: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}

	// Its Protobuf frames lack the message indexes.
	spec, _ = json.Marshal([]jsEvent{jsFramed("j-3", "com.example.stock.moved", "application/protobuf", "J-3", `{"sku":"J-3","qty":4,"where":{"bin":"C1"}}`)})
	runJS(t, ctx, node, modules, string(spec), "produce", brokers, "fromjs-proto", url)
	stdout.Reset()
	if code := run(ctx, []string{"consume", "--dir", dir, "--brokers", brokers, "--topic", "fromjs-proto"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("consume: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if c := consumedLines(t, stdout.String())["j-3"]; !strings.Contains(c.Error, "message index") || c.ValueBase64 == "" && c.Value == nil {
		t.Errorf("a Protobuf frame without message indexes: %+v", c)
	}
	stdout.Reset()
	code := run(ctx, []string{"validate", "--dir", dir, "--brokers", brokers, "--topic", "fromjs-proto"}, strings.NewReader(""), &stdout, &stderr)
	if out := stdout.String(); code != exitFindings || !strings.Contains(out, "fromjs-proto/0@0: error [data-invalid]") || !strings.Contains(out, "message index") {
		t.Errorf("validate --topic fromjs-proto: exit %d\n%s%s", code, out, stderr.String())
	}
}

// TestConfluentSerdeJS: Confluent's JavaScript deserializers
// (@confluentinc/schemaregistry), asking `evtool registry serve`, read the
// JSON Schema, Avro and Protobuf frames evtool produce wrote, a Protobuf
// message that is not its file's first included (message indexes [1]); and
// what its serializers wrote under the served ids (useLatestVersion), with
// ce_ headers, evtool consume prints as those events and validate --topic
// accepts.
func TestConfluentSerdeJS(t *testing.T) {
	node, modules := jsClients(t, "@confluentinc/schemaregistry")
	t.Parallel()
	dir, url, brokers := startFramed(t, "fromevtool", "fromjs")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	cases := produceFramed(t, ctx, dir, brokers, "fromevtool")
	out := runScript(t, ctx, "confluent_serde.js", node, modules, "", "consume", brokers, "fromevtool", strconv.Itoa(len(cases)), url)
	read := map[string]struct {
		ContentType string `json:"content_type"`
		Decoded     map[string]any
		Error       string
	}{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r struct {
			Key string
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("confluent_serde.js printed %q: %v", l, err)
		}
		v := read[r.Key]
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatal(err)
		}
		read[r.Key] = v
	}
	for _, c := range cases {
		r, ok := read[c.key]
		if !ok || r.Error != "" || r.ContentType != c.contentType {
			t.Errorf("%s: %+v", c.typ, r)
			continue
		}
		stripTypeNames(r.Decoded)
		var want map[string]any
		if err := json.Unmarshal([]byte(c.decoded), &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, r.Decoded); diff != "" {
			t.Errorf("%s: the deserializer read (-want +got):\n%s", c.typ, diff)
		}
	}

	type serdeItem struct {
		Subject string            `json:"subject"`
		Format  string            `json:"format"`
		Message string            `json:"message,omitempty"`
		Key     string            `json:"key"`
		Headers map[string]string `json:"headers"`
		Data    json.RawMessage   `json:"data"`
	}
	item := func(id, typ, format, contentType, message, data string) serdeItem {
		return serdeItem{Subject: typ, Format: format, Message: message, Key: id, Data: json.RawMessage(data), Headers: map[string]string{
			"ce_specversion": "1.0", "ce_id": id, "ce_source": "/js", "ce_type": typ, "content-type": contentType,
			"ce_dataschema": "https://schemas.example.com/" + typ + "/v1.json"}}
	}
	items := []serdeItem{
		item("J-1", framedJSONType, "json", "application/json", "", `{"orderId":"J-1","total":7}`),
		item("J-2", "com.example.payment.paid", "avro", "application/avro", "", `{"paymentId":"J-2","amount":99,"note":"n"}`),
		item("J-3", "com.example.stock.moved", "protobuf", "application/protobuf", "", `{"sku":"J-3","qty":4,"where":{"bin":"C1"}}`),
		item("J-4", "com.example.stock.counted", "protobuf", "application/protobuf", "Counted", `{"sku":"J-4","qty":1}`),
	}
	// In evtool's JSON form: Avro's JSON encoding names the union branch.
	wantData := []string{`{"orderId":"J-1","total":7}`, `{"paymentId":"J-2","amount":99,"note":{"string":"n"}}`, `{"sku":"J-3","qty":4,"where":{"bin":"C1"}}`, `{"sku":"J-4","qty":1}`}
	spec, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	runScript(t, ctx, "confluent_serde.js", node, modules, string(spec), "produce", brokers, "fromjs", url)
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"consume", "--dir", dir, "--brokers", brokers, "--topic", "fromjs"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("consume: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	got := consumedLines(t, stdout.String())
	for i, it := range items {
		c := got[it.Key]
		var ev struct{ Data json.RawMessage }
		if err := json.Unmarshal(c.Event, &ev); err != nil || c.Error != "" || len(c.Findings) > 0 {
			t.Errorf("%s: %+v (%v)", it.Subject, c, err)
			continue
		}
		if id := servedID(t, ctx, url, it.Subject); c.SchemaID == nil || *c.SchemaID != id {
			t.Errorf("%s: schema id %v, want %d", it.Subject, c.SchemaID, id)
		}
		if !sameJSONText(string(ev.Data), wantData[i]) {
			t.Errorf("%s: data %s, want %s", it.Subject, ev.Data, wantData[i])
		}
	}
	stdout.Reset()
	if code := run(ctx, []string{"validate", "--dir", dir, "--brokers", brokers, "--topic", "fromjs"}, strings.NewReader(""), &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "4 records checked: 0 errors") {
		t.Errorf("validate --topic fromjs: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
}

// stripTypeNames drops the $typeName members @bufbuild/protobuf messages
// carry, leaving the message's JSON form.
func stripTypeNames(v any) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "$typeName")
		for _, x := range v {
			stripTypeNames(x)
		}
	case []any:
		for _, x := range v {
			stripTypeNames(x)
		}
	}
}
