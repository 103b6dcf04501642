package avrocompat

import (
	"encoding/hex"
	"fmt"
	"reflect"
	"testing"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format/avro"
)

// corpusSchemas are crossed with each other: every ordered pair is a
// writer/reader pair for the brute-force check.
var corpusSchemas = []string{
	`"int"`, `"long"`, `"float"`, `"double"`, `"string"`, `"bytes"`, `"boolean"`, `"null"`,
	`["null", "int"]`, `["int", "string"]`, `["null", "long", "string"]`, `["string", "bytes"]`,
	`{"type": "enum", "name": "E", "symbols": ["A", "B"]}`,
	`{"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}`,
	`{"type": "enum", "name": "E", "symbols": ["B"], "default": "B"}`,
	`{"type": "fixed", "name": "F", "size": 2}`,
	`{"type": "fixed", "name": "F", "size": 3}`,
	`{"type": "array", "items": "int"}`, `{"type": "array", "items": "long"}`,
	`{"type": "map", "values": ["null", "string"]}`, `{"type": "map", "values": "bytes"}`,
	rec(`{"name": "a", "type": "int"}`),
	rec(`{"name": "a", "type": "long"}, {"name": "b", "type": "string", "default": "x"}`),
	rec(`{"name": "b", "type": ["null", "string"], "default": null}`),
	rec(`{"name": "z", "aliases": ["a"], "type": "double"}`),
	`{"type": "record", "name": "a.L", "fields": [{"name": "v", "type": "int"}, {"name": "next", "type": ["null", "L"]}]}`,
	`{"type": "record", "name": "a.L", "fields": [{"name": "v", "type": "long"}, {"name": "next", "type": ["null", "L"]}]}`,
	`{"type": "bytes", "logicalType": "decimal", "precision": 6, "scale": 2}`,
	`{"type": "bytes", "logicalType": "decimal", "precision": 6, "scale": 3}`,
	`{"type": "long", "logicalType": "timestamp-millis"}`,
	`{"type": "long", "logicalType": "timestamp-micros"}`,
	`{"type": "int", "logicalType": "date"}`,
	// Named types of one short name in two namespaces, aliases, fixed
	// sizes in unions: where the reader union's branch choice matters.
	`{"type": "record", "name": "a.X", "fields": [{"name": "f", "type": "int"}]}`,
	`{"type": "record", "name": "b.X", "fields": [{"name": "f", "type": "string"}]}`,
	`[{"type": "record", "name": "a.X", "fields": [{"name": "f", "type": "int"}]}, {"type": "record", "name": "b.X", "fields": [{"name": "f", "type": "string"}]}]`,
	`["null", {"type": "record", "name": "a.Y", "aliases": ["a.X"], "fields": [{"name": "g", "aliases": ["f"], "type": "long"}]}]`,
	`["null", {"type": "fixed", "name": "a.F", "size": 3}, {"type": "fixed", "name": "b.F", "size": 2}]`,
	`{"type": "fixed", "name": "b.F", "size": 2}`,
	`["null", "long", {"type": "enum", "name": "b.E", "symbols": ["A"], "default": "A"}]`,
	rec(`{"name": "a", "type": "int"}, {"name": "b", "type": "int"}`),
	rec(`{"name": "b", "aliases": ["a"], "type": "int"}`),
}

type pair struct {
	name           string
	writer, reader *avro.Schema
}

func corpusPairs(t *testing.T) []pair {
	var schemas []*avro.Schema
	for i, s := range corpusSchemas {
		schemas = append(schemas, mustParse(t, fmt.Sprintf("s%d.avsc", i), s))
	}
	var out []pair
	for i, w := range schemas {
		for j, r := range schemas {
			out = append(out, pair{fmt.Sprintf("s%d->s%d", i, j), w, r})
		}
	}
	for _, tt := range ruleTests {
		old, new := mustParse(t, "v1.avsc", tt.old), mustParse(t, "v2.avsc", tt.new)
		out = append(out, pair{tt.name + " backward", old, new}, pair{tt.name + " forward", new, old})
	}
	for i, c := range apacheCases(t) {
		out = append(out, pair{fmt.Sprintf("apache %d", i), mustParse(t, "writer.avsc", string(c.Writer)), mustParse(t, "reader.avsc", string(c.Reader))})
	}
	return out
}

