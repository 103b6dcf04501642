package avrocompat

import (
	"testing"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format/avro"
)

const benchOrderV1 = `{"type": "record", "name": "com.x.Order", "fields": [
  {"name": "id", "type": "string"},
  {"name": "qty", "type": "int"},
  {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
  {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
  {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "SHIPPED"]}},
  {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line", "fields": [
    {"name": "sku", "type": "string"}, {"name": "n", "type": "int"}, {"name": "tags", "type": {"type": "map", "values": "string"}}]}}},
  {"name": "note", "type": ["null", "string"], "default": null}]}`

// benchOrderV2 is compatible with v1 both ways.
const benchOrderV2 = `{"type": "record", "name": "com.x.Order", "fields": [
  {"name": "id", "type": "string"},
  {"name": "qty", "type": "int"},
  {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
  {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
  {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "SHIPPED"], "default": "NEW"}},
  {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line", "fields": [
    {"name": "sku", "type": "string"}, {"name": "n", "type": "int"}, {"name": "tags", "type": {"type": "map", "values": "string"}}]}}},
  {"name": "note", "type": ["null", "string"], "default": null},
  {"name": "channel", "type": "string", "default": "web"}]}`

// benchOrderV3 breaks v1 in several places.
const benchOrderV3 = `{"type": "record", "name": "com.x.Order", "fields": [
  {"name": "id", "type": "string"},
  {"name": "qty", "type": "long"},
  {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 3}},
  {"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
  {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID"]}},
  {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line", "fields": [
    {"name": "sku", "type": "string"}, {"name": "n", "type": "int"}, {"name": "tags", "type": {"type": "map", "values": "bytes"}}]}}},
  {"name": "note", "type": ["null", "string"], "default": null},
  {"name": "region", "type": "string"}]}`

// BenchmarkCompare measures one comparison per pair and direction, with
// the rules alone and with the witness search.
func BenchmarkCompare(b *testing.B) {
	v1, v2, v3 := mustParse(b, "v1.avsc", benchOrderV1), mustParse(b, "v2.avsc", benchOrderV2), mustParse(b, "v3.avsc", benchOrderV3)
	pairs := []struct {
		name     string
		old, new *avro.Schema
	}{{"compatible", v1, v2}, {"breaking", v1, v3}}
	for _, p := range pairs {
		for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
			for _, mode := range []struct {
				name string
				opts engine.Options
			}{{"rules", engine.Options{Samples: -1}}, {"witness", engine.Options{}}} {
				b.Run(p.name+"/"+string(dir)+"/"+mode.name, func(b *testing.B) {
					for b.Loop() {
						Compare(p.old, p.new, dir, mode.opts)
					}
				})
			}
		}
	}
}

// TestBenchPairs keeps the benchmark's pairs what their names say.
func TestBenchPairs(t *testing.T) {
	v1, v2, v3 := mustParse(t, "v1.avsc", benchOrderV1), mustParse(t, "v2.avsc", benchOrderV2), mustParse(t, "v3.avsc", benchOrderV3)
	for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
		if fs := Compare(v1, v2, dir, engine.Options{}); !Compatible(fs) {
			t.Errorf("v1/v2 %s: %v", dir, fs)
		}
		if fs := Compare(v1, v3, dir, engine.Options{}); Compatible(fs) || len(fs) < 3 {
			t.Errorf("v1/v3 %s: only %d findings", dir, len(fs))
		}
	}
}
