package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/catalog/catalogtest"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/kafka"
)

const framedJSONType = "com.example.order.placed"

// framedJSONCatalog writes a catalog of one JSON Schema type whose
// evtool.yaml says kafka.framing: confluent, with registry id 7 for v1.
func framedJSONCatalog(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"evtool.yaml": "version: 1\nschemas: schemas\ndataschema: https://schemas.example.com/{type}/v{version}.json\nkafka: {framing: confluent}\n",
		"schemas/" + framedJSONType + "/event.yaml": "description: an order\ntopic: orders\npartitionkey: /orderId\n",
		"schemas/" + framedJSONType + "/v1.json":    `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"OrderPlaced","type":"object","required":["orderId"],"properties":{"orderId":{"type":"string"},"total":{"type":"integer"}}}`,
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	catalogtest.WriteSchemaIDs(t, cat, map[*catalog.Version]uint32{cat.Lookup(framedJSONType).Version(1): 7})
	return dir
}

// TestProduceKcat: kcat (when installed) reads what evtool produce wrote
// for a type with kafka.framing: confluent: the JSON data behind magic 0
// and the registry id, the ce_ headers, the partitionkey as key; and
// evtool consume prints what kcat produced in that frame as the event,
// with its schema id, and a frame under another id as invalid.
func TestProduceKcat(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: interop with an outside client through kfake; envelope's framing tests and TestValidateTopicServedIDs cover the frame in the short tier")
	}
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat not installed (apt-get install kcat)")
	}
	t.Parallel()
	dir := framedJSONCatalog(t)
	b, err := kafka.StartBroker(kafka.BrokerConfig{Partitions: 1, Topics: []string{"orders", "fromkcat"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	broker := b.Addrs()[0]
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	event := `{"specversion":"1.0","id":"o-1","source":"/shop","type":"` + framedJSONType + `","datacontenttype":"application/json","dataschema":"https://schemas.example.com/` + framedJSONType + `/v1.json","data":{"orderId":"A-1","total":3}}`
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"produce", "--dir", dir, "--brokers", broker, "--topic", "orders"}, strings.NewReader(event+"\n"), &stdout, &stderr); code != 0 {
		t.Fatalf("produce: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	value, err := exec.CommandContext(ctx, kcat, "-C", "-b", broker, "-t", "orders", "-c", "1", "-e", "-f", "%s").Output()
	if err != nil {
		t.Fatalf("kcat: %v", err)
	}
	if want := format.Frame(7, []byte(`{"orderId":"A-1","total":3}`)); !bytes.Equal(value, want) {
		t.Fatalf("kcat read % x\nwant      % x", value, want)
	}
	meta, err := exec.CommandContext(ctx, kcat, "-C", "-b", broker, "-t", "orders", "-c", "1", "-e", "-f", "%k|%h").Output()
	if err != nil {
		t.Fatalf("kcat: %v", err)
	}
	for _, want := range []string{"A-1|", "ce_type=" + framedJSONType, "ce_id=o-1", "content-type=application/json"} {
		if !strings.Contains(string(meta), want) {
			t.Errorf("kcat key and headers %q lack %q", meta, want)
		}
	}

	// kcat produces framed JSON (id 7, then an unknown id 9) with ce_ headers.
	for _, id := range []uint32{7, 9} {
		rec := append(format.Frame(id, []byte(`{"orderId":"K-`+fmt.Sprint(id)+`"}`)), '\n')
		cmd := exec.CommandContext(ctx, kcat, "-P", "-b", broker, "-t", "fromkcat", "-k", "K", "-H", "ce_specversion=1.0", "-H", "ce_id=k-"+fmt.Sprint(id),
			"-H", "ce_source=/kcat", "-H", "ce_type="+framedJSONType, "-H", "content-type=application/json",
			"-H", "ce_dataschema=https://schemas.example.com/"+framedJSONType+"/v1.json")
		cmd.Stdin = bytes.NewReader(rec)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("kcat -P: %v\n%s", err, out)
		}
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(ctx, []string{"consume", "--dir", dir, "--brokers", broker, "--topic", "fromkcat"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("consume: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	var got []consumed
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var c consumed
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		got = append(got, c)
	}
	if len(got) != 2 {
		t.Fatalf("consume printed %d records:\n%s", len(got), stdout.String())
	}
	for i, c := range got {
		if c.SchemaID == nil || c.Event == nil || !strings.Contains(string(c.Event), `"data":{"orderId":"K-`) {
			t.Errorf("record %d: %+v", i, c)
		}
	}
	if len(got[0].Findings) != 0 || len(got[1].Findings) != 1 || !strings.HasPrefix(got[1].Findings[0], "schema-id-unknown") {
		t.Errorf("findings %q, %q", got[0].Findings, got[1].Findings)
	}
}

// TestConsumeConfluentJSON: Confluent's Python JSON Schema serializer
// (python3-confluent-kafka with python3-jsonschema, when installed),
// registering through `evtool registry serve`, writes framed JSON that
// evtool consume prints as events under the served id and validate
// --topic accepts; and its deserializer reads what evtool produce wrote
// for a type with kafka.framing: confluent (it refused unframed JSON with
// "Unknown magic byte").
func TestConsumeConfluentJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: interop with an outside client through kfake and registry serve; envelope's framing tests and TestValidateTopicServedIDs cover the frame in the short tier")
	}
	python := pythonWith(t, "apt-get install python3-confluent-kafka python3-jsonschema", "confluent_kafka.schema_registry.json_schema")
	dir := framedJSONCatalog(t)
	schema, err := os.ReadFile(filepath.Join(dir, "schemas", framedJSONType, "v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := kafka.StartBroker(kafka.BrokerConfig{Partitions: 1, Topics: []string{"orders", "fromevtool"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	broker := b.Addrs()[0]
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// registry serve on the catalog, in this process.
	sctx, stop := context.WithCancel(ctx)
	urlFile := filepath.Join(t.TempDir(), "url")
	served := make(chan int, 1)
	var serveOut, serveErr bytes.Buffer
	go func() {
		served <- run(sctx, []string{"registry", "serve", "--dir", dir, "--addr", "127.0.0.1:0", "--url-file", urlFile, "--subject-strategy", "topic"}, strings.NewReader(""), &serveOut, &serveErr)
	}()
	t.Cleanup(func() { stop(); <-served })
	url := waitServeURL(t, urlFile, served, func() string { return serveOut.String() + serveErr.String() })

	script, err := filepath.Abs(filepath.Join("testdata", "clients", "confluent_json.py"))
	if err != nil {
		t.Fatal(err)
	}
	py := func(out any, args ...string) {
		t.Helper()
		runPython(t, ctx, python, script, out, args...)
	}

	var prod struct {
		Produced int
		Errors   []string
		Error    string
	}
	py(&prod, "produce", url, broker, "orders", framedJSONType, "https://schemas.example.com/"+framedJSONType+"/v1.json", string(schema), `[{"orderId": "P-1", "total": 1}, {"orderId": "P-2"}]`)
	if prod.Error != "" || len(prod.Errors) > 0 || prod.Produced != 2 {
		t.Fatalf("python: %+v", prod)
	}
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"validate", "--dir", dir, "--brokers", broker, "--topic", "orders"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("validate --topic: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	if code := run(ctx, []string{"consume", "--dir", dir, "--brokers", broker, "--topic", "orders"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("consume: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("consume printed:\n%s", stdout.String())
	}
	for i, l := range lines {
		var c consumed
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatal(err)
		}
		if c.SchemaID == nil || *c.SchemaID != 7 || c.Error != "" || len(c.Findings) > 0 || !strings.Contains(string(c.Event), `"orderId":"P-`) {
			t.Errorf("record %d: %s", i, l)
		}
	}

	event := `{"specversion":"1.0","id":"o-1","source":"/shop","type":"` + framedJSONType + `","datacontenttype":"application/json","dataschema":"https://schemas.example.com/` + framedJSONType + `/v1.json","data":{"orderId":"A-1","total":3}}`
	if code := run(ctx, []string{"produce", "--dir", dir, "--brokers", broker, "--topic", "fromevtool"}, strings.NewReader(event), &stdout, &stderr); code != 0 {
		t.Fatalf("produce: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	var cons struct {
		Values []struct {
			Value json.RawMessage
			Error string
		}
		Error string
	}
	py(&cons, "consume", broker, "fromevtool", string(schema), "1")
	if cons.Error != "" || len(cons.Values) != 1 || cons.Values[0].Error != "" || !sameJSONText(string(cons.Values[0].Value), `{"orderId":"A-1","total":3}`) {
		t.Fatalf("Python's JSONDeserializer read %+v", cons)
	}
}

func sameJSONText(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}
