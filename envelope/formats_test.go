package envelope

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/catalog"
)

// TestValidatorFormats: Avro and Protobuf data is checked through the
// format seam, binary (plain or Confluent-framed) in data_base64 or the
// JSON form in data.
func TestValidatorFormats(t *testing.T) {
	cat, err := catalog.LoadFS(fstest.MapFS{
		"evtool.yaml":              {Data: []byte("version: 1\ndataschema: https://s.example/{type}/v{version}\n")},
		"schemas/com.x.a/v1.avsc":  {Data: []byte(`{"type": "record", "name": "A", "fields": [{"name": "id", "type": "string"}, {"name": "n", "type": "long"}]}`)},
		"schemas/com.x.p/v1.proto": {Data: []byte("syntax = \"proto3\";\npackage x;\nmessage P {\n  string id = 1;\n  int64 n = 2;\n}\n")},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	v := &Validator{Catalog: cat}
	event := func(typ, extra string) []byte {
		return []byte(`{"specversion":"1.0","id":"1","source":"/s","type":"` + typ + `","dataschema":"https://s.example/` + typ + `/v1"` + extra + `}`)
	}
	tests := []struct {
		name string
		raw  []byte
		want string // "severity rule pointer", "" for none
	}{
		// {"id": "p", "n": 5}: 02 70 0a; framed: 00 00000007 first
		{"avro binary", event("com.x.a", `,"datacontenttype":"application/avro","data_base64":"AnAK"`), ""},
		{"avro framed", event("com.x.a", `,"datacontenttype":"application/avro","data_base64":"AAAAAAcCcAo="`), ""},
		{"avro json", event("com.x.a", `,"datacontenttype":"application/json","data":{"id":"p","n":5}`), ""},
		{"avro json, no content type", event("com.x.a", `,"data":{"id":"p","n":5}`), ""},
		{"avro truncated", event("com.x.a", `,"datacontenttype":"application/avro","data_base64":"AnA="`), "error data-invalid /data_base64"},
		{"avro json wrong type", event("com.x.a", `,"data":{"id":"p","n":"5"}`), "error data-invalid /data"},
		{"avro no data", event("com.x.a", `,"datacontenttype":"application/avro"`), "error data-invalid /data"},
		{"avro as protobuf", event("com.x.a", `,"datacontenttype":"application/protobuf","data_base64":"AnAK"`), "error data-encoding /datacontenttype"},
		// {"id": "s", "n": "5"}: 0a 01 73 10 05; framed with index [0]
		{"protobuf binary", event("com.x.p", `,"datacontenttype":"application/protobuf","data_base64":"CgFzEAU="`), ""},
		{"protobuf framed", event("com.x.p", `,"datacontenttype":"application/protobuf","data_base64":"AAAAAAcACgFzEAU="`), ""},
		{"protobuf json", event("com.x.p", `,"data":{"id":"s","n":"5"}`), ""},
		{"protobuf bad bytes", event("com.x.p", `,"datacontenttype":"application/protobuf","data_base64":"CgVz"`), "error data-invalid /data_base64"},
		{"protobuf unknown json field", event("com.x.p", `,"data":{"count":1}`), "error data-invalid /data"},
		{"protobuf as avro", event("com.x.p", `,"datacontenttype":"application/avro","data_base64":"CgFzEAU="`), "error data-encoding /datacontenttype"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ver, fs := v.Validate(tt.raw)
			if got := summarize(fs); strings.Join(got, "; ") != tt.want {
				t.Errorf("findings = %q, want %q\n%v", got, tt.want, fs)
			}
			if ver == nil || ver.Number != 1 {
				t.Errorf("version = %v", ver)
			}
		})
	}
}
