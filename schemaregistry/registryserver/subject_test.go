package registryserver

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/schemaregistry"
	"github.com/evtool/evtool/schemaregistry/internal/srtest"
)

// formatBody is a registration of an Avro or Protobuf schema with
// references.
func formatBody(t testing.TB, schemaType, schema string, refs []sr.SchemaReference) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"schemaType": schemaType, "schema": schema, "references": refs})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// typeDirs lists the directories of the catalog root.
func typeDirs(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(filepath.Join(dir, "schemas"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestServeRecordNameSubjects: subjects of Confluent's RecordNameStrategy
// and TopicRecordNameStrategy (the Avro record's full name, the Protobuf
// message's, after "<topic>-" or not) reach the type whose versions declare
// that record, under every strategy the server maps its own subjects with;
// a record no type declares, one that several do, and a topic the type does
// not have are refused with Confluent's codes, and no type is ever created.
func TestServeRecordNameSubjects(t *testing.T) {
	avroRefs := []sr.SchemaReference{{Name: "com.example.common.Money", Subject: "com.example.common.Money", Version: 1},
		{Name: "com.example.common.Fee", Subject: "com.example.common.Fee", Version: 1}}
	protoRefs := []sr.SchemaReference{{Name: "common/place.proto", Subject: "common/place.proto", Version: 1}}
	unknownAvro := `{"type":"record","name":"PaymentLost","namespace":"com.example.payment","fields":[{"name":"id","type":"string"}]}`
	unknownProto := "syntax = \"proto3\";\npackage stock;\nmessage StockLost {\n  string sku = 1;\n}\n"
	type step struct {
		subject, schema string
		proto           bool
		status, code    int
		want            string // in the body
	}
	cases := []struct {
		name, catalog, typ string
		strategy           schemaregistry.Strategy
		extra              map[string]string // files written into the catalog
		steps              []step
	}{
		{name: "avro topic-record under type", catalog: "avro", typ: "com.example.payment.made", strategy: schemaregistry.StrategyType,
			steps: []step{
				{subject: "payments-com.example.payment.PaymentMade", schema: compatibleAvroV3, status: 200, want: `"id"`},
				{subject: "com.example.payment.PaymentMade", schema: compatibleAvroV3, status: 200, want: `"version":3`},
				{subject: "orders-com.example.payment.PaymentMade", schema: compatibleAvroV3, status: 404, code: 40401, want: `topic \"payments\", not \"orders\"`},
				{subject: "payments-com.example.payment.PaymentLost", schema: unknownAvro, status: 404, code: 40401, want: "never creates a type"},
			}},
		{name: "avro topic-record under topic", catalog: "avro", typ: "com.example.payment.made", strategy: schemaregistry.StrategyTopic,
			steps: []step{
				{subject: "payments-com.example.payment.PaymentMade", schema: compatibleAvroV3, status: 200, want: `"id"`},
				{subject: "payments-com.example.payment.PaymentLost", schema: unknownAvro, status: 404, code: 40401, want: "never creates a type"},
			}},
		{name: "avro topic-record under topic-type", catalog: "avro", typ: "com.example.payment.made", strategy: schemaregistry.StrategyTopicType,
			steps: []step{
				{subject: "payments-com.example.payment.PaymentMade", schema: compatibleAvroV3, status: 200, want: `"id"`},
				{subject: "payments-com.example.payment.PaymentLost", schema: unknownAvro, status: 404, code: 40401, want: "never creates a type"},
			}},
		{name: "avro record declared twice", catalog: "avro", typ: "com.example.payment.made", strategy: schemaregistry.StrategyType,
			extra: map[string]string{"schemas/com.example.payment.copied/v1.avsc": `{"type":"record","name":"PaymentMade","namespace":"com.example.payment","fields":[{"name":"id","type":"string"}]}`},
			steps: []step{
				{subject: "payments-com.example.payment.PaymentMade", schema: compatibleAvroV3, status: 422, code: 42208, want: "com.example.payment.copied, com.example.payment.made"},
				{subject: "com.example.payment.PaymentMade", schema: compatibleAvroV3, status: 422, code: 42208, want: "2 types"},
			}},
		{name: "protobuf record names", catalog: "proto", typ: "com.example.stock.moved", strategy: schemaregistry.StrategyType,
			steps: []step{
				{subject: "stock-stock.StockMoved", schema: compatibleProtoV3, proto: true, status: 200, want: `"id"`},
				{subject: "stock.StockMoved", schema: compatibleProtoV3, proto: true, status: 200, want: `"version":3`},
				{subject: "stock.StockLost", schema: unknownProto, proto: true, status: 404, code: 40401, want: "never creates a type"},
				{subject: "stock-stock.StockLost", schema: unknownProto, proto: true, status: 404, code: 40401, want: "never creates a type"},
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := formatCatalog(t, tc.catalog)
			topic := map[string]string{"avro": "payments", "proto": "stock"}[tc.catalog]
			files := map[string][]byte{"schemas/" + tc.typ + "/event.yaml": []byte("topic: " + topic + "\n")}
			for k, v := range tc.extra {
				files[k] = []byte(v)
			}
			for rel, data := range files {
				p := filepath.Join(dir, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before := typeDirs(t, dir)
			s, _ := startServer(t, ServerOptions{Dir: dir, Strategy: tc.strategy})
			for _, st := range tc.steps {
				body := formatBody(t, "AVRO", st.schema, avroRefs)
				if st.proto {
					body = formatBody(t, "PROTOBUF", st.schema, protoRefs)
				}
				got := doHandler(t, s, "POST", "/subjects/"+url.PathEscape(st.subject)+"/versions", body)
				if got.status != st.status || got.code != st.code || !strings.Contains(got.body, st.want) {
					t.Errorf("register %s: %d %d %s, want %d %d with %s", st.subject, got.status, got.code, got.body, st.status, st.code, st.want)
				}
				if st.status != 200 {
					continue
				}
				// The record-name subject reads as the type's subject.
				got = doHandler(t, s, "GET", "/subjects/"+url.PathEscape(st.subject)+"/versions/latest", "")
				if got.status != 200 || !strings.Contains(got.body, `"version":3`) {
					t.Errorf("GET %s latest: %d %s", st.subject, got.status, got.body)
				}
				got = doHandler(t, s, "POST", "/subjects/"+url.PathEscape(st.subject), body)
				if got.status != 200 || !strings.Contains(got.body, `"version":3`) {
					t.Errorf("lookup %s: %d %s", st.subject, got.status, got.body)
				}
			}
			if after := typeDirs(t, dir); strings.Join(after, " ") != strings.Join(before, " ") {
				t.Errorf("type directories %v became %v: a record name created a type", before, after)
			}
			if _, err := os.Stat(filepath.Join(dir, "schemas", "common", "com.example.payment.PaymentMade.avsc")); err == nil {
				t.Errorf("the type's record was written as a shared schema")
			}
		})
	}
}

// TestServeRecordSubjectNamesNoRecord: a subject ending in '-' names no
// record (JSON Schema types, and Avro schemas without a named root,
// declare none): it does not reach such a type, to read or to register.
func TestServeRecordSubjectNamesNoRecord(t *testing.T) {
	for _, subject := range []string{"orders-", "-"} {
		t.Run(subject, func(t *testing.T) {
			dir := srtest.MinimalCatalog(t, "NONE", nil)
			s, _ := startServer(t, ServerOptions{Dir: dir})
			if got := doHandler(t, s, "GET", "/subjects/"+url.PathEscape(subject)+"/versions", ""); got.status != 404 {
				t.Errorf("GET %s/versions: %d %s, want 404", subject, got.status, got.body)
			}
			if got := doHandler(t, s, "POST", "/subjects/"+url.PathEscape(subject)+"/versions", registerBody(thingV2)); got.status == 200 {
				t.Errorf("register under %q: %d %s", subject, got.status, got.body)
			}
			if _, err := os.Stat(filepath.Join(dir, "schemas", thing, "v2.json")); err == nil {
				t.Errorf("a registration under %q wrote %s v2", subject, thing)
			}
		})
	}
}
