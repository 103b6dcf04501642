package replay

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/envelope"
)

// mapsCatalog is a catalog whose types hold maps in every format: an Avro
// record with maps (nested, in an array, in a union), a Protobuf message
// with map fields, a JSON Schema object with additionalProperties.
var mapsCatalog = map[string]string{
	"evtool.yaml": "version: 1\nschemas: schemas\ndataschema: https://schemas.example.com/{type}/v{version}\n",
	"schemas/com.example.maps.avro/event.yaml": "description: Avro maps.\ntopic: avro\npartitionkey: /id\n",
	"schemas/com.example.maps.avro/v1.avsc": `{"type": "record", "name": "com.example.maps.Avro", "fields": [
  {"name": "id", "type": "string"},
  {"name": "tags", "type": {"type": "map", "values": "string"}},
  {"name": "nested", "type": {"type": "map", "values": {"type": "map", "values": "long"}}},
  {"name": "list", "type": {"type": "array", "items": {"type": "map", "values": "boolean"}}},
  {"name": "maybe", "type": ["null", {"type": "map", "values": "int"}], "default": null}]}
`,
	"schemas/com.example.maps.proto/event.yaml": "description: Protobuf maps.\ntopic: proto\npartitionkey: /id\nmessage: Maps\n",
	"schemas/com.example.maps.proto/v1.proto": `syntax = "proto3";

package example.maps.v1;

message Inner {
  map<string, int64> counts = 1;
}

message Maps {
  string id = 1;
  map<string, string> tags = 2;
  map<int32, Inner> inner = 3;
  map<bool, double> flags = 4;
}
`,
	"schemas/com.example.maps.json/event.yaml": "description: JSON objects as maps.\ntopic: json\npartitionkey: /id\n",
	"schemas/com.example.maps.json/v1.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
  "properties": {"id": {"type": "string"}, "tags": {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 3}},
  "required": ["id", "tags"]}
`,
}

// TestGenerateMapsSameSeedSameEvents: events.generate with one seed makes
// the same events, byte for byte, in every harness: a replay, its
// shrinking and its reproduce line send what the first run sent. Avro maps
// came out in Go's map iteration order, which differs from run to run.
func TestGenerateMapsSameSeedSameEvents(t *testing.T) {
	dir := t.TempDir()
	for name, text := range mapsCatalog {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, typ := range []string{"com.example.maps.avro", "com.example.maps.proto", "com.example.maps.json"} {
		t.Run(typ, func(t *testing.T) {
			events := func() [][]byte {
				h := formatsHarness(t, dir, "{generate: {count: 40, keys: 4, seed: 5, types: ["+typ+"]}}", "")
				var out [][]byte
				for _, raw := range validatedEvents(t, h) {
					if raw.Err != nil {
						t.Fatal(raw.Err)
					}
					out = append(out, raw.Raw)
				}
				return out
			}
			first := events()
			if len(first) != 40 {
				t.Fatalf("%d events, want 40", len(first))
			}
			// Without maps of several entries the order could not differ.
			h := formatsHarness(t, dir, "{generate: {count: 40, keys: 4, seed: 5, types: ["+typ+"]}}", "")
			if _, err := h.Validate(context.Background()); err != nil {
				t.Fatal(err)
			}
			ver := h.cat.Lookup(typ).Latest()
			several := 0
			if err := h.ForEachEvent(context.Background(), func(d *envelope.Decoded, _ chaos.Event) error {
				v, err := ver.Compiled.DecodeValue(d.RawData, d.Event.DataContentType())
				if err != nil {
					return err
				}
				if biggestObject(v) >= 2 {
					several++
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if several < 5 {
				t.Fatalf("only %d of 40 events hold a map of 2 entries or more", several)
			}
			for run := range 5 {
				again := events()
				if len(again) != len(first) {
					t.Fatalf("run %d: %d events, want %d", run, len(again), len(first))
				}
				for i := range first {
					if !bytes.Equal(first[i], again[i]) {
						t.Fatalf("run %d, event %d: the same seed made another event:\n%s\n%s", run, i, first[i], again[i])
					}
				}
			}
		})
	}
}

// biggestObject is the most members of any object in v below its top
// (the data's own members are fields, not map entries).
func biggestObject(v any) int {
	n := 0
	var visit func(v any, top bool)
	visit = func(v any, top bool) {
		switch v := v.(type) {
		case map[string]any:
			if !top {
				n = max(n, len(v))
			}
			for _, e := range v {
				visit(e, false)
			}
		case []any:
			for _, e := range v {
				visit(e, false)
			}
		}
	}
	visit(v, true)
	return n
}
