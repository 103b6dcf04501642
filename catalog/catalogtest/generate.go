package catalogtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Shape is how much each generated schema holds.
type Shape string

const (
	// ShapeSimple: a flat object (record, message) of a few scalar
	// fields and one reference to a shared file.
	ShapeSimple Shape = "simple"
	// ShapeHeavy: nested objects, arrays of local definitions, enums,
	// patterns, bounds, a oneOf, and references to several shared files
	// that reference each other, with an example per version.
	ShapeHeavy Shape = "heavy"
)

// Mix is which formats the generated types are written in.
type Mix string

const (
	// MixJSON: every type is JSON Schema.
	MixJSON Mix = "json"
	// MixAll: of every 10 types, 6 are JSON Schema, 2 Avro and 2 Protobuf.
	MixAll Mix = "mixed"
)

// GenOptions says what Generate writes.
type GenOptions struct {
	Types    int // event types (default 10)
	Versions int // versions per type (default 10)
	Shape    Shape
	Mix      Mix
	// Shared is the number of shared files per format under common/
	// (default 20); each type references a few of them, so each shared
	// file is referenced by many types.
	Shared int
}

// Generate writes a catalog (evtool.yaml, schemas/) into dir, an empty or
// absent directory: Types types of Versions versions each, every version
// compatible with every earlier one under FULL_TRANSITIVE, lenient (each
// version adds an optional field). The same options write the same bytes.
func Generate(dir string, o GenOptions) error {
	if o.Types <= 0 {
		o.Types = 10
	}
	if o.Versions <= 0 {
		o.Versions = 10
	}
	if o.Shared <= 0 {
		o.Shared = 20
	}
	if o.Shape == "" {
		o.Shape = ShapeSimple
	}
	if o.Mix == "" {
		o.Mix = MixJSON
	}
	if o.Shape != ShapeSimple && o.Shape != ShapeHeavy {
		return fmt.Errorf("shape %q: use simple or heavy", o.Shape)
	}
	if o.Mix != MixJSON && o.Mix != MixAll {
		return fmt.Errorf("mix %q: use json or mixed", o.Mix)
	}
	g := &generator{dir: dir, o: o}
	if err := g.write("evtool.yaml", "version: 1\nschemas: schemas\ndataschema: https://schemas.example.com/{type}/v{version}.json\ncompat:\n  mode: FULL_TRANSITIVE\n  profile: lenient\n"); err != nil {
		return err
	}
	if err := g.shared(); err != nil {
		return err
	}
	for i := 0; i < o.Types; i++ {
		if err := g.eventType(i); err != nil {
			return err
		}
	}
	return nil
}

// TypeName is the name Generate gives type i.
func TypeName(i int) string { return fmt.Sprintf("com.example.gen.t%05d", i) }

type generator struct {
	dir string
	o   GenOptions
}

func (g *generator) write(rel, text string) error {
	p := filepath.Join(g.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(text), 0o644)
}

func (g *generator) writeJSON(rel string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return g.write(rel, string(b)+"\n")
}

// kindOf is the format of type i: in the mixed catalog types 6 and 7 of
// every ten are Avro, 8 and 9 Protobuf.
func (g *generator) kindOf(i int) string {
	if g.o.Mix == MixAll {
		switch i % 10 {
		case 6, 7:
			return "avsc"
		case 8, 9:
			return "proto"
		}
	}
	return "json"
}

// shared writes common/s<k>.json (each heavy one referencing the next
// one's definition, so references are transitive), and for the mixed
// catalog common/s<k>.avsc and common/s<k>.proto.
func (g *generator) shared() error {
	for k := 0; k < g.o.Shared; k++ {
		props := map[string]any{
			"id":    map[string]any{"type": "string", "pattern": fmt.Sprintf("^s%d-[0-9a-f]{8}$", k)},
			"count": map[string]any{"type": "integer", "minimum": 0, "maximum": 1000 + k},
		}
		doc := map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": fmt.Sprintf("Shared%d", k),
			"type": "object", "properties": props, "required": []string{"id"}}
		if g.o.Shape == ShapeHeavy {
			props["kind"] = map[string]any{"enum": []any{"a", "b", "c", fmt.Sprintf("k%d", k)}}
			props["tags"] = map[string]any{"type": "array", "items": map[string]any{"type": "string", "maxLength": 40}, "maxItems": 10}
			if k+1 < g.o.Shared {
				props["next"] = map[string]any{"$ref": fmt.Sprintf("s%d.json#/$defs/leaf", k+1)}
			}
			doc["$defs"] = map[string]any{"leaf": map[string]any{"type": "object", "properties": map[string]any{
				"code":  map[string]any{"type": "string", "pattern": "^[A-Z]{3}$"},
				"value": map[string]any{"type": "number", "minimum": 0},
			}, "required": []string{"code"}}}
		}
		if err := g.writeJSON(fmt.Sprintf("schemas/common/s%d.json", k), doc); err != nil {
			return err
		}
		if g.o.Mix != MixAll {
			continue
		}
		avsc := map[string]any{"type": "record", "name": fmt.Sprintf("com.example.common.S%d", k), "fields": []any{
			map[string]any{"name": "id", "type": "string"},
			map[string]any{"name": "count", "type": "long", "default": 0},
		}}
		if err := g.writeJSON(fmt.Sprintf("schemas/common/s%d.avsc", k), avsc); err != nil {
			return err
		}
		proto := fmt.Sprintf("syntax = \"proto3\";\n\npackage com.example.common;\n\nmessage S%d {\n  string id = 1;\n  int64 count = 2;\n  repeated string tags = 3;\n}\n", k)
		if err := g.write(fmt.Sprintf("schemas/common/s%d.proto", k), proto); err != nil {
			return err
		}
	}
	return nil
}

