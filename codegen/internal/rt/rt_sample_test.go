package rt

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/evtool/evtool/format/jsonschema/sample"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// TestSampledFormatsPassGeneratedChecks: values the sampler makes for each
// format (as events.generate does) pass the checks generated decoders run,
// so a consumer built on `evtool gen go` accepts generated events.
func TestSampledFormatsPassGeneratedChecks(t *testing.T) {
	checks := map[string]func(string) bool{
		"date-time":     func(s string) bool { _, ok := evtParseDateTime(s); return ok },
		"date":          evtIsDate,
		"uuid":          evtIsUUID,
		"email":         evtIsEmail,
		"uri":           evtIsURI,
		"uri-reference": evtIsURIReference,
		"ipv4":          evtIsIPV4,
		"ipv6":          evtIsIPV6,
		"hostname":      evtIsHostname,
	}
	for format, check := range checks {
		t.Run(format, func(t *testing.T) {
			c := jsonschema.NewCompiler()
			c.AssertFormat()
			doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(fmt.Sprintf(`{"type":"string","format":%q}`, format)))
			if err := c.AddResource("mem:///f.json", doc); err != nil {
				t.Fatal(err)
			}
			sch, err := c.Compile("mem:///f.json")
			if err != nil {
				t.Fatal(err)
			}
			sp := sample.New(sch, sample.Options{})
			rng := rand.New(rand.NewPCG(3, uint64(len(format))))
			for i := 0; i < 500; i++ {
				v, err := sp.Generate(rng)
				if err != nil {
					t.Fatal(err)
				}
				if s := v.(string); !check(s) {
					t.Fatalf("sampled %s %q fails the generated check", format, s)
				}
			}
		})
	}
}
