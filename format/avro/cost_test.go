package avro

import (
	"bytes"
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

// TestDecodeCostAdmitsRealData: what the library admits and real data
// holds stays under the limit: one array of 4096 nulls (the library's own
// limit, in three bytes), every covering sample of a schema with every
// kind of type, and the walk agrees with the library on where data ends.
func TestDecodeCostAdmitsRealData(t *testing.T) {
	s, err := Parse("nulls.avsc", []byte(nestedNulls))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Decode(amplified(1)); err != nil {
		t.Errorf("one block of 4096 nulls: %v", err)
	}
	tree, err := Parse("tree.avsc", []byte(coverageSchema))
	if err != nil {
		t.Fatal(err)
	}
	datums, err := tree.Samples(3, tree.Cover()+16)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range datums {
		bin, err := tree.Encode(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkDecodeCost(tree.Root, bin); err != nil {
			t.Fatalf("a sample is refused: %v", err)
		}
		if _, err := tree.Decode(bin); err != nil {
			t.Fatalf("a sample does not decode: %v", err)
		}
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
