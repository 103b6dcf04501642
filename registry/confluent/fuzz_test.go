package confluent

import (
	"github.com/evtool/evtool/format"

	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzServerRequest feeds arbitrary bodies (and subjects) to the server's
// request decoding and to every endpoint that reads a body: the answer is
// always a JSON error or success from the Confluent set, never a 500.
//
//	go test ./registry/confluent -run '^$' -fuzz FuzzServerRequest -fuzztime 60s
func FuzzServerRequest(f *testing.F) {
	for _, seed := range []struct{ subject, body string }{
		{"com.example.thing.happened", `{"schemaType":"JSON","schema":"{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}},\"required\":[\"id\"]}"}`},
		{"com.example.thing.happened", `{"schemaType":"JSON","schema":"{\"type\":\"object\",\"required\":[\"id\",\"x\"]}"}`},
		{"com.example.thing.happened", `{"schemaType":"json","schema":"true"}`},
		{"com.example.thing.happened", `{"schemaType":"JSON","schema":"{\"$ref\":\"#/$defs/a\",\"$defs\":{\"a\":{\"$ref\":\"#/$defs/a\"}}}"}`},
		{"com.example.thing.happened", `{"schemaType":"JSON","schema":"{\"pattern\":\"(\"}"}`},
		{"com.example.thing.happened", `{"compatibility":"FULL"}`},
		{"com.example.other", `{"schema":"{}"}`},
		{"x", `{"schemaType":"JSON","schema":"{\"$ref\":\"https://example.com/x.json\"}"}`},
		{"", `[]`},
		{"a/b", `{"schema": null}`},
		{"com.example.thing.happened", `{"schemaType":"JSON","schema":"` + strings.Repeat(`[`, 2000) + `"}`},
		{"com.example.thing.happened", "\xff\xfe"},
		{"com.example.thing.happened", `{"schemaType":"JSON","schema":"{\"description\":\"\ud800 \\udc00\"}"}`},
		{"orders-value", `{"schemaType":"JSON","schema":"{}"}`},
	} {
		f.Add(seed.subject, []byte(seed.body))
	}
	dir := minimalCatalog(f, "FULL_TRANSITIVE", nil)
	s, err := NewServer(ServerOptions{Dir: dir, ReadOnly: true, MaxBody: 1 << 16})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, subject string, body []byte) {
		req, aerr := decodeSchemaRequest(body)
		switch {
		case aerr == nil && (req.text == nil || (req.kind == format.JSONSchema && req.doc == nil)):
			t.Fatal("accepted without a schema")
		case aerr != nil && (aerr.Status >= 500 || aerr.Code == 0 || aerr.Msg == ""):
			t.Fatalf("bad error %+v", aerr)
		}
		subj := url.PathEscape(subject)
		for _, target := range []struct{ method, path string }{
			{"POST", "/subjects/" + subj},
			{"POST", "/subjects/" + subj + "/versions"},
			{"POST", "/compatibility/subjects/" + subj + "/versions/latest?verbose=true"},
			{"POST", "/compatibility/subjects/" + subj + "/versions"},
			{"PUT", "/config/" + subj},
		} {
			req := httptest.NewRequest(target.method, "http://registry"+target.path, strings.NewReader(string(body)))
			w := httptest.NewRecorder()
			s.ServeHTTP(w, req)
			if w.Code >= 500 {
				t.Fatalf("%s %s: %d %s", target.method, target.path, w.Code, w.Body)
			}
			var resp map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
				t.Fatalf("%s %s: not a JSON object: %s", target.method, target.path, w.Body)
			}
			if w.Code != 200 {
				if _, ok := resp["error_code"]; !ok {
					t.Fatalf("%s %s: error without error_code: %s", target.method, target.path, w.Body)
				}
			}
		}
	})
}
