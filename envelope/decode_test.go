package envelope

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/report"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

const minimal = `"specversion":"1.0","id":"1","source":"/s","type":"t"`

// ev wraps members after the four required attributes into an event.
func ev(members string) string {
	if members == "" {
		return "{" + minimal + "}"
	}
	return "{" + minimal + "," + members + "}"
}

func TestDecodeJSONRules(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000)
	okDeep := `{` + minimal + `,"data":` + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + `}`
	tooDeep := `{` + minimal + `,"data":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}`
	tests := []struct {
		name   string
		in     string
		want   []string
		usable bool
	}{
		{"valid", ev(`"data":{"x":1}`), nil, true},
		{"whitespace around", " \n\t" + ev("") + "\r\n ", nil, true},

		// JSON text
		{"empty", "", []string{"error json-syntax "}, false},
		{"blank", "  \n", []string{"error json-syntax "}, false},
		{"truncated", `{"specversion":"1.0"`, []string{"error json-syntax "}, false},
		{"missing colon", `{"id" "1"}`, []string{"error json-syntax "}, false},
		{"trailing comma", `{"id":"1",}`, []string{"error json-syntax "}, false},
		{"trailing garbage", ev("") + "x", []string{"error json-syntax "}, false},
		{"two objects", ev("") + ev(""), []string{"error json-syntax "}, false},
		{"bad literal", ev(`"x":tru`), []string{"error json-syntax "}, false},
		{"bad number", ev(`"x":01`), []string{"error json-syntax "}, false},
		{"bad escape", ev(`"x":"\q"`), []string{"error json-syntax "}, false},
		{"raw newline in string", "{\"id\":\"a\nb\"}", []string{"error json-syntax "}, false},
		{"single quotes", `{'id':'1'}`, []string{"error json-syntax "}, false},
		{"invalid utf8 in string", ev("\"x\":\"\xff\""), []string{"error json-invalid-utf8 "}, false},
		{"invalid utf8 outside string", ev("") + "\xff", []string{"error json-invalid-utf8 "}, false},
		{"overlong utf8", ev("\"x\":\"\xc0\xaf\""), []string{"error json-invalid-utf8 "}, false},
		{"utf8 surrogate bytes", ev("\"x\":\"\xed\xa0\x80\""), []string{"error json-invalid-utf8 "}, false},
		{"nesting 10000", deep, []string{"error json-max-depth "}, false},
		{"nesting at the limit", okDeep, nil, true},
		{"nesting over the limit", tooDeep, []string{"error json-max-depth "}, false},
		{"not an object", `"event"`, []string{"error ce-not-object "}, false},
		{"array", `[` + ev("") + `]`, []string{"error ce-not-object "}, false},
		{"null", `null`, []string{"error ce-not-object "}, false},

		// json-duplicate-key
		{"duplicate attribute", `{"id":"1","id":"2","specversion":"1.0","source":"/s","type":"t"}`, []string{"error json-duplicate-key /id"}, true},
		{"duplicate data", ev(`"data":1,"data":2`), []string{"error json-duplicate-key /data"}, true},
		{"duplicate in data", ev(`"data":{"a":{"b~/c":1,"b~/c":2}}`), []string{"error json-duplicate-key /data/a/b~0~1c"}, true},
		{"duplicate in data array", ev(`"data":[{},{"k":1,"k":1}]`), []string{"error json-duplicate-key /data/1/k"}, true},
		{"same key in sibling objects", ev(`"data":[{"k":1},{"k":1}]`), nil, true},
		{"duplicate extension", ev(`"ext":"a","ext":"b"`), []string{"error json-duplicate-key /ext"}, true},

		// envelope rules through JSON
		{"attribute name", ev(`"orderId":"1"`), []string{"error ce-attribute-name /orderId"}, true},
		{"attribute name length", ev(`"abcdefghijklmnopqrstu":"1"`), []string{"warning ce-attribute-name-length /abcdefghijklmnopqrstu"}, true},
		{"extension float", ev(`"ext":1.5`), []string{"error ce-extension-value /ext"}, true},
		{"extension object", ev(`"ext":{}`), []string{"error ce-extension-value /ext"}, true},
		{"extension int ok", ev(`"ext":-7,"flag":false,"s":"x"`), nil, true},
		{"specversion", `{"specversion":"0.3","id":"1","source":"/s","type":"t"}`, []string{"error ce-specversion /specversion"}, true},
		{"specversion number", `{"specversion":1.0,"id":"1","source":"/s","type":"t"}`, []string{"error ce-attribute-type /specversion"}, true},
		{"missing required", `{"specversion":"1.0"}`, []string{"error ce-required-attribute /id", "error ce-required-attribute /source", "error ce-required-attribute /type"}, true},
		{"control character escaped", ev(`"subject":"a\u0007b"`), []string{"error ce-control-character /subject"}, true},
		{"time", ev(`"time":"2024-02-30T00:00:00Z"`), []string{"error ce-time /time"}, true},
		{"source", `{"specversion":"1.0","id":"1","source":"a b","type":"t"}`, []string{"error ce-source /source"}, true},
		{"dataschema", ev(`"dataschema":"v1.json"`), []string{"error ce-dataschema /dataschema"}, true},
		{"datacontenttype", ev(`"datacontenttype":"application"`), []string{"error ce-datacontenttype /datacontenttype"}, true},
		{"subject", ev(`"subject":""`), []string{"error ce-subject /subject"}, true},

		// data
		{"data and data_base64", ev(`"data":{},"data_base64":"e30="`), []string{"error ce-data-exclusive /data_base64"}, true},
		{"data null and data_base64", ev(`"data":null,"data_base64":"e30="`), nil, true},
		{"data_base64 invalid", ev(`"data_base64":"e30"`), []string{"error ce-data-base64 /data_base64"}, true},
		{"data_base64 not a string", ev(`"data_base64":5`), []string{"error ce-data-base64 /data_base64"}, true},
		{"data_base64 not JSON for JSON type", ev(`"datacontenttype":"application/json","data_base64":"aGk="`), []string{"error json-syntax /data_base64"}, true},
		{"data_base64 binary type", ev(`"datacontenttype":"application/octet-stream","data_base64":"AAEC"`), nil, true},
		{"text data as object", ev(`"datacontenttype":"text/plain","data":{"a":1}`), []string{"warning ce-data-type /data"}, true},
		{"text data as string", ev(`"datacontenttype":"text/plain","data":"hi"`), nil, true},

		// sdk-go's own Validate
		{"blank id", `{"specversion":"1.0","id":" ","source":"/s","type":"t"}`, []string{"error ce-sdk-validate /id"}, true},
		{"blank type", `{"specversion":"1.0","id":"1","source":"/s","type":"  "}`, []string{"error ce-sdk-validate /type"}, true},
		{"blank subject", ev(`"subject":" "`), []string{"error ce-sdk-validate /subject"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, fs := DecodeJSON([]byte(tt.in))
			want := tt.want
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, ruleHits(fs)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, fs)
			}
			if (d != nil) != tt.usable {
				t.Errorf("Decoded = %v, want usable=%v", d, tt.usable)
			}
			for _, f := range fs {
				if f.Message == "" {
					t.Errorf("finding %s has no message", f.Rule)
				}
			}
		})
	}
}

