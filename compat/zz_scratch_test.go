package compat

import (
	"fmt"
	"testing"
)

func TestZZScratch(t *testing.T) {
	pairs := [][2]string{
		{`{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"card":["cvv"]},"properties":{"card":{"type":"string"},"cvv":{"type":"string"}},"type":"object"}`, `{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"card":["cvv"]},"type":"object"}`},
		{`{"properties":{"a":{"anyOf":[{"minLength":2},{"maxLength":0}]}},"type":"object"}`, `{"properties":{},"type":"object"}`},
		{`{"$defs":{"l":{"properties":{"next":{"$ref":"#/$defs/l"},"v":{"type":"string"}},"required":["v"],"type":"object"}},"$ref":"#/$defs/l"}`, `{"$defs":{"l":{"properties":{"next":{"$ref":"#/$defs/l"},"v":{"type":"string"}},"required":["v"],"type":"object"}}}`},
	}
	for _, p := range pairs {
		old := compileDoc(t, "old.json", p[0])
		nw := compileDoc(t, "new.json", p[1])
		for _, prof := range []string{"strict"} {
			fs := Compare(old, nw, Forward, Options{Seed: 3, Profile: profileOf(prof)})
			for _, f := range fs {
				fmt.Printf("%s %s %s %s cx=%s\n  old=%s new=%s hint=%+v\n", prof, f.Rule, f.InstancePath, f.Message, compactJSON(f.Counterexample), f.OldLocation, f.NewLocation, f.hint)
			}
		}
	}
}
