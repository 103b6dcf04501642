package sample

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// knownFormats are the formats santhosh-tekuri/jsonschema asserts.
var knownFormats = []string{
	"uuid", "date-time", "date", "time", "duration", "period", "email", "idn-email",
	"hostname", "idn-hostname", "ipv4", "ipv6", "uri", "iri", "uri-reference",
	"iri-reference", "uri-template", "json-pointer", "relative-json-pointer", "semver", "regex",
}

// fixedWidthFormats have no value of 20 characters or more that the
// sampler makes (a date has 10).
var fixedWidthFormats = map[string]bool{"date": true, "time": true, "ipv4": true}

// TestFormatValuesValid: many sampled values of every known format pass
// the library's format check at once (no retry falls back to filler text),
// with and without length bounds that leave room for the format.
func TestFormatValuesValid(t *testing.T) {
	for _, f := range knownFormats {
		for _, extra := range []string{"", `,"minLength":20`, `,"maxLength":40`} {
			if extra == `,"minLength":20` && fixedWidthFormats[f] {
				continue
			}
			t.Run(f+extra, func(t *testing.T) {
				c := jsonschema.NewCompiler()
				c.AssertFormat()
				doc, err := jsonschema.UnmarshalJSON(strings.NewReader(fmt.Sprintf(`{"type":"string","format":%q%s}`, f, extra)))
				if err != nil {
					t.Fatal(err)
				}
				if err := c.AddResource("mem:///f.json", doc); err != nil {
					t.Fatal(err)
				}
				sch, err := c.Compile("mem:///f.json")
				if err != nil {
					t.Fatal(err)
				}
				sp := New(sch, Options{})
				rng := rand.New(rand.NewPCG(7, uint64(len(f))))
				for i := 0; i < 300; i++ {
					v, err := sp.Generate(rng)
					if err != nil {
						t.Fatalf("sample %d: %v", i, err)
					}
					if err := sch.Validate(v); err != nil {
						t.Fatalf("sample %d %q: %v", i, v, err)
					}
				}
			})
		}
	}
}
