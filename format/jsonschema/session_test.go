package jsonschema

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/format"
	js "github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// TestRootSession: the provider reads a root once and compiles its
// versions through format.RootCompiler with the catalog's options; a
// version that does not compile is a finding at the place that caused it,
// and one that was not read or parsed is neither schema nor finding.
func TestRootSession(t *testing.T) {
	fsys := fstest.MapFS{}
	for name, text := range map[string]string{
		"schemas/a.b/v1.json":       `{"type": "object", "properties": {"amount": {"$ref": "../common/money.json"}}}`,
		"schemas/a.b/v2.json":       `{"$ref": "../common/none.json"}`,
		"schemas/a.b/v3.json":       `{"type": `,
		"schemas/a.b/v4.json":       `{"type": "number", "minimum": 1, "exclusiveMinimum": true}`,
		"schemas/a.b/v5.json":       `{"type": "string", "format": "email"}`,
		"schemas/common/money.json": `{"type": "number"}`,
	} {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	var rc format.RootCompiler = Provider{}
	root, probs := rc.ReadRoot(fsys, format.RootReader{
		Root:        "schemas",
		Show:        func(p string) string { return "cat/" + p },
		Skip:        func(string) bool { return false },
		PathProblem: func(_ string, err error) string { return err.Error() },
	})
	if len(probs) != 1 || probs[0].Rule != rc.ReadRule() || probs[0].File != "cat/schemas/a.b/v3.json" {
		t.Fatalf("reading the root: %v; want the malformed v3's %s", probs, rc.ReadRule())
	}
	if _, ok := root.Version("a.b/v9.json"); ok {
		t.Error("Version of a file that was not read is ok")
	}
	if v, ok := root.Version("a.b/v3.json"); !ok || v.Doc != nil || v.Digest != "" || string(v.Text) != `{"type": ` {
		t.Errorf("Version of the malformed file = %+v, %v; want its text, no document, no digest", v, ok)
	}
	v1, _ := root.Version("a.b/v1.json")
	if v1.Doc == nil || v1.Digest != Digest(v1.Doc) {
		t.Errorf("v1's digest %q, want %q", v1.Digest, Digest(v1.Doc))
	}
	for _, tc := range []struct {
		name string
		opts format.RootOptions
		rel  string
		// rule is the finding's ("" compiles), data checks the compiled
		// schema: accepted or not.
		rule, file, data string
		accept           bool
	}{
		{"shared file by $ref", format.RootOptions{}, "a.b/v1.json", "", "", `{"amount": 5}`, true},
		{"shared file by $ref, bad data", format.RootOptions{}, "a.b/v1.json", "", "", `{"amount": "5"}`, false},
		{"ref to nothing", format.RootOptions{}, "a.b/v2.json", RuleSchemaRef, "cat/schemas/a.b/v2.json", "", false},
		{"not parsed: reading said so", format.RootOptions{}, "a.b/v3.json", "", "", "", false},
		{"not read", format.RootOptions{}, "a.b/v9.json", "", "", "", false},
		{"default draft 2020-12: boolean exclusiveMinimum is invalid", format.RootOptions{}, "a.b/v4.json", RuleSchemaInvalid, "cat/schemas/a.b/v4.json", "", false},
		{"default draft 4 reads it", format.RootOptions{DefaultDraft: "4"}, "a.b/v4.json", "", "", `1`, false},
		{"default draft 4, good data", format.RootOptions{DefaultDraft: "draft-04"}, "a.b/v4.json", "", "", `2`, true},
		{"format an annotation", format.RootOptions{}, "a.b/v5.json", "", "", `"x"`, true},
		{"format asserted", format.RootOptions{AssertFormats: true}, "a.b/v5.json", "", "", `"x"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := root.Session(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			sch, f := s.CompileVersion(tc.rel, "cat/schemas/"+tc.rel, "a.b v")
			switch {
			case tc.rule != "":
				if f == nil || f.Rule != tc.rule || f.File != tc.file || f.Subject != "a.b v" || sch != nil {
					t.Fatalf("CompileVersion = %v, %+v; want a %s finding at %s", sch, f, tc.rule, tc.file)
				}
				return
			case f != nil:
				t.Fatalf("CompileVersion: %+v", f)
			case tc.data == "":
				if sch != nil {
					t.Fatalf("CompileVersion = %v; want no schema", sch)
				}
				return
			}
			js, ok := sch.(interface{ JSONSchema() *js.Schema })
			if !ok || js.JSONSchema() == nil || sch.Kind() != format.JSONSchema {
				t.Fatalf("compiled %T gives no JSON Schema", sch)
			}
			v, _ := root.Version(tc.rel)
			if format.DigestOf(sch.Canonical()) != v.Digest {
				t.Errorf("compiled schema's digest %s, the root's %s", format.DigestOf(sch.Canonical()), v.Digest)
			}
			if err := sch.Validate([]byte(tc.data), format.ContentTypeJSON); (err == nil) != tc.accept {
				t.Errorf("Validate(%s) = %v, want accepted %v", tc.data, err, tc.accept)
			}
		})
	}
	if _, err := root.Session(format.RootOptions{DefaultDraft: "3"}); err == nil || !strings.Contains(err.Error(), `unknown JSON Schema draft "3"`) {
		t.Errorf("Session with draft 3: %v", err)
	}
}
