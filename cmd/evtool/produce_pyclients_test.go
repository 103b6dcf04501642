package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/evtool/evtool/format/protobuf"
	"github.com/evtool/evtool/internal/pythontest"
)

// TestConfluentPythonAvroProto: confluent-kafka 1.7's Python clients
// (Debian's python3-confluent-kafka with python3-avro and
// python3-protobuf), asking `evtool registry serve --subject-strategy
// topic`, read the Avro and Protobuf frames evtool produce wrote (the
// legacy AvroConsumer, the ProtobufDeserializer), and what their
// AvroProducer and ProtobufSerializer wrote, with ce_ headers, evtool
// consume prints as events under the served ids. The Python side is
// schemaregistry's script, shared rather than copied.
func TestConfluentPythonAvroProto(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: interop with an outside client through kfake and registry serve; TestValidateTopicServedIDs covers the frames in the short tier")
	}
	python := pythonWith(t, "apt-get install python3-confluent-kafka python3-avro python3-protobuf", "confluent_kafka.avro", "confluent_kafka.schema_registry.protobuf", "avro", "google.protobuf")
	script, err := filepath.Abs(filepath.Join("..", "..", "schemaregistry", "testdata", "clients", "confluent_serializers.py"))
	if err != nil {
		t.Fatal(err)
	}
	// The Avro and the first Protobuf type of framedClientsCatalog: one
	// type a topic, as the topic strategy needs.
	const paid, moved = "com.example.payment.paid", "com.example.stock.moved"
	dir := t.TempDir()
	files := map[string]string{"evtool.yaml": framedClientsCatalog["evtool.yaml"]}
	for name, text := range framedClientsCatalog {
		if strings.HasPrefix(name, "schemas/"+paid+"/") || strings.HasPrefix(name, "schemas/"+moved+"/") {
			files[name] = text
		}
	}
	// The legacy AvroConsumer decodes the record key as Avro too ("message
	// is too small to decode" for evtool's string key "P-1"): the Avro type
	// has no partitionkey here, so its records have none.
	files["schemas/"+paid+"/event.yaml"] = "description: a payment\ntopic: payments\n"
	writeFiles(t, dir, files)
	url := serveCatalog(t, dir, "--subject-strategy", "topic")
	broker := startTopics(t, "payments", "stock")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	proto := files["schemas/"+moved+"/v1.proto"]
	sch, err := protobuf.Load(fstest.MapFS{"v1.proto": {Data: []byte(proto)}}, "v1.proto", "")
	if err != nil {
		t.Fatal(err)
	}
	desc, err := protobuf.Serialized(sch, "v1.proto")
	if err != nil {
		t.Fatal(err)
	}
	descs, _ := json.Marshal([]string{desc})

	py := func(out any, args ...string) {
		t.Helper()
		runPython(t, ctx, python, script, out, args...)
	}
	type consumedValues struct {
		Values []struct {
			Value json.RawMessage
			Error string
		}
		Error string
	}

	// evtool produce -> Python consumers.
	for _, tc := range []struct{ topic, typ, data, pyWant string }{
		// Python's avro gives a union's value without its branch name.
		{"payments", paid, `{"paymentId":"P-1","amount":1200,"note":{"string":"hi"}}`, `{"paymentId":"P-1","amount":1200,"note":"hi"}`},
		{"stock", moved, `{"sku":"S-1","qty":2,"where":{"bin":"B7"}}`, `{"sku":"S-1","qty":2,"where":{"bin":"B7"}}`},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(ctx, []string{"produce", "--dir", dir, "--brokers", broker, "--topic", tc.topic}, strings.NewReader(framedEvent("e-"+tc.topic, tc.typ, tc.data)), &stdout, &stderr); code != 0 {
			t.Fatalf("produce: exit %d\n%s%s", code, stdout.String(), stderr.String())
		}
		var got consumedValues
		if tc.typ == paid {
			py(&got, "consume-avro", url, broker, tc.topic, "1")
		} else {
			py(&got, "consume-proto", broker, tc.topic, string(descs), "example.stock.Moved", "1")
		}
		if got.Error != "" || len(got.Values) != 1 || got.Values[0].Error != "" || !sameJSONText(string(got.Values[0].Value), tc.pyWant) {
			t.Errorf("%s: Python read %+v, want %s", tc.typ, got, tc.pyWant)
		}
	}

	// Python producers -> evtool consume (after evtool's record, offset 1).
	var prod struct {
		Produced int
		Errors   []string
		Error    string
	}
	py(&prod, "produce-avro", url, broker, "payments", paid, files["schemas/"+paid+"/v1.avsc"], `[{"paymentId":"Y-1","amount":5,"note":"x"}]`)
	if prod.Error != "" || len(prod.Errors) > 0 || prod.Produced != 1 {
		t.Fatalf("python produce-avro: %+v", prod)
	}
	py(&prod, "produce-proto", url, broker, "stock", moved, string(descs), "example.stock.Moved", `[{"sku":"Y-2","qty":3,"where":{"bin":"Q"}}]`)
	if prod.Error != "" || len(prod.Errors) > 0 || prod.Produced != 1 {
		t.Fatalf("python produce-proto: %+v", prod)
	}
	for _, tc := range []struct{ topic, typ, data string }{
		{"payments", paid, `{"paymentId":"Y-1","amount":5,"note":{"string":"x"}}`},
		{"stock", moved, `{"sku":"Y-2","qty":3,"where":{"bin":"Q"}}`},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(ctx, []string{"consume", "--dir", dir, "--brokers", broker, "--topic", tc.topic}, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("consume: exit %d\n%s%s", code, stdout.String(), stderr.String())
		}
		c, ok := consumedLines(t, stdout.String())["py-0"]
		var ev struct{ Data json.RawMessage }
		if !ok || json.Unmarshal(c.Event, &ev) != nil || c.Error != "" || len(c.Findings) > 0 {
			t.Errorf("%s: what Python produced: %+v\n%s", tc.typ, c, stdout.String())
			continue
		}
		if id := servedID(t, ctx, url, tc.topic+"-value"); c.SchemaID == nil || *c.SchemaID != id {
			t.Errorf("%s: schema id %v, want %d", tc.typ, c.SchemaID, id)
		}
		if !sameJSONText(string(ev.Data), tc.data) {
			t.Errorf("%s: data %s, want %s", tc.typ, ev.Data, tc.data)
		}
	}
}

// pythonWith returns a python3 that imports every module, or skips t
// saying what to install.
func pythonWith(t *testing.T, install string, modules ...string) string {
	t.Helper()
	return pythontest.With(t, install, modules...)
}

// runPython runs script with args and decodes the JSON document it prints
// into out; a failing run fails t with its standard error.
func runPython(t *testing.T, ctx context.Context, python, script string, out any, args ...string) {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, python, append([]string{script}, args...)...)
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("python %s %s: %v\n%s", filepath.Base(script), args[0], err, stderr.String())
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("python %s %s printed %s (%v)\n%s", filepath.Base(script), args[0], stdout, err, stderr.String())
	}
}