// TestDecodeJSONManyDuplicates: a hostile event of many repeated keys is
// reported in bounded findings and linear time.
func TestDecodeJSONManyDuplicates(t *testing.T) {
	var b strings.Builder
	b.WriteString("{" + minimal + ",\n\"data\":{")
	for i := 0; i < 150000; i++ {
		b.WriteString(`"a":1,`)
	}
	b.WriteString(`"a":1},"x":1,"x":2}`)
	start := time.Now()
	d, fs := DecodeJSON([]byte(b.String()))
	if d == nil {
		t.Fatal("not usable")
	}
	if len(fs) != maxDupReports+1 {
		t.Fatalf("%d findings, want %d", len(fs), maxDupReports+1)
	}
	if f := fs[0]; f.Pointer != "/data/a" || f.Line != 2 || f.Column != 15 {
		t.Errorf("first finding %+v", f)
	}
	if want := "149991 more duplicate member names not listed"; fs[len(fs)-1].Message != want {
		t.Errorf("last finding %q, want %q", fs[len(fs)-1].Message, want)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %v", el)
	}
}

func TestDecodeJSONSyntaxLocation(t *testing.T) {
	in := "{\n  \"specversion\": \"1.0\",\n  \"id\": \"1\"\n  \"source\": \"/s\"\n}"
	_, fs := DecodeJSON([]byte(in))
	if len(fs) != 1 {
		t.Fatalf("got %v", fs)
	}
	f := fs[0]
	if f.Line != 4 || f.Column != 3 {
		t.Errorf("location = %d:%d, want 4:3", f.Line, f.Column)
	}
	if want := `malformed JSON: unexpected character '"', want ',' or '}' in object (line 4, column 3 of the event)`; f.Message != want {
		t.Errorf("message = %q\nwant %q", f.Message, want)
	}
	// Located in a file where the event starts at line 10, column 1.
	got := Item{Line: 10, Column: 1}.Locate(f)
	if got.Line != 13 || got.Column != 3 {
		t.Errorf("Locate = %d:%d, want 13:3", got.Line, got.Column)
	}
}

