package jsonschema

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/internal/jsonvalue"
)

func decodeDoc(t *testing.T, s string) any {
	t.Helper()
	v, err := jsonstrict.Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRegistryInline: a registry's schema with Confluent references is
// read with them inlined, as a draft-07 registry reads it.
func TestRegistryInline(t *testing.T) {
	for _, tc := range []struct {
		name, root string
		refs       map[string]string
		want, err  string
		bundled    bool
	}{
		{name: "no references", root: `{"type":"string"}`, want: `{"type":"string"}`},
		{
			name: "a reference, draft-07 definitions", root: `{"properties":{"m":{"$ref":"money.json"}}}`,
			refs:    map[string]string{"money.json": `{"type":"integer"}`},
			want:    `{"definitions":{"money":{"type":"integer"}},"properties":{"m":{"$ref":"#/definitions/money"}}}`,
			bundled: true,
		},
		{
			name: "a pointer into it", root: `{"$schema":"https://json-schema.org/draft/2020-12/schema","$ref":"common/m.json#/$defs/x"}`,
			refs:    map[string]string{"common/m.json": `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"x":{"type":"null"}}}`},
			want:    `{"$defs":{"common.m":{"$defs":{"x":{"type":"null"}}}},"$ref":"#/$defs/common.m/$defs/x","$schema":"https://json-schema.org/draft/2020-12/schema"}`,
			bundled: true,
		},
		{name: "unknown reference", root: `{"$ref":"other.json"}`, refs: map[string]string{"money.json": `{}`}, err: `matches none of the schema's references`},
		{name: "anchor in a reference", root: `{"$ref":"money.json#cents"}`, refs: map[string]string{"money.json": `{}`}, err: `points at an anchor`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := &format.RegistryDoc{ID: "s:1", Doc: decodeDoc(t, tc.root), Refs: map[string]*format.RegistryDoc{}}
			for name, text := range tc.refs {
				root.Refs[name] = &format.RegistryDoc{ID: name + ":1", Name: name, Doc: decodeDoc(t, text)}
			}
			got, bundled, err := Provider{}.RegistryInline(root)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if bundled != tc.bundled || string(jsonvalue.Canonical(got)) != tc.want {
				t.Fatalf("got %s (bundled %v), want %s (bundled %v)", jsonvalue.Canonical(got), bundled, tc.want, tc.bundled)
			}
			if refs := (Provider{}).RegistryExternal(got); len(refs) != 0 {
				t.Fatalf("external refs left: %v", refs)
			}
		})
	}
}

// TestRegistryDialects: the registry's default draft and the drafts its
// code parses (format.Dialects).
func TestRegistryDialects(t *testing.T) {
	p := Provider{}
	if d := p.RegistryDefault(); d.Name != "7" || d.URL != "http://json-schema.org/draft-07/schema#" {
		t.Fatalf("RegistryDefault = %+v", d)
	}
	for in, want := range map[string]string{"": DefaultDraft.Name, "draft-07": "7", "https://json-schema.org/draft/2019-09/schema": "2019-09"} {
		d, err := p.ParseDialect(in)
		if err != nil || d.Name != want {
			t.Errorf("ParseDialect(%q) = %+v, %v; want %s", in, d, err, want)
		}
	}
	if _, err := p.ParseDialect("3"); err == nil {
		t.Error("draft 3 parsed")
	}
}

// TestRegistryUndialected: the root `$schema` is what names a schema's
// draft; a boolean schema names none and cannot.
func TestRegistryUndialected(t *testing.T) {
	for _, tc := range []struct {
		doc, bare, url string
		named, ok      bool
	}{
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"string"}`, `{"type":"string"}`, "http://json-schema.org/draft-07/schema#", true, true},
		{`{"type":"string"}`, `{"type":"string"}`, "", false, true},
		{`{"$schema":7,"type":"string"}`, `{"type":"string"}`, "", true, true},
		{`{"properties":{"$schema":{"type":"string"}}}`, `{"properties":{"$schema":{"type":"string"}}}`, "", false, true},
		{`true`, `true`, "", false, false},
	} {
		doc := decodeDoc(t, tc.doc)
		bare, url, named, ok := Provider{}.RegistryUndialected(doc)
		if string(jsonvalue.Canonical(bare)) != tc.bare || url != tc.url || named != tc.named || ok != tc.ok {
			t.Errorf("%s: %s %q %v %v", tc.doc, jsonvalue.Canonical(bare), url, named, ok)
		}
		if m, isMap := doc.(map[string]any); isMap && tc.named {
			if _, kept := m["$schema"]; !kept {
				t.Errorf("%s: the document itself lost $schema", tc.doc)
			}
		}
	}
}
