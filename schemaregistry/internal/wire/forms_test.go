package wire

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/schemaregistry/internal/srtest"
)

// compileStandalone compiles a registry form as the only file of a new
// catalog, the way the catalog compiles a version: any reference that
// leaves it fails.
func compileStandalone(t *testing.T, doc any) format.ValueValidator {
	t.Helper()
	text, err := jsonvalue.MarshalIndent(doc)
	if err != nil {
		t.Fatal(err)
	}
	dir := srtest.WriteCatalog(t, map[string]string{"evtool.yaml": "version: 1\n", "schemas/com.example.bundle/v1.json": string(text)})
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatalf("the registry form does not compile on its own: %v", err)
	}
	v := cat.Lookup("com.example.bundle").Version(1)
	vv, ok := v.Compiled.(format.ValueValidator)
	if v.Compiled == nil || !ok {
		t.Fatalf("the registry form does not compile on its own: %s", text)
	}
	return vv
}

func TestFormsOfOrders(t *testing.T) {
	cat := srtest.LoadCat(t, srtest.CopyCatalog(t, filepath.Join("..", "..", "..", "examples", "orders")))
	forms := CatalogForms(cat)
	for _, typ := range cat.Types {
		for _, v := range typ.Versions {
			f, err := forms.Of(v)
			if err != nil {
				t.Fatal(err)
			}
			if !f.Bundled {
				t.Fatalf("%s v%d $refs a shared file but was not bundled", typ.Name, v.Number)
			}
			if refs := ExternalRefs(f.Doc); len(refs) != 0 {
				t.Fatalf("%s v%d still has external refs %v", typ.Name, v.Number, refs)
			}
			again, err := jsonstrict.Decode(f.Text)
			if err != nil || jsonvalue.Digest(again) != f.Digest {
				t.Fatalf("text and digest disagree: %v", err)
			}
			sch := compileStandalone(t, f.Doc)
			// Examples valid under the catalog version are valid under
			// the bundle; the closed Money object stays closed.
			for _, ex := range v.Examples {
				if err := sch.ValidateValue(ex.Value); err != nil {
					t.Fatalf("%s: %v", ex.File, err)
				}
				if m, ok := ex.Value.(map[string]any); ok {
					for _, k := range []string{"total", "amount"} {
						if money, ok := m[k].(map[string]any); ok {
							money["exchangeRate"] = "1.1"
							if sch.ValidateValue(ex.Value) == nil {
								t.Fatalf("%s: the bundle opened the closed Money object", ex.File)
							}
							delete(money, "exchangeRate")
						}
					}
				}
			}
			defs := f.Doc.(map[string]any)["$defs"].(map[string]any)
			if _, ok := defs["common.money"]; !ok && typ.Name != "com.example.order.shipped" {
				t.Fatalf("%s: $defs keys %v", typ.Name, keys(defs))
			}
		}
	}
	// Deterministic.
	f1, _ := CatalogForms(cat).Of(cat.Lookup("com.example.order.placed").Version(2))
	f2, _ := CatalogForms(cat).Of(cat.Lookup("com.example.order.placed").Version(2))
	if !bytes.Equal(f1.Text, f2.Text) {
		t.Fatal("bundling is not deterministic")
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestFormWithoutExternalRefsIsTheFile(t *testing.T) {
	cat := srtest.LoadCat(t, srtest.MinimalCatalog(t, "NONE", nil))
	v := cat.Types[0].Versions[0]
	f, err := CatalogForms(cat).Of(v)
	if err != nil || f.Bundled || !bytes.Equal(f.Text, v.Text) || f.Digest != v.Digest {
		t.Fatalf("form %+v, %v", f, err)
	}
}

func TestBundleCases(t *testing.T) {
	const head = `"$schema": "https://json-schema.org/draft/2020-12/schema", `
	const draft7 = `"$schema": "http://json-schema.org/draft-07/schema#", `
	cases := []struct {
		name  string
		files map[string]string
		// config is added to evtool.yaml.
		config string
		err    string
		check  func(t *testing.T, f *Form)
	}{
		{
			name: "chain, pointer fragment and existing $defs",
			files: map[string]string{
				"v1.json":          `{` + head + `"$defs": {"common.a": {"type": "null"}}, "properties": {"a": {"$ref": "../common/a.json#/$defs/inner"}, "b": {"$ref": "#/$defs/common.a"}}}`,
				"../common/a.json": `{` + head + `"$defs": {"inner": {"$ref": "b.json"}}}`,
				"../common/b.json": `{"type": "string", "maxLength": 3}`,
			},
			check: func(t *testing.T, f *Form) {
				sch := compileStandalone(t, f.Doc)
				if sch.ValidateValue(map[string]any{"a": "abc", "b": nil}) != nil || sch.ValidateValue(map[string]any{"a": "abcd"}) == nil {
					t.Fatalf("bundle lost meaning:\n%s", f.Text)
				}
				s := string(f.Text)
				if !strings.Contains(s, `"#/$defs/common.a-2/$defs/inner"`) || !strings.Contains(s, `"#/$defs/common.b"`) {
					t.Fatalf("unexpected refs:\n%s", s)
				}
			},
		},
		{
			name: "by $id",
			files: map[string]string{
				"v1.json":          `{"properties": {"m": {"$ref": "https://schemas.example.com/money.json"}}}`,
				"../common/m.json": `{"$id": "https://schemas.example.com/money.json", "type": "integer"}`,
			},
			check: func(t *testing.T, f *Form) {
				if compileStandalone(t, f.Doc).ValidateValue(map[string]any{"m": "x"}) == nil {
					t.Fatal("bundle lost the referenced type")
				}
				if strings.Contains(string(f.Text), "schemas.example.com") {
					t.Fatalf("the embedded $id was kept:\n%s", f.Text)
				}
			},
		},
		{
			name: "draft-07 uses definitions",
			files: map[string]string{
				"v1.json":          `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"m": {"$ref": "../common/m.json"}}}`,
				"../common/m.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "integer"}`,
			},
			check: func(t *testing.T, f *Form) {
				if !strings.Contains(string(f.Text), `"#/definitions/common.m"`) {
					t.Fatalf("%s", f.Text)
				}
				compileStandalone(t, f.Doc)
			},
		},
		{
			name: "self reference through the file name",
			files: map[string]string{
				"v1.json":          `{"properties": {"next": {"$ref": "v1.json"}, "m": {"$ref": "../common/m.json"}}}`,
				"../common/m.json": `{"type": "integer"}`,
			},
			check: func(t *testing.T, f *Form) {
				if !strings.Contains(string(f.Text), `"$ref": "#"`) {
					t.Fatalf("%s", f.Text)
				}
			},
		},
		{
			name: "$ref inside const is data",
			files: map[string]string{
				"v1.json": `{"const": {"$ref": "../common/nope.json"}}`,
			},
			check: func(t *testing.T, f *Form) {
				if f.Bundled {
					t.Fatal("data was taken for a reference")
				}
			},
		},
		{
			name: "anchor in another file",
			files: map[string]string{
				"v1.json":          `{"$ref": "../common/m.json#money"}`,
				"../common/m.json": `{"$defs": {"x": {"$anchor": "money"}}}`,
			},
			err: "anchor",
		},
		{
			name: "nested $id",
			files: map[string]string{
				"v1.json":          `{"$ref": "../common/m.json"}`,
				"../common/m.json": `{"$defs": {"x": {"$id": "https://x.example.com/inner.json"}}}`,
			},
			err: "nested $id",
		},
		{
			name: "other draft",
			files: map[string]string{
				"v1.json":          `{"$ref": "../common/m.json"}`,
				"../common/m.json": `{"$schema": "http://json-schema.org/draft-07/schema#"}`,
			},
			err: "draft",
		},
		{
			// Read as 2020-12 by evtool, the file would mean another
			// thing inlined into a draft-07 version.
			name: "a shared file without $schema under a version naming another draft",
			files: map[string]string{
				"v1.json":          `{` + draft7 + `"properties": {"m": {"$ref": "../common/m.json"}}}`,
				"../common/m.json": `{"type": "integer"}`,
			},
			err: "has no $schema, so it is read as the default draft",
		},
		{
			name:   "default_draft 7: neither names a draft",
			config: "default_draft: 7\n",
			files: map[string]string{
				"v1.json":          `{"properties": {"m": {"$ref": "../common/m.json"}}}`,
				"../common/m.json": `{"type": "integer"}`,
			},
			check: func(t *testing.T, f *Form) {
				if !strings.Contains(string(f.Text), `"#/definitions/common.m"`) {
					t.Fatalf("a draft-07 version bundles into definitions:\n%s", f.Text)
				}
			},
		},
		{
			name:   "default_draft 7: the shared file names draft-07",
			config: "default_draft: 7\n",
			files: map[string]string{
				"v1.json":          `{"properties": {"m": {"$ref": "../common/m.json"}}}`,
				"../common/m.json": `{` + draft7 + `"type": "integer"}`,
			},
			check: func(t *testing.T, f *Form) { compileStandalone(t, f.Doc) },
		},
		{
			name:   "default_draft 7: the shared file names 2020-12",
			config: "default_draft: 7\n",
			files: map[string]string{
				"v1.json":          `{"properties": {"m": {"$ref": "../common/m.json"}}}`,
				"../common/m.json": `{` + head + `"type": "integer"}`,
			},
			err: "draft",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{"evtool.yaml": "version: 1\n" + c.config}
			for name, text := range c.files {
				files["schemas/com.example.t/"+name] = text
			}
			dir := srtest.WriteCatalog(t, files)
			cat, err := catalog.Load(dir)
			if err != nil {
				t.Fatalf("fixture does not load: %v", err)
			}
			f, err := CatalogForms(cat).Of(cat.Lookup("com.example.t").Version(1))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, f)
		})
	}
}
