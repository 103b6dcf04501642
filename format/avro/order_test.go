package avro

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	twmb "github.com/twmb/avro"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonstrict"
)

// mapsSchema reaches maps every way a schema can: a field, a map of
// records holding maps, a map of maps, an array of maps, a union branch,
// a map of unions, maps beside a decimal and a map-free recursive record.
const mapsSchema = `{"type": "record", "name": "com.x.Maps", "fields": [
  {"name": "id", "type": "string"},
  {"name": "tags", "type": {"type": "map", "values": "string"}},
  {"name": "counts", "type": {"type": "map", "values": "long"}},
  {"name": "items", "type": {"type": "map", "values": {"type": "record", "name": "Item", "fields": [
    {"name": "qty", "type": "int"},
    {"name": "attrs", "type": {"type": "map", "values": "double"}}]}}},
  {"name": "nested", "type": {"type": "map", "values": {"type": "map", "values": "bytes"}}},
  {"name": "list", "type": {"type": "array", "items": {"type": "map", "values": "boolean"}}},
  {"name": "maybe", "type": ["null", {"type": "map", "values": "int"}]},
  {"name": "choices", "type": {"type": "map", "values": ["null", "string", "Item"]}},
  {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
  {"name": "tree", "type": {"type": "record", "name": "Tree", "fields": [
    {"name": "kids", "type": {"type": "array", "items": "Tree"}}]}}]}`

// biggestMap is the most entries any map in v has.
func biggestMap(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		n = len(v)
		for _, e := range v {
			n = max(n, biggestMap(e))
		}
	case []any:
		for _, e := range v {
			n = max(n, biggestMap(e))
		}
	}
	return n
}

// TestEncodeSameDatumSameBytes encodes the same sampled datums many times:
// the library writes maps in Go's map iteration order, which differs from
// encode to encode, and a seed must always make the same bytes.
func TestEncodeSameDatumSameBytes(t *testing.T) {
	s, err := Parse("maps.avsc", []byte(mapsSchema))
	if err != nil {
		t.Fatal(err)
	}
	const times = 40
	datums, err := s.Samples(7, 30)
	if err != nil {
		t.Fatal(err)
	}
	many := 0
	for i, d := range datums {
		if biggestMap(d) >= 3 {
			many++
		}
		encodings := []struct {
			name   string
			encode func(any) ([]byte, error)
		}{
			{"binary", s.Encode},
			{"json", s.EncodeJSON},
		}
		for _, enc := range encodings {
			first, err := enc.encode(d)
			if err != nil {
				t.Fatalf("datum %d, %s: %v", i, enc.name, err)
			}
			for range times {
				again, err := enc.encode(d)
				if err != nil {
					t.Fatalf("datum %d, %s: %v", i, enc.name, err)
				}
				if !bytes.Equal(first, again) {
					t.Fatalf("datum %d, %s: the same datum encoded to other bytes:\n%x\n%x", i, enc.name, first, again)
				}
			}
		}
		// Still Avro, and still the datum: the library reads the bytes
		// back to it.
		bin, _ := s.Encode(d)
		back, err := s.Decode(bin)
		if err != nil {
			t.Fatalf("datum %d: decoding the ordered binary: %v", i, err)
		}
		if !reflect.DeepEqual(back, d) {
			t.Fatalf("datum %d: binary round trip\n got %v\nwant %v", i, back, d)
		}
		js, _ := s.EncodeJSON(d)
		back, err = s.DecodeJSON(js)
		if err != nil {
			t.Fatalf("datum %d: decoding the ordered JSON %s: %v", i, js, err)
		}
		if !reflect.DeepEqual(back, d) {
			t.Fatalf("datum %d: JSON round trip\n got %v\nwant %v", i, back, d)
		}
	}
	// Without maps of several entries the test could not fail.
	if many < 5 {
		t.Fatalf("only %d of %d samples have a map of 3 entries or more", many, len(datums))
	}
}

// TestSeededEventsSameBytes is the path of generated events: the provider's
// sampler (the JSON encoding), then the value written as the event's
// binary data, twice from the same seed.
func TestSeededEventsSameBytes(t *testing.T) {
	s, err := Parse("maps.avsc", []byte(mapsSchema))
	if err != nil {
		t.Fatal(err)
	}
	run := func() [][]byte {
		cs, err := Provider{}.Sampler(s, 11, format.SampleOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(11, 0))
		var out [][]byte
		for k := range cs.Cover() + 20 {
			if k >= cs.Cover() {
				k = -1
			}
			text, err := cs.Sample(rng, k)
			if err != nil {
				t.Fatal(err)
			}
			v, err := jsonstrict.Decode(text)
			if err != nil {
				t.Fatal(err)
			}
			bin, err := s.EncodeValue(v, ContentTypeBinary)
			if err != nil {
				t.Fatal(err)
			}
			sv, err := s.SampleValue(uint64(k + 100))
			if err != nil {
				t.Fatal(err)
			}
			js, err := s.EncodeValue(sv, ContentTypeJSON)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, text, bin, js)
		}
		return out
	}
	first := run()
	for range 10 {
		again := run()
		for i := range first {
			if !bytes.Equal(first[i], again[i]) {
				t.Fatalf("event %d, encoding %d: the same seed made other bytes:\n%q\n%q", i/3, i%3, first[i], again[i])
			}
		}
	}
}

