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
	fsys := fstest.MapFS{}
	for name, text := range map[string]string{
		"schemas/a.b/v1.json": `{"title": "B", "description": "A b happened.", "type": "object", "required": ["zeta"],
			"properties": {"zeta": {"type": "string", "format": "date"}, "amount": {"$ref": "../common/money.json"},
			"where": {"$ref": "https://example.test/where.json"}, "alpha": {"enum": [1, 2]}}}`,
		"schemas/common/money.json": `{"title": "Money", "type": "object", "properties": {"units": {"type": "integer", "minimum": 0}, "currency": {"type": "string", "pattern": "^[A-Z]{3}$"}}}`,
		"schemas/common/where.json": `{"$id": "https://example.test/where.json", "type": "object", "properties": {"bin": {"type": "string"}, "aisle": {"type": "integer"}}}`,
	} {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
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
	s, f := sess.CompileVersion("a.b/v1.json", "schemas/a.b/v1.json", "a.b v1")
	if f != nil {
		t.Fatal(f)
	}
	files := format.FieldDocFiles{FS: fsys, Locate: func(u string) (string, string, bool) {
		f := root.ByURL(u)
		if f == nil {
			return "", "", false
		}
		return path.Join("schemas", f.Rel), f.Rel, true
	}}
	type row struct{ Path, Type, Ref, Cons string }
	rows := func(docs []format.FieldDoc) []row {
		var out []row
		for _, d := range docs {
			r := row{Path: d.Path, Type: d.Type, Ref: d.RefName}
			for _, c := range d.Constraints {
				r.Cons += c + ";"
			}
			out = append(out, r)
		}
		return out
	}
	fd := format.FieldDocumenter(Provider{})
	rootDoc, docs, truncated := fd.FieldDocs(s, files)
	if rootDoc.Type != "object" || rootDoc.Title != "B" || rootDoc.Description != "A b happened." || truncated {
		t.Errorf("root %+v, truncated %v", rootDoc, truncated)
	}
	want := []row{
		{Path: "zeta", Type: "string", Cons: "format date;"},
		{Path: "amount", Type: "object", Ref: "Money · common/money.json"},
		{Path: "amount.units", Type: "integer", Cons: "≥ 0;"},
		{Path: "amount.currency", Type: "string", Cons: "pattern ^[A-Z]{3}$;"},
		{Path: "where", Type: "object", Ref: "common/where.json"},
		{Path: "where.bin", Type: "string"},
		{Path: "where.aisle", Type: "integer"},
		{Path: "alpha", Type: "integer"},
	}
	if diff := cmp.Diff(want, rows(docs)); diff != "" {
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
	if _, again, _ := fd.FieldDocs(s, files); !cmp.Equal(rows(first), rows(again)) || !cmp.Equal(rows(first), want) {
		t.Errorf("from the cache (-first +again):\n%s", cmp.Diff(rows(first), rows(again)))
	}

	// No files: name order, definitions named as the schema does, and no
	// format (the compiled schema keeps none when formats are not
	// asserted).
	_, docs, _ = fd.FieldDocs(s, format.FieldDocFiles{})
	want = []row{
		{Path: "alpha", Type: "integer"},
		{Path: "amount", Type: "object", Ref: "Money"},
		{Path: "amount.currency", Type: "string", Cons: "pattern ^[A-Z]{3}$;"},
		{Path: "amount.units", Type: "integer", Cons: "≥ 0;"},
		{Path: "where", Type: "object"},
		{Path: "where.aisle", Type: "integer"},
		{Path: "where.bin", Type: "string"},
		{Path: "zeta", Type: "string"},
	}
	if diff := cmp.Diff(want, rows(docs)); diff != "" {
		t.Errorf("rows without files (-want +got):\n%s", diff)
	}
}
