package codegen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/catalog"
)

// hostileAvro is an Avro catalog whose names collide after CamelCase, are
// Go keywords or method names, or repeat a short name in two namespaces,
// and whose description tries to end its comment.
var hostileAvro = map[string]string{
	"evtool.yaml":                        "version: 1\nschemas: schemas\n",
	"schemas/com.example.x.y/event.yaml": "description: \"*/ func init() { panic(1) } /*\\n\\u202e package main\"\n",
	"schemas/com.example.x.y/v1.avsc": `{"type": "record", "name": "Y", "namespace": "a.b", "fields": [
	  {"name": "type", "type": "string"},
	  {"name": "func", "type": "int"},
	  {"name": "order_id", "type": "string"},
	  {"name": "orderId", "type": "string"},
	  {"name": "MarshalAvro", "type": "boolean"},
	  {"name": "Valid", "type": "boolean"},
	  {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["type", "A_B", "AB", "ab"]}},
	  {"name": "one", "type": {"type": "record", "name": "Same", "fields": [{"name": "x", "type": "int"}]}},
	  {"name": "two", "type": {"type": "record", "name": "Same", "namespace": "c.d", "fields": [{"name": "y", "type": "long"}]}},
	  {"name": "u", "type": ["null", "a.b.Same", "c.d.Same", "string", {"type": "array", "items": ["int", "string"]}]},
	  {"name": "self", "type": {"type": "record", "name": "Node", "fields": [{"name": "next", "type": ["null", "Node"], "default": null}, {"name": "kids", "type": {"type": "array", "items": "Node"}}]}},
	  {"name": "d", "type": {"type": "fixed", "name": "D", "size": 16, "logicalType": "decimal", "precision": 30, "scale": 4}},
	  {"name": "dur", "type": {"type": "fixed", "name": "Dur", "size": 12, "logicalType": "duration"}},
	  {"name": "t", "type": {"type": "long", "logicalType": "time-micros"}},
	  {"name": "m", "type": {"type": "map", "values": ["null", {"type": "bytes", "logicalType": "decimal", "precision": 4, "scale": 1}]}}
	]}`,
	// Names differing only in case (fields, records, union branches, enum
	// symbols), names of the generated methods and constants (a record
	// EA beside enum E's constant for A, a record DataSchema beside the
	// version's DataSchema constant, an enum Event beside the
	// constructor), Go predeclared names, blank-like names, and a source
	// pattern that tries to end its comment and string.
	"schemas/com.example.case/event.yaml": "source: \"/x\\n*/ func init() { panic(1) } /*\\\"`\"\n",
	"schemas/com.example.case/v1.avsc": `{"type": "record", "name": "Case", "namespace": "a.b", "fields": [
	  {"name": "id", "type": "string"},
	  {"name": "ID", "type": "string"},
	  {"name": "Id", "type": "int"},
	  {"name": "UnmarshalAvro", "type": "string"},
	  {"name": "UnmarshalAvroJSON", "type": "string"},
	  {"name": "MarshalAvroJSON", "type": "string"},
	  {"name": "MarshalAvroFramed", "type": "string"},
	  {"name": "isCaseData", "type": "string"},
	  {"name": "r1", "type": {"type": "record", "name": "Rec", "fields": [{"name": "x", "type": "int"}]}},
	  {"name": "r2", "type": {"type": "record", "name": "rec", "fields": [{"name": "y", "type": "int"}]}},
	  {"name": "u", "type": ["null", "Rec", "rec", "string"]},
	  {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "a", "Valid"]}},
	  {"name": "ea", "type": {"type": "record", "name": "EA", "fields": [{"name": "z", "type": "int"}]}},
	  {"name": "ds", "type": {"type": "record", "name": "DataSchema", "fields": [{"name": "w", "type": "int"}]}},
	  {"name": "ev", "type": {"type": "enum", "name": "Event", "symbols": ["String", "error", "nil"]}},
	  {"name": "string", "type": {"type": "fixed", "name": "error", "namespace": "x", "size": 2}},
	  {"name": "_", "type": "int"},
	  {"name": "__", "type": "int"}
	]}`,
	// The same kind of names without a union sum type: the library fills
	// and encodes this struct itself, mapping fields by their avro tags.
	"schemas/com.example.direct.case/v1.avsc": `{"type": "record", "name": "Case", "namespace": "a.b", "fields": [
	  {"name": "id", "type": "string"},
	  {"name": "ID", "type": "string"},
	  {"name": "Id", "type": "int"},
	  {"name": "UnmarshalAvro", "type": "string"},
	  {"name": "MarshalAvroFramed", "type": "string"},
	  {"name": "r1", "type": {"type": "record", "name": "Rec", "fields": [{"name": "x", "type": "int"}]}},
	  {"name": "r2", "type": {"type": "record", "name": "rec", "fields": [{"name": "X", "type": "long"}]}},
	  {"name": "u", "type": ["null", "rec"]},
	  {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "a", "Valid"]}},
	  {"name": "string", "type": {"type": "fixed", "name": "error", "namespace": "x", "size": 2}},
	  {"name": "_", "type": "int"},
	  {"name": "__", "type": "int"},
	  {"name": "X", "type": "int"},
	  {"name": "x", "type": "long"}
	]}`,
}

