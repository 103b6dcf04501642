package jsonschema

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/format"
	js "github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// TestProjectWriterKeepsPresenceValues: a branch told apart by a required
// property keeps that name in both projections; the writer's keeps its
// value too, so the documents drawn from it are the writer's ({"d": true}
// is not: d is null), while the reader's leaves the value open (the value
// of a property no consumer reads is no break).
func TestProjectWriterKeepsPresenceValues(t *testing.T) {
	doc, err := js.UnmarshalJSON(strings.NewReader(`{"type":"object","anyOf":[
		{"required":["d"],"properties":{"d":{"type":"null"},"b":{"type":"integer"}}},
		{"required":["e"],"properties":{"e":{"type":"boolean"}}}]}`))
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
	fields := format.NewFields([]string{"/b"})
	w, err := Provider{}.ProjectWriter(New(s, nil), nil, fields)
	if err != nil {
		t.Fatal(err)
	}
	writer := w.(*Schema).Compiled
	reader := Project(s, fields)
	for _, tc := range []struct {
		doc            any
		writer, reader bool // valid under each projection
	}{
		{map[string]any{"d": true}, false, true},
		{map[string]any{"d": nil}, true, true},
		{map[string]any{}, false, false}, // no branch's name is present
		{map[string]any{"d": nil, "b": "x"}, false, false},
	} {
		if got := writer.Validate(tc.doc) == nil; got != tc.writer {
			t.Errorf("%v under the writer's projection: valid %v, want %v", tc.doc, got, tc.writer)
		}
		if got := reader.Validate(tc.doc) == nil; got != tc.reader {
			t.Errorf("%v under the reader's projection: valid %v, want %v", tc.doc, got, tc.reader)
		}
	}
}
