package jsonschema

import (
	"path"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/format"
)

// TestFieldDocs: the provider lists a JSON Schema's fields with what its
// $refs add, properties in the order written, shared definitions named
// by title and file (reached by path or by $id alone), and the format
// keyword from the file even when formats are not asserted; without
// files the properties come in name order and definitions by title only.
func TestFieldDocs(t *testing.T) {
	s, files := fieldDocsFixture(t, "a.b/v1.json", map[string]string{
		"a.b/v1.json": `{"title": "B", "description": "A b happened.", "type": "object", "required": ["zeta"],
			"properties": {"zeta": {"type": "string", "format": "date"}, "amount": {"$ref": "../common/money.json"},
			"where": {"$ref": "https://example.test/where.json"}, "alpha": {"enum": [1, 2]}}}`,
		"common/money.json": `{"title": "Money", "type": "object", "properties": {"units": {"type": "integer", "minimum": 0}, "currency": {"type": "string", "pattern": "^[A-Z]{3}$"}}}`,
		"common/where.json": `{"$id": "https://example.test/where.json", "type": "object", "properties": {"bin": {"type": "string"}, "aisle": {"type": "integer"}}}`,
	})
	fd := format.FieldDocumenter(Provider{})
	rootDoc, docs, truncated := fd.FieldDocs(s, files)
	if rootDoc.Type != "object" || rootDoc.Title != "B" || rootDoc.Description != "A b happened." || truncated {
		t.Errorf("root %+v, truncated %v", rootDoc, truncated)
	}
	want := []fieldRow{
		{Path: "zeta", Type: "string", Cons: "format date;"},
		{Path: "amount", Type: "object", Ref: "Money · common/money.json"},
		{Path: "amount.units", Type: "integer", Cons: "≥ 0;"},
		{Path: "amount.currency", Type: "string", Cons: "pattern ^[A-Z]{3}$;"},
		{Path: "where", Type: "object", Ref: "common/where.json"},
		{Path: "where.bin", Type: "string"},
		{Path: "where.aisle", Type: "integer"},
		{Path: "alpha", Type: "integer"},
	}
	if diff := cmp.Diff(want, fieldRows(docs)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if !docs[0].Required || docs[1].Required || !docs[0].Property {
		t.Errorf("required/property: %+v", docs[:2])
	}

	// A cache the caller keeps: the files are read once, for every
	// schema that uses them.
	files.Cache = map[string]any{}
	_, first, _ := fd.FieldDocs(s, files)
	if len(files.Cache) != 3 {
		t.Errorf("cache holds %d files, want the 3 the schema uses", len(files.Cache))
	}
	files.FS = fstest.MapFS{} // nothing to read again
	if _, again, _ := fd.FieldDocs(s, files); !cmp.Equal(fieldRows(first), fieldRows(again)) || !cmp.Equal(fieldRows(first), want) {
		t.Errorf("from the cache (-first +again):\n%s", cmp.Diff(fieldRows(first), fieldRows(again)))
	}

	// No files: name order, definitions named as the schema does, and no
	// format (the compiled schema keeps none when formats are not
	// asserted).
	_, docs, _ = fd.FieldDocs(s, format.FieldDocFiles{})
	want = []fieldRow{
		{Path: "alpha", Type: "integer"},
		{Path: "amount", Type: "object", Ref: "Money"},
		{Path: "amount.currency", Type: "string", Cons: "pattern ^[A-Z]{3}$;"},
		{Path: "amount.units", Type: "integer", Cons: "≥ 0;"},
		{Path: "where", Type: "object"},
		{Path: "where.aisle", Type: "integer"},
		{Path: "where.bin", Type: "string"},
		{Path: "zeta", Type: "string"},
	}
	if diff := cmp.Diff(want, fieldRows(docs)); diff != "" {
		t.Errorf("rows without files (-want +got):\n%s", diff)
	}
}

// TestFieldDocsEscapedNames: property names holding '/' and '~' (escaped
// in JSON pointers as ~1 and ~0) still find their place in the file: the
// nested properties come in the order written and the format keyword is
// read from the file.
func TestFieldDocsEscapedNames(t *testing.T) {
	s, files := fieldDocsFixture(t, "e/v1.json", map[string]string{
		"e/v1.json": `{"type": "object", "properties": {"a/b~c": {"type": "object",
			"properties": {"zz": {"type": "string", "format": "date"}, "aa": {"type": "integer"}}}}}`,
	})
	_, docs, _ := Provider{}.FieldDocs(s, files)
	want := []fieldRow{
		{Path: "a/b~c", Type: "object"},
		{Path: "a/b~c.zz", Type: "string", Cons: "format date;"},
		{Path: "a/b~c.aa", Type: "integer"},
	}
	if diff := cmp.Diff(want, fieldRows(docs)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// fieldDocsFixture compiles version rel of a schema root "schemas" holding
// texts (by path in the root) and the files FieldDocs reads them from.
func fieldDocsFixture(t *testing.T, rel string, texts map[string]string) (format.Schema, format.FieldDocFiles) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, text := range texts {
		fsys[path.Join("schemas", name)] = &fstest.MapFile{Data: []byte(text)}
	}
	root, probs := ReadRoot(fsys, format.RootReader{
		Root:        "schemas",
		Show:        func(p string) string { return p },
		Skip:        func(string) bool { return false },
		PathProblem: func(_ string, err error) string { return err.Error() },
	})
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	sess, err := root.Session(format.RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, f := sess.CompileVersion(rel, path.Join("schemas", rel), rel)
	if f != nil {
		t.Fatal(f)
	}
	return s, format.FieldDocFiles{FS: fsys, Locate: func(u string) (string, string, bool) {
		f := root.ByURL(u)
		if f == nil {
			return "", "", false
		}
		return path.Join("schemas", f.Rel), f.Rel, true
	}}
}

type fieldRow struct{ Path, Type, Ref, Cons string }

func fieldRows(docs []format.FieldDoc) []fieldRow {
	var out []fieldRow
	for _, d := range docs {
		r := fieldRow{Path: d.Path, Type: d.Type, Ref: d.RefName}
		for _, c := range d.Constraints {
			r.Cons += c + ";"
		}
		out = append(out, r)
	}
	return out
}
