package jsonschema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/avro"
	js "github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// asyncAPICatalog writes files under a temporary root, compiles the
// version files among them and returns the versions and a fileOf over
// the root, as package asyncapi gives them.
func asyncAPICatalog(t *testing.T, files map[string]string, versions ...string) ([]format.AsyncAPIVersion, func(string) (string, string, bool)) {
	t.Helper()
	root := t.TempDir()
	c := js.NewCompiler()
	urlOf := func(rel string) string { return "file://" + filepath.ToSlash(filepath.Join(root, rel)) }
	for rel, text := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		doc, err := js.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(urlOf(rel), doc); err != nil {
			t.Fatal(err)
		}
	}
	var vs []format.AsyncAPIVersion
	for _, rel := range versions {
		s, err := c.Compile(urlOf(rel))
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, format.AsyncAPIVersion{Schema: New(s, []byte(files[rel])), URL: urlOf(rel), Text: []byte(files[rel])})
	}
	fileOf := func(u string) (string, string, bool) {
		rel, ok := strings.CutPrefix(u, urlOf("")+"/")
		if !ok || files[rel] == "" {
			return "", "", false
		}
		return filepath.Join(root, rel), rel, true
	}
	return vs, fileOf
}

func TestAsyncAPIComponents(t *testing.T) {
	files := map[string]string{
		"shop.paid/v1.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Paid",
			"type": "object", "properties": {"amount": {"$ref": "../common/money.json#/$defs/cents", "description": "paid"}},
			"unevaluatedProperties": false}`,
		"shop.paid/v2.json": `{"description": "Paid, v2", "title": "ignored", "$ref": "../common/money.json"}`,
		"common/money.json": `{"$id": "money", "type": "object", "$defs": {"cents": {"type": "integer"}, "unused": {"type": "string"}}}`,
	}
	vs, fileOf := asyncAPICatalog(t, files, "shop.paid/v1.json", "shop.paid/v2.json")
	comps, err := Provider{}.AsyncAPIComponents(vs, fileOf)
	if err != nil {
		t.Fatal(err)
	}
	ref, warnings, err := comps.Payload(vs[0])
	if err != nil {
		t.Fatal(err)
	}
	if ref != "#/components/schemas/shop.paid.v1" {
		t.Errorf("v1 payload $ref = %s", ref)
	}
	if len(warnings) != 1 || warnings[0].Pointer != "/unevaluatedProperties" || !strings.HasSuffix(warnings[0].File, "v1.json") {
		t.Errorf("v1 warnings = %+v, want one at /unevaluatedProperties", warnings)
	}
	// v2 reaches money.json, already exported: no new warning.
	ref, warnings, err = comps.Payload(vs[1])
	if err != nil || ref != "#/components/schemas/shop.paid.v2" || len(warnings) != 0 {
		t.Errorf("v2 payload = %s, %+v, %v", ref, warnings, err)
	}
	schemas, err := comps.Schemas()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var names []string
	for _, s := range schemas {
		names = append(names, s.Name)
		got[s.Name] = string(s.JSON)
	}
	if strings.Join(names, " ") != "common.money shop.paid.v1 shop.paid.v2" {
		t.Errorf("components = %v, want sorted by name", names)
	}
	for name, want := range map[string][]string{
		// the $ref with a sibling is an allOf entry pointing inside the document
		"shop.paid.v1": {`"allOf": [`, `"$ref": "#/components/schemas/common.money/$defs/cents"`, `"unevaluatedProperties": false`},
		"shop.paid.v2": {`"$ref": "#/components/schemas/common.money"`},
		"common.money": {`"cents": {`},
	} {
		for _, w := range want {
			if !strings.Contains(got[name], w) {
				t.Errorf("%s lacks %s:\n%s", name, w, got[name])
			}
		}
	}
	for name, bad := range map[string]string{"shop.paid.v1": `"$schema"`, "common.money": `"$id"`} {
		if strings.Contains(got[name], bad) {
			t.Errorf("%s keeps %s:\n%s", name, bad, got[name])
		}
	}
	if strings.Contains(got["common.money"], "unused") {
		t.Errorf("a $defs entry no version reaches is exported:\n%s", got["common.money"])
	}

	if s := (Provider{}).AsyncAPISummary(vs[0].Schema); s != "Paid" {
		t.Errorf("summary of a title alone = %q", s)
	}
	if s := (Provider{}).AsyncAPISummary(vs[1].Schema); s != "Paid, v2" {
		t.Errorf("summary of a description and a title = %q", s)
	}
}

func TestAsyncAPIComponentsErrors(t *testing.T) {
	files := map[string]string{"a/v1.json": `{"type": "object"}`}
	vs, _ := asyncAPICatalog(t, files, "a/v1.json")
	comps, err := Provider{}.AsyncAPIComponents(vs, func(string) (string, string, bool) { return "", "", false })
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := comps.Payload(vs[0]); err == nil || !strings.Contains(err.Error(), "is not a file of the catalog") {
		t.Errorf("a version outside the catalog: %v", err)
	}
	other := format.AsyncAPIVersion{Schema: &avro.Schema{}, URL: "file:///x.avsc"}
	if _, err := (Provider{}).AsyncAPIComponents([]format.AsyncAPIVersion{other}, nil); err == nil {
		t.Error("an Avro schema was taken for JSON Schema")
	}
}
