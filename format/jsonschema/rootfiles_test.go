package jsonschema

import (
	"slices"
	"strings"
	"testing"
)

// RefInputs reaches what a version's references and ids may load: files by
// path, files by the $id they declare, transitively, each once; a path
// inside the root that no file holds is absent.
func TestRootFilesRefInputs(t *testing.T) {
	files, probs := readRoot(t, map[string]string{
		"schemas/a/v1.json":      `{"properties": {"x": {"$ref": "../common/x.json"}, "y": {"$ref": "https://example.com/y"}}}`,
		"schemas/common/x.json":  `{"$ref": "z.json#/$defs/z"}`,
		"schemas/common/z.json":  `{"$defs": {"z": {"type": "string"}}}`,
		"schemas/common/y.json":  `{"$id": "https://example.com/y", "type": "integer"}`,
		"schemas/b/v1.json":      `{"$ref": "../common/gone.json"}`,
		"schemas/c/v1.json":      `{"type": "string"}`,
		"schemas/common/un.json": `{"type": "boolean"}`,
	})
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	rf := files.RootFiles()
	tests := []struct {
		rels         []string
		read, absent []string
	}{
		{[]string{"a/v1.json"}, []string{"a/v1.json", "common/x.json", "common/y.json", "common/z.json"}, nil},
		{[]string{"b/v1.json"}, []string{"b/v1.json"}, []string{"common/gone.json"}},
		{[]string{"c/v1.json", "c/v1.json"}, []string{"c/v1.json"}, nil},
		{[]string{"d/v1.json"}, []string{"d/v1.json"}, nil},
	}
	for _, tc := range tests {
		var read, absent []string
		rf.RefInputs(tc.rels, func(rel string) { read = append(read, rel) }, func(rel string) { absent = append(absent, rel) })
		slices.Sort(read)
		if !slices.Equal(read, tc.read) || !slices.Equal(absent, tc.absent) {
			t.Errorf("RefInputs(%q) read %q absent %q, want %q and %q", tc.rels, read, absent, tc.read, tc.absent)
		}
	}
}

// A file whose candidate bases grow past maxBases may reach any file: all
// of them are read.
func TestRootFilesRefInputsWild(t *testing.T) {
	var b strings.Builder
	for i := 0; i <= maxBases; i++ {
		b.WriteString(`{"$id": "d` + strings.Repeat("x", i) + `/", "items": `)
	}
	b.WriteString(`{}`)
	b.WriteString(strings.Repeat("}", maxBases+1))
	files, probs := readRoot(t, map[string]string{
		"schemas/a/v1.json":     b.String(),
		"schemas/common/x.json": `{"type": "string"}`,
	})
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	var read []string
	files.RootFiles().RefInputs([]string{"a/v1.json"}, func(rel string) { read = append(read, rel) }, func(string) {})
	slices.Sort(read)
	if want := []string{"a/v1.json", "common/x.json"}; !slices.Equal(read, want) {
		t.Errorf("read %q, want %q", read, want)
	}
}

// Locate, LineOf and FileOfURL answer by display path and compiled URL;
// Document decodes an evicted file again.
func TestRootFilesLookups(t *testing.T) {
	files, _ := readRoot(t, map[string]string{
		"schemas/a/v1.json": "{\n  \"$id\": \"https://example.com/a\",\n  \"properties\": {\n    \"x\": {\"type\": \"string\"}\n  }\n}",
	})
	rf := files.RootFiles()
	u := rf.URL("a/v1.json")
	if file, ptr := rf.Locate(u + "#/properties/x"); file != "schemas/a/v1.json" || ptr != "/properties/x" {
		t.Errorf("Locate: %q %q", file, ptr)
	}
	if file, ptr := rf.Locate("file:///elsewhere#/x"); file != "" || ptr != "file:///elsewhere#/x" {
		t.Errorf("Locate of an unknown URL: %q %q", file, ptr)
	}
	if got := rf.LineOf("schemas/a/v1.json", "/properties/x"); got != 4 {
		t.Errorf("LineOf = %d, want 4", got)
	}
	if got := rf.LineOf("schemas/b/v1.json", "/properties/x"); got != 0 {
		t.Errorf("LineOf of an unknown file = %d, want 0", got)
	}
	for _, url := range []string{u, "https://example.com/a#/properties"} {
		display, rel, digest, ok := rf.FileOfURL(url)
		if !ok || display != "schemas/a/v1.json" || rel != "a/v1.json" || digest != Digest(files["a/v1.json"].Doc) {
			t.Errorf("FileOfURL(%s) = %q %q %q %v", url, display, rel, digest, ok)
		}
	}
	if _, _, _, ok := rf.FileOfURL("https://example.com/b"); ok {
		t.Error("FileOfURL of an unknown URL: ok")
	}
	want := string(Canonical(rf.Document("a/v1.json")))
	if rf.Evicted("a/v1.json") {
		t.Error("evicted before Evict")
	}
	files["a/v1.json"].Evict()
	if !rf.Evicted("a/v1.json") || string(Canonical(rf.Document("a/v1.json"))) != want {
		t.Errorf("after Evict: evicted %v, document %s", rf.Evicted("a/v1.json"), Canonical(rf.Document("a/v1.json")))
	}
	if rf.Document("b/v1.json") != nil || rf.Evicted("b/v1.json") {
		t.Error("an unknown file has a document or was evicted")
	}
}
