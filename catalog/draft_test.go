package catalog

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

// TestDefaultDraft: default_draft decides how a schema without `$schema`
// is read. Tuple `items: [...]` (drafts 4–7, what Confluent and Karapace
// assume) does not compile under 2020-12, where items is one schema.
func TestDefaultDraft(t *testing.T) {
	const tuple = `{"type":"object","properties":{"pair":{"type":"array","items":[{"type":"string"},{"type":"integer"}]}}}`
	const example = `{"pair":["a",1]}`
	cases := []struct {
		name, config, schema string
		err                  string // "" loads
		line                 int
	}{
		{"2020-12 is the default", "version: 1\n", tuple, "items", 0},
		{"draft 7 as a number", "version: 1\ndefault_draft: 7\n", tuple, "", 0},
		{"draft 7 as a name", "version: 1\ndefault_draft: draft-07\n", tuple, "", 0},
		{"$schema wins over the default", "version: 1\ndefault_draft: 7\n", `{"$schema":"https://json-schema.org/draft/2020-12/schema",` + tuple[1:], "items", 0},
		{"unknown draft", "version: 1\ncompat:\n  mode: NONE\ndefault_draft: 8\n", tuple, "default_draft", 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := fstest.MapFS{
				ConfigName:                              {Data: []byte(c.config)},
				"schemas/com.example.pair.made/v1.json": {Data: []byte(c.schema)},
				"schemas/com.example.pair.made/examples/v1/ok.json": {Data: []byte(example)},
			}
			cat, err := LoadFS(fsys, "")
			if c.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if fs := cat.CheckExamples(); len(fs) > 0 {
					t.Fatalf("example invalid: %v", fs)
				}
				if cat.Draft.Name != "7" {
					t.Fatalf("draft %q", cat.Draft.Name)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("load: %v; want an error about %s", err, c.err)
			}
			if c.line > 0 {
				var le *LoadError
				if !errors.As(err, &le) || le.Findings[0].Line != c.line {
					t.Fatalf("want line %d: %v", c.line, err)
				}
			}
		})
	}
}

// The catalog's drafts are the JSON Schema provider's dialects: names,
// spellings and URLs parse to them, the default is the newest.
func TestParseDraft(t *testing.T) {
	if len(Drafts) == 0 || DefaultDraft != Drafts[0] {
		t.Fatalf("drafts %v, default %v", Drafts, DefaultDraft)
	}
	for _, tc := range []struct{ in, want string }{
		{"", DefaultDraft.Name},
		{"draft-07", "7"},
		{"http://json-schema.org/draft-07/schema#", "7"},
		{"2019-09", "2019-09"},
	} {
		d, err := ParseDraft(tc.in)
		if err != nil || d.Name != tc.want || d.URL == "" {
			t.Errorf("ParseDraft(%q) = %+v, %v; want %s", tc.in, d, err, tc.want)
		}
	}
	if _, err := ParseDraft("3"); err == nil || !strings.Contains(err.Error(), "2020-12, 2019-09, 7, 6, 4") {
		t.Errorf("ParseDraft(3): %v", err)
	}
}
