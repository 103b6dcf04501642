package consumers

import (
	"testing"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/compat/jsoncompat"
	"github.com/evtool/evtool/format"
	jsonformat "github.com/evtool/evtool/format/jsonschema"
)

// unevaluatedProperties applies to a read property that only a
// conditional subschema (an anyOf branch, then/else) may evaluate: it
// constrains the value whenever that branch does not pass, so the
// projection cannot drop it (a break there was reported as harmless).
// When an unconditional subschema (allOf, $ref) declares the property it
// never applies, and the projection still cuts the unread siblings.
func TestProjectionUnevaluatedBehindCondition(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		fields         []string
		breaks         bool
	}{
		{"anyOf branch may evaluate the read property",
			`{"type":"object","anyOf":[{"properties":{"code":{"const":1}},"required":["code"]},{}],"unevaluatedProperties":{"type":"string"}}`,
			`{"type":"object","anyOf":[{"properties":{"code":{"const":1}},"required":["code"]},{}],"unevaluatedProperties":{"type":"integer"}}`,
			[]string{"/code"}, true},
		{"if/then may evaluate the read property",
			`{"type":"object","if":{"required":["kind"]},"then":{"properties":{"code":{"type":"integer"}}},"unevaluatedProperties":{"type":"string"}}`,
			`{"type":"object","if":{"required":["kind"]},"then":{"properties":{"code":{"type":"integer"}}},"unevaluatedProperties":{"type":"boolean"}}`,
			[]string{"/code"}, true},
		{"allOf evaluates the read property: unread sibling cut",
			`{"type":"object","allOf":[{"properties":{"code":{"type":"string"},"note":{"type":"string"}}}],"unevaluatedProperties":false}`,
			`{"type":"object","allOf":[{"properties":{"code":{"type":"string"},"note":{"type":"integer"}}}],"unevaluatedProperties":false}`,
			[]string{"/code"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fields := format.NewFields(tc.fields)
			oldS, newS := compile(t, "old.json", tc.old), compile(t, "new.json", tc.new)
			opts := engine.Options{Samples: 20, Seed: 1}
			whole := !jsoncompat.Compatible(jsoncompat.Compare(jsoncompat.NewSide(oldS, nil), jsoncompat.NewSide(newS, nil), engine.Backward, opts))
			if !whole {
				t.Fatalf("the whole schemas do not break: the case proves nothing")
			}
			old := jsoncompat.NewSide(jsonformat.Project(oldS, fields), nil)
			nw := jsoncompat.NewSide(jsonformat.Project(newS, fields), nil)
			fs := jsoncompat.Compare(old, nw, engine.Backward, opts)
			if got := !jsoncompat.Compatible(fs); got != tc.breaks {
				t.Errorf("projected breaks = %v, want %v: %+v", got, tc.breaks, fs)
			}
		})
	}
}
