package jsonschema

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/format"
	js "github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// TestProjectGivesUpWhole: a recursive schema projected on many deep
// pointers would be unrolled once per distinct path (a 2 MB contract
// that passes lint took 7 GB); past the limit the projection returns the
// schema whole — the consumer read as reading everything, which errs
// toward findings — and stops copying at the limit.
func TestProjectGivesUpWhole(t *testing.T) {
	doc, err := js.UnmarshalJSON(strings.NewReader(`{"$defs":{"n":{"type":"object","properties":{"a":{"$ref":"#/$defs/n"},"b":{"$ref":"#/$defs/n"},"v":{"type":"string"}}}},"$ref":"#/$defs/n"}`))
	if err != nil {
		t.Fatal(err)
	}
	c := js.NewCompiler()
	if err := c.AddResource("file:///t.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("file:///t.json")
	if err != nil {
		t.Fatal(err)
	}
	// 2,000 distinct paths 20 tokens deep: about 40,000 projected nodes.
	var ptrs []string
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		for bit := 0; bit < 19; bit++ {
			if (i>>(bit%11))&1 == 1 {
				b.WriteString("/a")
			} else {
				b.WriteString("/b")
			}
		}
		b.WriteString("/v")
		ptrs = append(ptrs, b.String())
	}
	fields := format.NewFields(ptrs)
	if got := projectWithin(s, fields, 1_000_000, false); got == s {
		t.Fatal("within a large limit the schema was not projected")
	}
	if got := projectWithin(s, fields, 1_000, false); got != s {
		t.Fatal("past the limit the projection did not return the schema whole")
	}
	// One pointer stays far inside the default limit.
	if got := Project(s, format.NewFields([]string{"/a/v"})); got == s {
		t.Fatal("a small projection was given up")
	}
}
