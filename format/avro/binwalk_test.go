package avro

import (
	"errors"
	"testing"
)

// TestDatumWalker: the walk both the decode cost check and the map
// ordering use reads one datum, leaves what follows it, counts every value
// (a map's keys and a null included) and refuses malformed data.
func TestDatumWalker(t *testing.T) {
	s, err := Parse("w.avsc", []byte(`{"type": "record", "name": "R", "fields": [
		{"name": "a", "type": "long"},
		{"name": "b", "type": {"type": "array", "items": "string"}},
		{"name": "m", "type": {"type": "map", "values": "null"}},
		{"name": "u", "type": ["null", "string"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	// a=-1, b=["x","yz"] in a block of -2 items with its byte size, m={"k": null}, u="q".
	datum := []byte{0x01, 0x03, 0x08, 0x02, 'x', 0x04, 'y', 'z', 0x00, 0x02, 0x02, 'k', 0x00, 0x02, 0x02, 'q'}
	for _, tt := range []struct {
		name  string
		data  []byte
		rest  string
		count int64
		err   error
	}{
		{"datum", datum, "", 10, nil},
		{"what follows", append(datum[:len(datum):len(datum)], "tail"...), "tail", 10, nil},
		{"truncated", datum[:len(datum)-1], "", 0, errMalformed},
		{"no branch", append(datum[:len(datum)-3:len(datum)-3], 0x04), "", 0, errMalformed},
	} {
		w := datumWalker{}
		rest, err := w.skip(s.Root, tt.data)
		if !errors.Is(err, tt.err) || err == nil && (string(rest) != tt.rest || w.count != tt.count) {
			t.Errorf("%s: rest %q, %d values, err %v; want %q, %d, %v", tt.name, rest, w.count, err, tt.rest, tt.count, tt.err)
		}
	}

	// Nesting past maxWalkDepth is its own error (the library refuses
	// data nested half as deep).
	deep, err := Parse("d.avsc", []byte(`{"type": "record", "name": "D", "fields": [{"name": "d", "type": ["null", "D"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, maxWalkDepth)
	for i := range data {
		data[i] = 0x02 // the branch D, down to the end of the data
	}
	if _, err := (&datumWalker{}).skip(deep.Root, append(data, 0x00)); !errors.Is(err, errWalkDepth) {
		t.Errorf("deep data: %v, want errWalkDepth", err)
	}
	if _, err := (&datumWalker{}).skip(deep.Root, append(data[:maxWalkDepth/2-2], 0x00)); err != nil {
		t.Errorf("data within the depth: %v", err)
	}
}