// TestEncodeMapOrder pins the order: entries by the bytes of their keys,
// in one block, in both encodings; records keep their fields' order.
func TestEncodeMapOrder(t *testing.T) {
	s, err := Parse("m.avsc", []byte(`{"type": "record", "name": "M", "fields": [
  {"name": "z", "type": "int"},
  {"name": "m", "type": {"type": "map", "values": ["null", {"type": "record", "name": "R", "fields": [
    {"name": "y", "type": "int"}, {"name": "n", "type": {"type": "map", "values": "int"}}]}]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	datum := map[string]any{
		"z": int32(1),
		"m": map[string]any{
			"b":  map[string]any{"R": map[string]any{"y": int32(2), "n": map[string]any{"é": int32(1), "Z": int32(2), "a": int32(3)}}},
			"a":  nil,
			"aa": nil,
		},
	}
	js, err := s.EncodeJSON(datum)
	if err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"z":1,"m":{"a":null,"aa":null,"b":{"R":{"y":2,"n":{"Z":2,"a":3,"é":1}}}}}`
	if string(js) != wantJSON {
		t.Errorf("JSON encoding\n got %s\nwant %s", js, wantJSON)
	}
	bin, err := s.Encode(datum)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{
		2,         // z
		6,         // three entries
		2, 'a', 0, // "a": null branch
		4, 'a', 'a', 0, // "aa": null
		2, 'b', 2, 4, // "b": branch R, y 2
		6, 2, 'Z', 4, 2, 'a', 6, 4, 0xc3, 0xa9, 2, 0, // n
		0, // end of m
	}
	if !bytes.Equal(bin, want) {
		t.Errorf("binary encoding\n got %v\nwant %v", bin, want)
	}
}

// TestOrderedBinaryBlocks feeds the rewrite blocks the library does not
// write (several, a negative count with a byte size): any valid datum
// comes out as one sorted block, and a malformed one is an error.
func TestOrderedBinaryBlocks(t *testing.T) {
	s, err := Parse("m.avsc", []byte(`{"type": "record", "name": "M", "fields": [
  {"name": "m", "type": {"type": "map", "values": "string"}},
  {"name": "a", "type": {"type": "array", "items": {"type": "map", "values": "int"}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	sorted := []byte{4, 2, 'a', 2, 'x', 2, 'b', 2, 'y', 0, 2, 4, 2, 'c', 2, 2, 'd', 4, 0, 0}
	tests := []struct {
		name    string
		data    []byte
		want    []byte
		wantErr string
	}{
		{"sorted", sorted, sorted, ""},
		{"two blocks", []byte{2, 2, 'b', 2, 'y', 2, 2, 'a', 2, 'x', 0, 2, 4, 2, 'd', 4, 2, 'c', 2, 0, 0}, sorted, ""},
		{"sized blocks", []byte{3, 16, 2, 'b', 2, 'y', 2, 'a', 2, 'x', 0, 1, 18, 3, 12, 2, 'd', 4, 2, 'c', 2, 0, 0}, sorted, ""},
		{"array in two blocks", []byte{4, 2, 'b', 2, 'y', 2, 'a', 2, 'x', 0, 2, 2, 2, 'c', 2, 0, 2, 2, 2, 'd', 4, 0, 0}, []byte{4, 2, 'a', 2, 'x', 2, 'b', 2, 'y', 0, 4, 2, 2, 'c', 2, 0, 2, 2, 'd', 4, 0, 0}, ""},
		{"empty", []byte{0, 0}, []byte{0, 0}, ""},
		{"truncated key", []byte{2, 4, 'b'}, nil, "malformed"},
		{"no end", []byte{2, 2, 'b', 2, 'y'}, nil, "malformed"},
		{"trailing bytes", append(bytes.Clone(sorted), 9), nil, "1 bytes left"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := orderedBinary(s.Root, s.maps, tt.data)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Errorf("got %v\nwant %v", got, tt.want)
			}
			if _, err := s.Decode(got); err != nil {
				t.Errorf("the library does not read the result: %v", err)
			}
		})
	}
}

// TestEncodeWithoutMapsUntouched: a schema that reaches no map keeps the
// library's bytes (no rewrite).
func TestEncodeWithoutMapsUntouched(t *testing.T) {
	s, err := Parse("v2.avsc", []byte(orderV2))
	if err != nil {
		t.Fatal(err)
	}
	if s.maps[s.Root] {
		t.Fatal("a schema without maps reaches a map")
	}
	datum := map[string]any{"id": "o-1", "qty": int64(3), "note": map[string]any{"string": "n"}, "status": "PAID"}
	got, err := s.Encode(datum)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := s.physical.Encode(datum)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, lib) {
		t.Errorf("got %v, the library wrote %v", got, lib)
	}
}

// TestEncodeOddKeysSameBytes: keys the JSON encoding escapes, and keys
// of invalid UTF-8 the library writes alike (U+FFFD), still come out in
// one order; binary keeps every key's bytes.
func TestEncodeOddKeysSameBytes(t *testing.T) {
	s, err := Parse("m.avsc", []byte(`{"type": "map", "values": {"type": "map", "values": "string"}}`))
	if err != nil {
		t.Fatal(err)
	}
	inner := func(v string) map[string]any {
		return map[string]any{"\xff": v, "\xfe": v + "x", "z": v, "a": v}
	}
	datum := map[string]any{
		"\xff": inner("1"), "\xfe": inner("2"), "\xc3": inner("1"), `q"`: inner("3"), `\`: inner("4"),
		"\n": inner("5"), "<&>": inner("6"), "\u2028": inner("7"), "é": inner("8"), "": inner("9"),
	}
	bin, err := s.Encode(datum)
	if err != nil {
		t.Fatal(err)
	}
	js, err := s.EncodeJSON(datum)
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		if again, _ := s.Encode(datum); !bytes.Equal(again, bin) {
			t.Fatalf("binary differs:\n%q\n%q", bin, again)
		}
		if again, _ := s.EncodeJSON(datum); !bytes.Equal(again, js) {
			t.Fatalf("JSON differs:\n%s\n%s", js, again)
		}
	}
	back, err := s.Decode(bin)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, datum) {
		t.Errorf("binary round trip\n got %q\nwant %q", back, datum)
	}
	if !strings.HasPrefix(string(js), `{"":{"a":"9",`) {
		t.Errorf("JSON encoding %s does not start with the empty key's entry, its members sorted", js)
	}
}

// BenchmarkEncodeMaps is the cost of ordering: the library's encoding
// alone against Encode and EncodeJSON, on sampled datums full of maps.
func BenchmarkEncodeMaps(b *testing.B) {
	s, datums := mapsSamples(b)
	for _, bm := range []struct {
		name   string
		encode func(any) ([]byte, error)
	}{
		{"library-binary", func(d any) ([]byte, error) { return s.physical.Encode(d) }},
		{"ordered-binary", s.Encode},
		{"library-json", func(d any) ([]byte, error) { return s.physical.EncodeJSON(d, twmb.TaggedUnions()) }},
		{"ordered-json", s.EncodeJSON},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := bm.encode(datums[i%len(datums)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// mapsSamples are 30 sampled datums of mapsSchema, for benchmarks.
func mapsSamples(tb testing.TB) (*Schema, []any) {
	tb.Helper()
	s, err := Parse("maps.avsc", []byte(mapsSchema))
	if err != nil {
		tb.Fatal(err)
	}
	datums, err := s.Samples(7, 30)
	if err != nil {
		tb.Fatal(err)
	}
	return s, datums
}

// TestSplitJSON: the scanner that splits the library's JSON finds the
// members' ends past strings holding brackets, quotes and escapes, and
// refuses what it cannot split.
func TestSplitJSON(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		object  bool
		want    []string // key=value or value
		wantErr bool
	}{
		{"empty object", `{}`, true, nil, false},
		{"object", `{"a":1,"b\"}":"x}]\\","c":{"d":[1,{"e":"]"}]},"f":null}`, true, []string{`a=1`, `b"}="x}]\\"`, `c={"d":[1,{"e":"]"}]}`, `f=null`}, false},
		{"spaces", " { \"a\" : true , \"\\u00e9\" : -1.5e3 } ", true, []string{`a=true`, `é=-1.5e3`}, false},
		{"array", `[1,"]",[],{"a":[]},false]`, false, []string{`1`, `"]"`, `[]`, `{"a":[]}`, `false`}, false},
		{"empty array", `[ ]`, false, nil, false},
		{"not an object", `[1]`, true, nil, true},
		{"unterminated string", `{"a":"x}`, true, nil, true},
		{"unterminated object", `{"a":{"b":1}`, true, nil, true},
		{"no colon", `{"a" 1}`, true, nil, true},
		{"missing value", `{"a":}`, true, nil, true},
		{"trailing bytes", `{"a":1}x`, true, nil, true},
		{"bare key", `{a:1}`, true, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			open, close := byte('['), byte(']')
			if tt.object {
				open, close = '{', '}'
			}
			got, err := splitJSON([]byte(tt.raw), open, close, tt.object)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("split into %q, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, m := range got {
				if tt.object {
					parts = append(parts, m.key+"="+string(m.value))
				} else {
					parts = append(parts, string(m.value))
				}
			}
			if !reflect.DeepEqual(parts, tt.want) {
				t.Errorf("got %q\nwant %q", parts, tt.want)
			}
		})
	}
}
