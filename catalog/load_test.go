package catalog

import (
	"errors"
	"github.com/evtool/evtool/internal/fuzzcost"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/evtool/evtool/format"
	jsonformat "github.com/evtool/evtool/format/jsonschema"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
	"github.com/evtool/evtool/report"
)

// loadArchive loads a txtar catalog fixture through an in-memory FS.
func loadArchive(t testing.TB, file string) (*Catalog, error, *txtar.Archive) {
	t.Helper()
	fsys, a := archiveFS(t, file)
	cat, err := LoadFS(fsys, "")
	return cat, err, a
}

// archiveFS is the files of a txtar archive as a file system.
func archiveFS(t testing.TB, file string) (fstest.MapFS, *txtar.Archive) {
	t.Helper()
	a, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, f := range a.Files {
		fsys[f.Name] = &fstest.MapFile{Data: f.Data, Mode: 0o644}
	}
	return fsys, a
}

type want struct {
	rule, file string
	line       int
	substr     string
}

func parseWants(t *testing.T, comment string) []want {
	var out []want
	for _, l := range strings.Split(comment, "\n") {
		rest, ok := strings.CutPrefix(l, "want: ")
		if !ok {
			continue
		}
		parts := strings.SplitN(rest, " ", 3)
		if len(parts) != 3 {
			t.Fatalf("bad want line %q", l)
		}
		w := want{rule: parts[0], file: parts[1], substr: parts[2]}
		if i := strings.LastIndex(w.file, ":"); i > 0 {
			n, err := strconv.Atoi(w.file[i+1:])
			if err != nil {
				t.Fatalf("bad line in %q", l)
			}
			w.file, w.line = w.file[:i], n
		}
		out = append(out, w)
	}
	return out
}

func TestLoadFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/load/*.txtar")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			_, err, a := loadArchive(t, file)
			wants := parseWants(t, string(a.Comment))
			if strings.HasPrefix(name, "ok-") {
				if err != nil {
					t.Fatalf("unexpected load error:\n%v", err)
				}
				return
			}
			if len(wants) == 0 {
				t.Fatal("fixture has no want: lines")
			}
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v, want a *LoadError", err)
			}
			for _, w := range wants {
				if !hasFinding(le.Findings, w) {
					t.Errorf("no finding %+v among:\n%s", w, dump(le.Findings))
				}
			}
		})
	}
}

func hasFinding(fs []report.Finding, w want) bool {
	for _, f := range fs {
		if f.Rule == w.rule && f.File == w.file && (w.line == 0 || f.Line == w.line) && strings.Contains(f.Message, w.substr) && f.Severity == report.SeverityError {
			return true
		}
	}
	return false
}

func dump(fs []report.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("  " + f.Rule + " " + f.Location() + " " + f.Pointer + " " + f.Message + "\n")
	}
	return b.String()
}

func TestLoadBasic(t *testing.T) {
	cat, err, _ := loadArchive(t, "testdata/load/ok-basic.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cat.Names(), ","); got != "com.example.a,com.example.b" {
		t.Fatalf("types = %s", got)
	}
	a := cat.Lookup("com.example.a")
	if len(a.Versions) != 2 || a.Latest().Number != 2 || a.Version(3) != nil {
		t.Fatalf("versions wrong: %+v", a.Versions)
	}
	if a.Meta.Owner != "team-a" || a.Meta.PartitionKey != "/id" || !a.Deprecated(1) || a.Deprecated(2) {
		t.Errorf("meta = %+v", a.Meta)
	}
	if !a.SourceMatches("/svc/x") || a.SourceMatches("/other") {
		t.Error("source pattern not applied")
	}
	if mode, profile := cat.Compat(a); mode != ModeFull || profile != DefaultProfile {
		t.Errorf("compat(a) = %s %s", mode, profile)
	}
	if mode, _ := cat.Compat(cat.Lookup("com.example.b")); mode != ModeBackward {
		t.Errorf("compat(b) = %s, want evtool.yaml's BACKWARD", mode)
	}
	v2 := a.Version(2)
	if jsonSchemaOf(v2) == nil || !strings.HasPrefix(v2.Digest, "sha256:") || len(v2.Examples) != 1 {
		t.Fatalf("v2 = %+v", v2)
	}
	if probs := cat.CheckExamples(); len(probs) != 0 {
		t.Fatalf("examples: %v", probs)
	}
	// The $id-referenced money schema and the cyclic tree are in force.
	bad := map[string]any{"id": "x", "price": map[string]any{"currency": "EUR"}}
	if validationProblems(v2, bad) == nil {
		t.Error("price without amount accepted: $id ref not resolved")
	}
	deep := map[string]any{"id": "x", "tree": map[string]any{"children": []any{map[string]any{"name": 5}}}}
	if validationProblems(v2, deep) == nil {
		t.Error("cyclic ref not enforced")
	}
	// draft-07 by $schema, 2020-12 by default.
	if d := jsonSchemaOf(cat.Lookup("com.example.b").Version(1)).DraftVersion; d != 7 {
		t.Errorf("b draft = %d", d)
	}
	if d := jsonSchemaOf(a.Version(1)).DraftVersion; d != 2020 {
		t.Errorf("default draft = %d", d)
	}
	uri := cat.DataSchema("com.example.a", 2)
	if uri != "https://schemas.example.com/com.example.a/v2.json" {
		t.Errorf("dataschema = %s", uri)
	}
	if v, err := cat.Resolve(uri); err != nil || v != v2 {
		t.Errorf("Resolve = %v, %v", v, err)
	}
	for _, bad := range []string{"https://schemas.example.com/com.example.a/v3.json", "https://schemas.example.com/com.example.zz/v1.json", "https://other/x"} {
		if _, err := cat.Resolve(bad); err == nil {
			t.Errorf("Resolve(%s) succeeded", bad)
		}
	}
}

func TestExampleInvalid(t *testing.T) {
	fsys := fstest.MapFS{
		"evtool.yaml":                      {Data: []byte("version: 1\n")},
		"schemas/x.y/v1.json":              {Data: []byte(`{"type":"object","required":["id"],"properties":{"id":{"type":"string"}}}`)},
		"schemas/x.y/examples/v1/bad.json": {Data: []byte("{\n  \"id\": 5\n}")},
	}
	cat, err := LoadFS(fsys, "cat")
	if err != nil {
		t.Fatal(err)
	}
	probs := cat.CheckExamples()
	if len(probs) != 1 || probs[0].Rule != RuleExampleInvalid || probs[0].Line != 2 || probs[0].Pointer != "/id" ||
		probs[0].File != filepath.Join("cat", "schemas/x.y/examples/v1/bad.json") {
		t.Fatalf("findings = %s", dump(probs))
	}
}

func TestDigestIgnoresFormatting(t *testing.T) {
	mk := func(text string) string {
		cat, err := LoadFS(fstest.MapFS{"evtool.yaml": {Data: []byte("version: 1")}, "schemas/x.y/v1.json": {Data: []byte(text)}}, "")
		if err != nil {
			t.Fatal(err)
		}
		return cat.Types[0].Versions[0].Digest
	}
	a := mk(`{"type":"object","maximum":10,"properties":{"b":{},"a":{}}}`)
	b := mk("{\n  \"properties\": {\"a\": {}, \"b\": {}},\n  \"maximum\": 1e1,\n  \"type\": \"object\"\n}")
	c := mk(`{"type":"object","maximum":11,"properties":{"b":{},"a":{}}}`)
	if a != b {
		t.Error("formatting changed the digest")
	}
	if a == c {
		t.Error("a content change kept the digest")
	}
}

func TestLoadDirErrors(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing dir: %v", err)
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, []byte("x"), 0o644)
	if _, err := Load(f); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file as dir: %v", err)
	}
}

func TestSymlinkEscape(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.json"), []byte(`{"type":"string"}`), 0o644)
	os.MkdirAll(filepath.Join(dir, "schemas", "x.y"), 0o755)
	os.WriteFile(filepath.Join(dir, "evtool.yaml"), []byte("version: 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "schemas", "x.y", "v1.json"), []byte(`{"$ref": "../link/secret.json"}`), 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, "schemas", "link")); err != nil {
		t.Skip(err)
	}
	_, err := Load(dir)
	if err == nil {
		t.Fatal("a $ref through a symlink out of the catalog loaded")
	}
}

// Files that are symlinks out of the catalog are refused too: a version
// file, and a shared file a $ref names. A link inside the catalog is fine.
func TestSymlinkedFilesEscape(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside.json")
	os.WriteFile(outside, []byte(`{"type":"integer"}`), 0o644)
	for _, tt := range []struct {
		name, link, target string
		escapes            bool
	}{
		{"version file", "schemas/x.y/v1.json", outside, true},
		{"shared file", "schemas/common/c.json", outside, true},
		{"inside the catalog", "schemas/common/c.json", "real.json", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "schemas", "x.y"), 0o755)
			os.MkdirAll(filepath.Join(dir, "schemas", "common"), 0o755)
			os.WriteFile(filepath.Join(dir, "evtool.yaml"), []byte("version: 1\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "schemas", "common", "real.json"), []byte(`{"type":"string"}`), 0o644)
			if tt.link != "schemas/x.y/v1.json" {
				os.WriteFile(filepath.Join(dir, "schemas", "x.y", "v1.json"), []byte(`{"$ref": "../common/c.json"}`), 0o644)
			}
			if err := os.Symlink(tt.target, filepath.Join(dir, filepath.FromSlash(tt.link))); err != nil {
				t.Skip(err)
			}
			_, err := Load(dir)
			if tt.escapes && (err == nil || !strings.Contains(err.Error(), "escapes")) {
				t.Fatalf("loaded through a symlink out of the catalog: %v", err)
			}
			if !tt.escapes && err != nil {
				t.Fatalf("a symlink inside the catalog: %v", err)
			}
		})
	}
}

// FuzzLoad feeds arbitrary contents to each kind of catalog file. (It does
// not fuzz txtar archives: go-internal's txtar.Parse panics on "-- --".)
func FuzzLoad(f *testing.F) {
	f.Add([]byte("version: 1\n"), []byte("owner: x\n"), []byte(`{"$ref": "../common/s.json"}`), []byte(`{"$ref": "v1.json"}`), []byte(`{"type":"string"}`), []byte(`"x"`))
	f.Add([]byte("version: 1\ncompat: {mode: FULL}\n"), []byte("deprecated: [1]"), []byte(`{"$ref": "#"}`), []byte(`{"$ref": "../../x"}`), []byte(`{"$ref": "v2.json"}`), []byte(`{}`))
	f.Add([]byte("version: 1\nschemas: s"), []byte("source: ("), []byte(`{"properties": {"a": {"$ref": "http://x"}}}`), []byte("\xff"), []byte(""), []byte(`[`))
	f.Fuzz(func(t *testing.T, config, meta, v1, v2, shared, example []byte) {
		fuzzcost.Default().Check(t, len(config)+len(meta)+len(v1)+len(v2)+len(shared)+len(example), func() {
			fsys := fstest.MapFS{
				"evtool.yaml":                    {Data: config},
				"schemas/x.y/event.yaml":         {Data: meta},
				"schemas/x.y/v1.json":            {Data: v1},
				"schemas/x.y/v2.json":            {Data: v2},
				"schemas/common/s.json":          {Data: shared},
				"schemas/x.y/examples/v1/a.json": {Data: example},
			}
			checkFuzzLoad(t, fsys)
		})
	})
}

// checkFuzzLoad loads a fuzzed catalog: never nil, every problem a
// *LoadError finding (or example finding) with rule, file and message.
func checkFuzzLoad(t *testing.T, fsys fstest.MapFS) {
	cat, err := LoadFS(fsys, "")
	if cat == nil {
		t.Fatal("nil catalog")
	}
	var le *LoadError
	if err != nil {
		if !errors.As(err, &le) {
			t.Fatalf("error is not a *LoadError: %v", err)
		}
		for _, f := range le.Findings {
			if f.Message == "" || f.Rule == "" || f.File == "" {
				t.Fatalf("finding without rule, file or message: %+v", f)
			}
		}
		return
	}
	for _, f := range cat.CheckExamples() {
		if f.Message == "" || f.Rule == "" || f.File == "" {
			t.Fatalf("example finding without rule, file or message: %+v", f)
		}
	}
}

func TestScaffoldLoadsClean(t *testing.T) {
	dir := t.TempDir()
	files, err := Scaffold(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Errorf("wrote %v", files)
	}
	cat, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Warnings) != 0 || len(cat.CheckExamples()) != 0 {
		t.Fatalf("scaffold not clean: %v %v", cat.Warnings, cat.CheckExamples())
	}
	if _, err := Scaffold(dir); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("second scaffold: %v", err)
	}
}

// format is an annotation in every draft unless assert_formats is set.
func TestFormatAnnotationAllDrafts(t *testing.T) {
	for _, assert := range []bool{false, true} {
		cfg := "version: 1\n"
		if assert {
			cfg += "assert_formats: true\n"
		}
		cat, err := LoadFS(fstest.MapFS{
			"evtool.yaml":           {Data: []byte(cfg)},
			"schemas/x.d7/v1.json":  {Data: []byte(`{"$schema": "http://json-schema.org/draft-07/schema#", "format": "email"}`)},
			"schemas/x.d20/v1.json": {Data: []byte(`{"format": "email"}`)},
		}, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"x.d7", "x.d20"} {
			invalid := validationProblems(cat.Lookup(name).Version(1), "not an email") != nil
			if invalid != assert {
				t.Errorf("assert_formats=%v: %s rejects a bad email: %v", assert, name, invalid)
			}
		}
	}
}

// A type named "examples" is a type (only a type's own examples/ holds
// data, not schemas): its versions are compiled and checked.
func TestTypeNamedExamples(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "schemas", "examples", "examples", "v1"), 0o755)
	os.WriteFile(filepath.Join(dir, "evtool.yaml"), []byte("version: 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "schemas", "examples", "v1.json"), []byte(`{"type":"object","required":["a"]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "schemas", "examples", "examples", "v1", "ok.json"), []byte(`{"a":1}`), 0o644)
	cat, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	v := cat.Lookup("examples").Version(1)
	if v == nil || jsonSchemaOf(v) == nil || jsonSchemaOf(v).Validate(map[string]any{}) == nil || len(v.Examples) != 1 {
		t.Fatalf("version %+v", v)
	}
}

// A version gap is reported once: the examples of the versions that exist
// are not called orphans.
func TestVersionGapNoOrphanExamples(t *testing.T) {
	_, err := LoadFS(fstest.MapFS{
		"evtool.yaml":                    {Data: []byte("version: 1\n")},
		"schemas/x.y/v1.json":            {Data: []byte(`{}`)},
		"schemas/x.y/v3.json":            {Data: []byte(`{}`)},
		"schemas/x.y/examples/v1/a.json": {Data: []byte(`{}`)},
	}, "")
	var le *LoadError
	if !errors.As(err, &le) || len(le.Findings) != 1 || le.Findings[0].Rule != RuleVersionGap {
		t.Fatalf("findings: %v", err)
	}
}

// jsonSchemaOf is the library's compiled schema of a JSON Schema
// version (nil for another format or a version that did not compile).
func jsonSchemaOf(v *Version) *jsonschema.Schema {
	if js, ok := v.Compiled.(*jsonformat.Schema); ok {
		return js.JSONSchema()
	}
	return nil
}

// validationProblems validates v against a version's schema through its
// provider, as the catalog's examples are checked.
func validationProblems(ver *Version, v any) format.Errors {
	return format.ValueErrors(ver.Compiled.(format.ValueValidator).ValidateValue(v))
}
