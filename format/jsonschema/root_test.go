package jsonschema

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// readRoot reads the JSON files of a map file system rooted at "schemas".
func readRoot(t *testing.T, files map[string]string) (Files, []string) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	got, probs := ReadRoot(fsys, RootReader{
		Root:        "schemas",
		Show:        func(p string) string { return p },
		Skip:        func(dir string) bool { return path.Base(dir) == "examples" },
		PathProblem: func(_ string, err error) string { return err.Error() },
	})
	var msgs []string
	for _, f := range probs {
		msgs = append(msgs, f.Rule+" "+f.File+" "+f.Message)
	}
	return got, msgs
}

// $refs resolve to the root's files and the $ids they declare, never to
// a path outside the root or to the network; each refusal says why.
func TestRootRefs(t *testing.T) {
	files, probs := readRoot(t, map[string]string{
		"schemas/a.b/v1.json":        `{"type": "object"}`,
		"schemas/common/money.json":  `{"$id": "https://example.com/money.json", "type": "number"}`,
		"schemas/common/broken.json": `{"type": `,
		"secret.json":                `{"type": "string"}`,
	})
	if len(probs) != 1 || !strings.HasPrefix(probs[0], "schema-json schemas/common/broken.json malformed JSON") {
		t.Fatalf("problems %q, want the malformed file's", probs)
	}
	if files["secret.json"] != nil || files["../secret.json"] != nil {
		t.Fatal("a file outside the root was read")
	}
	tests := []struct {
		url, want string // want: "" loads
	}{
		{FileURL("a.b/v1.json"), ""},
		{FileURL("common/money.json") + "#/type", ""},
		{"https://example.com/money.json", ""},
		{"file:///evtool-catalog/../secret.json", "escapes the catalog root"},
		{"file:///etc/passwd", "escapes the catalog root"},
		{FileURL("common/none.json"), "no such JSON file in the catalog"},
		{FileURL("common/broken.json"), "that file is not valid JSON"},
		{"https://example.com/other.json", "evtool never fetches schemas from the network"},
		{"ftp://example.com/x.json", `unsupported URL scheme "ftp"`},
		{"../meta/custom.json", "a relative URL where an absolute one is needed"},
		{"http://[::1", `"http://[::1" is not a valid URL`},
	}
	l := files.Loader()
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			doc, err := l.Load(tt.url)
			if tt.want == "" {
				if err != nil || doc == nil {
					t.Fatalf("Load = %v, %v", doc, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load = %v; want an error saying %q", err, tt.want)
			}
		})
	}
}

// Two files declaring one $id are a finding at the second's $id; examples
// directories are not read.
func TestReadRootDuplicateID(t *testing.T) {
	files, probs := readRoot(t, map[string]string{
		"schemas/a/x.json":             `{"$id": "https://e.com/x"}`,
		"schemas/b/x.json":             "{\n  \"$id\": \"https://e.com/x#\"\n}",
		"schemas/a/examples/v1/e.json": `{"$id": "https://e.com/x"}`,
	})
	want := `schema-duplicate-id schemas/b/x.json $id "https://e.com/x#" is also declared by schemas/a/x.json`
	if len(probs) != 1 || probs[0] != want {
		t.Fatalf("problems %q, want %q", probs, want)
	}
	if _, ok := files["a/examples/v1/e.json"]; ok {
		t.Fatal("an example was read as a schema")
	}
}

// A compile error names the file and pointer of the $ref that failed.
func TestCompileFindingLocatesRef(t *testing.T) {
	files, _ := readRoot(t, map[string]string{
		"schemas/a.b/v1.json": "{\n  \"properties\": {\n    \"x\": {\"$ref\": \"../../outside.json\"}\n  }\n}",
	})
	_, err := files.Compiler(false, DefaultDraft).Compile(FileURL("a.b/v1.json"))
	if err == nil {
		t.Fatal("a $ref out of the root compiled")
	}
	f := files.CompileFinding("schemas/a.b/v1.json", "a.b v1", err)
	if f.Rule != RuleSchemaRef || f.File != "schemas/a.b/v1.json" || f.Line != 3 || f.Pointer != "/properties/x/$ref" || !strings.Contains(f.Message, "escapes the catalog root") {
		t.Fatalf("finding %+v", f)
	}
}

// A schema file outside a catalog reaches the files of the directory
// holding the marker above it, or of its own directory without one; never
// above.
func TestSchemaFileConfinement(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cat/evtool.yaml", "version: 1\n")
	write("cat/common/c.json", `{"type": "string"}`)
	write("cat/x/v1.json", `{"$ref": "../common/c.json"}`)
	write("outside.json", `{"type": "string"}`)
	write("cat/x/v2.json", `{"$ref": "../../outside.json"}`)
	write("cat/x/v3.json", `{"$ref": "https://example.com/x.json"}`)
	write("cat/x/v4.json", `{"$ref": "ftp://example.com/x.json"}`)
	tests := []struct {
		file, marker, want string
	}{
		{"cat/x/v1.json", "evtool.yaml", ""},
		{"cat/x/v1.json", "", "escapes the schema's directory"},
		{"cat/x/v2.json", "evtool.yaml", "escapes the schema's directory"},
		{"cat/x/v2.json", "", "escapes the schema's directory"},
		{"cat/x/v3.json", "evtool.yaml", "no loaded schema declares this $id, and evtool never fetches schemas from the network"},
		{"cat/x/v4.json", "evtool.yaml", `unsupported URL scheme "ftp" (use a relative path)`},
	}
	for _, tt := range tests {
		t.Run(tt.file+" "+tt.marker, func(t *testing.T) {
			sf, err := LoadSchemaFileWith(filepath.Join(dir, tt.file), SchemaFileOptions{Marker: tt.marker})
			if tt.want == "" {
				if err != nil || sf.Schema == nil {
					t.Fatalf("load: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("load: %v; want an error saying %q", err, tt.want)
			}
		})
	}
}

// Formatting, key order and number spelling do not change the canonical
// form; values do.
func TestCanonical(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{`{"b": 1, "a": [1.0, 2e0]}`, `{"a":[1,2],"b":1.00}`, true},
		{`{"a": "<&>"}`, `{"a":"\u003c&>"}`, true},
		{`{"a": 1}`, `{"a": 2}`, false},
		{`{"a": 0.1}`, `{"a": 1e-1}`, true},
	}
	for _, tt := range tests {
		files, _ := readRoot(t, map[string]string{"schemas/a.json": tt.a, "schemas/b.json": tt.b})
		ca, cb := string(Canonical(files["a.json"].Doc)), string(Canonical(files["b.json"].Doc))
		if (ca == cb) != tt.same {
			t.Errorf("%s vs %s: canonical %s and %s", tt.a, tt.b, ca, cb)
		}
	}
}
