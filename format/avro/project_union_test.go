package avro

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/evtool/evtool/format"
)

// TestProjectUnionDefault: a union's default may be a value of any branch
// (Avro 1.12, AVRO-3649: the first branch it matches is the one a reader
// fills in). The projection projects it as that branch, keeps it the value
// of the same branch in the projected union, and refuses the projection
// (the whole schemas are compared then) when leaving fields out would let
// an earlier branch take it. Numbers keep every digit.
func TestProjectUnionDefault(t *testing.T) {
	const rec = `{"type":"record","name":"E","namespace":"com.example","fields":[`
	for _, tc := range []struct {
		name, schema string
		pointers     []string
		field, want  string
		err          string
	}{
		{"default of the second branch, a map", rec + `{"name":"f","type":[{"type":"record","name":"R","fields":[{"name":"x","type":"int"},{"name":"y","type":"int"}]},{"type":"map","values":"int"}],"default":{"k":5}}]}`,
			[]string{"/f/x"}, "f", `{"k":5}`, ""},
		{"a field default lets the first branch take it", rec + `{"name":"f","type":[{"type":"record","name":"R","fields":[{"name":"x","type":"int","default":0},{"name":"y","type":"int"}]},{"type":"map","values":"int"}],"default":{"k":5}}]}`,
			[]string{"/f/x"}, "f", "", "is a value of branch 2 (map), but of branch 1 once"},
		{"default of the second branch, a record", rec + `{"name":"f","type":["null",{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"}]}],"default":{"a":1,"b":2}}]}`,
			[]string{"/f/a"}, "f", `{"a":1}`, ""},
		{"default of the first branch", rec + `{"name":"f","type":[{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"}]},"null"],"default":{"a":1,"b":2}}]}`,
			[]string{"/f/b"}, "f", `{"b":2}`, ""},
		{"union in an array", rec + `{"name":"l","type":{"type":"array","items":["null",{"type":"record","name":"R","fields":[{"name":"x","type":"int","default":0},{"name":"y","type":"int"}]}]},"default":[null,{"x":1,"y":2}]}]}`,
			[]string{"/l/0/x"}, "l", `[null,{"x":1}]`, ""},
		{"a long beyond float64", rec + `{"name":"n","type":["null","long"],"default":9007199254740993}]}`,
			[]string{"/n"}, "n", `9007199254740993`, ""},
		{"an earlier branch would take it", rec + `{"name":"f","type":[{"type":"record","name":"R1","fields":[{"name":"a","type":"int"}]},{"type":"record","name":"R2","fields":[{"name":"b","type":"int"}]}],"default":{"b":7}}]}`,
			[]string{"/f/b"}, "f", "", "default {\"b\":7} of the union at /fields/0/type is a value of branch 2 (record com.example.R2), but of branch 1 once the fields the pointers do not read are left out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("v.avsc", []byte(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			p, err := Provider{}.Project(s, format.NewFields(tc.pointers))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got json.RawMessage
			for _, f := range p.(*Schema).Root.Fields {
				if f.Name == tc.field {
					got = f.Default
				}
			}
			if string(got) != tc.want {
				t.Errorf("projected default %s, want %s", got, tc.want)
			}
		})
	}
}