func TestDecodeJSONInvalidUTF8Offset(t *testing.T) {
	in := []byte(`{"id":"caf` + "\xe9" + `"}`)
	_, fs := DecodeJSON(in)
	if len(fs) != 1 || fs[0].Rule != RuleJSONUTF8 {
		t.Fatalf("got %v", fs)
	}
	if !strings.Contains(fs[0].Message, "byte offset 10") || !strings.Contains(fs[0].Message, "0xe9") {
		t.Errorf("message %q does not name the byte and its offset", fs[0].Message)
	}
}

func TestDecodeJSONData(t *testing.T) {
	in := "{\n \"specversion\":\"1.0\",\"id\":\"a-1\",\"source\":\"https://x.example/s\",\"type\":\"t\",\n" +
		" \"time\":\"2024-03-01T09:30:00.25+01:00\",\"subject\":\" padded \",\"n\":12,\"b\":true,\n" +
		" \"data\": {\n   \"amount\": 1999.90,\n   \"big\": 123456789012345678901234567890,\n   \"list\": [1, \"x\", null]\n }\n}"
	d, fs := DecodeJSON([]byte(in))
	if len(fs) != 0 {
		t.Fatalf("findings: %v", fs)
	}
	wantData := map[string]any{
		"amount": json.Number("1999.90"),
		"big":    json.Number("123456789012345678901234567890"),
		"list":   []any{json.Number("1"), "x", nil},
	}
	if diff := cmp.Diff(wantData, d.Data); diff != "" {
		t.Errorf("Data (-want +got):\n%s", diff)
	}
	wantRaw := "{\n   \"amount\": 1999.90,\n   \"big\": 123456789012345678901234567890,\n   \"list\": [1, \"x\", null]\n }"
	if string(d.RawData) != wantRaw || string(d.Event.DataEncoded) != wantRaw {
		t.Errorf("RawData = %q\nDataEncoded = %q\nwant %q", d.RawData, d.Event.DataEncoded, wantRaw)
	}
	if !d.HasData || d.Event.DataBase64 {
		t.Errorf("HasData=%v DataBase64=%v", d.HasData, d.Event.DataBase64)
	}
	e := d.Event
	if e.ID() != "a-1" || e.Source() != "https://x.example/s" || e.Type() != "t" || e.SpecVersion() != "1.0" {
		t.Errorf("attributes: %v", e)
	}
	// Values are kept exactly: sdk-go's SetSubject would trim the spaces.
	if e.Subject() != " padded " {
		t.Errorf("subject = %q", e.Subject())
	}
	wantTime := time.Date(2024, 3, 1, 8, 30, 0, 250e6, time.UTC)
	if !e.Time().Equal(wantTime) {
		t.Errorf("time = %v, want %v", e.Time(), wantTime)
	}
	if _, off := e.Time().Zone(); off != 3600 {
		t.Errorf("time lost its offset: %v", e.Time())
	}
	if diff := cmp.Diff(map[string]any{"n": int32(12), "b": true}, e.Extensions()); diff != "" {
		t.Errorf("extensions (-want +got):\n%s", diff)
	}
	if err := e.Validate(); err != nil {
		t.Errorf("sdk-go Validate: %v", err)
	}
	// sdk-go reads the same data.
	var viaSDK map[string]any
	if err := e.DataAs(&viaSDK); err != nil || len(viaSDK) != 3 {
		t.Errorf("DataAs: %v %v", viaSDK, err)
	}
}

