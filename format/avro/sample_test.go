package avro

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const coverageSchema = `{"type": "record", "name": "a.Tree", "fields": [
  {"name": "i", "type": "int"},
  {"name": "l", "type": "long"},
  {"name": "s", "type": "string"},
  {"name": "e", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN", "BLUE", "CYAN", "MAGENTA", "YELLOW", "BLACK", "WHITE"]}},
  {"name": "u", "type": ["null", "int", "string", "a.Color", {"type": "array", "items": "a.Tree"}]},
  {"name": "kids", "type": {"type": "array", "items": "a.Tree"}},
  {"name": "m", "type": {"type": "map", "values": "bytes"}},
  {"name": "f", "type": {"type": "fixed", "name": "Four", "size": 4}}
]}`

func TestSamplesCoverEveryBranchSymbolAndEdge(t *testing.T) {
	s, err := Parse("tree.avsc", []byte(coverageSchema))
	if err != nil {
		t.Fatal(err)
	}
	datums, err := s.Samples(1, s.Cover())
	if err != nil {
		t.Fatal(err)
	}
	branches, symbols := map[string]bool{}, map[string]bool{}
	ints, strs := map[int32]bool{}, map[int]bool{}
	for _, d := range datums {
		bin, err := s.Encode(d)
		if err != nil {
			t.Fatalf("sample does not encode: %v\n%#v", err, d)
		}
		if _, err := s.Decode(bin); err != nil {
			t.Fatalf("sample does not decode: %v", err)
		}
		r := d.(map[string]any)
		ints[r["i"].(int32)] = true
		strs[len(r["s"].(string))] = true
		symbols[r["e"].(string)] = true
		switch u := r["u"].(type) {
		case nil:
			branches["null"] = true
		case map[string]any:
			for k := range u {
				branches[k] = true
			}
		}
	}
	for _, b := range []string{"null", "int", "string", "a.Color", "array"} {
		if !branches[b] {
			t.Errorf("union branch %s never sampled", b)
		}
	}
	if len(symbols) != 8 {
		t.Errorf("symbols sampled: %v, want all 8", symbols)
	}
	for _, v := range []int32{math.MinInt32, math.MaxInt32, 0} {
		if !ints[v] {
			t.Errorf("int edge %d never sampled", v)
		}
	}
	if !strs[0] || !strs[300] {
		t.Errorf("string lengths sampled %v, want the empty and a 300-byte string", strs)
	}
}

func TestSamplesAreDeterministicAndBounded(t *testing.T) {
	s, err := Parse("tree.avsc", []byte(coverageSchema))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Samples(42, 50)
	b, _ := s.Samples(42, 50)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different samples")
	}
	c, _ := s.Samples(43, 50)
	if reflect.DeepEqual(a, c) {
		t.Fatal("different seeds, same samples")
	}
	for _, d := range a {
		js, _ := json.Marshal(d)
		if len(js) > 1<<20 {
			t.Fatalf("recursion not bounded: a %d-byte datum", len(js))
		}
	}
}

// TestSampleNeverEndingSchema: a record that always recurses has no datum
// to sample; the loader refuses it, naming the record.
func TestSampleNeverEndingSchema(t *testing.T) {
	_, err := Parse("loop.avsc", []byte(`{"type": "record", "name": "L", "fields": [{"name": "next", "type": "L"}]}`))
	if err == nil || !strings.Contains(err.Error(), "loop.avsc:1:1: record L has no finite datum") {
		t.Fatalf("err = %v, want the record refused", err)
	}
}

// fanOutSchema is a few kilobytes whose datums fan out: each record has
// width fields, all arrays of the next record.
func fanOutSchema(width int) string {
	var b strings.Builder
	inner := `"string"`
	for _, name := range []string{"U", "T", "S", "R"} {
		b.Reset()
		fmt.Fprintf(&b, `{"type": "record", "name": %q, "fields": [`, name)
		for i := range width {
			if i > 0 {
				b.WriteString(", ")
			}
			if i == 0 || inner == `"string"` {
				fmt.Fprintf(&b, `{"name": "f%d", "type": {"type": "array", "items": %s}}`, i, inner)
			} else {
				fmt.Fprintf(&b, `{"name": "f%d", "type": {"type": "array", "items": %q}}`, i, prevName(name))
			}
		}
		b.WriteString("]}")
		inner = b.String()
	}
	return inner
}

func prevName(n string) string { return map[string]string{"T": "U", "S": "T", "R": "S"}[n] }

func countValues(v any) int {
	switch x := v.(type) {
	case []any:
		n := 1
		for _, e := range x {
			n += countValues(e)
		}
		return n
	case map[string]any:
		n := 1
		for _, e := range x {
			n += countValues(e)
		}
		return n
	}
	return 1
}

func TestSampleFanOutIsBounded(t *testing.T) {
	s, err := Parse("fan.avsc", []byte(fanOutSchema(40)))
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	if n := countValues(d); n > 5*maxSampleValues {
		t.Errorf("one sampled datum has %d values, want at most about %d", n, maxSampleValues)
	}
	if _, err := s.Encode(d); err != nil {
		t.Errorf("bounded sample does not encode: %v", err)
	}
}

// TestSamplesAreDecodedDatums: a sample is what decoding its encoding
// gives, value for value, so the compatibility safety net can resolve
// samples without encoding them (a datum with a large fixed costs
// megabytes to encode); and the decode cost walk admits every one.
func TestSamplesAreDecodedDatums(t *testing.T) {
	for _, text := range []string{coverageSchema, orderV2,
		`{"type": "record", "name": "R", "fields": [{"name": "f", "type": {"type": "fixed", "name": "F", "size": 5000}}, {"name": "a", "type": {"type": "array", "items": "F"}}, {"name": "b", "type": ["null", "bytes", "F", {"type": "map", "values": "float"}, "double", "boolean", "long"]}]}`} {
		s, err := Parse("s.avsc", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		datums, err := s.Samples(5, s.Cover()+32)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range datums {
			bin, err := s.Encode(d)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkDecodeCost(s.Root, bin); err != nil {
				t.Fatalf("a sample is refused: %v", err)
			}
			back, err := s.Decode(bin)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(d, back); diff != "" {
				t.Fatalf("a sample differs from its decoding (-sample +decoded):\n%s", diff)
			}
		}
	}
}
