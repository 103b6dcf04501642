package formats

import (
	"testing"

	"github.com/evtool/evtool/format"
)

// TestCatalogCompileAnswers: what the catalog used to learn by comparing a
// version's kind with a format constant, each provider answers: how its
// files compile (exactly one of from the root read once or file by file),
// whether event.yaml's message applies, and how its examples' JSON form is
// named.
func TestCatalogCompileAnswers(t *testing.T) {
	for _, tc := range []struct {
		kind                         format.Kind
		fromRoot, byFile, selectsMsg bool
		exampleForm                  string
	}{
		{format.JSONSchema, true, false, false, ""},
		{format.Avro, false, true, false, "Avro's JSON encoding"},
		{format.Protobuf, false, true, true, "the JSON mapping"},
	} {
		p, _ := ForKind(tc.kind)
		rc, fromRoot := p.(format.RootCompiler)
		_, byFile := p.(format.FileCompiler)
		if fromRoot != tc.fromRoot || byFile != tc.byFile {
			t.Errorf("%s: RootCompiler %v, FileCompiler %v; want %v, %v", tc.kind, fromRoot, byFile, tc.fromRoot, tc.byFile)
		}
		if fromRoot && rc.ReadRule() == "" {
			t.Errorf("%s: no ReadRule", tc.kind)
		}
		if _, ok := p.(format.MessageSelector); ok != tc.selectsMsg {
			t.Errorf("%s: MessageSelector %v", tc.kind, ok)
		}
		form := ""
		if b, ok := p.(format.BinaryDataer); ok {
			form = b.ExampleForm()
		}
		if form != tc.exampleForm {
			t.Errorf("%s: ExampleForm %q, want %q", tc.kind, form, tc.exampleForm)
		}
	}
}