func TestDecodeJSONDataForms(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		hasData bool
		raw     string
		data    any
		base64  bool
	}{
		{"no data", ev(""), false, "", nil, false},
		{"null data", ev(`"data":null`), false, "", nil, false},
		{"json scalar", ev(`"data":  42`), true, "42", json.Number("42"), false},
		{"json string", ev(`"data":"hi"`), true, `"hi"`, "hi", false},
		{"text", ev(`"datacontenttype":"text/plain","data":"a\"b"`), true, `a"b`, nil, false},
		{"xml", ev(`"datacontenttype":"application/xml","data":"<a/>"`), true, `<a/>`, nil, false},
		{"vendor json", ev(`"datacontenttype":"application/vnd.x+json; charset=utf-8","data":{"a":1}`), true, `{"a":1}`, map[string]any{"a": json.Number("1")}, false},
		{"base64 binary", ev(`"datacontenttype":"application/octet-stream","data_base64":"AAEC"`), true, "\x00\x01\x02", nil, true},
		{"base64 json", ev(`"data_base64":"eyJhIjoxfQ=="`), true, `{"a":1}`, map[string]any{"a": json.Number("1")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, fs := DecodeJSON([]byte(tt.in))
			if len(fs) != 0 {
				t.Fatalf("findings: %v", fs)
			}
			if d.HasData != tt.hasData || string(d.RawData) != tt.raw || d.Event.DataBase64 != tt.base64 {
				t.Errorf("HasData=%v RawData=%q base64=%v; want %v %q %v", d.HasData, d.RawData, d.Event.DataBase64, tt.hasData, tt.raw, tt.base64)
			}
			if diff := cmp.Diff(tt.data, d.Data); diff != "" {
				t.Errorf("Data (-want +got):\n%s", diff)
			}
			if string(d.Event.DataEncoded) != tt.raw {
				t.Errorf("DataEncoded = %q, want %q", d.Event.DataEncoded, tt.raw)
			}
		})
	}
}

// TestDecodeJSONLeavesOutBadValues checks that attributes that fail a rule
// are not put on the event, and that sdk-go is not asked to complain again.
func TestDecodeJSONLeavesOutBadValues(t *testing.T) {
	d, fs := DecodeJSON([]byte(`{"specversion":"1.0","id":"1","source":"a b","type":"t","time":"now","Ext":"x","ok":"y"}`))
	if d == nil {
		t.Fatal("not usable")
	}
	if got := ruleHits(fs); !cmp.Equal(got, []string{"error ce-source /source", "error ce-time /time", "error ce-attribute-name /Ext"}) {
		t.Errorf("findings: %v", got)
	}
	if d.Event.Source() != "" || !d.Event.Time().IsZero() {
		t.Errorf("bad values kept: %v", d.Event)
	}
	if diff := cmp.Diff(map[string]any{"ok": "y"}, d.Event.Extensions()); diff != "" {
		t.Errorf("extensions (-want +got):\n%s", diff)
	}
}

// TestParserMatchesEncodingJSON: on valid JSON the parser produces what
// encoding/json with UseNumber produces, and it rejects what it rejects.
func TestParserMatchesEncodingJSON(t *testing.T) {
	for _, in := range parserCorpus {
		checkParserAgainstStdlib(t, []byte(in))
	}
}

var parserCorpus = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `-0.0e+0`, `1E400`, `true`, `false`, `null`,
	`{"a":[1,2,{"b":null}],"c":"\u00e9\ud83d\ude00\n\t\"\\\/"}`,
	`"\ud800"`, `"\udc00\ud800"`, `"\ud800\u0041"`, `"\uD834\uDD1E"`,
	`[1,]`, `{"a":1,}`, `[01]`, `[1.]`, `[.5]`, `[1e]`, `[-]`, `[+1]`, `["\x"]`, `["\u12"]`,
	`{"a" : 1 , "b" : [ ] }`, "[\"a\tb\"]", `[1 2]`, `{"a":1 "b":2}`, `{1:2}`, `[nul]`, `[True]`,
	"\"\xff\"", "\"\xe2\x82\"", `["é", "日本語"]`, ` [ ] `, ``, ` `, `[`, `]`, `{"a"`, `"abc`,
	`{"a":{"a":{"a":{}}}}`, `[[[[[]]]]]`, `1 2`, `{"":""}`,
}

