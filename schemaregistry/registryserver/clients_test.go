package registryserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/schemaregistry"
	"github.com/evtool/evtool/schemaregistry/internal/srtest"
)

// Real third-party registry clients against evtool's server. The clients
// are never downloaded here: a test skips, saying what to install, when
// its client is absent.

// TestKafkajsSchemaRegistryClient: @kafkajs/confluent-schema-registry's
// register() with its defaults PUTs compatibility BACKWARD for a subject
// without its own level; the level lives in git, so that is refused (42205)
// and nothing weakens the gate. With the catalog's level the PUT is a no-op
// and register() succeeds.
//
//	npm install --prefix DIR @kafkajs/confluent-schema-registry
//	EVTOOL_TEST_NODE_MODULES=DIR/node_modules go test ./schemaregistry -run Kafkajs
func TestKafkajsSchemaRegistryClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	modules := os.Getenv("EVTOOL_TEST_NODE_MODULES")
	if modules == "" {
		t.Skip("set EVTOOL_TEST_NODE_MODULES to a node_modules directory holding @kafkajs/confluent-schema-registry")
	}
	if _, err := os.Stat(filepath.Join(modules, "@kafkajs", "confluent-schema-registry")); err != nil {
		t.Skipf("@kafkajs/confluent-schema-registry is not in %s", modules)
	}
	dir := srtest.MinimalCatalog(t, "FULL_TRANSITIVE", nil)
	cfgBefore, _ := os.ReadFile(filepath.Join(dir, "evtool.yaml"))
	_, url := startServer(t, ServerOptions{Dir: dir})
	v2 := `{"type":"object","properties":{"id":{"type":"string"},"note":{"type":"string"}},"required":["id"]}`
	v3 := `{"type":"object","properties":{"id":{"type":"string"},"note":{"type":"string"},"tag":{"type":"string"}},"required":["id"]}`
	script, _ := filepath.Abs(filepath.Join("..", "testdata", "clients", "kafkajs_register.js"))
	cmd := exec.Command(node, script, url, thing, v2, v3, "FULL_TRANSITIVE")
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var steps []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("output %q: %v", sc.Text(), err)
		}
		steps = append(steps, m)
	}
	if len(steps) != 2 {
		t.Fatalf("steps: %s", out)
	}
	if msg, _ := steps[0]["error"].(string); !strings.Contains(msg, "lives in git") {
		t.Fatalf("register() with defaults: %v (want the refused BACKWARD level)", steps[0])
	}
	if id, _ := steps[1]["id"].(float64); id <= 0 {
		t.Fatalf("register() with the catalog's level: %v", steps[1])
	}
	if _, err := os.Stat(filepath.Join(dir, "schemas", thing, "event.yaml")); err == nil {
		t.Fatal("a compatibility level was written into event.yaml")
	}
	if cfg, _ := os.ReadFile(filepath.Join(dir, "evtool.yaml")); !bytes.Equal(cfg, cfgBefore) {
		t.Fatal("evtool.yaml changed")
	}
	if n := len(srtest.LoadCat(t, dir).Lookup(thing).Versions); n != 3 {
		t.Fatalf("%d versions, want 3", n)
	}
}

// TestConfluentPythonJSONSerializer: confluent-kafka's JSONSerializer with
// its defaults (TopicNameStrategy, auto.register.schemas) registers subject
// "orders-value". Under the topic strategy that extends the one type with
// topic orders; under the type strategy it is refused with a hint. It never
// becomes a type directory schemas/orders-value.
//
//	apt-get install python3-confluent-kafka (Debian), or pip install confluent-kafka jsonschema requests
func TestConfluentPythonJSONSerializer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts Python with Confluent's JSON Schema serializer (seconds of CPU); the tests through franz-go's registry client (pkg/sr) stand for Confluent's clients in the short tier")
	}
	python := ""
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import confluent_kafka.schema_registry.json_schema").Run() == nil {
			python = path
			break
		}
	}
	if python == "" {
		t.Skip("no python3 with confluent_kafka (apt-get install python3-confluent-kafka)")
	}
	script, _ := filepath.Abs(filepath.Join("..", "testdata", "clients", "confluent_json_serializer.py"))
	const schema = `{"title":"Thing","type":"object","properties":{"id":{"type":"string"},"note":{"type":"string"}},"required":["id"]}`
	cases := []struct {
		strategy schemaregistry.Strategy
		versions int // of com.example.thing.happened afterwards
		contains string
	}{
		{schemaregistry.StrategyTopic, 2, `"id"`},
		{schemaregistry.StrategyType, 1, "looks like TopicNameStrategy"},
	}
	for _, c := range cases {
		t.Run(string(c.strategy), func(t *testing.T) {
			dir := srtest.MinimalCatalog(t, "BACKWARD", map[string]string{"schemas/" + thing + "/event.yaml": "topic: orders\n"})
			_, url := startServer(t, ServerOptions{Dir: dir, Strategy: c.strategy})
			var stderr bytes.Buffer
			cmd := exec.Command(python, script, url, "orders", schema, `{"id":"o-1","note":"hi"}`)
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("python: %v\n%s", err, stderr.String())
			}
			srtest.MustContain(t, string(out), c.contains)
			if _, err := os.Stat(filepath.Join(dir, "schemas", "orders-value")); err == nil {
				t.Fatal("subject orders-value became a type directory")
			}
			if n := len(srtest.LoadCat(t, dir).Lookup(thing).Versions); n != c.versions {
				t.Fatalf("%s has %d versions, want %d", thing, n, c.versions)
			}
		})
	}
}

