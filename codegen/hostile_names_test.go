package codegen

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestHostileNamesRefusedOrKeptOut: names from Avro and Protobuf schemas
// that cannot become distinct Go code are refused with both origins named,
// and Protobuf names, for which no code is generated, never reach a
// generated file.
func TestHostileNamesRefusedOrKeptOut(t *testing.T) {
	avroType := `{"type": "record", "name": "Y", "fields": [{"name": "a", "type": "int"}]}`
	// Protobuf names that would be code if they were pasted: a package
	// main, a message init, Go keywords and generated helpers as fields,
	// and a description that tries to end its comment.
	hostileProto := "syntax = \"proto3\";\npackage main;\nmessage init { string func = 1; string MarshalAvro = 2; string type = 3; }\nmessage Decode { int64 ErrUnknownType = 1; }\n"
	tests := []struct {
		name  string
		files map[string]string
		// refused lists parts of the error; empty means generation works
		refused []string
		// skipped is the Protobuf types left out
		skipped []string
		// absent are strings no generated file may hold
		absent []string
	}{
		{
			name: "Avro type names differing only in case",
			files: map[string]string{
				"schemas/com.example.x.y/v1.avsc": avroType,
				"schemas/com.example.X.Y/v1.avsc": avroType,
			},
			refused: []string{"Go name XYType is produced by both event type com.example.X.Y and event type com.example.x.y: rename one of the event types",
				"Go name NewXYV1Event is produced by both com.example.X.Y v1 and com.example.x.y v1: rename one of the event types",
				"event types com.example.X.Y and com.example.x.y would both be generated into xy_gen.go"},
		},
		{
			name: "Protobuf names stay out of a mixed catalog's code",
			files: map[string]string{
				"schemas/com.example.x.y/v1.avsc":       avroType,
				"schemas/com.example.func/event.yaml":   "message: init\ndescription: \"*/ func init() { panic(1) } /*\"\n",
				"schemas/com.example.func/v1.proto":     hostileProto,
				"schemas/com.example.X.Y/v1.proto":      "syntax = \"proto3\";\npackage x;\nmessage XYType { string id = 1; }\n",
				"schemas/com.example.x.y.data/v1.proto": "syntax = \"proto3\";\npackage y;\nmessage Y { string id = 1; }\n",
			},
			skipped: []string{"com.example.X.Y", "com.example.func", "com.example.x.y.data"},
			absent:  []string{"com.example.func", "com.example.X.Y", "com.example.x.y.data", "panic(1)", "ErrUnknownType = 1", "MarshalAvro = 2"},
		},
		{
			name: "a Protobuf-only catalog with hostile names",
			files: map[string]string{
				"schemas/com.example.func/event.yaml": "message: init\n",
				"schemas/com.example.func/v1.proto":   hostileProto,
			},
			refused: []string{"com.example.func: Protobuf event types get no Go code from evtool"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"evtool.yaml": "version: 1\nschemas: schemas\n"}
			for k, v := range tt.files {
				files[k] = v
			}
			writeTree(t, dir, files)
			res, err := Generate(load(t, dir), Options{Package: "events"})
			if len(tt.refused) > 0 {
				if err == nil {
					t.Fatalf("generated %d files, want an error", len(res.Files))
				}
				for _, want := range tt.refused {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error lacks %q:\n%v", want, err)
					}
				}
				var po *NoGoCodeError
				if strings.Contains(tt.name, "Protobuf-only") && !errors.As(err, &po) {
					t.Errorf("error is %T, want *NoGoCodeError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var skipped []string
			for _, sk := range res.Skipped {
				skipped = append(skipped, sk.Type)
			}
			if strings.Join(skipped, ",") != strings.Join(tt.skipped, ",") {
				t.Errorf("skipped %v, want %v", res.Skipped, tt.skipped)
			}
			for _, f := range res.Files {
				parsed, err := parser.ParseFile(token.NewFileSet(), f.Name, f.Data, 0)
				if err != nil {
					t.Fatalf("%s: %v", f.Name, err)
				}
				for _, d := range parsed.Decls {
					if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "init" {
						t.Errorf("%s declares init", f.Name)
					}
				}
				for _, s := range tt.absent {
					if strings.Contains(string(f.Data), s) {
						t.Errorf("%s holds %q", f.Name, s)
					}
				}
			}
		})
	}
}
