package jsoncompat

import (
	"github.com/evtool/evtool/compat/engine"

	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// A writer property is taken as never sent only when its schema accepts
// nothing: random schemas mixing keywords of every type, `not`, `allOf`
// and `enum`, each as the writer's property p against a reader that
// forbids p, or wants it a string, against brute force over values of
// every type.
func TestEmptyWriterPropertyBruteForce(t *testing.T) {
	frags := []string{`"type":"integer"`, `"type":"number"`, `"type":"string"`, `"type":["string","integer"]`, `"type":["array","object"]`,
		`"minimum":1`, `"maximum":1`, `"exclusiveMaximum":1`, `"minimum":1.5`, `"multipleOf":2`, `"multipleOf":0.5`,
		`"minLength":2`, `"maxLength":1`, `"pattern":"^a"`, `"minItems":1`, `"maxItems":0`, `"uniqueItems":true`, `"items":{"const":1}`,
		`"required":["a"]`, `"maxProperties":0`, `"properties":{"a":false}`, `"additionalProperties":false`, `"propertyNames":{"maxLength":0}`,
		`"enum":[1,"a",[],{}]`, `"enum":[]`, `"const":1`, `"const":"ab"`, `"not":{"type":"integer"}`, `"not":{"type":"number"}`,
		`"not":{"const":1}`, `"not":{"required":["a"]}`, `"not":{"properties":{"a":{"const":1}}}`, `"not":{"minimum":0}`, `"not":{"multipleOf":2}`,
		`"not":{"type":"string","maxLength":1}`, `"not":{"enum":[[],{}]}`, `"allOf":[{"type":"number"},{"type":"integer"}]`,
		`"allOf":[{"not":{"type":"integer"}},{"type":"number"}]`, `"anyOf":[{"type":"integer","minimum":3},{"const":"a"}]`,
		`"oneOf":[{"type":"integer"},{"type":"number"}]`, `"if":{"type":"integer"},"then":{"minimum":5}`, `"dependentRequired":{"a":["b"]}`}
	rng := rand.New(rand.NewPCG(*randomSeed, 1))
	schema := func() string {
		used := map[int]bool{}
		var parts []string
		for n := 1 + rng.IntN(4); n > 0; n-- {
			i := rng.IntN(len(frags))
			key := strings.SplitN(frags[i], ":", 2)[0]
			dup := false
			for j := range used {
				if strings.SplitN(frags[j], ":", 2)[0] == key {
					dup = true
				}
			}
			if !dup {
				used[i] = true
				parts = append(parts, frags[i])
			}
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	vals := jsonValues(t, `null`, `true`, `0`, `1`, `2`, `3`, `5`, `-1`, `0.5`, `1.5`, `2.5`, `""`, `"a"`, `"ab"`, `"b"`, `"abc"`,
		`[]`, `[1]`, `[1,1]`, `["a"]`, `{}`, `{"a":1}`, `{"a":2}`, `{"b":1}`, `{"a":1,"b":1}`, `{"":1}`)
	readers := []string{`false`, `{"type":"string"}`, `{"not":{"type":"integer"}}`}
	falseAlarms := 0
	for i := 0; i < *randomPairs; i++ {
		p := schema()
		ps := compileDoc(t, "p.json", p)
		ws := compileDoc(t, "old.json", `{"type":"object","properties":{"p":`+p+`}}`)
		for _, r := range readers {
			rp := compileDoc(t, "r.json", r)
			rs := compileDoc(t, "new.json", `{"type":"object","properties":{"p":`+r+`}}`)
			var witness any = noWitness{}
			for _, x := range vals {
				if ps.Schema.Validate(x) == nil && rp.Schema.Validate(x) != nil {
					witness = x
					break
				}
			}
			_, none := witness.(noWitness)
			for _, profile := range []string{"strict", "lenient"} {
				fs := Compare(ws, rs, engine.Backward, engine.Options{Profile: profileOf(profile), Seed: 1, Samples: -1})
				switch compatible := Compatible(fs); {
				case !none && compatible && !hasWarning(fs):
					wj, _ := json.Marshal(witness)
					t.Errorf("FALSE COMPATIBLE %s: p %s -> %s (p: %s): %s", profile, p, r, wj, summarize(fs))
				case none && !compatible:
					falseAlarms++
				}
			}
		}
	}
	t.Logf("%d random properties x %d readers x 2 profiles: %d false alarms (some only for want of a grid value)", *randomPairs, len(readers), falseAlarms)
}
