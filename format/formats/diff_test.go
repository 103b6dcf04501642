package formats

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/evtool/evtool/format"
)

// TestDiffAnswers: what evtool's commands used to learn by comparing a
// kind with a format constant (compat diff's files and flags, init's
// --format names), each provider answers for its own format.
func TestDiffAnswers(t *testing.T) {
	dir := t.TempDir()
	imp := filepath.Join(dir, "imp")
	if err := os.MkdirAll(filepath.Join(imp, "common"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		filepath.Join(imp, "common", "money.proto"): "syntax = \"proto3\";\npackage common;\nmessage Money { int64 units = 1; }\n",
		filepath.Join(dir, "pay.proto"):             "syntax = \"proto3\";\npackage shop.v2;\nimport \"common/money.proto\";\nmessage Pay { common.Money amount = 1; }\nmessage Other {}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		kind          format.Kind
		cli           string
		compiles      bool
		short         string // ShortName("shop.v2.Pay"); "" not a MessagePicker
		loads         bool
		profile, dflt string
		takesProfiles bool
	}{
		{format.JSONSchema, "json", false, "", false, "lenient", "lenient", true},
		{format.Avro, "avro", true, "", false, "", "", false},
		{format.Protobuf, "protobuf", true, "Pay", true, "wire-json", "wire-json", true},
	} {
		p, _ := ForKind(tc.kind)
		if got := format.CLIName(p); got != tc.cli {
			t.Errorf("%s: CLIName = %q, want %q", tc.kind, got, tc.cli)
		}
		if q, ok := ForName(tc.cli); !ok || q.Kind() != tc.kind {
			t.Errorf("ForName(%q) = %v, %v", tc.cli, q, ok)
		}
		if _, ok := p.(format.FileCompiler); ok != tc.compiles {
			t.Errorf("%s: FileCompiler %v", tc.kind, ok)
		}
		profs := p.CompatProfiles()
		if (len(profs.Names) > 0) != tc.takesProfiles || profs.Default != tc.dflt || (tc.profile != "" && !slices.Contains(profs.Names, tc.profile)) {
			t.Errorf("%s: profiles %+v", tc.kind, profs)
		}
		if !tc.takesProfiles && profs.None == "" {
			t.Errorf("%s: takes no profile and does not say why", tc.kind)
		}
		mp, ok := p.(format.MessagePicker)
		if ok != (tc.short != "") {
			t.Errorf("%s: MessagePicker %v", tc.kind, ok)
		} else if ok && mp.ShortName("shop.v2.Pay") != tc.short {
			t.Errorf("%s: ShortName = %q, want %q", tc.kind, mp.ShortName("shop.v2.Pay"), tc.short)
		}
		pl, ok := p.(format.PathLoader)
		if ok != tc.loads {
			t.Errorf("%s: PathLoader %v", tc.kind, ok)
		}
		if !ok {
			continue
		}
		s, err := pl.LoadPath(filepath.Join(dir, "pay.proto"), "shop.v2.Other", []string{imp})
		if err != nil {
			t.Fatalf("%s: LoadPath: %v", tc.kind, err)
		}
		if got := p.EventRecord(s); got != "shop.v2.Other" {
			t.Errorf("%s: LoadPath picked %q", tc.kind, got)
		}
		if _, err := pl.LoadPath(filepath.Join(dir, "pay.proto"), "", nil); err == nil {
			t.Errorf("%s: LoadPath without the import directory loaded", tc.kind)
		}
	}
	if got := Names(); !slices.Equal(got, []string{"json", "avro", "protobuf"}) {
		t.Errorf("Names = %q", got)
	}
	if p, ok := ForName("jsonschema"); ok {
		t.Errorf("ForName(jsonschema) = %v: the command line names JSON Schema json", p)
	}
}
