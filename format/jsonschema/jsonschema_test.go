package jsonschema

import (
	"errors"
	"strings"
	"testing"

	"github.com/evtool/evtool/format"
	js "github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

func compile(t *testing.T, doc string) *Schema {
	t.Helper()
	v, err := js.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := js.NewCompiler()
	if err := c.AddResource("s.json", v); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	return New(s, []byte(doc))
}

func TestValidate(t *testing.T) {
	s := compile(t, `{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}`)
	tests := []struct {
		data, ct string
		pointer  string // of the first problem; "-" for no format.Errors
		ok       bool
	}{
		{`{"n": 1}`, "application/json", "", true},
		{`{"n": 1}`, "", "", true},
		{`{"n": 1}`, "application/cloudevents+json", "", true},
		{`{"n": "x"}`, "application/json", "/n", false},
		{`{"n": 1, "n": 2}`, "application/json", "", false},
		{`{"n": 1}`, "application/avro", "-", false},
	}
	for _, tt := range tests {
		err := s.Validate([]byte(tt.data), tt.ct)
		if (err == nil) != tt.ok {
			t.Errorf("Validate(%s, %q) = %v", tt.data, tt.ct, err)
			continue
		}
		var errs format.Errors
		switch {
		case err == nil:
		case tt.pointer == "-":
			if errors.As(err, &errs) {
				t.Errorf("%s: %v is format.Errors", tt.data, err)
			}
		case !errors.As(err, &errs) || errs[0].Pointer != tt.pointer:
			t.Errorf("%s: %v, want a problem at %s", tt.data, err, tt.pointer)
		}
	}
	if _, err := s.EncodeValue(map[string]any{"n": "x"}, "application/json"); err == nil {
		t.Error("EncodeValue accepted a value the schema rejects")
	}
	b, err := s.FrameValue(7, map[string]any{"n": 3})
	if err != nil {
		t.Fatal(err)
	}
	if v, id, err := s.UnframeValue(b); err != nil || id != 7 || v.(map[string]any)["n"] == nil {
		t.Errorf("unframe: %v %d %v", v, id, err)
	}
	if v, err := s.SampleValue(1); err != nil || s.Compiled.Validate(v) != nil {
		t.Errorf("sample %v: %v", v, err)
	}
}
