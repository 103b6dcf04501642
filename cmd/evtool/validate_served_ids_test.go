package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/internal/waitfor"
)

// servedIDsCatalog has an Avro and a Protobuf type with one version each;
// the tests register their v2 through `registry serve`.
var servedIDsCatalog = map[string]string{
	"evtool.yaml":                    "version: 1\n",
	"schemas/com.x.paid/v1.avsc":     `{"type":"record","name":"Paid","namespace":"com.x","fields":[{"name":"id","type":"string"}]}` + "\n",
	"schemas/com.x.moved/v1.proto":   "syntax = \"proto3\";\npackage x;\nmessage Moved {\n  string sku = 1;\n}\n",
	"schemas/com.x.paid/event.yaml":  "topic: paid\n",
	"schemas/com.x.moved/event.yaml": "topic: moved\n",
}

const (
	servedPaidV2  = `{"type":"record","name":"Paid","namespace":"com.x","fields":[{"name":"id","type":"string"},{"name":"note","type":"string","default":""}]}`
	servedMovedV2 = "syntax = \"proto3\";\npackage x;\nmessage Moved {\n  string sku = 1;\n  string note = 2;\n}\n"
)

// serveCatalog runs `evtool registry serve` on dir, with the flags args,
// until the test ends and returns its URL.
func serveCatalog(t *testing.T, dir string, args ...string) string {
	t.Helper()
	urlFile := filepath.Join(t.TempDir(), "url")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stderr syncBuffer
	go func() {
		done <- run(ctx, append([]string{"registry", "serve", "--dir", dir, "--addr", "127.0.0.1:0", "--url-file", urlFile}, args...), strings.NewReader(""), &bytes.Buffer{}, &stderr)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return waitServeURL(t, urlFile, done, stderr.String)
}

// waitServeURL returns the URL `registry serve --url-file urlFile` wrote
// once it listened (it writes the file atomically), failing t when run,
// whose exit code done receives, ends first. log is its output so far.
func waitServeURL(t *testing.T, urlFile string, done chan int, log func() string) string {
	t.Helper()
	var url string
	exited := -1
	if !waitfor.Condition(60*time.Second, func() bool {
		select {
		case code := <-done:
			done <- code // for the cleanup
			exited = code
			return true
		default:
		}
		data, err := os.ReadFile(urlFile)
		url = strings.TrimSpace(string(data))
		return err == nil && url != ""
	}) {
		t.Fatalf("registry serve did not start: %s", log())
	}
	if url == "" {
		t.Fatalf("registry serve exited %d: %s", exited, log())
	}
	return url
}

// TestValidateTopicServedIDs: after `registry serve` gave ids to the Avro
// and Protobuf versions in git and to the v2s a client registered,
// validate --topic accepts records framed with those ids (exit 0) and
// names a record whose frame carries another version's id
// (schema-id-mismatch, exit 1): the ids reach the catalog's versions.
func TestValidateTopicServedIDs(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, servedIDsCatalog)
	cl, err := sr.NewClient(sr.URLs(serveCatalog(t, dir)), sr.HTTPClient(&http.Client{Timeout: 60 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, reg := range []struct {
		subject, text string
		typ           sr.SchemaType
	}{{"com.x.paid", servedPaidV2, sr.TypeAvro}, {"com.x.moved", servedMovedV2, sr.TypeProtobuf}} {
		if ss, err := cl.CreateSchema(ctx, reg.subject, sr.Schema{Schema: reg.text, Type: reg.typ}); err != nil || ss.Version != 2 {
			t.Fatalf("register %s: %+v %v", reg.subject, ss, err)
		}
	}
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	served := func(typ string, n int) uint32 {
		ss, err := cl.SchemaByVersion(ctx, typ, n)
		if err != nil {
			t.Fatal(err)
		}
		return uint32(ss.ID)
	}
	// record is an event of typ vN whose data is framed under id.
	record := func(evID, typ string, n int, data string, id uint32) *kgo.Record {
		ver := cat.Lookup(typ).Version(n)
		if ver == nil {
			t.Fatalf("no %s v%d", typ, n)
		}
		var e event.Event
		text := `{"specversion":"1.0","id":"` + evID + `","source":"/t","type":"` + typ + `","dataschema":"` + cat.DataSchema(typ, n) + `","datacontenttype":"application/json","data":` + data + `}`
		if err := json.Unmarshal([]byte(text), &e); err != nil {
			t.Fatal(err)
		}
		r, err := envelope.ToWireRecord(ctx, &e, ver, catalog.FramingConfluent, id, envelope.ModeBinary)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	validate := func(topic string, recs ...*kgo.Record) (int, string) {
		addr := startBrokerWith(t, topic, 1, recs...)
		var stdout, stderr bytes.Buffer
		code := run(ctx, []string{"validate", "--dir", dir, "--brokers", addr, "--topic", topic}, strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String() + stderr.String()
	}
	paid1, paid2 := served("com.x.paid", 1), served("com.x.paid", 2)
	moved1, moved2 := served("com.x.moved", 1), served("com.x.moved", 2)
	if code, out := validate("framed",
		record("a1", "com.x.paid", 1, `{"id":"p-1"}`, paid1),
		record("a2", "com.x.paid", 2, `{"id":"p-2","note":"n"}`, paid2),
		record("m1", "com.x.moved", 1, `{"sku":"s-1"}`, moved1),
		record("m2", "com.x.moved", 2, `{"sku":"s-2","note":"n"}`, moved2),
	); code != 0 || !strings.Contains(out, "4 records checked: 0 errors") {
		t.Errorf("records framed with the served ids: exit %d\n%s", code, out)
	}
	for _, tc := range []struct {
		name, typ, data string
		id              uint32
	}{
		{"avro", "com.x.paid", `{"id":"p-1"}`, paid2},
		{"proto", "com.x.moved", `{"sku":"s-1"}`, moved2},
	} {
		code, out := validate("mismatch-"+tc.name, record("x", tc.typ, 1, tc.data, tc.id))
		if code != exitFindings || !strings.Contains(out, envelope.RuleSchemaIDMismatch) {
			t.Errorf("%s v1 framed with v2's id %d: exit %d\n%s", tc.typ, tc.id, code, out)
		}
	}
}

// TestValidateTopicIDsFile: without an ids file, validate --topic does not
// check frames (records framed by a Confluent registry whose ids evtool
// does not know pass, as before it loaded ids); an unreadable ids file is
// a system error naming it (exit 2), not findings.
func TestValidateTopicIDsFile(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, ids string
		code      int
		want      string
	}{
		{"no ids file", "", exitOK, "1 record checked: 0 errors"},
		{"broken ids file", `{"ids": [5]}`, exitError, "ids.json: not a schema ids file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{}
			for k, v := range servedIDsCatalog {
				files[k] = v
			}
			if tc.ids != "" {
				files[catalog.SchemaIDsFile] = tc.ids
			}
			writeFiles(t, dir, files)
			cat, err := catalog.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			var e event.Event
			text := `{"specversion":"1.0","id":"a","source":"/t","type":"com.x.paid","dataschema":"` + cat.DataSchema("com.x.paid", 1) + `","datacontenttype":"application/json","data":{"id":"p"}}`
			if err := json.Unmarshal([]byte(text), &e); err != nil {
				t.Fatal(err)
			}
			r, err := envelope.ToWireRecord(ctx, &e, cat.Lookup("com.x.paid").Version(1), catalog.FramingConfluent, 4711, envelope.ModeBinary)
			if err != nil {
				t.Fatal(err)
			}
			addr := startBrokerWith(t, "paid", 1, r)
			var stdout, stderr bytes.Buffer
			code := run(ctx, []string{"validate", "--dir", dir, "--brokers", addr, "--topic", "paid"}, strings.NewReader(""), &stdout, &stderr)
			if out := stdout.String() + stderr.String(); code != tc.code || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, want %d with %q\n%s", code, tc.code, tc.want, out)
			}
		})
	}
}
