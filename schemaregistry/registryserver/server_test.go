package registryserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/schemaregistry"
	"github.com/evtool/evtool/schemaregistry/internal/srtest"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
)

const placed = "com.example.order.placed"

// placedV3 is v2 of the example plus an optional property: FULL compatible
// under the lenient profile.
func placedV3(t testing.TB, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "schemas", placed, "v2.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["properties"].(map[string]any)["giftNote"] = map[string]any{"type": "string", "maxLength": 200}
	doc["description"] = "A customer placed an order. Version 3 adds an optional gift note."
	out, _ := json.Marshal(doc)
	return string(out)
}

// TestServerLifecycle drives evtool's server with franz-go's sr client:
// register, look up, fetch by id, check compatibility, set config, restart.
func TestServerLifecycle(t *testing.T) {
	dir := ordersCatalog(t)
	s1, url := startServer(t, ServerOptions{Dir: dir, AllowConfigWrites: true})
	cl := srtest.SRClient(t, url)

	subjects, err := cl.Subjects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"com.example.order.paid", placed, "com.example.order.shipped"}; fmt.Sprint(subjects) != fmt.Sprint(want) {
		t.Fatalf("subjects = %v, want %v", subjects, want)
	}
	types, err := cl.SupportedTypes(ctx)
	if err != nil || len(types) != 3 {
		t.Fatalf("types = %v, %v", types, err)
	}

	latest, err := cl.SchemaByVersion(ctx, placed, -1)
	if err != nil {
		t.Fatal(err)
	}
	if latest.Version != 2 || latest.Type != sr.TypeJSON || latest.ID == 0 {
		t.Fatalf("latest = %+v", latest)
	}
	// v2 $refs ../common/money.json: it is served self-contained.
	var doc any
	if err := json.Unmarshal([]byte(latest.Schema.Schema), &doc); err != nil {
		t.Fatal(err)
	}
	if refs := wire.ExternalRefs(doc); len(refs) > 0 {
		t.Fatalf("served schema has external refs %v", refs)
	}

	// Register v3.
	v3 := placedV3(t, dir)
	id, err := cl.RegisterSchema(ctx, placed, sr.Schema{Schema: v3, Type: sr.TypeJSON}, -1, -1)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "schemas", placed, "v3.json")
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("v3.json not written: %v", err)
	}
	if _, err := catalog.Load(dir); err != nil {
		t.Fatalf("catalog does not load after the registration: %v", err)
	}
	// The same schema again: same id, no new version.
	id2, err := cl.RegisterSchema(ctx, placed, sr.Schema{Schema: v3, Type: sr.TypeJSON}, -1, -1)
	if err != nil || id2 != id {
		t.Fatalf("re-register: id %d, %v; want %d", id2, err, id)
	}
	versions, err := cl.SubjectVersions(ctx, placed)
	if err != nil || fmt.Sprint(versions) != "[1 2 3]" {
		t.Fatalf("versions = %v, %v", versions, err)
	}

	// Look up, fetch by id.
	ss, err := cl.LookupSchema(ctx, placed, sr.Schema{Schema: v3, Type: sr.TypeJSON})
	if err != nil || ss.Version != 3 || ss.ID != id {
		t.Fatalf("lookup = %+v, %v", ss, err)
	}
	byID, err := cl.SchemaByID(ctx, id)
	if err != nil || byID.Type != sr.TypeJSON {
		t.Fatalf("by id = %+v, %v", byID, err)
	}
	// v3 $refs ../common/money.json like v2: it is served bundled.
	served := mustSchema(t, cl, placed, 3).Schema.Schema
	if byID.Schema != served || len(wire.ExternalRefs(decode(t, served))) > 0 {
		t.Fatalf("schema by id differs from version 3, or is not self-contained:\n%s", byID.Schema)
	}
	text, err := cl.SchemaTextByID(ctx, id)
	if err != nil || jsonvalue.Digest(decode(t, text)) != jsonvalue.Digest(decode(t, served)) {
		t.Fatalf("schema text by id: %v", err)
	}
	// Looking up the bundled form finds v3 too.
	if ss, err := cl.LookupSchema(ctx, placed, sr.Schema{Schema: served, Type: sr.TypeJSON}); err != nil || ss.Version != 3 {
		t.Fatalf("lookup of the bundled form = %+v, %v", ss, err)
	}
	usages, err := cl.SchemaVersionsByID(ctx, id)
	if err != nil || len(usages) != 1 || usages[0] != (sr.SubjectVersion{Subject: placed, Version: 3}) {
		t.Fatalf("usages = %v, %v", usages, err)
	}
	if _, err := cl.SchemaByID(ctx, 999); srtest.SRCode(err) != 40403 {
		t.Fatalf("unknown id: %v", err)
	}

	// Compatibility: a new required property breaks BACKWARD.
	var bad map[string]any
	_ = json.Unmarshal([]byte(v3), &bad)
	bad["required"] = append(bad["required"].([]any), "giftNote")
	badText, _ := json.Marshal(bad)
	res, err := cl.CheckCompatibility(sr.WithParams(ctx, sr.Verbose), placed, -1, sr.Schema{Schema: string(badText), Type: sr.TypeJSON})
	if err != nil {
		t.Fatal(err)
	}
	if res.Is || len(res.Messages) == 0 || !strings.Contains(strings.Join(res.Messages, "\n"), "required-property-added") {
		t.Fatalf("compatibility = %+v", res)
	}
	res, err = cl.CheckCompatibility(ctx, placed, -1, sr.Schema{Schema: v3, Type: sr.TypeJSON})
	if err != nil || !res.Is {
		t.Fatalf("compatibility of v3 with itself = %+v, %v", res, err)
	}
	// Against all versions (sr's -2).
	res, err = cl.CheckCompatibility(sr.WithParams(ctx, sr.Verbose), placed, -2, sr.Schema{Schema: string(badText), Type: sr.TypeJSON})
	if err != nil || res.Is {
		t.Fatalf("compatibility against all = %+v, %v", res, err)
	}
	// Registering it is refused with HTTP 409, error code 40901 (current
	// Confluent), and writes nothing.
	_, err = cl.RegisterSchema(ctx, placed, sr.Schema{Schema: string(badText), Type: sr.TypeJSON}, -1, -1)
	if srtest.SRCode(err) != 40901 || srStatus(err) != 409 {
		t.Fatalf("incompatible registration: %v", err)
	}
	srtest.MustContain(t, err.Error(), "required-property-added")
	if _, err := os.Stat(filepath.Join(dir, "schemas", placed, "v4.json")); err == nil {
		t.Fatal("an incompatible schema was written")
	}

	// Config: global, subject, reset.
	global := cl.Compatibility(ctx)
	if global[0].Err != nil || global[0].Level != sr.CompatFullTransitive {
		t.Fatalf("global = %+v", global[0])
	}
	if r := cl.Compatibility(ctx, placed); srtest.SRCode(r[0].Err) != 40408 {
		t.Fatalf("subject level before set = %+v", r[0])
	}
	if r := cl.Compatibility(sr.WithParams(ctx, sr.DefaultToGlobal), placed); r[0].Err != nil || r[0].Level != sr.CompatFullTransitive {
		t.Fatalf("subject level defaulting to global = %+v", r[0])
	}
	set := cl.SetCompatibility(ctx, sr.SetCompatibility{Level: sr.CompatBackward}, placed)
	if set[0].Err != nil || set[0].Level != sr.CompatBackward {
		t.Fatalf("set = %+v", set[0])
	}
	meta, _ := os.ReadFile(filepath.Join(dir, "schemas", placed, "event.yaml"))
	srtest.MustContain(t, string(meta), "mode: BACKWARD")
	srtest.MustContain(t, string(meta), "# JSON pointer into data") // comments survive
	if r := cl.Compatibility(ctx, placed); r[0].Err != nil || r[0].Level != sr.CompatBackward {
		t.Fatalf("subject level = %+v", r[0])
	}
	// Under BACKWARD the new required property still breaks.
	if res, _ := cl.CheckCompatibility(ctx, placed, -1, sr.Schema{Schema: string(badText), Type: sr.TypeJSON}); res.Is {
		t.Fatal("BACKWARD accepted a new required property")
	}
	if r := cl.ResetCompatibility(ctx, placed); r[0].Err != nil {
		t.Fatalf("reset = %+v", r[0])
	}
	meta, _ = os.ReadFile(filepath.Join(dir, "schemas", placed, "event.yaml"))
	if strings.Contains(string(meta), "mode:") || !strings.Contains(string(meta), "topic: orders") {
		t.Fatalf("event.yaml after reset:\n%s", meta)
	}
	if r := cl.Compatibility(ctx, placed); srtest.SRCode(r[0].Err) != 40408 {
		t.Fatalf("subject level after reset = %+v", r[0])
	}
	if r := cl.SetCompatibility(ctx, sr.SetCompatibility{Level: sr.CompatForward}); r[0].Err != nil {
		t.Fatalf("set global = %+v", r[0])
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, "evtool.yaml"))
	srtest.MustContain(t, string(cfg), "mode: FORWARD\n")
	srtest.MustContain(t, string(cfg), "# Example catalog")
	if _, err := catalog.Load(dir); err != nil {
		t.Fatalf("catalog does not load after config changes: %v", err)
	}

	// A level for a subject that does not exist yet moves into its
	// event.yaml with its first version.
	if r := cl.SetCompatibility(ctx, sr.SetCompatibility{Level: sr.CompatNone}, "com.example.order.cancelled"); r[0].Err != nil {
		t.Fatalf("set pending = %+v", r[0])
	}
	if r := cl.Compatibility(ctx, "com.example.order.cancelled"); r[0].Err != nil || r[0].Level != sr.CompatNone {
		t.Fatalf("pending level = %+v", r[0])
	}
	if _, err := catalog.Load(dir); err != nil {
		t.Fatalf("a pending level broke the catalog: %v", err)
	}
	if _, err := cl.RegisterSchema(ctx, "com.example.order.cancelled", sr.Schema{Schema: `{"type":"object","properties":{"orderId":{"type":"string"}}}`, Type: sr.TypeJSON}, -1, -1); err != nil {
		t.Fatal(err)
	}
	meta, _ = os.ReadFile(filepath.Join(dir, "schemas", "com.example.order.cancelled", "event.yaml"))
	srtest.MustContain(t, string(meta), "mode: NONE")

	// A restart serves the same ids.
	s1.Close()
	_, url2 := startServer(t, ServerOptions{Dir: dir})
	cl2 := srtest.SRClient(t, url2)
	again, err := cl2.SchemaByVersion(ctx, placed, 3)
	if err != nil || again.ID != id {
		t.Fatalf("after restart v3 = %+v, %v; want id %d", again, err, id)
	}
	first, _ := cl2.SchemaByVersion(ctx, placed, 1)
	if first.ID != mustSchema(t, cl, placed, 1).ID {
		t.Fatalf("after restart v1 has id %d", first.ID)
	}
	if _, err := catalog.Load(dir); err != nil {
		t.Fatal(err)
	}
}

