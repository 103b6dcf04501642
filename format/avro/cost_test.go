package avro

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/internal/fuzzcost"
)

const nestedNulls = `{"type": "record", "name": "R", "fields": [{"name": "a", "type": {"type": "array", "items": {"type": "array", "items": "null"}}}]}`

// amplified is a datum of nestedNulls whose array holds n inner arrays of
// 4096 nulls, three bytes each ("80 40 00": a block of 4096, the end).
func amplified(n int) []byte {
	var b bytes.Buffer
	u := uint64(n) << 1 // zig-zag
	for ; u >= 0x80; u >>= 7 {
		b.WriteByte(byte(u) | 0x80)
	}
	b.WriteByte(byte(u))
	for range n {
		b.Write([]byte{0x80, 0x40, 0x00})
	}
	b.WriteByte(0)
	return b.Bytes()
}

// TestDecodeCostBounded: a 4 KB datum of nested zero-byte arrays decoded
// to 5.6 million nulls (2.6 s), 80 KB took 1.3 GB. It is refused on every
// decode path with the pointer of the value that passed the limit, and
// what that costs is linear in its size.
func TestDecodeCostBounded(t *testing.T) {
	s, err := Parse("nulls.avsc", []byte(nestedNulls))
	if err != nil {
		t.Fatal(err)
	}
	data := amplified(1365) // 4 KB
	paths := []struct {
		name   string
		decode func() error
	}{
		{"Decode", func() error { _, err := s.Decode(data); return err }},
		{"DecodeBinary auto", func() error { _, _, _, err := s.DecodeBinary(Frame(1, data), FramingAuto); return err }},
		{"Validate", func() error { return s.Validate(data, ContentTypeBinary) }},
		{"DecodeValue", func() error { _, err := s.DecodeValue(data, ContentTypeBinary); return err }},
		{"DecodeFrom", func() error { _, err := s.DecodeFrom(s, data); return err }},
		// what validate --topic and verify read a record's value with
		{"UnframeValue", func() error { _, _, err := s.UnframeValue(Frame(1, data)); return err }},
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			var err error
			fuzzcost.Bound{Bytes: 4 << 20, BytesPerByte: 1 << 10, CPU: fuzzcost.Default().CPU}.Check(t, len(data), func() { err = p.decode() })
			if err == nil {
				t.Fatal("decoded")
			}
			if !strings.Contains(err.Error(), "/a/") || !strings.Contains(err.Error(), "decodes to more than") || !strings.Contains(err.Error(), "limit") {
				t.Errorf("error names neither pointer nor limit: %v", err)
			}
		})
	}
}

// TestDecodeCostAdmitsRealData: what the library admits stays under the
// limit: one array of 4096 nulls (the library's own limit, in three
// bytes). TestSamplesAreDecodedDatums checks samples of every kind of
// type.
func TestDecodeCostAdmitsRealData(t *testing.T) {
	s, err := Parse("nulls.avsc", []byte(nestedNulls))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Decode(amplified(1)); err != nil {
		t.Errorf("one block of 4096 nulls: %v", err)
	}
}

