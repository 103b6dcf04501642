package envelope

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/report"
)

// TestFramingNoneNeverFramed: under kafka.framing none a datum is never
// taken for a Confluent frame, in an event (data_base64) or a binary-mode
// record: Avro 00 ff ff ff ff 00 of {a: array<null>} is an empty array
// followed by 5 bytes, an error naming where they start, and a Protobuf
// message behind a frame does not parse. Under confluent framing both
// are framed data.
func TestFramingNoneNeverFramed(t *testing.T) {
	for _, tc := range []struct {
		name, typ, ct string
		framing       catalog.Framing
		data          []byte
		want          string // "" for no finding
	}{
		{"avro none", "com.x.arr", "application/avro", catalog.FramingNone, []byte{0, 0xff, 0xff, 0xff, 0xff, 0}, "5 bytes left after the datum, from byte offset 1"},
		{"avro confluent", "com.x.arr", "application/avro", catalog.FramingConfluent, []byte{0, 0xff, 0xff, 0xff, 0xff, 0}, ""},
		{"avro none plain", "com.x.arr", "application/avro", catalog.FramingNone, []byte{0}, ""},
		{"protobuf none", "com.x.pb", "application/protobuf", catalog.FramingNone, []byte{0, 0, 0, 0, 7, 0, 0x0a, 1, 'a'}, "data is not a datum"},
		{"protobuf confluent", "com.x.pb", "application/protobuf", catalog.FramingConfluent, []byte{0, 0, 0, 0, 7, 0, 0x0a, 1, 'a'}, ""},
		{"protobuf none plain", "com.x.pb", "application/protobuf", catalog.FramingNone, []byte{0x0a, 1, 'a'}, ""},
	} {
		dir := t.TempDir()
		for name, text := range map[string]string{
			"evtool.yaml":                  "version: 1\nkafka: {framing: " + string(tc.framing) + "}\n",
			"schemas/com.x.arr/v1.avsc":    `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":"null"}}]}`,
			"schemas/com.x.arr/event.yaml": "topic: arr\nkafka: {framing: " + string(tc.framing) + "}\n",
			"schemas/com.x.pb/v1.proto":    "syntax = \"proto3\";\nmessage M {\n  string s = 1;\n}\n",
		} {
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
		v := &Validator{Catalog: cat}
		d, fs := DecodeJSON(fmt.Appendf(nil, `{"specversion":"1.0","id":"1","source":"/s","type":%q,"datacontenttype":%q,"data_base64":%q}`,
			tc.typ, tc.ct, base64.StdEncoding.EncodeToString(tc.data)))
		if err := findingsError(fs); err != nil {
			t.Fatal(err)
		}
		_, fs = v.Check(d)
		check(t, tc.name+" event", fs, tc.want)
		h := func(k, v string) kgo.RecordHeader { return kgo.RecordHeader{Key: k, Value: []byte(v)} }
		r := &kgo.Record{Topic: "arr", Value: tc.data, Headers: []kgo.RecordHeader{h("ce_specversion", "1.0"), h("ce_id", "1"),
			h("ce_source", "/s"), h("ce_type", tc.typ), h("content-type", tc.ct)}}
		_, _, fs, err = v.CheckRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		check(t, tc.name+" record", fs, tc.want)
	}
}

// check wants the one failing finding to hold want (none when want is ""),
// and no mention of a frame under framing none.
func check(t *testing.T, name string, fs []report.Finding, want string) {
	t.Helper()
	var failing []string
	for _, f := range fs {
		if f.Failing() {
			failing = append(failing, f.Message)
		}
	}
	switch {
	case want == "" && len(failing) > 0:
		t.Errorf("%s: findings on valid data: %v", name, failing)
	case want != "" && (len(failing) != 1 || !strings.Contains(failing[0], want)):
		t.Errorf("%s: findings %v, want one holding %q", name, failing, want)
	case want != "" && strings.Contains(failing[0], "framed"):
		t.Errorf("%s: under framing none the message speaks of a frame: %s", name, failing[0])
	}
}
