package codegen

import (
	"bytes"
	"errors"
	"github.com/evtool/evtool/internal/fuzzcost"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/catalog"
)

var hugeExponent = regexp.MustCompile(`[eE][+-]?0*[0-9]{4,}`)

// FuzzGenerate feeds small schemas to the generator: it must never panic,
// and whatever it generates must parse and be gofmt-clean.
func FuzzGenerate(f *testing.F) {
	for _, s := range []string{
		`{}`, `true`, `false`,
		`{"type": "object", "properties": {"a": {"type": "string"}}}`,
		`{"type": ["string", "null"], "enum": ["a", null]}`,
		`{"oneOf": [{"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]}, {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"]}]}`,
		`{"type": "object", "properties": {"*/": {"description": "*/ ` + "`" + `\n"}, "id": {}, "ID": {}}, "required": ["ID"]}`,
		`{"type": "array", "items": {"$ref": "#"}}`,
		`{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}`,
		`{"type": "integer", "minimum": 1e30, "multipleOf": 0.25}`,
		`{"anyOf": [{"type": "string"}, {"type": "integer"}], "not": {"const": 3}}`,
		`{"type": "object", "patternProperties": {"^x": {}}, "additionalProperties": false, "required": ["y"]}`,
	} {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*", "schemas", "*", "v*.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil && len(data) < 4096 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		fuzzcost.Default().Check(t, len(schema), func() {
			if len(schema) > 1<<14 || hugeExponent.Match(schema) {
				// catalog.Load itself chokes on numbers like 1e9999999
				// (santhosh's big.Rat parsing): not the generator's input
				return
			}
			fsys := fstest.MapFS{
				"evtool.yaml":             {Data: []byte("version: 1\n")},
				"schemas/x.y/v1.json":     {Data: schema},
				"schemas/x.y/v2.json":     {Data: []byte(`{"type": "object", "properties": {"old": {"$ref": "v1.json"}}}`)},
				"schemas/shared/any.json": {Data: []byte(`{}`)},
			}
			cat, err := catalog.LoadFS(fsys, "fuzz")
			if err != nil {
				return // not a schema the catalog accepts
			}
			res, err := Generate(cat, Options{Package: "fuzz", FS: fsys})
			if err != nil {
				var ce *Error
				if !errors.As(err, &ce) && !bytes.Contains([]byte(err.Error()), []byte("fuzz")) {
					t.Logf("error: %v", err)
				}
				return
			}
			for _, file := range res.Files {
				if _, err := parser.ParseFile(token.NewFileSet(), file.Name, file.Data, parser.ParseComments); err != nil {
					t.Fatalf("%s does not parse: %v\n%s", file.Name, err, file.Data)
				}
				formatted, err := format.Source(file.Data)
				if err != nil || !bytes.Equal(formatted, file.Data) {
					t.Fatalf("%s is not gofmt-clean", file.Name)
				}
			}
		})
	})
}

// FuzzGenerateAvro does the same for Avro versions: whatever .avsc the
// catalog accepts, the generated code parses and is gofmt-clean.
func FuzzGenerateAvro(f *testing.F) {
	for _, s := range []string{
		`{"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}]}`,
		`{"type": "record", "name": "R", "fields": [{"name": "type", "type": ["null", "R"], "default": null}, {"name": "Type", "type": {"type": "enum", "name": "E", "symbols": ["func", "FUNC"]}}]}`,
		`{"type": "record", "name": "R", "doc": "*/ package x", "fields": [{"name": "u", "type": ["string", "long", {"type": "array", "items": ["int", "R"]}]}]}`,
		`{"type": "record", "name": "a.R", "fields": [{"name": "x", "type": {"type": "record", "name": "b.R", "fields": []}}, {"name": "y", "type": {"type": "fixed", "name": "F", "size": 3}}]}`,
		`"string"`,
	} {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*", "schemas", "*", "v*.avsc"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil && len(data) < 8192 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		fuzzcost.Default().Check(t, len(schema), func() {
			if len(schema) > 1<<14 {
				return
			}
			fsys := fstest.MapFS{
				"evtool.yaml":         {Data: []byte("version: 1\n")},
				"schemas/x.y/v1.avsc": {Data: schema},
			}
			cat, err := catalog.LoadFS(fsys, "fuzz")
			if err != nil {
				return // not a schema the catalog accepts
			}
			res, err := Generate(cat, Options{Package: "fuzz", FS: fsys})
			if err != nil {
				return
			}
			for _, file := range res.Files {
				if _, err := parser.ParseFile(token.NewFileSet(), file.Name, file.Data, parser.ParseComments); err != nil {
					t.Fatalf("%s does not parse: %v\n%s", file.Name, err, file.Data)
				}
				formatted, err := format.Source(file.Data)
				if err != nil || !bytes.Equal(formatted, file.Data) {
					t.Fatalf("%s is not gofmt-clean", file.Name)
				}
			}
		})
	})
}
