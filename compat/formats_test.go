package compat

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/compat/jsoncompat"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/report"
)

func load(t *testing.T, files map[string]string) *catalog.Catalog {
	t.Helper()
	fsys := fstest.MapFS{"evtool.yaml": {Data: []byte("version: 1\ncompat:\n  mode: FULL_TRANSITIVE\n")}}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	cat, err := catalog.LoadFS(fsys, "cat")
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

const (
	avroV1  = `{"type": "record", "name": "R", "namespace": "x", "fields": [{"name": "n", "type": "long"}]}`
	avroV2  = `{"type": "record", "name": "R", "namespace": "x", "fields": [{"name": "n", "type": "long"}, {"name": "m", "type": "int", "default": 0}]}`
	avroV3  = `{"type": "record", "name": "R", "namespace": "x", "fields": [{"name": "n", "type": "int"}]}`
	protoV1 = "syntax = \"proto3\";\npackage x;\nmessage M {\n  int64 n = 1;\n}\n"
	protoV2 = "syntax = \"proto3\";\npackage x;\nmessage M {\n  int32 n = 1;\n}\n"
)

func rules(fs []report.Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule+"@"+f.Subject+"/"+f.Direction)
	}
	return strings.Join(out, " ")
}

// TestCheckCatalogFormats: the catalog check hands Avro and Protobuf pairs
// to their engines under the shared modes, and gives their findings the
// pair's identity and display paths.
func TestCheckCatalogFormats(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // substrings of rules(findings), in order
		none  bool
	}{
		{"avro compatible", map[string]string{"schemas/a.b/v1.avsc": avroV1, "schemas/a.b/v2.avsc": avroV2}, nil, true},
		{"avro transitive", map[string]string{"schemas/a.b/v1.avsc": avroV1, "schemas/a.b/v2.avsc": avroV2, "schemas/a.b/v3.avsc": avroV3},
			[]string{"avro-type-changed@a.b v1 -> v3/BACKWARD", "avro-type-changed@a.b v2 -> v3/BACKWARD"}, false},
		{"protobuf", map[string]string{"schemas/a.b/v1.proto": protoV1, "schemas/a.b/v2.proto": protoV2},
			[]string{"proto-field-integer-changed@a.b v1 -> v2/BACKWARD"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := CheckCatalog(load(t, tt.files), nil, CheckOptions{})
			got := rules(res.Findings)
			if tt.none && len(res.Findings) != 0 {
				t.Fatalf("findings: %s", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("no %s in %s", w, got)
				}
			}
			for _, f := range res.Findings {
				if f.Fingerprint == "" || !strings.HasPrefix(f.File, "cat/schemas/a.b/") || f.Type != "a.b" || f.OldVersion == 0 {
					t.Errorf("finding without the pair's identity: %+v", f)
				}
				if f.Severity == report.SeverityError && len(f.Counterexample) == 0 {
					t.Errorf("%s has no counterexample", f.Rule)
				}
			}
		})
	}
}

// TestCheckCatalogWithoutComparer: a format the caller gave no engine for
// fails the gate; it is never a silent pass.
func TestCheckCatalogWithoutComparer(t *testing.T) {
	cat := load(t, map[string]string{"schemas/a.b/v1.avsc": avroV1, "schemas/a.b/v2.avsc": avroV1})
	res := CheckCatalog(cat, nil, CheckOptions{Engines: map[format.Kind]engine.Engine{format.JSONSchema: jsoncompat.Engine()}})
	if got := rules(res.Findings); !strings.Contains(got, RuleFormatUnsupported) {
		t.Fatalf("findings: %s", got)
	}
	if res.Findings[0].Severity != report.SeverityError {
		t.Errorf("severity %s", res.Findings[0].Severity)
	}
}

