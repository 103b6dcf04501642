package compat

import (
	"fmt"
	"testing"
)

func TestZZScratch(t *testing.T) {
	pairs := [][2]string{
		{`{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"card":["cvv"]},"properties":{"card":{"type":"string"},"cvv":{"type":"string"}},"type":"object"}`, `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"card":{"type":"string"},"cvv":{"type":"string"}},"type":"object"}`},
	}
	for _, p := range pairs {
		old := compileDoc(t, "old.json", p[0])
		nw := compileDoc(t, "new.json", p[1])
		for _, prof := range []string{"strict"} {
			fs := Compare(old, nw, Forward, Options{Seed: 3, Profile: profileOf(prof)})
			fmt.Println(errorLocations(old.Schema.Validate(map[string]any{"card": "x"})))
			for _, f := range fs {
				fmt.Printf("%s %s %s %s cx=%s\n  old=%s new=%s hint=%+v\n", prof, f.Rule, f.InstancePath, f.Message, compactJSON(f.Counterexample), f.OldLocation, f.NewLocation, f.hint)
			}
		}
	}
}
