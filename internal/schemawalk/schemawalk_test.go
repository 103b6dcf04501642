package schemawalk

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// TestChildrenOrder: the walk's order is the same on every run, whatever
// order the compiled schema's maps give (patternProperties by pattern).
func TestChildrenOrder(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		want         []string // the children's pointers
	}{
		{"patterns sorted", `{"patternProperties": {"^z": {}, "^a": {}, "^m": {}, "^b": {}}}`,
			[]string{"/patternProperties/^a", "/patternProperties/^b", "/patternProperties/^m", "/patternProperties/^z"}},
		{"keyword groups", `{"not": {}, "allOf": [{}, {}], "properties": {"y": {}, "x": {}}, "patternProperties": {"^p": {}}, "dependentSchemas": {"d": {}}, "additionalProperties": {}, "items": {}}`,
			[]string{"/not", "/items", "/allOf/0", "/allOf/1", "/properties/x", "/properties/y", "/patternProperties/^p", "/dependentSchemas/d", "/additionalProperties"}},
		{"boolean schema", `true`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			c := jsonschema.NewCompiler()
			if err := c.AddResource("s.json", doc); err != nil {
				t.Fatal(err)
			}
			s, err := c.Compile("s.json")
			if err != nil {
				t.Fatal(err)
			}
			for range 20 { // map order varies between runs
				var got []string
				for _, x := range Children(s) {
					_, frag, _ := strings.Cut(x.Location, "#")
					ptr, err := url.PathUnescape(frag)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, ptr)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Fatalf("children (-want +got):\n%s", diff)
				}
			}
		})
	}
}