func checkParserAgainstStdlib(t *testing.T, in []byte) {
	t.Helper()
	got, _, perr := parseJSON(in, "")
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.UseNumber()
	var want any
	werr := dec.Decode(&want)
	if werr == nil && dec.More() {
		werr = errString("trailing data")
	}
	if werr == nil {
		// encoding/json checks only the first value; make sure nothing but
		// space follows.
		var extra any
		if dec.Decode(&extra) == nil {
			werr = errString("trailing value")
		}
	}
	stdValid := werr == nil && json.Valid(in)
	switch {
	case perr == nil && !stdValid:
		if !utf8Invalid(in) {
			t.Errorf("parser accepts %q, encoding/json rejects it: %v", in, werr)
		}
	case perr != nil && stdValid:
		// The parser is stricter on purpose in three ways only: UTF-8,
		// depth, and exponents past 4 digits (jsonstrict.MaxExponentDigits).
		if perr.rule != RuleJSONUTF8 && perr.rule != RuleJSONDepth && !strings.Contains(perr.msg, "has an exponent beyond") {
			t.Errorf("parser rejects %q (%s), encoding/json accepts it", in, perr.msg)
		}
	case perr == nil && stdValid:
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("parse %q differs from encoding/json (-std +parser):\n%s", in, diff)
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func utf8Invalid(b []byte) bool {
	return !bytes.Equal([]byte(strings.ToValidUTF8(string(b), "\uFFFD")), b)
}

// TestGolden decodes every testdata/decode/*.json and compares the findings
// and the event as evtool re-encodes it with the .golden file next to it.
// Run with -update to rewrite the golden files after a deliberate change.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/decode/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			d, fs := DecodeJSON(raw)
			type golden struct {
				Findings []report.Finding `json:"findings"`
				Event    json.RawMessage  `json:"event"`
				Data     any              `json:"data,omitempty"`
			}
			g := golden{Findings: fs, Event: json.RawMessage("null")}
			if g.Findings == nil {
				g.Findings = []report.Finding{}
			}
			if d != nil {
				b, err := MarshalJSON(&d.Event)
				if err != nil {
					b, _ = json.Marshal("MarshalJSON: " + err.Error())
				}
				g.Event = b
				g.Data = d.Data
			}
			got, err := json.MarshalIndent(g, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			goldenFile := strings.TrimSuffix(file, ".json") + ".golden"
			if *update {
				if err := os.WriteFile(goldenFile, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(goldenFile)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update ./envelope/ to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s differs (-want +got):\n%s", goldenFile, diff)
			}
		})
	}
}

// TestJSONFormatUnmarshal checks the format.Format face of DecodeJSON.
func TestJSONFormatUnmarshal(t *testing.T) {
	var e event.Event
	if err := (JSONFormat{}).Unmarshal([]byte(ev(`"data":{"a":1}`)), &e); err != nil {
		t.Fatal(err)
	}
	if e.ID() != "1" || string(e.Data()) != `{"a":1}` {
		t.Errorf("got %v", e)
	}
	err := (JSONFormat{}).Unmarshal([]byte(ev(`"Bad":1`)), &e)
	if err == nil || !strings.Contains(err.Error(), "ce-attribute-name") {
		t.Errorf("err = %v, want a ce-attribute-name error", err)
	}
}

// An attribute given as an unpaired surrogate escape is refused; the same
// escape in data is data (decoded to U+FFFD, as encoding/json does).
func TestLoneSurrogateEscape(t *testing.T) {
	_, fs := DecodeJSON([]byte(`{"specversion":"1.0","id":"\ud800","source":"/s","type":"t"}`))
	if len(fs) != 1 || fs[0].Rule != RuleControlCharacter || fs[0].Pointer != "/id" {
		t.Fatalf("findings %+v", fs)
	}
	d, fs := DecodeJSON([]byte(`{"specversion":"1.0","id":"1","source":"/s","type":"t","data":{"a":"\ud800"}}`))
	if d == nil || len(fs) != 0 {
		t.Fatalf("data with a lone surrogate: %+v", fs)
	}
}