// edgesAvro is an Avro catalog of what a reviewer tried: a type whose Go
// name is a runtime function's (branch), logical types the library decodes
// to other Go types than their base (uuid on fixed, big-decimal), a record
// without fields, a Go name that a record and an enum constant both get,
// and two versions whose resolution needs aliases (renamed record, field
// and union branch), an enum default, promotions and field defaults (a
// union's of a later branch too, as Avro 1.12 allows).
var edgesAvro = map[string]string{
	"evtool.yaml":                     "version: 1\nschemas: schemas\n",
	"schemas/com.bank.branch/v1.avsc": `{"type": "record", "name": "Branch", "fields": [{"name": "id", "type": "int"}]}`,
	"schemas/com.example.logical/v1.avsc": `{"type": "record", "name": "Logical", "fields": [
	  {"name": "uid", "type": {"type": "fixed", "name": "Uid", "size": 16, "logicalType": "uuid"}},
	  {"name": "maybeUid", "type": ["null", "Uid"]},
	  {"name": "big", "type": {"type": "bytes", "logicalType": "big-decimal"}},
	  {"name": "maybeBig", "type": ["null", {"type": "bytes", "logicalType": "big-decimal"}]},
	  {"name": "empty", "type": {"type": "record", "name": "Empty", "fields": []}},
	  {"name": "sFoo", "type": {"type": "record", "name": "SFoo", "fields": [{"name": "x", "type": "int"}]}},
	  {"name": "s", "type": {"type": "enum", "name": "S", "symbols": ["FOO", "BAR"]}}
	]}`,
	"schemas/com.example.direct/v1.avsc": `{"type": "record", "name": "D1", "namespace": "ns1", "fields": [
	  {"name": "n", "type": "int"},
	  {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "X"]}},
	  {"name": "old", "type": "string"},
	  {"name": "maybe", "type": ["string", "null"]},
	  {"name": "rec", "type": ["null", {"type": "record", "name": "R", "fields": [{"name": "v", "type": "int"}]}]},
	  {"name": "recs", "type": {"type": "array", "items": "R"}},
	  {"name": "m", "type": {"type": "map", "values": "float"}},
	  {"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros"}}
	]}`,
	"schemas/com.example.direct/v2.avsc": `{"type": "record", "name": "D2", "namespace": "ns2", "aliases": ["ns1.D1"], "fields": [
	  {"name": "n", "type": "long"},
	  {"name": "e", "type": {"type": "enum", "name": "E", "namespace": "ns1", "symbols": ["A", "B"], "default": "B"}},
	  {"name": "renamed", "aliases": ["old"], "type": "string"},
	  {"name": "maybe", "type": ["string", "null"]},
	  {"name": "rec", "type": ["null", {"type": "record", "name": "R2", "aliases": ["ns1.R"], "fields": [{"name": "v", "type": "long"}, {"name": "w", "type": "string", "default": "w"}]}]},
	  {"name": "recs", "type": {"type": "array", "items": "R2"}},
	  {"name": "m", "type": {"type": "map", "values": "double"}},
	  {"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
	  {"name": "added", "type": {"type": "array", "items": "string"}, "default": ["x"]}
	]}`,
	"schemas/com.example.evolved/v1.avsc": `{"type": "record", "name": "Old", "namespace": "ns1", "fields": [
	  {"name": "id", "type": "int"},
	  {"name": "status", "type": {"type": "enum", "name": "St", "symbols": ["A", "B", "X"]}},
	  {"name": "oldName", "type": "string"},
	  {"name": "pay", "type": ["null", "string", {"type": "record", "name": "Card", "fields": [{"name": "n", "type": "string"}]}]},
	  {"name": "f", "type": "float"},
	  {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-micros"}},
	  {"name": "tsm", "type": {"type": "long", "logicalType": "timestamp-millis"}},
	  {"name": "lts", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
	  {"name": "day", "type": {"type": "int", "logicalType": "date"}},
	  {"name": "amt", "type": {"type": "fixed", "name": "Amt", "size": 8, "logicalType": "decimal", "precision": 10, "scale": 3}},
	  {"name": "m", "type": {"type": "map", "values": "int"}},
	  {"name": "list", "type": {"type": "record", "name": "Cell", "fields": [{"name": "v", "type": "int"}, {"name": "next", "type": ["null", "Cell"]}]}}
	]}`,
	"schemas/com.example.evolved/v2.avsc": `{"type": "record", "name": "New", "namespace": "ns2", "aliases": ["ns1.Old"], "fields": [
	  {"name": "id", "type": "long"},
	  {"name": "status", "type": {"type": "enum", "name": "St", "namespace": "ns1", "symbols": ["A", "B", "UNKNOWN"], "default": "UNKNOWN"}},
	  {"name": "newName", "aliases": ["oldName"], "type": "string"},
	  {"name": "pay", "type": ["null", "string", {"type": "record", "name": "Card2", "aliases": ["ns1.Card"], "fields": [{"name": "n", "type": "string"}, {"name": "extra", "type": "int", "default": 7}]}]},
	  {"name": "f", "type": "double"},
	  {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-micros"}},
	  {"name": "tsm", "type": {"type": "long", "logicalType": "timestamp-millis"}},
	  {"name": "lts", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
	  {"name": "day", "type": {"type": "int", "logicalType": "date"}},
	  {"name": "amt", "type": {"type": "fixed", "name": "Amt", "namespace": "ns1", "size": 8, "logicalType": "decimal", "precision": 10, "scale": 3}},
	  {"name": "m", "type": {"type": "map", "values": "long"}},
	  {"name": "list", "type": {"type": "record", "name": "Cell", "namespace": "ns1", "fields": [{"name": "v", "type": "int"}, {"name": "next", "type": ["null", "Cell"]}]}},
	  {"name": "added", "type": "int", "default": 42},
	  {"name": "addedNote", "type": ["null", "string"], "default": null},
	  {"name": "addedLater", "type": ["null", "string"], "default": "later"},
	  {"name": "addedEnum", "type": {"type": "enum", "name": "E2", "symbols": ["P", "Q"]}, "default": "Q"},
	  {"name": "neg", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 4}, "default": "\u00ff"}
	]}`,
}