// TestCheckCatalogAgainstFormats: published Avro and Protobuf versions are
// immutable, including what the Avro digest (the Parsing Canonical Form)
// leaves out; a published version in another format is a format change.
func TestCheckCatalogAgainstFormats(t *testing.T) {
	base := load(t, map[string]string{"schemas/a.b/v1.avsc": avroV1, "schemas/c.d/v1.proto": protoV1, "schemas/e.f/v1.json": `{"type": "string"}`})
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"unchanged", map[string]string{"schemas/a.b/v1.avsc": avroV1, "schemas/c.d/v1.proto": protoV1, "schemas/e.f/v1.json": `{"type": "string"}`}, ""},
		{"reformatted", map[string]string{"schemas/a.b/v1.avsc": strings.ReplaceAll(avroV1, ", ", ",\n  "), "schemas/c.d/v1.proto": "// a comment\n" + protoV1, "schemas/e.f/v1.json": `{"type": "string"}`}, ""},
		{"avro default added", map[string]string{"schemas/a.b/v1.avsc": strings.Replace(avroV1, `"type": "long"}`, `"type": "long", "default": 1}`, 1), "schemas/c.d/v1.proto": protoV1, "schemas/e.f/v1.json": `{"type": "string"}`},
			"published-version-modified@a.b"},
		{"proto edited", map[string]string{"schemas/a.b/v1.avsc": avroV1, "schemas/c.d/v1.proto": protoV2, "schemas/e.f/v1.json": `{"type": "string"}`},
			"published-version-modified@c.d"},
		{"format changed", map[string]string{"schemas/a.b/v1.avsc": avroV1, "schemas/c.d/v1.proto": protoV1, "schemas/e.f/v1.avsc": `"string"`, "schemas/e.f/v2.avsc": `"string"`},
			"type-format-changed@e.f v1 -> v2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := CheckCatalog(load(t, tt.files), base, CheckOptions{})
			got := rules(res.Findings)
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Fatalf("findings %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPublishedVersionInAnotherFormat: a published version rewritten in
// another format is reported as that, not as an edit with two digests.
func TestPublishedVersionInAnotherFormat(t *testing.T) {
	base := load(t, map[string]string{"schemas/e.f/v1.json": `{"type": "string"}`})
	res := CheckCatalog(load(t, map[string]string{"schemas/e.f/v1.avsc": `"string"`}), base, CheckOptions{})
	if len(res.Findings) != 1 || res.Findings[0].Rule != RulePublishedModified ||
		!strings.Contains(res.Findings[0].Message, "v1 is published as JSON Schema and is Avro now") {
		t.Fatalf("findings %+v, want one published-version-modified naming the format change", res.Findings)
	}
}

// TestCheckCatalogVersionWithoutFormat: a Version built without a Format
// (by hand, or by code older than the seam) is JSON Schema: its pairs are
// still compared, not skipped as a format without an engine.
func TestCheckCatalogVersionWithoutFormat(t *testing.T) {
	cat := load(t, map[string]string{"schemas/a.b/v1.json": `{"type": "string"}`, "schemas/a.b/v2.json": `{"type": "integer"}`})
	for _, v := range cat.Lookup("a.b").Versions {
		v.Format = ""
	}
	res := CheckCatalog(cat, nil, CheckOptions{})
	if res.Pairs != 1 || len(res.Findings) == 0 {
		t.Fatalf("pairs %d, findings %s", res.Pairs, rules(res.Findings))
	}
	if got := rules(res.Findings); !strings.Contains(got, "type-") {
		t.Errorf("findings %s, want the JSON Schema engine's", got)
	}
}

// TestPublishedEditFindings: a published version edited in place gets,
// beside published-version-modified, the findings between its published
// and its edited content, with counterexamples, in every format.
func TestPublishedEditFindings(t *testing.T) {
	base := load(t, map[string]string{"schemas/a.b/v1.avsc": avroV1, "schemas/c.d/v1.proto": protoV1, "schemas/e.f/v1.json": `{"type": "string", "maxLength": 10}`})
	head := load(t, map[string]string{"schemas/a.b/v1.avsc": avroV3, "schemas/c.d/v1.proto": protoV2, "schemas/e.f/v1.json": `{"type": "string", "maxLength": 5}`})
	res := CheckCatalog(head, base, CheckOptions{})
	for _, typ := range []string{"a.b", "c.d", "e.f"} {
		modified, shown := false, false
		for _, f := range res.Findings {
			if f.Type != typ {
				continue
			}
			if f.Rule == RulePublishedModified {
				modified = true
			}
			if f.Subject == typ+" v1 as published -> v1 as edited" && f.Severity == report.SeverityError && len(f.Counterexample) > 0 {
				shown = true
				if f.OldVersion != 1 || f.NewVersion != 1 || f.Direction == "" {
					t.Errorf("%s: edit finding %s has versions %d/%d direction %q", typ, f.Rule, f.OldVersion, f.NewVersion, f.Direction)
				}
			}
		}
		if !modified || !shown {
			t.Errorf("%s: published-version-modified %t, a break of the edit with a counterexample %t; findings: %s", typ, modified, shown, rules(res.Findings))
		}
	}
}
