package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// generatedFormats are the formats evtool knows (registry's annotation
// formats); every generated value must be valid under each.
var generatedFormats = []string{
	"uuid", "date-time", "date", "time", "duration", "period", "email", "hostname",
	"ipv4", "ipv6", "uri", "iri", "uri-reference", "iri-reference", "uri-template",
	"json-pointer", "relative-json-pointer", "semver", "regex",
}

// TestGenerateFormatsWithoutAssertion: events.generate makes values valid
// under every format although the catalog treats formats as annotations
// (no assert_formats), in draft 2020-12 and draft 7 schemas.
func TestGenerateFormatsWithoutAssertion(t *testing.T) {
	props := map[string]any{}
	var required []string
	for _, f := range generatedFormats {
		name := strings.ReplaceAll(f, "-", "_")
		props[name] = map[string]any{"type": "string", "format": f}
		required = append(required, name)
	}
	props["id"] = map[string]any{"type": "string", "format": "uuid"}
	required = append(required, "id")
	for _, draft := range []string{"https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#"} {
		t.Run(draft, func(t *testing.T) {
			schema := map[string]any{"$schema": draft, "type": "object", "properties": props, "required": required}
			dir := t.TempDir()
			typeDir := filepath.Join(dir, "schemas", "com.example.formats")
			if err := os.MkdirAll(typeDir, 0o755); err != nil {
				t.Fatal(err)
			}
			b, _ := json.MarshalIndent(schema, "", "  ")
			files := map[string]string{
				filepath.Join(dir, "evtool.yaml"):    "version: 1\nschemas: schemas\ndataschema: https://schemas.example.com/{type}/v{version}.json\n",
				filepath.Join(typeDir, "event.yaml"): "topic: formats\npartitionkey: /id\ndescription: every format\n",
				filepath.Join(typeDir, "v1.json"):    string(b),
				filepath.Join(dir, "asserted.json"):  string(b),
			}
			for p, text := range files {
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c := jsonschema.NewCompiler()
			c.AssertFormat()
			asserted, err := c.Compile(filepath.Join(dir, "asserted.json"))
			if err != nil {
				t.Fatal(err)
			}
			sc := writeScenario(t, fmt.Sprintf("catalog: %s\nevents: {generate: {count: 200, keys: 5, seed: 9}}\nconsumer: {run: [x], state: {http: \"http://x\"}}\n", dir))
			h, err := NewHarness(sc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			n := 0
			if err := h.ForEachEvent(context.Background(), func(d *envelope.Decoded, _ chaos.Event) error {
				n++
				v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(d.RawData)))
				if err != nil {
					return err
				}
				if err := asserted.Validate(v); err != nil {
					return fmt.Errorf("generated data %s is not format-valid: %v", d.RawData, err)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if n != 200 {
				t.Fatalf("%d events", n)
			}
		})
	}
}
