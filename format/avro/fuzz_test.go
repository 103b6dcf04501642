package avro

import (
	"errors"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/internal/fuzzcost"
)

// FuzzLoad: any .avsc text loads or fails with errors naming the file and
// a line; it never panics, and loading and sampling it stays within
// fuzzcost.Default() for its size.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{orderV1, orderV2, coverageSchema, `"int"`, `["null", "x.Y"]`,
		`{"type": "fixed", "name": "F", "size": 16, "logicalType": "uuid"}`,
		`{"type": "record", "name": "R", "fields": [{"name": "a", "type": ["int", "null"], "default": 1}]}`,
		`{"type": "record", "name": "R", "fields": [{"name": "a", "type": [], "default": null}]}`,
		// Structural errors beside defaults: both are checked in one run.
		`{"type": "record", "name": "R", "fields": [{"name": "a-b", "type": "int", "default": "x"}, {"name": "s", "type": {"type": "record", "name": "S", "fields": [{"name": "b", "type": {"type": "array"}}]}, "default": {}}, {"name": "u", "type": ["S", "null"], "default": {}}]}`,
		`{"type": "record", "name": "R", "fields": [{"name": "r", "type": ["null", "R"], "default": null}, {"name": "m", "type": "x.Y", "default": "B"}, {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "A"]}, "default": "A"}]}`} {
		f.Add(s, `{"type": "enum", "name": "x.Y", "symbols": ["A"]}`)
	}
	for _, s := range costSchemas {
		f.Add(s, `{"type": "fixed", "name": "x.Y", "size": 1048576}`)
	}
	f.Fuzz(func(t *testing.T, schema, sibling string) {
		fuzzcost.Default().Check(t, len(schema)+len(sibling), func() { loadAndSample(t, schema, sibling) })
	})
}

func loadAndSample(t *testing.T, schema, sibling string) {
	{
		fsys := fstest.MapFS{"t/v1.avsc": {Data: []byte(schema)}, "common/y.avsc": {Data: []byte(sibling)}}
		s, err := Load(fsys, "t/v1.avsc", "common")
		if err != nil {
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("error %T is not Errors: %v", err, err)
			}
			for _, e := range errs {
				if e.File == "" || e.Line < 1 {
					t.Fatalf("error without file and line: %+v", e)
				}
			}
			return
		}
		if _, err := s.Samples(1, 2); err == nil {
			_ = s.Canonical()
		}
	}
}

// FuzzDecode: arbitrary bytes through every decode path of a schema with
// every kind of type and one of nested zero-byte items; errors, never
// panics, and the cost stays within fuzzcost.Default() for the size.
func FuzzDecode(f *testing.F) {
	s, err := Parse("tree.avsc", []byte(coverageSchema))
	if err != nil {
		f.Fatal(err)
	}
	nulls, err := Parse("nulls.avsc", []byte(nestedNulls))
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range []int{1, 2, 40, 1365} {
		f.Add(amplified(n))
	}
	datums, _ := s.Samples(1, s.Cover())
	for _, d := range datums {
		bin, _ := s.Encode(d)
		js, _ := s.EncodeJSON(d)
		f.Add(bin)
		f.Add(Frame(1, bin))
		f.Add(js)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcost.Default().Check(t, len(data), func() {
			for _, s := range []*Schema{s, nulls} {
				if v, err := s.Decode(data); err == nil {
					b, err := s.Encode(v)
					if err != nil {
						t.Fatalf("decoded datum does not re-encode: %v", err)
					}
					// Encode orders maps: still a datum of s.
					if _, err := s.Decode(b); err != nil {
						t.Fatalf("the re-encoded datum does not decode: %v", err)
					}
					if _, err := s.EncodeJSON(v); err != nil {
						t.Fatalf("decoded datum does not encode as JSON: %v", err)
					}
				}
				_, _, _, _ = s.DecodeBinary(data, FramingAuto)
				_, _ = s.DecodeValue(data, ContentTypeBinary)
				_ = s.Validate(data, ContentTypeJSON)
				_, _ = s.DecodeFrom(s, data)
			}
		})
	})
}
