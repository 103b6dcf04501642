package formats

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/format/protobuf"
)

// renderCatalog is a catalog root with an Avro and a Protobuf version that
// each use a shared file.
var renderCatalog = fstest.MapFS{
	"common/money.avsc":   {Data: []byte(`{"type":"record","name":"Money","namespace":"shop","doc":"An amount.","fields":[{"name":"cents","type":"long"}]}`)},
	"shop.paid/v1.avsc":   {Data: []byte(`{"type":"record","name":"Paid","namespace":"shop","fields":[{"name":"amount","type":"shop.Money","doc":"What was paid."}]}`)},
	"common/where.proto":  {Data: []byte("syntax = \"proto3\";\npackage common;\nmessage Where { string bin = 1; }\n")},
	"shop.moved/v1.proto": {Data: []byte("syntax = \"proto3\";\npackage shop;\nimport \"common/where.proto\";\n// Stock moved.\nmessage Moved {\n  // Where to.\n  common.Where to = 1;\n}\n")},
}

// TestRenderSeam: what evtool renders of a schema (field table, registry
// form, AsyncAPI payload) is each format's provider's, for Avro and
// Protobuf, from its own compiled schema; given another format's schema a
// provider returns an error, never panics. JSON Schema's field table and
// AsyncAPI components are its provider's too (tested in format/jsonschema).
func TestRenderSeam(t *testing.T) {
	av, err := avro.Load(renderCatalog, "shop.paid/v1.avsc", "common")
	if err != nil {
		t.Fatal(err)
	}
	pb, err := protobuf.Load(renderCatalog, "shop.moved/v1.proto", "")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kind   format.Kind
		s      format.Schema
		rel    string
		root   string   // the root row's type
		rows   []string // path: description
		shared []string // name@rel of the shared schemas
		format string   // the payload's schemaFormat
		wrong  format.Schema
	}{
		{format.Avro, av, "shop.paid/v1.avsc", "record Paid", []string{"amount: What was paid.", "amount.cents: "}, []string{"shop.Money@common/money.avsc"}, avro.AsyncAPISchemaFormat, pb},
		{format.Protobuf, pb, "shop.moved/v1.proto", "message Moved", []string{"to: Where to.", "to.bin: "}, []string{"common/where.proto@common/where.proto"}, protobuf.AsyncAPISchemaFormat, av},
	}
	for _, tt := range tests {
		p, _ := ForKind(tt.kind)
		fd, ok1 := p.(format.FieldDocumenter)
		rf, ok2 := p.(format.RegistryFormer)
		ap, ok3 := p.(format.AsyncAPIPayloader)
		if !ok1 || !ok2 || !ok3 {
			t.Fatalf("%s: field docs %v, registry form %v, AsyncAPI payload %v; want all", tt.kind, ok1, ok2, ok3)
		}
		root, rows, truncated := fd.FieldDocs(tt.s, format.FieldDocFiles{FS: renderCatalog})
		var got []string
		for _, r := range rows {
			got = append(got, r.Path+": "+r.Description)
		}
		if root.Type != tt.root || !slices.Equal(got, tt.rows) || truncated {
			t.Errorf("%s: FieldDocs = %q, %q, %v; want %q, %q", tt.kind, root.Type, got, truncated, tt.root, tt.rows)
		}
		cache := map[string]*format.SharedSchema{}
		closure, byRel, err := rf.RegistryShared(tt.s, tt.rel, format.SharedFiles{Root: renderCatalog, MaxSize: 1 << 20, Cache: cache})
		if err != nil {
			t.Fatalf("%s: RegistryShared: %v", tt.kind, err)
		}
		got = nil
		for _, rel := range closure {
			sh := byRel[rel]
			got = append(got, sh.Name+"@"+sh.Rel)
			if sh.Kind != tt.kind || cache[rel] != sh || !strings.HasSuffix(string(sh.Text), "\n") || !strings.HasPrefix(sh.Digest, "sha256:") {
				t.Errorf("%s: shared %s = %+v, not kept in the cache as its format's", tt.kind, rel, sh)
			}
		}
		if !slices.Equal(got, tt.shared) {
			t.Errorf("%s: RegistryShared = %q, want %q", tt.kind, got, tt.shared)
		}
		// No cache: nothing kept, nothing fails; a shared file past the
		// bound is an error that names it.
		if _, _, err := rf.RegistryShared(tt.s, tt.rel, format.SharedFiles{Root: renderCatalog, MaxSize: 1 << 20}); err != nil {
			t.Errorf("%s: RegistryShared without a cache: %v", tt.kind, err)
		}
		shared := strings.Split(tt.shared[0], "@")[1]
		if _, _, err := rf.RegistryShared(tt.s, tt.rel, format.SharedFiles{Root: renderCatalog, MaxSize: 16}); err == nil || !strings.Contains(err.Error(), shared) {
			t.Errorf("%s: RegistryShared of a shared file past the bound: %v, want an error naming %s", tt.kind, err, shared)
		}
		var rels []string
		for rel := range renderCatalog {
			if strings.HasPrefix(rel, "common/") {
				rels = append(rels, rel)
			}
		}
		all := rf.AllShared(rels, format.SharedFiles{Root: renderCatalog, MaxSize: 1 << 20, Cache: map[string]*format.SharedSchema{}})
		if len(all) != 1 || all[strings.Split(tt.shared[0], "@")[1]] == nil {
			t.Errorf("%s: AllShared(%q) = %v, want its own shared file only", tt.kind, rels, all)
		}
		pl, err := ap.AsyncAPIPayload(tt.s, renderCatalog[tt.rel].Data)
		if err != nil || pl.SchemaFormat != tt.format || (pl.JSON == nil) == (pl.Text == "") || pl.Warning != "" {
			t.Errorf("%s: AsyncAPIPayload = %+v, %v", tt.kind, pl, err)
		}
		wrong := tt.wrong
		if _, err := ap.AsyncAPIPayload(wrong, nil); err == nil {
			t.Errorf("%s: AsyncAPIPayload of a %s schema did not fail", tt.kind, wrong.Kind())
		}
		if _, _, err := rf.RegistryShared(wrong, "x", format.SharedFiles{Root: renderCatalog, Cache: map[string]*format.SharedSchema{}}); err == nil {
			t.Errorf("%s: RegistryShared of a %s schema did not fail", tt.kind, wrong.Kind())
		}
		if _, rows, _ := fd.FieldDocs(wrong, format.FieldDocFiles{}); rows != nil {
			t.Errorf("%s: FieldDocs of a %s schema = %v", tt.kind, wrong.Kind(), rows)
		}
	}
	// JSON Schema's field table is its provider's too (format/jsonschema
	// tests the rows); another format's schema gives none.
	js, _ := ForKind(format.JSONSchema)
	if fd, ok := js.(format.FieldDocumenter); !ok {
		t.Error("JSON Schema's provider lists no fields")
	} else if _, rows, _ := fd.FieldDocs(av, format.FieldDocFiles{FS: renderCatalog}); rows != nil {
		t.Errorf("JSON Schema: FieldDocs of an Avro schema = %v", rows)
	}
}