func mustSchema(t testing.TB, cl *sr.Client, subject string, v int) sr.SubjectSchema {
	t.Helper()
	ss, err := cl.SchemaByVersion(ctx, subject, v)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

func decode(t testing.TB, s string) any {
	t.Helper()
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}

// TestServerConcurrentRegistrations: 50 concurrent registrations to one
// subject (and duplicates of some of them) give contiguous versions,
// unique ids and files that all load.
func TestServerConcurrentRegistrations(t *testing.T) {
	dir := srtest.MinimalCatalog(t, "FULL", nil)
	_, url := startServer(t, ServerOptions{Dir: dir})
	cl := srtest.SRClient(t, url)
	const n = 50
	schemaOf := func(i int) string {
		return fmt.Sprintf(`{"type":"object","properties":{"id":{"type":"string"},"p%02d":{"type":"integer"}},"required":["id"]}`, i)
	}
	var wg sync.WaitGroup
	ids := make([]int, n+10)
	errs := make([]error, n+10)
	for i := 0; i < n+10; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ids[i], errs[i] = cl.RegisterSchema(ctx, "com.example.thing.happened", sr.Schema{Schema: schemaOf(i % n), Type: sr.TypeJSON}, -1, -1)
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("registration %d: %v", i, err)
		}
	}
	for i := n; i < n+10; i++ {
		if ids[i] != ids[i%n] {
			t.Fatalf("duplicate registration %d got id %d, the original %d", i, ids[i], ids[i%n])
		}
	}
	unique := map[int]bool{}
	for _, id := range ids[:n] {
		if unique[id] {
			t.Fatalf("id %d given twice", id)
		}
		unique[id] = true
	}
	versions, err := cl.SubjectVersions(ctx, "com.example.thing.happened")
	if err != nil || len(versions) != n+1 {
		t.Fatalf("versions = %v, %v", versions, err)
	}
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatalf("catalog does not load: %v", err)
	}
	typ := cat.Lookup("com.example.thing.happened")
	if len(typ.Versions) != n+1 {
		t.Fatalf("%d version files, want %d", len(typ.Versions), n+1)
	}
	got := map[string]bool{}
	for _, v := range typ.Versions[1:] {
		got[v.Digest] = true
	}
	for i := 0; i < n; i++ {
		if !got[jsonvalue.Digest(decode(t, schemaOf(i)))] {
			t.Fatalf("schema %d is not in the catalog", i)
		}
	}
	for i, v := range typ.Versions {
		ss := mustSchema(t, cl, "com.example.thing.happened", i+1)
		if jsonvalue.Digest(decode(t, ss.Schema.Schema)) != v.Digest {
			t.Fatalf("version %d served differs from its file", i+1)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "schemas", "com.example.thing.happened"))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Fatalf("temporary file left: %s", e.Name())
		}
	}
}

