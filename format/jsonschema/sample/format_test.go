package sample

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
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

// TestCanonicalFormatValues: with Options.Canonical, date-time and time
// values parse with Go's time.RFC3339 (upper-case T, Z), UUIDs are
// lower-case hex and e-mails and hosts plain ASCII without tags; without
// it the sampler also makes the edge forms (a lower-case t, offsets).
func TestCanonicalFormatValues(t *testing.T) {
	compile := func(t *testing.T, f string) *jsonschema.Schema {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(fmt.Sprintf(`{"type":"string","format":%q}`, f)))
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
		return sch
	}
	canonical := map[string]*regexp.Regexp{
		"date-time": regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$`),
		"time":      regexp.MustCompile(`^\d{2}:\d{2}:\d{2}(\.\d{3})?Z$`),
		"uuid":      regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`),
		"email":     regexp.MustCompile(`^[a-z]+@[a-z.]+$`),
		"hostname":  regexp.MustCompile(`^[a-z.]+$`),
	}
	for f, re := range canonical {
		t.Run(f, func(t *testing.T) {
			sch := compile(t, f)
			for _, canon := range []bool{true, false} {
				sp := New(sch, Options{Canonical: canon})
				rng := rand.New(rand.NewPCG(11, 3))
				edges := 0
				for i := 0; i < 400; i++ {
					v, err := sp.Generate(rng)
					if err != nil {
						t.Fatal(err)
					}
					s := v.(string)
					if f == "date-time" && canon {
						if _, err := time.Parse(time.RFC3339, s); err != nil {
							t.Fatalf("canonical %q: %v", s, err)
						}
					}
					if !re.MatchString(s) {
						if canon {
							t.Fatalf("canonical %s %q", f, s)
						}
						edges++
					}
				}
				if !canon && edges == 0 && (f == "date-time" || f == "time" || f == "email") {
					t.Errorf("%s: no edge value in 400 samples without Canonical", f)
				}
			}
		})
	}
}