// TestDecodeCostPointer: the pointer names the value in the datum's JSON
// encoding, through records, unions, arrays and maps.
func TestDecodeCostPointer(t *testing.T) {
	s, err := Parse("m.avsc", []byte(`{"type": "record", "name": "R", "fields": [
  {"name": "x", "type": "int"},
  {"name": "u", "type": ["null", {"type": "map", "values": {"type": "array", "items": {"type": "array", "items": "null"}}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	inner := amplified(10)
	data := append([]byte{0x02, 0x02, 0x02, 0x02, 'k'}, inner...) // x=1, branch 1, one entry "k"
	data = append(data, 0)                                        // end of the map
	_, err = s.Decode(data)
	if err == nil || !strings.HasPrefix(err.Error(), "/u/map/k/") {
		t.Fatalf("err = %v, want the pointer /u/map/k/...", err)
	}
}

// costSchemas cost seconds and gigabytes in lint, compat or sampling
// before their costs were bounded; each is a fuzz seed too.
var costSchemas = []string{
	fixedFields(4),
	fixedFields(150),
	`{"type": "record", "name": "R", "fields": [{"name": "d", "type": {"type": "fixed", "name": "F", "size": 1048576, "logicalType": "decimal", "precision": 65536, "scale": 3}}]}`,
	`{"type": "record", "name": "R", "fields": [{"name": "f0", "type": {"type": "fixed", "name": "F", "size": 1048570}}, {"name": "a", "type": {"type": "array", "items": {"type": "array", "items": "F"}}}, {"name": "m", "type": {"type": "map", "values": "F"}}]}`,
	`{"type": "record", "name": "T", "fields": [{"name": "u0", "type": ["null", "T"]}, {"name": "u1", "type": ["null", "T"]}, {"name": "u2", "type": ["null", "T"]}, {"name": "a0", "type": {"type": "array", "items": "T"}}, {"name": "a1", "type": {"type": "array", "items": "T"}}, {"name": "a2", "type": {"type": "array", "items": "T"}}, {"name": "m0", "type": {"type": "map", "values": "T"}}, {"name": "m1", "type": {"type": "map", "values": "T"}}, {"name": "m2", "type": {"type": "map", "values": "T"}}]}`,
	nestedNulls,
}

// fixedFields is a record of n fields of one 1 MiB fixed.
func fixedFields(n int) string {
	fields := []string{`{"name": "f0", "type": {"type": "fixed", "name": "F", "size": 1048576}}`}
	for i := 1; i < n; i++ {
		fields = append(fields, fmt.Sprintf(`{"name": "f%d", "type": "F"}`, i))
	}
	return `{"type": "record", "name": "R", "fields": [` + strings.Join(fields, ", ") + `]}`
}

// TestDatumSizeLimit: a type whose every datum is over 1 MiB is refused
// at the innermost such type, naming the limit; a large fixed beside
// collections of it, or a union with one large branch, is not.
func TestDatumSizeLimit(t *testing.T) {
	tests := []struct {
		name, schema, pointer, want string
	}{
		{"four fields of a 1 MiB fixed", fixedFields(4), "", "every datum of record R takes at least 4194304 bytes, over evtool's limit of 1048576 bytes"},
		{"150 fields", fixedFields(150), "", "at least 157286400 bytes"},
		{"inner record", `{"type": "record", "name": "O", "fields": [{"name": "i", "type": "int"}, {"name": "r", "type": ["null", ` + fixedFields(2) + `]}]}`, "/fields/1/type/1", "every datum of record R takes at least 2097152 bytes"},
		{"a fixed and collections of it", costSchemas[3], "", ""},
		{"recursive", costSchemas[4], "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			fuzzcost.Default().Check(t, len(tt.schema), func() { _, err = Parse("s.avsc", []byte(tt.schema)) })
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var errs Errors
			if !errors.As(err, &errs) || len(errs) != 1 {
				t.Fatalf("err = %v, want one error", err)
			}
			if e := errs[0]; e.File != "s.avsc" || e.Pointer != tt.pointer || !strings.Contains(e.Message, tt.want) {
				t.Errorf("got %s %q: %s\nwant %s %q: ...%s...", e.File, e.Pointer, e.Message, "s.avsc", tt.pointer, tt.want)
			}
		})
	}
}

// TestSamplesBounded: samples of a schema with a 1 MiB fixed beside
// collections of it stay near 1 MiB each (an array of three made 4 MiB,
// nested ones more), large fixed values share one buffer, and a set of
// samples of a many-times recursive record shares 100,000 values.
func TestSamplesBounded(t *testing.T) {
	big, err := Parse("big.avsc", []byte(costSchemas[3]))
	if err != nil {
		t.Fatal(err)
	}
	var datums []any
	c := fuzzcost.Measure(func() { datums, err = big.Samples(1, 64) })
	if err != nil {
		t.Fatal(err)
	}
	if c.Bytes > 16<<20 {
		t.Errorf("64 samples allocated %d bytes", c.Bytes)
	}
	for _, d := range datums {
		bin, err := big.Encode(d)
		if err != nil {
			t.Fatal(err)
		}
		if len(bin) > 3*MaxDatumSize {
			t.Fatalf("a sample of %d bytes", len(bin))
		}
	}
	rec, err := Parse("rec.avsc", []byte(costSchemas[4]))
	if err != nil {
		t.Fatal(err)
	}
	if datums, err = rec.Samples(1, 64); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, d := range datums {
		total += countValues(d)
	}
	if total > 2*maxSetValues {
		t.Errorf("64 samples hold %d values", total)
	}
}

// TestMinSizesSaturate: fields without a finite datum, and sizes summed
// past int64, leave a record without a finite datum, not a negative size.
func TestMinSizesSaturate(t *testing.T) {
	s, err := Parse("s.avsc", []byte(`{"type": "record", "name": "R", "fields": [{"name": "u", "type": ["null", "R"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	endless := &Node{Kind: "record", Name: "E"}
	endless.Fields = []*Field{{Name: "e", Type: endless}}
	pair := &Node{Kind: "record", Name: "P", Fields: []*Field{{Name: "a", Type: endless}, {Name: "b", Type: endless}}}
	sizes := minSizes(pair)
	if sizes[pair] != unbounded || sizes[endless] != unbounded {
		t.Errorf("sizes = %d, %d, want unbounded", sizes[pair], sizes[endless])
	}
	if got := s.minSize[s.Root]; got != 1 {
		t.Errorf("a record ending through a null branch: %d bytes, want 1", got)
	}
}

// TestDecodeCostDeepData: a datum nested deeper than the library decodes
// is left to the library's depth error, and the walk's stack stays
// small: a megabyte of nested unions made a frame per byte.
func TestDecodeCostDeepData(t *testing.T) {
	s, err := Parse("t.avsc", []byte(`{"type": "record", "name": "T", "fields": [{"name": "u", "type": ["null", "T"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	data := append(bytes.Repeat([]byte{0x02}, 1<<20), 0)
	var derr error
	fuzzcost.Bound{Bytes: 8 << 20, CPU: fuzzcost.Default().CPU}.Check(t, len(data), func() { _, derr = s.Decode(data) })
	if derr == nil || strings.Contains(derr.Error(), "values") {
		t.Errorf("err = %v, want the library's depth error", derr)
	}
}

// BenchmarkDecodeCost is the walk checkDecodeCost makes before every
// decode, on sampled datums full of maps, records and unions.
func BenchmarkDecodeCost(b *testing.B) {
	s, datums := mapsSamples(b)
	bins := make([][]byte, len(datums))
	for i, d := range datums {
		var err error
		if bins[i], err = s.Encode(d); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := checkDecodeCost(s.Root, bins[i%len(bins)]); err != nil {
			b.Fatal(err)
		}
	}
}
