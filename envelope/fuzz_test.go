package envelope

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/evtool/evtool/internal/fuzzcost"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/report"
)

func hasErrors(fs []report.Finding) bool {
	for _, f := range fs {
		if f.Severity == report.SeverityError {
			return true
		}
	}
	return false
}

func addGoldenSeeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/decode/*.json")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
}

// FuzzDecodeJSON: DecodeJSON never panics; its parser agrees with
// encoding/json; an event without error findings survives MarshalJSON and
// a second DecodeJSON unchanged.
func FuzzDecodeJSON(f *testing.F) {
	addGoldenSeeds(f)
	for _, s := range parserCorpus {
		f.Add([]byte(s))
	}
	f.Add([]byte(ev(`"time":"2016-12-31T23:59:60Z","ext":1e2,"data_base64":"AAE="`)))
	f.Add([]byte(ev(`"datacontenttype":"text/plain","data":[1,"x"]`)))
	f.Fuzz(func(t *testing.T, raw []byte) {
		fuzzcost.Default().Check(t, len(raw), func() {
			checkParserAgainstStdlib(t, raw)
			d, fs := DecodeJSON(raw)
			for _, x := range fs {
				if x.Rule == "" || x.Message == "" || (x.Severity != report.SeverityError && x.Severity != report.SeverityWarning) {
					t.Fatalf("malformed finding %+v", x)
				}
			}
			if d == nil {
				if !hasErrors(fs) {
					t.Fatalf("unusable event without an error finding")
				}
				return
			}
			if d.Event.Context == nil {
				t.Fatal("no context")
			}
			if hasErrors(fs) {
				return
			}
			b, err := MarshalJSON(&d.Event)
			if err != nil {
				t.Fatalf("MarshalJSON of a valid event: %v", err)
			}
			d2, fs2 := DecodeJSON(b)
			if d2 == nil || hasErrors(fs2) {
				t.Fatalf("re-encoded event %s does not decode: %v", b, fs2)
			}
			if diff := cmp.Diff(d.Event, d2.Event, eventCmp...); diff != "" {
				t.Fatalf("event changed through MarshalJSON %s (-first +second):\n%s", b, diff)
			}
		})
	})
}

// FuzzReader: the reader never panics or loops, every event it yields is
// the input's bytes at its offset and line, within the size limit, and
// chunking does not change the result. On valid JSON it finds exactly the
// values encoding/json finds.
func FuzzReader(f *testing.F) {
	f.Add([]byte(`{"a":1}`), uint16(0))
	f.Add([]byte("{\"a\":1}\n{\"b\":[1,2]}\n"), uint16(0))
	f.Add([]byte(`[{"a":"]"},{"b":"\\\""}]`), uint16(0))
	f.Add([]byte("{\"a\":1,\n{\"a\":2}\n"), uint16(0))
	f.Add([]byte(`{"a":"0123456789"} {"b":1}`), uint16(8))
	f.Add([]byte("\xef\xbb\xbf[1, \"x\" , {}]"), uint16(0))
	f.Add([]byte(strings.Repeat("[", 1001)+strings.Repeat("]", 1001)), uint16(0))
	f.Add([]byte("]}\n{\"a\":\"x\n{}"), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, max uint16) {
		fuzzcost.Default().Check(t, len(data), func() {
			limit := int(max)
			if limit == 0 {
				limit = DefaultMaxEventBytes
			}
			a := readItemsChecked(t, data, NewReader(bytes.NewReader(data), int(max)), limit)
			b := readItemsChecked(t, data, NewReader(iotest.OneByteReader(bytes.NewReader(data)), int(max)), limit)
			if diff := cmp.Diff(a, b); diff != "" {
				t.Fatalf("chunking changes the result (-whole +bytewise):\n%s", diff)
			}

			if !json.Valid(data) {
				return
			}
			trimmed := bytes.TrimSpace(data)
			var want []string
			switch trimmed[0] {
			case '[':
				var elems []json.RawMessage
				if err := json.Unmarshal(trimmed, &elems); err != nil {
					t.Fatal(err)
				}
				for _, e := range elems {
					want = append(want, string(e))
				}
			default:
				want = []string{string(trimmed)}
			}
			for _, w := range want {
				if len(w) > limit || strings.Count(w, "[")+strings.Count(w, "{") > MaxDepth {
					return // errors expected; checked by readItemsChecked
				}
			}
			var got []string
			for _, s := range a {
				if !strings.HasPrefix(s, "ok ") {
					t.Fatalf("valid JSON %q gave %q", data, a)
				}
				got = append(got, strings.TrimPrefix(s, "ok "))
			}
			if len(want) == 0 && len(got) == 0 {
				return
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("items of valid JSON %q (-encoding/json +reader):\n%s", data, diff)
			}
		})
	})
}

// readItemsChecked drains r, checking each item against the input.
func readItemsChecked(t *testing.T, data []byte, r *Reader, limit int) []string {
	var out []string
	for i := 0; ; i++ {
		if i > len(data)+2 {
			t.Fatalf("reader yields more items than input bytes")
		}
		it, err := r.Next()
		if err != nil {
			if err != io.EOF {
				out = append(out, "end: "+err.Error())
			}
			return out
		}
		if it.Offset < 0 || it.Offset > int64(len(data)) {
			t.Fatalf("offset %d outside the input", it.Offset)
		}
		line := 1 + bytes.Count(data[:it.Offset], []byte("\n"))
		col := int(it.Offset) - bytes.LastIndexByte(data[:it.Offset], '\n')
		if line == 1 && bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
			col -= 3
		}
		if it.Line != line || it.Column != col {
			t.Fatalf("item at offset %d says %d:%d, input says %d:%d", it.Offset, it.Line, it.Column, line, col)
		}
		if it.Err != nil {
			out = append(out, "error: "+it.Err.Error())
			continue
		}
		if len(it.Raw) == 0 || len(it.Raw) > limit {
			t.Fatalf("item of %d bytes (limit %d)", len(it.Raw), limit)
		}
		if !bytes.Equal(it.Raw, data[it.Offset:it.Offset+int64(len(it.Raw))]) {
			t.Fatalf("item %q is not the input at offset %d", it.Raw, it.Offset)
		}
		out = append(out, "ok "+string(it.Raw))
	}
}

// recordFromBlob makes headers from NUL-separated key/value pairs.
func recordFromBlob(value, headerBlob []byte) *kgo.Record {
	r := &kgo.Record{Value: value}
	parts := bytes.Split(headerBlob, []byte{0})
	for i := 0; i+1 < len(parts); i += 2 {
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: string(parts[i]), Value: parts[i+1]})
	}
	return r
}

func blob(kv ...string) []byte { return []byte(strings.Join(kv, "\x00")) }

// FuzzFromRecord: FromRecord never panics on any headers and value; a
// record it finds valid survives ToRecord and FromRecord in both modes.
func FuzzFromRecord(f *testing.F) {
	f.Add([]byte(`{"message": "Hello World!"}`), blob("ce_specversion", "1.0", "ce_id", "1234-1234-1234", "ce_type", "com.example.someevent",
		"ce_source", "/mycontext/subcontext", "ce_time", "2018-04-05T03:56:24Z", "content-type", "application/json"))
	f.Add([]byte(`{"specversion":"1.0","type":"t","id":"1","source":"/s","data":{"a":1}}`), blob("content-type", "application/cloudevents+json; charset=utf-8"))
	f.Add([]byte("hello"), blob("CE_SPECVERSION", "1.0", "Ce_Id", "1", "ce_source", "/s", "ce_type", "t", "Content-Type", "text/plain", "ce_ext", "x"))
	f.Add([]byte{}, blob("ce_id", "1", "CE_ID", "2"))
	f.Add([]byte("x"), blob("content-type", "application/cloudevents-batch+json"))
	f.Add([]byte{0xff}, blob("ce_specversion", "1.0", "ce_id", "1", "ce_source", "/s", "ce_type", "t", "content-type", "application/octet-stream"))
	f.Fuzz(func(t *testing.T, value, headerBlob []byte) {
		fuzzcost.Default().Check(t, len(value)+len(headerBlob), func() {
			d, fs, err := FromRecord(recordFromBlob(value, headerBlob))
			if err != nil {
				if d != nil || fs != nil {
					t.Fatal("error with results")
				}
				return
			}
			if d == nil {
				if !hasErrors(fs) {
					t.Fatal("no event and no error finding")
				}
				return
			}
			if hasErrors(fs) {
				return
			}
			for _, mode := range []Mode{ModeBinary, ModeStructured} {
				r, err := ToRecord(context.Background(), &d.Event, mode)
				if err != nil {
					t.Fatalf("%v: ToRecord of a valid event: %v", mode, err)
				}
				d2, fs2, err := FromRecord(r)
				if err != nil || hasErrors(fs2) {
					t.Fatalf("%v: re-encoded record does not decode: %v %v", mode, err, fs2)
				}
				// A binary record's bytes have no base64 flag; the structured
				// format may need data_base64 for them. The bytes must match.
				ignoreFlag := cmpopts.IgnoreFields(event.Event{}, "DataBase64")
				if diff := cmp.Diff(expectedAfter(&d.Event, mode), d2.Event, append(eventCmp, ignoreFlag)...); diff != "" {
					t.Fatalf("%v: event changed (-first +second):\n%s", mode, diff)
				}
			}
		})
	})
}