// TestConfluentPythonReferences: confluent-kafka's SchemaRegistryClient
// registers an Avro schema with a schema reference through evtool's
// server (the referenced named type first, under its full name), and a
// Protobuf schema with an import (under its import path), and reads each
// back, references included, by subject, id and lookup. The catalog gets a
// shared file and a version that loads.
//
//	apt-get install python3-confluent-kafka (Debian), or pip install confluent-kafka
func TestConfluentPythonReferences(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts Python with Confluent's schema registry client (seconds of CPU); the tests through franz-go's registry client (pkg/sr) stand for Confluent's clients in the short tier")
	}
	python := ""
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import confluent_kafka.schema_registry").Run() == nil {
			python = path
			break
		}
	}
	if python == "" {
		t.Skip("no python3 with confluent_kafka (apt-get install python3-confluent-kafka)")
	}
	cases := []struct {
		kind, subject, schema, refSubject, refSchema string
		files                                        []string
		same                                         func(a, b string) bool
	}{
		{"AVRO", "com.example.order.paid",
			`{"type": "record", "name": "Paid", "namespace": "com.example", "fields": [{"name": "id", "type": "string"}, {"name": "amount", "type": "com.example.common.Money"}]}`,
			"com.example.common.Money",
			`{"type": "record", "name": "Money", "namespace": "com.example.common", "fields": [{"name": "units", "type": "long"}]}`,
			[]string{"common/com.example.common.Money.avsc", "com.example.order.paid/v1.avsc"}, sameJSON},
		{"PROTOBUF", "com.example.order.shipped",
			"syntax = \"proto3\";\npackage shop;\nimport \"common/money.proto\";\nmessage Shipped {\n  string id = 1;\n  common.Money cost = 2;\n}\n",
			"common/money.proto",
			"syntax = \"proto3\";\npackage common;\nmessage Money {\n  int64 units = 1;\n}\n",
			[]string{"common/money.proto", "com.example.order.shipped/v1.proto"}, func(a, b string) bool { return a == b }},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			dir := srtest.WriteCatalog(t, map[string]string{"evtool.yaml": "version: 1\ncompat:\n  mode: BACKWARD\n", "schemas/.keep": ""})
			_, url := startServer(t, ServerOptions{Dir: dir})
			script, _ := filepath.Abs(filepath.Join("..", "testdata", "clients", "confluent_references.py"))
			var stderr bytes.Buffer
			cmd := exec.Command(python, script, url, tc.subject, tc.schema, tc.refSubject, tc.refSchema, tc.kind)
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("python: %v\n%s", err, stderr.String())
			}
			var got struct {
				Error  string `json:"error"`
				ID     int    `json:"id"`
				RefID  int    `json:"ref_id"`
				Latest struct {
					Version, ID int
					Type        string
					Schema      string
					References  [][]any
				} `json:"latest"`
				ByID struct {
					Type       string
					References [][]any
				} `json:"by_id"`
				Lookup struct{ Version, ID int } `json:"lookup"`
				Ref    struct {
					Schema string
					ID     int
				} `json:"ref"`
			}
			if err := json.Unmarshal(out, &got); err != nil || got.Error != "" {
				t.Fatalf("python printed %s (%v)", out, err)
			}
			wantRefs := `[["` + tc.refSubject + `","` + tc.refSubject + `",1]]`
			for what, refs := range map[string][][]any{"latest": got.Latest.References, "by id": got.ByID.References} {
				if b, _ := json.Marshal(refs); string(b) != wantRefs {
					t.Errorf("%s: references %s, want %s", what, b, wantRefs)
				}
			}
			if got.Latest.Version != 1 || got.Latest.ID != got.ID || got.Latest.Type != tc.kind || got.ByID.Type != tc.kind ||
				!tc.same(got.Latest.Schema, tc.schema) || got.Lookup.Version != 1 || got.Lookup.ID != got.ID ||
				got.Ref.ID != got.RefID || !tc.same(got.Ref.Schema, tc.refSchema) {
				t.Fatalf("read back: %s", out)
			}
			for _, f := range tc.files {
				if _, err := os.Stat(filepath.Join(dir, "schemas", filepath.FromSlash(f))); err != nil {
					t.Fatal(err)
				}
			}
			srtest.LoadCat(t, dir)
		})
	}
}

// sameJSON reports whether two JSON texts hold the same value (the server
// indents a compact schema for the catalog file).
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
