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
}

// TestAvroGeneratedPackage builds the code generated for the Avro catalogs
// (testdata/corpus/avro and hostileAvro), vets it, and runs the consumer
// tests of testdata/avrotest against the first: a v3 consumer reads v1 and
// v2 binary, framed and JSON-encoded data.
func TestAvroGeneratedPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generated code with the go command")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	hostileDir := t.TempDir()
	writeTree(t, hostileDir, hostileAvro)
	tmp, err := os.MkdirTemp("testdata", "gen-avro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if os.Getenv("KEEP") == "" {
			os.RemoveAll(tmp)
		}
	})
	for name, dir := range map[string]string{"events": filepath.Join("testdata", "corpus", "avro"), "hostile": hostileDir} {
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
	consumer, err := os.ReadFile(filepath.Join("testdata", "avrotest", "consumer_test.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "events", "consumer_test.go"), consumer, 0o644); err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs("..")
	rel := "./codegen/" + filepath.ToSlash(tmp)
	for _, args := range [][]string{{"vet", rel + "/..."}, {"test", "-count=1", rel + "/events"}} {
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