type apiResp struct {
	status      int
	contentType string
	body        string
	code        int
}

func do(t testing.TB, method, url, body string, header ...string) apiResp {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", wire.ContentType)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	out := apiResp{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: string(data)}
	var e struct {
		Code int `json:"error_code"`
	}
	_ = json.Unmarshal(data, &e)
	out.code = e.Code
	return out
}

// TestServerBadRequests: every bad request gets its Confluent error code,
// never a 500 or a stack trace.
func TestServerBadRequests(t *testing.T) {
	dir := ordersCatalog(t)
	_, url := startServer(t, ServerOptions{Dir: dir, MaxBody: 4096})
	sub := url + "/subjects/" + placed
	big := `{"schemaType":"JSON","schema":"` + strings.Repeat(" ", 5000) + `{}"}`
	cases := []struct {
		name, method, path, body string
		status, code             int
		contains                 string
	}{
		{"malformed body", "POST", sub + "/versions", `{"schema": `, 400, 400, "not valid JSON"},
		{"empty body", "POST", sub + "/versions", ``, 400, 400, "empty body"},
		{"trailing data", "POST", sub + "/versions", `{"schemaType":"JSON","schema":"{}"} {}`, 400, 400, "after the JSON"},
		{"malformed schema", "POST", sub + "/versions", `{"schemaType":"JSON","schema":"{\"type\": "}`, 422, 42201, "not valid JSON"},
		{"duplicate keys", "POST", sub + "/versions", `{"schemaType":"JSON","schema":"{\"type\":\"object\",\"type\":\"string\"}"}`, 422, 42201, "invalid schema"},
		{"schema not a string", "POST", sub + "/versions", `{"schemaType":"JSON","schema":5}`, 422, 42201, "wrong type"},
		{"no schema", "POST", sub + "/versions", `{"schemaType":"JSON"}`, 422, 42201, "no schema"},
		{"default type is avro", "POST", sub + "/versions", `{"schema":"{\"type\":\"record\",\"name\":\"x\",\"fields\":[]}"}`, 422, 42201, "schemaType AVRO"},
		{"protobuf", "POST", sub + "/versions", `{"schemaType":"PROTOBUF","schema":"syntax = \"proto3\";"}`, 422, 42201, "PROTOBUF"},
		{"references", "POST", sub + "/versions", `{"schemaType":"JSON","schema":"{}","references":[{"name":"a.json","subject":"a","version":1}]}`, 422, 42201, "references"},
		{"not a schema", "POST", sub + "/versions", `{"schemaType":"JSON","schema":"[1,2]"}`, 422, 42201, "object or a boolean"},
		{"does not compile", "POST", sub + "/versions", `{"schemaType":"JSON","schema":"{\"type\": 5}"}`, 422, 42201, "invalid schema"},
		{"external ref", "POST", sub + "/versions", `{"schemaType":"JSON","schema":"{\"$ref\": \"../nowhere.json\"}"}`, 422, 42201, "nowhere.json"},
		{"oversized body", "POST", sub + "/versions", big, 413, 42209, "larger than 4096"},
		{"invalid UTF-8 in the body", "POST", sub + "/versions", "{\"schemaType\":\"JSON\",\"schema\":\"{\\\"description\\\":\\\"caf\xe9\\\"}\"}", 422, 42201, "not valid UTF-8 (byte 53)"},
		{"lone surrogate in the body", "POST", sub + "/versions", `{"schemaType":"JSON","schema":"{\"description\":\"\ud800\"}"}`, 422, 42201, "lone UTF-16 surrogate"},
		{"lone low surrogate in the body", "POST", sub + "/versions", `{"schemaType":"JSON","schema":"{\"description\":\"\udc00x\"}"}`, 422, 42201, "lone UTF-16 surrogate"},
		{"lone surrogate in the schema", "POST", sub + "/versions", `{"schemaType":"JSON","schema":"{\"description\":\"\\ud83d\"}"}`, 422, 42201, "of the schema is a lone UTF-16 surrogate"},
		{"lone surrogate in a compatibility check", "POST", url + "/compatibility/subjects/" + placed + "/versions/latest", `{"schemaType":"JSON","schema":"{\"description\":\"\ud800\"}"}`, 422, 42201, "lone UTF-16 surrogate"},
		{"invalid subject", "POST", url + "/subjects/has%20space/versions", `{"schemaType":"JSON","schema":"{}"}`, 422, 42208, "not a valid event type name"},
		{"unknown subject", "GET", url + "/subjects/com.example.nope/versions", ``, 404, 40401, "not found"},
		{"unknown subject version", "GET", url + "/subjects/com.example.nope/versions/1", ``, 404, 40401, "not found"},
		{"unknown subject lookup", "POST", url + "/subjects/com.example.nope", `{"schemaType":"JSON","schema":"{}"}`, 404, 40401, "not found"},
		{"unknown subject compat", "POST", url + "/compatibility/subjects/com.example.nope/versions/latest", `{"schemaType":"JSON","schema":"{}"}`, 404, 40401, "not found"},
		{"unknown version", "GET", sub + "/versions/99", ``, 404, 40402, "versions 1..2"},
		{"unknown version compat", "POST", url + "/compatibility/subjects/" + placed + "/versions/7", `{"schemaType":"JSON","schema":"{}"}`, 404, 40402, "not found"},
		{"invalid version", "GET", sub + "/versions/abc", ``, 422, 42202, "invalid"},
		{"zero version", "GET", sub + "/versions/0", ``, 422, 42202, "invalid"},
		{"huge version", "GET", sub + "/versions/99999999999999999999", ``, 422, 42202, "invalid"},
		{"unknown schema", "POST", sub, `{"schemaType":"JSON","schema":"{\"type\":\"string\"}"}`, 404, 40403, "not found"},
		{"unknown id", "GET", url + "/schemas/ids/4242", ``, 404, 40403, "not found"},
		{"bad id", "GET", url + "/schemas/ids/x", ``, 404, 40403, "not found"},
		{"delete subject", "DELETE", sub, ``, 422, 42205, "immutable"},
		{"delete version", "DELETE", sub + "/versions/1", ``, 422, 42205, "immutable"},
		{"bad level", "PUT", url + "/config", `{"compatibility":"SIDEWAYS"}`, 422, 42203, "SIDEWAYS"},
		{"no level", "PUT", url + "/config/" + placed, `{}`, 422, 42203, "compatibility"},
		{"malformed config", "PUT", url + "/config", `{"compatibility":`, 400, 400, "not valid JSON"},
		{"level not configured", "GET", url + "/config/" + placed, ``, 404, 40408, "subject-level"},
		{"delete unset level", "DELETE", url + "/config/" + placed, ``, 404, 40408, "subject-level"},
		{"unknown path", "GET", url + "/nope", ``, 404, 404, "Not Found"},
		{"unknown method", "PATCH", url + "/subjects", ``, 405, 405, "Method Not Allowed"},
		{"set mode", "PUT", url + "/mode", `{"mode":"IMPORT"}`, 422, 42205, "read-only"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, c.method, c.path, c.body)
			if r.status != c.status || r.code != c.code {
				t.Fatalf("%s %s: HTTP %d code %d, want %d %d: %s", c.method, c.path, r.status, r.code, c.status, c.code, r.body)
			}
			if r.contentType != wire.ContentType {
				t.Fatalf("content type %q", r.contentType)
			}
			srtest.MustContain(t, r.body, c.contains)
			for _, bad := range []string{"goroutine", "panic", ".go:", "runtime."} {
				if strings.Contains(r.body, bad) {
					t.Fatalf("response leaks internals: %s", r.body)
				}
			}
		})
	}
	// Nothing above changed the catalog.
	cat, err := catalog.Load(dir)
	if err != nil || len(cat.Lookup(placed).Versions) != 2 {
		t.Fatalf("catalog changed: %v", err)
	}
}

