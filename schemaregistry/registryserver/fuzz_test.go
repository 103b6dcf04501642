package registryserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile/parser"
	"github.com/bufbuild/protocompile/reporter"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/protobuf"
	"github.com/evtool/evtool/schemaregistry/internal/srtest"
)

// FuzzServerRequest feeds arbitrary bodies (and subjects) to the server's
// request decoding and to every endpoint that reads a body: the answer is
// always a JSON error or success from the Confluent set, never a 500.
//
//	go test ./schemaregistry/registryserver -run '^$' -fuzz FuzzServerRequest -fuzztime 60s
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
		{"com.example.common.Money", `{"schema":"{\"type\":\"record\",\"name\":\"Money\",\"namespace\":\"com.example.common\",\"fields\":[]}"}`},
		{"com.example.thing.happened", `{"schemaType":"AVRO","schema":"{\"type\":\"record\",\"name\":\"T\",\"fields\":[{\"name\":\"m\",\"type\":\"com.example.common.Money\"}]}","references":[{"name":"com.example.common.Money","subject":"com.example.common.Money","version":1}]}`},
		{"common/x.proto", `{"schemaType":"PROTOBUF","schema":"syntax = \"proto3\"; import \"../y.proto\"; message X {}","references":[{"name":"../y.proto","subject":"../y.proto","version":-1}]}`},
		{"com.example.thing.happened", `{"schemaType":"PROTOBUF","schema":"syntax = \"proto3\"; message X {}","references":[{"name":1}]}`},
		{"a/b", `{"schema": null}`},
		{"com.example.thing.happened", `{"schemaType":"JSON","schema":"` + strings.Repeat(`[`, 2000) + `"}`},
		{"com.example.thing.happened", "\xff\xfe"},
		{"com.example.thing.happened", `{"schemaType":"JSON","schema":"{\"description\":\"\ud800 \\udc00\"}"}`},
		{"orders-value", `{"schemaType":"JSON","schema":"{}"}`},
		// Serialized FileDescriptorProtos, as confluent-kafka-python sends them.
		{"com.example.thing.happened", `{"schemaType":"PROTOBUF","schema":"CgF4EgFwIgsKAVgSBgoBYRgBSgAiCwoBWBIGCgFhGAE="}`},
		{"com.example.thing.happened", `{"schemaType":"PROTOBUF","schema":"CgdtLnByb3RvGgpjL20ucHJvdG8iDQoBTRIICgFhGAEoC2IGcHJvdG8z","references":[{"name":"c/m.proto","subject":"c/m.proto","version":1}]}`},
		{"com.example.thing.happened", `{"schemaType":"PROTOBUF","schema":"abc"}`},
	} {
		f.Add(seed.subject, []byte(seed.body))
	}
	dir := srtest.MinimalCatalog(f, "FULL_TRANSITIVE", nil)
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

// FuzzDescriptorText: a registered Protobuf schema in the serialized form
// (base64 of a FileDescriptorProto) is rendered as .proto text or refused
// with an error, never a panic; text that is rendered parses again.
//
//	go test ./schemaregistry/registryserver -run '^$' -fuzz FuzzDescriptorText -fuzztime 60s
func FuzzDescriptorText(f *testing.F) {
	for _, seed := range []string{
		"CgF4EgFwIgsKAVgSBgoBYRgBSgAiCwoBWBIGCgFhGAE=",
		"CgdtLnByb3RvGgpjL20ucHJvdG8iDQoBTRIICgFhGAEoC2IGcHJvdG8z",
		"CgF4EgFwIhMKAVgSDgoBYRgBIAEoCVIBYlIBYw==",
		"AAAA",
	} {
		raw, _ := base64.StdEncoding.DecodeString(seed)
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		b64 := []byte(base64.StdEncoding.EncodeToString(raw))
		if len(raw) > 0 && raw[0] != 0xff && !protobuf.IsSerializedDescriptor(b64) {
			t.Fatalf("%q is not taken for a serialized descriptor", b64)
		}
		text, err := protobuf.DescriptorText(b64)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if len(text) == 0 {
			t.Fatal("no text and no error")
		}
		if protobuf.IsSerializedDescriptor(text) {
			t.Fatalf("rendered text %q looks like base64", text)
		}
		// Its imports are not at hand here: parsed, not linked.
		if _, err := parser.Parse("rendered.proto", bytes.NewReader(text), reporter.NewHandler(nil)); err != nil {
			t.Fatalf("rendered text does not parse: %v\n%s", err, text)
		}
	})
}
