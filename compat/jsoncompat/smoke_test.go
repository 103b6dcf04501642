package jsoncompat

import (
	"github.com/evtool/evtool/compat/engine"

	"fmt"
	"testing"
)

func TestSmoke(t *testing.T) {
	cases := [][2]string{
		{`{"type":"object","properties":{"a":{"type":"string","maxLength":10}},"required":["a"]}`, `{"type":"object","properties":{"a":{"type":"string","maxLength":5}},"required":["a"]}`},
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["b"]}`},
		{`{"type":"string","pattern":"^[a-z]+$"}`, `{"type":"string","pattern":"^[a-c]+$"}`},
		{`{"type":"number","multipleOf":4}`, `{"type":"number","multipleOf":2}`},
		{`{"enum":["a","b","c"]}`, `{"enum":["a","b"]}`},
		{`{"oneOf":[{"type":"string","maxLength":5},{"type":"integer"}]}`, `{"oneOf":[{"type":"string","maxLength":5},{"type":"integer"},{"type":"string"}]}`},
		{`{"$defs":{"n":{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`, `{"$defs":{"n":{"type":"object","properties":{"v":{"type":"integer","minimum":0},"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`},
	}
	for i, cs := range cases {
		old := compileDoc(t, fmt.Sprintf("o%d.json", i), cs[0])
		nw := compileDoc(t, fmt.Sprintf("n%d.json", i), cs[1])
		for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
			for _, prof := range []string{"lenient", "strict"} {
				fs := Compare(old, nw, dir, engine.Options{Profile: profileOf(prof), Seed: 1})
				t.Logf("case %d %s %s: compatible=%v", i, dir, prof, Compatible(fs))
				for _, f := range fs {
					t.Logf("   %s %s %s | %s | old=%s new=%s ip=%s cx=%v %s", f.Severity, f.Rule, f.Message, f.ReaderError, f.OldLocation, f.NewLocation, f.InstancePath, f.HasCounterexample, compactJSON(f.Counterexample))
				}
			}
		}
	}
}