// TestServerReadOnly refuses every change and still answers reads and
// compatibility checks.
func TestServerReadOnly(t *testing.T) {
	dir := ordersCatalog(t)
	_, url := startServer(t, ServerOptions{Dir: dir, ReadOnly: true})
	cl := srtest.SRClient(t, url)
	_, err := cl.RegisterSchema(ctx, placed, sr.Schema{Schema: placedV3(t, dir), Type: sr.TypeJSON}, -1, -1)
	if srtest.SRCode(err) != 42205 {
		t.Fatalf("register on read-only: %v", err)
	}
	if r := cl.SetCompatibility(ctx, sr.SetCompatibility{Level: sr.CompatNone}); srtest.SRCode(r[0].Err) != 42205 {
		t.Fatalf("set config on read-only: %v", r[0].Err)
	}
	res, err := cl.CheckCompatibility(ctx, placed, -1, sr.Schema{Schema: placedV3(t, dir), Type: sr.TypeJSON})
	if err != nil || !res.Is {
		t.Fatalf("compat on read-only = %+v, %v", res, err)
	}
	for _, p := range []string{filepath.Join(dir, StateDir), filepath.Join(dir, "schemas", StateDir), filepath.Join(dir, catalog.SchemaIDsFile)} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("read-only server wrote its state (%s): %v", p, err)
		}
	}
	if r := do(t, "GET", url+"/mode", ""); !strings.Contains(r.body, "READONLY") {
		t.Fatalf("mode = %s", r.body)
	}
}

// TestServerAuth: basic and bearer; a wrong credential is 401 and is never
// echoed.
func TestServerAuth(t *testing.T) {
	dir := ordersCatalog(t)
	_, url := startServer(t, ServerOptions{Dir: dir, User: "ci", Password: "s3cret-pass", Token: "tok-123456"})
	if _, err := srtest.SRClient(t, url).Subjects(ctx); srStatus(err) != 401 || srtest.SRCode(err) != 40101 {
		t.Fatalf("no credentials: %v", err)
	}
	if _, err := srtest.SRClient(t, url, sr.BasicAuth("ci", "s3cret-pass")).Subjects(ctx); err != nil {
		t.Fatalf("basic: %v", err)
	}
	if _, err := srtest.SRClient(t, url, sr.BearerToken("tok-123456")).Subjects(ctx); err != nil {
		t.Fatalf("bearer: %v", err)
	}
	r := do(t, "GET", url+"/subjects", "", "Authorization", "Bearer wrong-token-xyz")
	if r.status != 401 || strings.Contains(r.body, "wrong-token-xyz") {
		t.Fatalf("wrong token: %d %s", r.status, r.body)
	}
	if _, err := srtest.SRClient(t, url, sr.BasicAuth("ci", "nope")).Subjects(ctx); srStatus(err) != 401 {
		t.Fatalf("wrong password: %v", err)
	}
}

