package replay

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestGenerateJSONSchemaFormats: generated JSON Schema data has every
// format its schema names (through a $ref to a shared file), although the
// catalog only annotates formats: in the canonical form by default, in
// every form with format_edges; the source matches event.yaml's pattern;
// the partition key set in the data is checked against the schema the
// samples come from (a key that is not a uuid is refused by name).
func TestGenerateJSONSchemaFormats(t *testing.T) {
	cat := loadTree(t, map[string]string{
		"evtool.yaml":                 "version: 1\nschemas: schemas\n",
		"schemas/common/at.json":      `{"type": "string", "format": "date-time"}`,
		"schemas/o.placed/event.yaml": "owner: team\nsource: /shop/[a-z]{3}\n",
		"schemas/o.placed/v1.json":    `{"type": "object", "required": ["id", "at"], "additionalProperties": false, "properties": {"id": {"type": "string", "format": "uuid"}, "at": {"$ref": "../common/at.json"}}}`,
	})
	canonical := regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z$`)
	uuid := regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	for _, edges := range []bool{false, true} {
		g, err := newGenerator(cat, &GenerateSpec{Count: 100, Keys: 5, Seed: 3, FormatEdges: edges})
		if err != nil {
			t.Fatal(err)
		}
		edge := 0
		for {
			raw, ok, err := g.next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			var ev struct {
				Source string
				Data   struct{ ID, At string }
			}
			if err := json.Unmarshal(raw.Raw, &ev); err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`^/shop/[a-z]{3}$`).MatchString(ev.Source) {
				t.Errorf("source %q does not match event.yaml's pattern", ev.Source)
			}
			if !uuid.MatchString(ev.Data.ID) {
				t.Errorf("id %q is not a uuid", ev.Data.ID)
			}
			if !canonical.MatchString(ev.Data.At) {
				if !edges {
					t.Errorf("at %q is not a canonical date-time", ev.Data.At)
				}
				edge++
			}
		}
		if edges && edge == 0 {
			t.Error("with format_edges, no date-time in a form other than the canonical one")
		}
	}
	// A key the schema with formats asserted refuses.
	g, err := newGenerator(cat, &GenerateSpec{Count: 1, Keys: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	g.types[0].key.pointer = "/id"
	g.keys = []any{"not-a-uuid"}
	if _, _, err := g.next(); err == nil || !strings.Contains(err.Error(), "the key not-a-uuid is not valid for o.placed at /id") {
		t.Errorf("a key that is not a uuid: %v", err)
	}
}