// refs is the shared files type i references (by index).
func (g *generator) refs(i int) []int {
	n := 1
	if g.o.Shape == ShapeHeavy {
		n = 3
	}
	out := make([]int, n)
	for j := range out {
		out[j] = (i*7 + j*3) % g.o.Shared
	}
	return out
}

func (g *generator) eventType(i int) error {
	name := TypeName(i)
	dir := "schemas/" + name
	kind := g.kindOf(i)
	meta := fmt.Sprintf("description: Generated type %d.\ntopic: gen-%d\n", i, i%50)
	if kind == "proto" {
		meta += fmt.Sprintf("message: com.example.gen.t%05d.Event\n", i)
	}
	if err := g.write(dir+"/event.yaml", meta); err != nil {
		return err
	}
	for v := 1; v <= g.o.Versions; v++ {
		var err error
		switch kind {
		case "json":
			err = g.jsonVersion(i, v, dir)
		case "avsc":
			err = g.avroVersion(i, v, dir)
		default:
			err = g.protoVersion(i, v, dir)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (g *generator) jsonVersion(i, v int, dir string) error {
	refs := g.refs(i)
	props := map[string]any{
		"id":   map[string]any{"type": "string", "pattern": "^[a-z]{2}-[0-9]{4}$"},
		"at":   map[string]any{"type": "string", "format": "date-time"},
		"ref0": map[string]any{"$ref": fmt.Sprintf("../common/s%d.json", refs[0])},
	}
	doc := map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": fmt.Sprintf("T%d v%d", i, v),
		"type": "object", "properties": props, "required": []string{"id"}}
	// Version v adds the optional f2..fv: every version reads every other's events.
	for f := 2; f <= v; f++ {
		props[fmt.Sprintf("f%d", f)] = map[string]any{"type": []string{"string", "integer", "boolean"}[f%3]}
	}
	example := map[string]any{"id": "ab-1234", "at": "2026-01-02T03:04:05Z"}
	if g.o.Shape == ShapeHeavy {
		for j, r := range refs[1:] {
			props[fmt.Sprintf("ref%d", j+1)] = map[string]any{"$ref": fmt.Sprintf("../common/s%d.json", r)}
		}
		props["lines"] = map[string]any{"type": "array", "minItems": 1, "maxItems": 50, "items": map[string]any{"$ref": "#/$defs/line"}}
		props["status"] = map[string]any{"enum": []any{"new", "open", "held", "closed"}}
		props["payment"] = map[string]any{"oneOf": []any{
			map[string]any{"type": "object", "properties": map[string]any{"card": map[string]any{"type": "string", "pattern": "^[0-9]{4}$"}}, "required": []string{"card"}, "additionalProperties": false},
			map[string]any{"type": "object", "properties": map[string]any{"iban": map[string]any{"type": "string", "minLength": 15, "maxLength": 34}}, "required": []string{"iban"}, "additionalProperties": false},
		}}
		props["address"] = map[string]any{"type": "object", "properties": map[string]any{
			"street": map[string]any{"type": "string", "maxLength": 100},
			"city":   map[string]any{"type": "string", "maxLength": 60},
			"zip":    map[string]any{"type": "string", "pattern": "^[0-9]{5}$"},
			"geo": map[string]any{"type": "object", "properties": map[string]any{
				"lat": map[string]any{"type": "number", "minimum": -90, "maximum": 90},
				"lon": map[string]any{"type": "number", "minimum": -180, "maximum": 180},
			}},
		}, "required": []string{"city"}}
		doc["$defs"] = map[string]any{"line": map[string]any{"type": "object", "properties": map[string]any{
			"sku":      map[string]any{"type": "string", "pattern": "^SKU-[0-9]{6}$"},
			"quantity": map[string]any{"type": "integer", "minimum": 1, "maximum": 999},
			"price":    map[string]any{"$ref": fmt.Sprintf("../common/s%d.json#/$defs/leaf", refs[0])},
		}, "required": []string{"sku", "quantity"}}}
		doc["required"] = []string{"id", "lines"}
		example["lines"] = []any{map[string]any{"sku": "SKU-000001", "quantity": 2}}
		example["status"] = "open"
	}
	if err := g.writeJSON(fmt.Sprintf("%s/v%d.json", dir, v), doc); err != nil {
		return err
	}
	if g.o.Shape == ShapeHeavy {
		return g.writeJSON(fmt.Sprintf("%s/examples/v%d/one.json", dir, v), example)
	}
	return nil
}

func (g *generator) avroVersion(i, v int, dir string) error {
	refs := g.refs(i)
	fields := []any{
		map[string]any{"name": "id", "type": "string"},
		map[string]any{"name": "at", "type": map[string]any{"type": "long", "logicalType": "timestamp-millis"}},
		map[string]any{"name": "ref0", "type": []any{"null", fmt.Sprintf("com.example.common.S%d", refs[0])}, "default": nil},
	}
	if g.o.Shape == ShapeHeavy {
		for j, r := range refs[1:] {
			fields = append(fields, map[string]any{"name": fmt.Sprintf("ref%d", j+1), "type": []any{"null", fmt.Sprintf("com.example.common.S%d", r)}, "default": nil})
		}
		fields = append(fields,
			map[string]any{"name": "status", "type": map[string]any{"type": "enum", "name": "Status", "symbols": []string{"NEW", "OPEN", "HELD", "CLOSED"}, "default": "NEW"}, "default": "NEW"},
			map[string]any{"name": "lines", "type": map[string]any{"type": "array", "items": map[string]any{"type": "record", "name": "Line", "fields": []any{
				map[string]any{"name": "sku", "type": "string"},
				map[string]any{"name": "quantity", "type": "int"},
				map[string]any{"name": "price", "type": []any{"null", map[string]any{"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}}, "default": nil},
			}}}, "default": []any{}},
			map[string]any{"name": "address", "type": []any{"null", map[string]any{"type": "record", "name": "Address", "fields": []any{
				map[string]any{"name": "street", "type": "string"},
				map[string]any{"name": "city", "type": "string"},
				map[string]any{"name": "tags", "type": map[string]any{"type": "map", "values": "string"}, "default": map[string]any{}},
			}}}, "default": nil},
		)
	}
	for f := 2; f <= v; f++ {
		fields = append(fields, map[string]any{"name": fmt.Sprintf("f%d", f), "type": []any{"null", []string{"string", "long", "boolean"}[f%3]}, "default": nil})
	}
	rec := map[string]any{"type": "record", "name": "Event", "namespace": fmt.Sprintf("com.example.gen.t%05d", i), "fields": fields}
	return g.writeJSON(fmt.Sprintf("%s/v%d.avsc", dir, v), rec)
}

func (g *generator) protoVersion(i, v int, dir string) error {
	refs := g.refs(i)
	var b strings.Builder
	fmt.Fprintf(&b, "syntax = \"proto3\";\n\npackage com.example.gen.t%05d;\n\n", i)
	seen := map[int]bool{}
	for _, r := range refs {
		if !seen[r] {
			seen[r] = true
			fmt.Fprintf(&b, "import \"common/s%d.proto\";\n", r)
		}
	}
	b.WriteString("\nmessage Event {\n  string id = 1;\n  int64 at = 2;\n")
	fmt.Fprintf(&b, "  com.example.common.S%d ref0 = 3;\n", refs[0])
	next := 4
	if g.o.Shape == ShapeHeavy {
		for j, r := range refs[1:] {
			fmt.Fprintf(&b, "  com.example.common.S%d ref%d = %d;\n", r, j+1, next)
			next++
		}
		b.WriteString("  enum Status {\n    STATUS_UNSPECIFIED = 0;\n    STATUS_OPEN = 1;\n    STATUS_HELD = 2;\n  }\n")
		fmt.Fprintf(&b, "  Status status = %d;\n", next)
		b.WriteString("  message Line {\n    string sku = 1;\n    int32 quantity = 2;\n    map<string, string> attrs = 3;\n  }\n")
		fmt.Fprintf(&b, "  repeated Line lines = %d;\n", next+1)
		fmt.Fprintf(&b, "  oneof payment {\n    string card = %d;\n    string iban = %d;\n  }\n", next+2, next+3)
		next += 4
	}
	for f := 2; f <= v; f++ {
		fmt.Fprintf(&b, "  %s f%d = %d;\n", []string{"string", "int64", "bool"}[f%3], f, 100+f)
	}
	b.WriteString("}\n")
	return g.write(fmt.Sprintf("%s/v%d.proto", dir, v), b.String())
}
