package jsonschema

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/format"
)

// sampleRoot compiles the version rel of a root of files with opts.
func sampleRoot(t *testing.T, files map[string]string, rel string, opts format.RootOptions) *Schema {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	root, probs := Provider{}.ReadRoot(fsys, format.RootReader{
		Root:        "schemas",
		Show:        func(p string) string { return p },
		Skip:        func(string) bool { return false },
		PathProblem: func(_ string, err error) string { return err.Error() },
	})
	if len(probs) != 0 {
		t.Fatal(probs)
	}
	s, err := root.Session(opts)
	if err != nil {
		t.Fatal(err)
	}
	sch, f := s.CompileVersion(rel, rel, rel)
	if f != nil || sch == nil {
		t.Fatalf("compiling %s: %v", rel, f)
	}
	return sch.(*Schema)
}

// TestSamplerAssertsFormats: the provider's sampler draws from the version
// compiled again with every format asserted (through its $refs to shared
// files), so where the catalog only annotates a format the samples still
// have it, and ValidateValue refuses what the catalog's schema accepts but
// the format does not; with assert_formats the catalog's schema is used.
func TestSamplerAssertsFormats(t *testing.T) {
	files := map[string]string{
		"schemas/a.b/v1.json":      `{"type": "object", "required": ["at", "id"], "additionalProperties": false, "properties": {"at": {"$ref": "../common/at.json"}, "id": {"type": "string", "pattern": "^o-[0-9]+$"}}}`,
		"schemas/common/at.json":   `{"type": "string", "format": "date-time"}`,
		"schemas/a.b/v2.json":      `{"$ref": "../common/none.json"}`,
		"schemas/common/none.json": `{"type": "string", "format": "email"}`,
	}
	canonical := regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z$`)
	for _, asserted := range []bool{false, true} {
		sch := sampleRoot(t, files, "a.b/v1.json", format.RootOptions{AssertFormats: asserted})
		if err := sch.ValidateValue(map[string]any{"at": "yesterday", "id": "o-1"}); (err == nil) == asserted {
			t.Errorf("asserted %v: the catalog's schema on a bad date-time: %v", asserted, err)
		}
		cs, err := Provider{}.Sampler(sch, 7, format.SampleOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cs.Cover() != 0 {
			t.Errorf("Cover() = %d, want 0: JSON Schema samples are all random", cs.Cover())
		}
		vs, ok := cs.(format.ValueSampler)
		if !ok {
			t.Fatalf("%T is not a format.ValueSampler", cs)
		}
		if err := vs.ValidateValue(map[string]any{"at": "yesterday", "id": "o-1"}); err == nil {
			t.Errorf("asserted %v: the sampler's schema takes a bad date-time", asserted)
		}
		if err := vs.ValidateValue(map[string]any{"at": "2025-01-01T00:00:00Z", "id": "o-1"}); err != nil {
			t.Errorf("asserted %v: the sampler's schema refuses a good value: %v", asserted, err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for range 20 {
			v, err := vs.SampleValue(rng, -1)
			if err != nil {
				t.Fatal(err)
			}
			at, _ := v.(map[string]any)["at"].(string)
			if !canonical.MatchString(at) {
				t.Errorf("asserted %v: sampled at %q, not a canonical date-time", asserted, at)
			}
			if err := sch.ValidateValue(v); err != nil {
				t.Errorf("a sample the version refuses: %v", err)
			}
		}
		text, err := cs.Sample(rng, -1)
		if err != nil || !json.Valid(text) {
			t.Errorf("Sample = %s, %v; want JSON text", text, err)
		}
		if _, err := cs.Sample(rng, 0); err == nil {
			t.Error("covering sample 0 of a sampler that covers nothing is not an error")
		}
		a, err := vs.Samples(6)
		if err != nil || len(a) != 6 {
			t.Fatalf("Samples(6) = %d values, %v", len(a), err)
		}
		b, _ := vs.Samples(6)
		if ja, jb := mustJSON(t, a), mustJSON(t, b); ja != jb {
			t.Errorf("Samples differ for one seed:\n%s\n%s", ja, jb)
		}
	}
}

// TestSamplerFormatEdges: SampleOptions.FormatEdges lets date-times take
// the forms RFC 3339 allows beyond the canonical one.
func TestSamplerFormatEdges(t *testing.T) {
	sch := sampleRoot(t, map[string]string{"schemas/a.b/v1.json": `{"type": "string", "format": "date-time"}`}, "a.b/v1.json", format.RootOptions{})
	cs, err := Provider{}.Sampler(sch, 1, format.SampleOptions{FormatEdges: true})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	edge := false
	for range 200 {
		v, err := cs.(format.ValueSampler).SampleValue(rng, -1)
		if err != nil {
			t.Fatal(err)
		}
		s := v.(string)
		edge = edge || strings.ContainsAny(s, "tz+") || strings.Contains(s[10:], "-")
	}
	if !edge {
		t.Error("200 date-times with format edges, none in a form other than the canonical one")
	}
}

func TestSamplerErrors(t *testing.T) {
	if _, err := (Provider{}).Sampler(nil, 1, format.SampleOptions{}); err == nil {
		t.Error("a sampler of no schema")
	}
	// Not compiled from a root: sampled as it was compiled.
	c := NewCompiler(false)
	if err := c.AddResource("urn:x", map[string]any{"const": "x"}); err != nil {
		t.Fatal(err)
	}
	compiled, err := c.Compile("urn:x")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := Provider{}.Sampler(New(compiled, nil), 1, format.SampleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := cs.(format.ValueSampler).SampleValue(rand.New(rand.NewPCG(1, 1)), -1); err != nil || v != "x" {
		t.Errorf("sample of a const = %v, %v", v, err)
	}
	// A schema nothing satisfies: the sampler names the keyword.
	if err := c.AddResource("urn:never", map[string]any{"type": "string", "minLength": 3, "maxLength": 1}); err != nil {
		t.Fatal(err)
	}
	never, err := c.Compile("urn:never")
	if err != nil {
		t.Fatal(err)
	}
	cs, _ = Provider{}.Sampler(New(never, nil), 1, format.SampleOptions{})
	if _, err := cs.Sample(rand.New(rand.NewPCG(1, 1)), -1); err == nil || !strings.Contains(err.Error(), "Length") {
		t.Errorf("sampling an unsatisfiable schema: %v", err)
	}
}

func TestMatchString(t *testing.T) {
	var ps format.PatternSampler = Provider{}
	re := regexp.MustCompile(`^(?:/shop/[a-z]{2,4}/orders)$`)
	rng := rand.New(rand.NewPCG(5, 6))
	for range 10 {
		s, err := ps.MatchString(`/shop/[a-z]{2,4}/orders`, rng)
		if err != nil || !re.MatchString(s) {
			t.Errorf("MatchString = %q, %v", s, err)
		}
	}
	if _, err := ps.MatchString(`(`, rng); err == nil {
		t.Error("a malformed pattern is not an error")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