// TestServerSameSchemaTwoSubjects: one schema in two subjects has one id.
func TestServerSameSchemaTwoSubjects(t *testing.T) {
	dir := srtest.MinimalCatalog(t, "BACKWARD", nil)
	_, url := startServer(t, ServerOptions{Dir: dir})
	cl := srtest.SRClient(t, url)
	s := sr.Schema{Schema: `{"type":"string"}`, Type: sr.TypeJSON}
	a, err := cl.RegisterSchema(ctx, "com.example.a", s, -1, -1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := cl.RegisterSchema(ctx, "com.example.b", s, -1, -1)
	if err != nil || a != b {
		t.Fatalf("ids %d %d, %v", a, b, err)
	}
	usages, err := cl.SchemaVersionsByID(ctx, a)
	if err != nil || len(usages) != 2 {
		t.Fatalf("usages %v %v", usages, err)
	}
	subs, err := cl.SubjectsByID(ctx, a)
	sort.Strings(subs)
	if err != nil || fmt.Sprint(subs) != "[com.example.a com.example.b]" {
		t.Fatalf("subjects by id %v %v", subs, err)
	}
}

// A web page in the developer's browser cannot write to the catalog: a
// body a browser sends cross-site without a preflight (text/plain, a
// form, no type) is refused with 415, and a loopback server refuses
// requests for other host names (DNS rebinding) with 403.
func TestServerRefusesBrowserRequests(t *testing.T) {
	dir := ordersCatalog(t)
	_, url := startServer(t, ServerOptions{Dir: dir, LoopbackHostsOnly: true})
	body := `{"schemaType":"JSON","schema":"{}"}`
	for _, tt := range []struct {
		name        string
		method      string
		path        string
		contentType string
		host        string
		status      int
		code        int
	}{
		{"text/plain register", "POST", "/subjects/evil.type/versions", "text/plain", "", 415, 415},
		{"form register", "POST", "/subjects/evil.type/versions", "application/x-www-form-urlencoded", "", 415, 415},
		{"no content type", "PUT", "/config", "", "", 415, 415},
		{"rebound host", "PUT", "/config", wire.ContentType, "evil.example:8081", 403, 40301},
		{"rebound host, read", "GET", "/subjects", "", "evil.example", 403, 40301},
		{"localhost", "GET", "/subjects", "", "localhost:8081", 200, 0},
		{"ipv6 loopback", "GET", "/subjects", "", "[::1]:8081", 200, 0},
		{"json", "POST", "/compatibility/subjects/com.example.order.placed/versions/latest", "application/json; charset=utf-8", "", 200, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r io.Reader
			if tt.method != "GET" {
				r = strings.NewReader(body)
			}
			req, err := http.NewRequest(tt.method, url+tt.path, r)
			if err != nil {
				t.Fatal(err)
			}
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e struct {
				Code int `json:"error_code"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&e)
			if resp.StatusCode != tt.status || e.Code != tt.code {
				t.Fatalf("%d %d, want %d %d", resp.StatusCode, e.Code, tt.status, tt.code)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "schemas", "evil.type")); err == nil {
		t.Fatal("a refused request wrote to the catalog")
	}
}

// The directory of shared schemas cannot be registered into as a subject.
func TestRegisterIntoSharedDirectoryRefused(t *testing.T) {
	dir := ordersCatalog(t)
	s, _ := startServer(t, ServerOptions{Dir: dir})
	r := doHandler(t, s, "POST", "/subjects/common/versions", `{"schemaType":"JSON","schema":"{\"type\":\"object\"}"}`)
	if r.status != 422 || r.code != codeInvalidSubject || !strings.Contains(r.body, "not an event type") {
		t.Fatalf("%+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "schemas", "common", "v1.json")); err == nil {
		t.Fatal("v1.json written into schemas/common")
	}
}

// TestServerSurrogatePairs: a character outside the BMP escaped as a
// surrogate pair (in the body or in the schema) is a character, accepted.
func TestServerSurrogatePairs(t *testing.T) {
	dir := srtest.MinimalCatalog(t, "NONE", nil)
	s, _ := startServer(t, ServerOptions{Dir: dir})
	body := `{"schemaType":"JSON","schema":"{\"type\":\"object\",\"description\":\"\ud83d\ude00 \\ud83d\\ude00\"}"}`
	r := doHandler(t, s, "POST", "/subjects/com.example.thing.happened/versions", body)
	if r.status != 200 {
		t.Fatalf("HTTP %d: %s", r.status, r.body)
	}
	data, err := os.ReadFile(filepath.Join(dir, "schemas", "com.example.thing.happened", "v2.json"))
	if err != nil {
		t.Fatal(err)
	}
	srtest.MustContain(t, string(data), "\U0001F600 \\ud83d\\ude00")
}

// TestServerConfigWritesRefused: without --allow-config-writes a level
// lives in git. A change (what @kafkajs/confluent-schema-registry's
// register() sends for a subject without its own level) is refused with
// 42205 and writes nothing; setting the level the catalog already has
// succeeds without writing.
func TestServerConfigWritesRefused(t *testing.T) {
	dir := ordersCatalog(t) // global FULL_TRANSITIVE
	paidMeta := filepath.Join(dir, "schemas", "com.example.order.paid", "event.yaml")
	meta, err := os.ReadFile(paidMeta)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(paidMeta, append(meta, "compat:\n  mode: NONE\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := startServer(t, ServerOptions{Dir: dir})
	snapshot := func() map[string]string {
		out := map[string]string{}
		files, _, err := readTree(dir)
		if err != nil {
			t.Fatal(err)
		}
		for name, f := range files {
			out[name] = string(f.Data)
		}
		return out
	}
	before := snapshot()
	cases := []struct {
		name, method, target, body string
		status, code               int
		contains                   string
	}{
		{"kafkajs default on a subject without a level", "PUT", "/config/" + placed, `{"compatibility":"BACKWARD"}`, 422, 42205, "lives in git: change it in schemas/" + placed + "/event.yaml"},
		{"weaken a subject's own level", "PUT", "/config/com.example.order.paid", `{"compatibility":"BACKWARD"}`, 422, 42205, "is NONE and lives in git"},
		{"global", "PUT", "/config", `{"compatibility":"NONE"}`, 422, 42205, "--allow-config-writes"},
		{"subject with no version yet", "PUT", "/config/com.example.new", `{"compatibility":"NONE"}`, 422, 42205, "lives in git"},
		{"delete a subject's level", "DELETE", "/config/com.example.order.paid", ``, 422, 42205, "lives in git"},
		{"same level as the global", "PUT", "/config/" + placed, `{"compatibility":"FULL_TRANSITIVE"}`, 200, 0, `"compatibility":"FULL_TRANSITIVE"`},
		{"same level as the subject's own", "PUT", "/config/com.example.order.paid", `{"compatibilityLevel":"none"}`, 200, 0, `"compatibility":"NONE"`},
		{"same global level", "PUT", "/config", `{"compatibility":"FULL_TRANSITIVE"}`, 200, 0, `"compatibility":"FULL_TRANSITIVE"`},
		// Settings evtool does not keep are refused, not acknowledged and dropped.
		{"same level with normalize", "PUT", "/config/" + placed, `{"compatibility":"FULL_TRANSITIVE","normalize":true}`, 422, 42205, `field \"normalize\" is not supported`},
		{"same global level with a group", "PUT", "/config", `{"compatibility":"FULL_TRANSITIVE","compatibilityGroup":"app.major"}`, 422, 42205, `field \"compatibilityGroup\" is not supported`},
		{"an alias", "PUT", "/config/com.example.order.paid", `{"compatibility":"NONE","alias":"com.example.order.placed"}`, 422, 42205, `field \"alias\" is not supported`},
		{"metadata only", "PUT", "/config/" + placed, `{"defaultMetadata":{"properties":{"owner":"x"}}}`, 422, 42205, `field \"defaultMetadata\" is not supported`},
		{"two spellings disagree", "PUT", "/config/" + placed, `{"compatibility":"FULL_TRANSITIVE","compatibilityLevel":"NONE"}`, 422, 42203, "disagree"},
		{"unset fields as clients send them", "PUT", "/config/" + placed, `{"compatibility":"FULL_TRANSITIVE","normalize":false,"alias":null,"compatibilityGroup":"","defaultMetadata":{}}`, 200, 0, `"compatibility":"FULL_TRANSITIVE"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := doHandler(t, s, c.method, c.target, c.body)
			if r.status != c.status || r.code != c.code {
				t.Fatalf("HTTP %d code %d, want %d %d: %s", r.status, r.code, c.status, c.code, r.body)
			}
			srtest.MustContain(t, r.body, c.contains)
		})
	}
	if after := snapshot(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatal("a refused or no-op config request changed the catalog")
	}
	if _, err := os.Stat(filepath.Join(dir, StateDir, ConfigFile)); err == nil {
		t.Fatal("a level for a subject without versions was written")
	}
}

// doHandlerCtx is doHandler with the request's context.
func doHandlerCtx(t testing.TB, c context.Context, s *Server, method, target, body string) apiResp {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body)).WithContext(c)
	req.Header.Set("Content-Type", wire.ContentType)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	out := apiResp{status: w.Code, contentType: w.Header().Get("Content-Type"), body: w.Body.String()}
	var e struct {
		Code int `json:"error_code"`
	}
	_ = json.Unmarshal(w.Body.Bytes(), &e)
	out.code = e.Code
	return out
}

func registerBody(schema string) string {
	b, _ := json.Marshal(map[string]string{"schemaType": "JSON", "schema": schema})
	return string(b)
}

const (
	thing     = "com.example.thing.happened"
	thingV2   = `{"type":"object","properties":{"id":{"type":"string"},"note":{"type":"string"}},"required":["id"]}`
	otherType = "com.example.other.happened"
)

// TestServerCheckOutsideLock: while one registration's compatibility check
// runs, a registration of another subject completes; a change the check
// depended on (a version added on disk meanwhile, as by git pull) makes it
// check again instead of failing or writing over it.
func TestServerCheckOutsideLock(t *testing.T) {
	dir := srtest.MinimalCatalog(t, "BACKWARD", map[string]string{
		"schemas/" + otherType + "/v1.json": `{"type":"object"}`,
	})
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	s, _ := startServer(t, ServerOptions{Dir: dir, checkHook: func(_ context.Context, subject string) {
		if subject == thing {
			once.Do(func() { close(entered); <-release })
		}
	}})
	slow := make(chan apiResp, 1)
	go func() { slow <- doHandler(t, s, "POST", "/subjects/"+thing+"/versions", registerBody(thingV2)) }()
	<-entered

	other := make(chan apiResp, 1)
	go func() {
		other <- doHandler(t, s, "POST", "/subjects/"+otherType+"/versions", registerBody(`{"type":"object","properties":{"a":{}}}`))
	}()
	select {
	case r := <-other:
		if r.status != 200 {
			t.Fatalf("other subject: HTTP %d %s", r.status, r.body)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a registration of another subject waited for a compatibility check")
	}
	// Meanwhile v2 of the slow subject lands on disk (git pull).
	pulled := `{"type":"object","properties":{"id":{"type":"string"},"pulled":{"type":"string"}},"required":["id"]}`
	if err := os.WriteFile(filepath.Join(dir, "schemas", thing, "v2.json"), []byte(pulled), 0o644); err != nil {
		t.Fatal(err)
	}
	close(release)
	r := <-slow
	if r.status != 200 || !strings.Contains(r.body, `"version":3`) {
		t.Fatalf("slow registration: HTTP %d %s (want version 3, checked again after v2 appeared)", r.status, r.body)
	}
	cat := srtest.LoadCat(t, dir)
	if n := len(cat.Lookup(thing).Versions); n != 3 {
		t.Fatalf("%s has %d versions", thing, n)
	}
	if n := len(cat.Lookup(otherType).Versions); n != 2 {
		t.Fatalf("%s has %d versions (the other registration was lost)", otherType, n)
	}
	if got := cat.Lookup(thing).Versions[1].Digest; got != jsonvalue.Digest(decode(t, pulled)) {
		t.Fatal("the pulled v2 was overwritten")
	}
}

// TestServerCheckDeadline: a check that outlasts its deadline, or whose
// client goes away, is answered with 50002 and writes nothing (before, it
// was written and the answer lost to the write timeout).
func TestServerCheckDeadline(t *testing.T) {
	waitDone := func(c context.Context, _ string) { <-c.Done() }
	cases := []struct {
		name     string
		timeout  time.Duration
		hook     func(context.Context, string)
		cancel   bool
		target   string
		contains string
	}{
		{"check outlasts the deadline", 50 * time.Millisecond, waitDone, false, "/subjects/" + thing + "/versions", "within its 50ms deadline"},
		{"the engine under an expired deadline", time.Nanosecond, nil, false, "/subjects/" + thing + "/versions", "within its 1ns deadline"},
		{"compatibility endpoint", time.Nanosecond, nil, false, "/compatibility/subjects/" + thing + "/versions/latest", "--check-timeout"},
		{"client went away", time.Minute, waitDone, true, "/subjects/" + thing + "/versions", "cancelled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := srtest.MinimalCatalog(t, "FULL_TRANSITIVE", nil)
			s, _ := startServer(t, ServerOptions{Dir: dir, CheckTimeout: c.timeout, checkHook: c.hook})
			ids := idsOnDisk(t, dir)
			rctx, cancel := context.WithCancel(ctx)
			defer cancel()
			if c.cancel {
				time.AfterFunc(20*time.Millisecond, cancel)
			}
			r := doHandlerCtx(t, rctx, s, "POST", c.target, registerBody(thingV2))
			if r.status != 500 || r.code != 50002 {
				t.Fatalf("HTTP %d code %d: %s", r.status, r.code, r.body)
			}
			srtest.MustContain(t, r.body, c.contains)
			if _, err := os.Stat(filepath.Join(dir, "schemas", thing, "v2.json")); err == nil {
				t.Fatal("an unanswered registration was written")
			}
			if got := idsOnDisk(t, dir); fmt.Sprint(got) != fmt.Sprint(ids) {
				t.Fatalf("ids changed: %v -> %v", ids, got)
			}
		})
	}
}

// TestServerSubjectStrategies: a registration creates or extends only the
// type its subject maps to under the server's strategy. Confluent's
// serializers default to TopicNameStrategy ("orders-value"), which the
// type strategy once turned into a type directory schemas/orders-value.
func TestServerSubjectStrategies(t *testing.T) {
	obj := func(desc string) string { return registerBody(`{"type":"object","description":"` + desc + `"}`) }
	files := map[string]string{
		"schemas/com.example.order.placed/event.yaml":     "topic: orders\n",
		"schemas/com.example.order.placed/v1.json":        `{"type":"object"}`,
		"schemas/com.example.payment.captured/event.yaml": "topic: payments\n",
		"schemas/com.example.payment.captured/v1.json":    `{"type":"object"}`,
		"schemas/com.example.payment.refunded/event.yaml": "topic: payments\n",
		"schemas/com.example.payment.refunded/v1.json":    `{"type":"object"}`,
	}
	type call struct {
		subject      string
		status, code int
		contains     string
	}
	cases := []struct {
		strategy schemaregistry.Strategy
		subjects string
		calls    []call
		// created: type directories that must exist afterwards
		created []string
	}{
		{schemaregistry.StrategyType, "[com.example.order.placed com.example.payment.captured com.example.payment.refunded com.example.thing.happened]", []call{
			{"orders-value", 404, 40401, "looks like TopicNameStrategy"},
			{"orders-key", 404, 40401, "--subject-strategy topic"},
			{"com.example.order.placed", 200, 0, `"version":2`},
			{"com.example.new.thing", 200, 0, `"version":1`},
		}, []string{"com.example.new.thing"}},
		{schemaregistry.StrategyTopic, "[orders-value]", []call{
			{"orders-value", 200, 0, `"version":2`},
			{"payments-value", 422, 42201, "carries 2 types (com.example.payment.captured, com.example.payment.refunded)"},
			{"nothing-value", 404, 40401, "no type of the catalog has topic"},
			{"orders-key", 422, 42208, "not <topic>-value"},
			{"com.example.new.thing", 422, 42208, "not <topic>-value"},
		}, nil},
		{schemaregistry.StrategyTopicType, "[orders-com.example.order.placed payments-com.example.payment.captured payments-com.example.payment.refunded]", []call{
			{"orders-com.example.order.placed", 200, 0, `"version":2`},
			{"orders-com.example.payment.captured", 404, 40401, "in its event.yaml, not"},
			{"orders-value", 422, 42208, "not <topic>-<type>"},
			{"events-com.example.new.thing", 200, 0, `"version":1`},
			{"123-com.example.numbered.thing", 200, 0, `"version":1`},
		}, []string{"com.example.new.thing", "com.example.numbered.thing"}},
	}
	for _, c := range cases {
		t.Run(string(c.strategy), func(t *testing.T) {
			dir := srtest.MinimalCatalog(t, "NONE", files)
			s, _ := startServer(t, ServerOptions{Dir: dir, Strategy: c.strategy})
			if got := fmt.Sprint(s.Subjects()); got != c.subjects {
				t.Fatalf("subjects %s, want %s", got, c.subjects)
			}
			for _, cl := range c.calls {
				r := doHandler(t, s, "POST", "/subjects/"+cl.subject+"/versions", obj(cl.subject))
				if r.status != cl.status || r.code != cl.code {
					t.Fatalf("%s: HTTP %d code %d, want %d %d: %s", cl.subject, r.status, r.code, cl.status, cl.code, r.body)
				}
				srtest.MustContain(t, r.body, cl.contains)
			}
			dirs := typeDirs(t, dir)
			want := []string{"com.example.order.placed", "com.example.payment.captured", "com.example.payment.refunded", "com.example.thing.happened"}
			want = append(want, c.created...)
			sort.Strings(want)
			if fmt.Sprint(dirs) != fmt.Sprint(want) {
				t.Fatalf("type directories %v, want %v", dirs, want)
			}
			cat := srtest.LoadCat(t, dir)
			if placed := cat.Lookup("com.example.order.placed"); len(placed.Versions) != 2 {
				t.Fatalf("com.example.order.placed has %d versions", len(placed.Versions))
			}
			if c.strategy == schemaregistry.StrategyTopicType {
				if topic := cat.Lookup("com.example.new.thing").Meta.Topic; topic != "events" {
					t.Fatalf("new type's topic %q", topic)
				}
				if r := doHandler(t, s, "GET", "/subjects/events-com.example.new.thing/versions", ""); r.status != 200 {
					t.Fatalf("the new subject is not served: %s", r.body)
				}
			}
		})
	}
}

// TestServerStrategyFromConfig: without ServerOptions.Strategy the server
// takes evtool.yaml's registry.subject_strategy.
func TestServerStrategyFromConfig(t *testing.T) {
	dir := srtest.MinimalCatalog(t, "NONE", map[string]string{
		"evtool.yaml": "version: 1\ncompat:\n  mode: NONE\nregistry:\n  subject_strategy: topic\n",
		"schemas/com.example.thing.happened/event.yaml": "topic: things\n",
	})
	s, _ := startServer(t, ServerOptions{Dir: dir})
	if got := fmt.Sprint(s.Subjects()); got != "[things-value]" {
		t.Fatalf("subjects %s", got)
	}
}

// TestServerSchemaKeywordOfTheCatalogDraft: a catalog pulled from a
// registry names the registry's draft in `$schema` (default_draft: 7);
// Confluent's serializers keep sending the schema without it. That is the
// same schema to this catalog, so the lookup finds the version and a
// registration returns its id instead of adding a version; a `$schema`
// naming another draft is a different schema.
func TestServerSchemaKeywordOfTheCatalogDraft(t *testing.T) {
	const bare = `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`
	const draft7 = "http://json-schema.org/draft-07/schema#"
	cases := []struct {
		name, defaultDraft, file, sent string
		same                           bool
	}{
		{"pulled file names the catalog's draft, client sends none", "7", `{"$schema":"` + draft7 + `","type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`, bare, true},
		{"file without $schema, client names the catalog's draft", "7", bare, `{"$schema":"http://json-schema.org/draft-07/schema","type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`, true},
		{"file names another draft", "2020-12", `{"$schema":"` + draft7 + `","type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`, bare, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := srtest.WriteCatalog(t, map[string]string{
				"evtool.yaml":                   "version: 1\ndefault_draft: " + c.defaultDraft + "\ncompat:\n  mode: NONE\n",
				"schemas/" + thing + "/v1.json": c.file,
			})
			s, _ := startServer(t, ServerOptions{Dir: dir})
			look := doHandler(t, s, "POST", "/subjects/"+thing, registerBody(c.sent))
			reg := doHandler(t, s, "POST", "/subjects/"+thing+"/versions", registerBody(c.sent))
			if reg.status != 200 {
				t.Fatalf("register: HTTP %d %s", reg.status, reg.body)
			}
			_, statErr := os.Stat(filepath.Join(dir, "schemas", thing, "v2.json"))
			if c.same {
				if look.status != 200 {
					t.Fatalf("lookup: HTTP %d %s", look.status, look.body)
				}
				srtest.MustContain(t, reg.body, `"version":1`)
				if statErr == nil {
					t.Fatal("the same schema became v2")
				}
			} else {
				if look.status != 404 {
					t.Fatalf("lookup: HTTP %d %s", look.status, look.body)
				}
				srtest.MustContain(t, reg.body, `"version":2`)
			}
		})
	}
}

// TestServerRegistrationFieldsRefused: what a registration asks for beyond
// the schema (data-contract metadata and rules, an id or version of its
// own) is refused, not dropped while answering 200; unset values, as
// clients fill a request struct, are fine.
func TestServerRegistrationFieldsRefused(t *testing.T) {
	dir := srtest.MinimalCatalog(t, "NONE", nil)
	s, _ := startServer(t, ServerOptions{Dir: dir})
	schema, _ := json.Marshal(thingV2)
	cases := []struct {
		name, extra string
		status      int
		contains    string
	}{
		{"metadata", `"metadata":{"properties":{"owner":"team-a"}}`, 422, `field \"metadata\" is not supported`},
		{"rule set", `"ruleSet":{"domainRules":[{"name":"x","kind":"CONDITION","type":"CEL","expr":"true"}]}`, 422, `field \"ruleSet\"`},
		{"an id of its own", `"id":42`, 422, `field \"id\"`},
		{"a version of its own", `"version":7`, 422, `field \"version\"`},
		{"unset values", `"metadata":null,"ruleSet":{},"id":-1,"version":0,"references":[]`, 200, `"version":2`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := doHandler(t, s, "POST", "/subjects/"+thing+"/versions", `{"schemaType":"JSON","schema":`+string(schema)+`,`+c.extra+`}`)
			if r.status != c.status {
				t.Fatalf("HTTP %d: %s", r.status, r.body)
			}
			srtest.MustContain(t, r.body, c.contains)
			if c.status != 200 {
				if _, err := os.Stat(filepath.Join(dir, "schemas", thing, "v2.json")); err == nil {
					t.Fatal("a refused registration was written")
				}
			}
		})
	}
}

// TestRegisterTypeDifferingOnlyInCaseRefused: a subject that names an
// existing type or directory but for letter case would be a second
// directory that a checkout on a case-insensitive file system (macOS,
// Windows) merges with the first.
func TestRegisterTypeDifferingOnlyInCaseRefused(t *testing.T) {
	dir := ordersCatalog(t)
	s, _ := startServer(t, ServerOptions{Dir: dir})
	for _, subject := range []string{"com.example.order.Placed", "Common"} {
		r := doHandler(t, s, "POST", "/subjects/"+subject+"/versions", `{"schemaType":"JSON","schema":"{\"type\":\"object\"}"}`)
		if r.status != 422 || r.code != codeInvalidSubject || !strings.Contains(r.body, "differs only in letter case") {
			t.Fatalf("%s: %+v", subject, r)
		}
		if _, err := os.Stat(filepath.Join(dir, "schemas", subject)); err == nil {
			t.Fatalf("schemas/%s was created", subject)
		}
	}
}