// TestAvroGeneratedPackage builds the code generated for the Avro catalogs
// (testdata/corpus/avro, hostileAvro and edgesAvro), vets it, and runs the
// consumer tests of testdata/avrotest against each: a v3 consumer reads v1
// and v2 binary, framed and JSON-encoded data, resolution and logical types
// behave, and hostile names keep their values through every encoding.
func TestAvroGeneratedPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generated code with the go command")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	hostileDir, edgesDir := t.TempDir(), t.TempDir()
	writeTree(t, hostileDir, hostileAvro)
	writeTree(t, edgesDir, edgesAvro)
	tmp, err := os.MkdirTemp("testdata", "gen-avro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if os.Getenv("KEEP") == "" {
			os.RemoveAll(tmp)
		}
	})
	for name, dir := range map[string]string{"events": filepath.Join("testdata", "corpus", "avro"), "hostile": hostileDir, "edges": edgesDir} {
		res, err := Generate(load(t, dir), Options{Package: name})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out := filepath.Join(tmp, name)
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Files {
			parsed, err := parser.ParseFile(token.NewFileSet(), f.Name, f.Data, 0)
			if err != nil {
				t.Fatalf("%s/%s: %v", name, f.Name, err)
			}
			for _, d := range parsed.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "init" {
					t.Errorf("%s/%s: the description escaped its comment", name, f.Name)
				}
			}
			if err := os.WriteFile(filepath.Join(out, f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for pkg, file := range map[string]string{"events": "consumer_test.go", "edges": "edges_test.go", "hostile": "hostile_test.go"} {
		consumer, err := os.ReadFile(filepath.Join("testdata", "avrotest", file+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, pkg, file), consumer, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, _ := filepath.Abs("..")
	rel := "./codegen/" + filepath.ToSlash(tmp)
	for _, args := range [][]string{{"vet", rel + "/..."}, {"test", "-count=1", rel + "/events", rel + "/edges", rel + "/hostile"}} {
		cmd := exec.Command(goTool, args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A record that contains itself through record fields only has no finite
// datum and no Go type: the catalog refuses it, naming the file and the
// record, so generation never writes a struct that does not compile.
func TestAvroRecordContainsItself(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"evtool.yaml": "version: 1\nschemas: schemas\n",
		"schemas/com.example.loop/v1.avsc": `{"type": "record", "name": "A", "fields": [
		  {"name": "ok", "type": {"type": "record", "name": "Ok", "fields": [{"name": "next", "type": ["null", "Ok"]}, {"name": "kids", "type": {"type": "array", "items": "Ok"}}]}},
		  {"name": "b", "type": {"type": "record", "name": "B", "fields": [{"name": "a", "type": "A"}]}}
		]}`,
	})
	_, err := catalog.Load(dir)
	if err == nil || !strings.Contains(err.Error(), "has no finite datum") || !strings.Contains(err.Error(), "v1.avsc") {
		t.Fatalf("err = %v, want the record refused as having no finite datum", err)
	}
}