// TestBruteForce never lets a breaking pair pass: for every pair the
// engine calls compatible, sampled writer datums must decode through the
// library's own resolution and come out as the engine's resolver
// predicts; for every break, the counterexample's bytes must be the
// writer's and fail or change meaning in the reader.
func TestBruteForce(t *testing.T) {
	compatible, breaking := 0, 0
	for _, p := range corpusPairs(t) {
		fs := Compare(p.writer, p.reader, engine.Backward, engine.Options{})
		if Compatible(fs) {
			compatible++
			datums, err := p.writer.Samples(7, 100)
			if err != nil {
				continue // the writer has no datum (an empty union): nothing to read
			}
			for _, d := range datums {
				bin, err := p.writer.Encode(d)
				if err != nil {
					t.Fatalf("%s: sample does not encode: %v", p.name, err)
				}
				got, err := p.reader.DecodeFrom(p.writer, bin)
				if err != nil {
					t.Errorf("%s: called compatible, but the library fails on %x: %v", p.name, bin, err)
					break
				}
				decoded, _ := p.writer.Decode(bin)
				rs := &resolver{}
				want := rs.resolve(p.writer.Root, p.reader.Root, decoded, "")
				if len(rs.errs) > 0 {
					t.Errorf("%s: called compatible, but resolution fails: %v", p.name, rs.errs)
					break
				}
				if !reflect.DeepEqual(normalize(got), normalize(want)) {
					t.Errorf("%s: library reads %#v, the engine's resolver %#v", p.name, got, want)
					break
				}
			}
			continue
		}
		breaking++
		if avro.LibraryCompatible(p.writer, p.reader) == nil {
			var rules []string
			for _, f := range fs {
				if f.Severity == "error" {
					rules = append(rules, f.Rule)
				}
			}
			// Only logical-type breaks may go beyond the library, which
			// resolves the physical schemas.
			for _, r := range rules {
				if !logicalRules[r] {
					t.Errorf("%s: the library's check passes, the engine finds %v", p.name, rules)
					break
				}
			}
		}
		for _, f := range fs {
			if f.Severity != "error" {
				continue
			}
			cx := f.Counterexample
			if cx == nil {
				t.Errorf("%s: %s without counterexample", p.name, f.Rule)
				continue
			}
			bin, _ := hex.DecodeString(cx.Hex)
			decoded, err := p.writer.Decode(bin)
			if err != nil {
				t.Errorf("%s: %s: counterexample is not a writer datum: %v", p.name, f.Rule, err)
			} else if js, _ := p.writer.EncodeJSON(decoded); string(js) != string(cx.Datum) {
				t.Errorf("%s: %s: counterexample bytes decode to %s, shown as %s", p.name, f.Rule, js, cx.Datum)
			}
			if cx.ReaderError == "" && cx.Written == cx.ReadAs {
				t.Errorf("%s: %s: counterexample shows no break", p.name, f.Rule)
			}
			if cx.ReaderError != "" {
				if _, err := p.reader.DecodeFrom(p.writer, bin); err == nil {
					t.Logf("%s: %s: the library's resolution reads %s (the engine says: %s)", p.name, f.Rule, cx.Hex, cx.ReaderError)
				}
			}
		}
	}
	t.Logf("%d compatible pairs checked datum by datum, %d breaking pairs with counterexamples", compatible, breaking)
}

var logicalRules = map[string]bool{
	"avro-decimal-scale-changed": true, "avro-decimal-precision-narrowed": true, "avro-decimal-precision-widened": true, "avro-timestamp-unit-changed": true,
	"avro-timestamp-local-changed": true, "avro-time-unit-changed": true, "avro-logical-type-changed": true,
	"avro-logical-type-added-out-of-domain": true,
}

// normalize makes library and resolver values comparable (nil and empty
// collections).
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case []byte:
		return fmt.Sprintf("bytes:%x", x)
	}
	return v
}
