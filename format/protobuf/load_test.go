package protobuf

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"google.golang.org/protobuf/reflect/protoreflect"
)

func rootFS(t testing.TB) *os.Root {
	t.Helper()
	r, err := os.OpenRoot("testdata/root")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestLoadResolvesImportsInsideRoot(t *testing.T) {
	s, err := Load(rootFS(t).FS(), "orders.proto", "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Message.FullName() != "shop.OrderPlaced" {
		t.Errorf("default message = %s, want the file's first", s.Message.FullName())
	}
	if got := strings.Join(s.Files, ","); got != "common/money.proto,orders.proto" {
		t.Errorf("Files = %s (well-known types are not local files)", got)
	}
	for _, name := range []string{"Line", "shop.Line"} {
		s, err := Load(rootFS(t).FS(), "orders.proto", name)
		if err != nil || s.Message.FullName() != "shop.Line" {
			t.Errorf("message %q: %v %v", name, s, err)
		}
	}
	if _, err := Load(rootFS(t).FS(), "orders.proto", "Nope"); err == nil || !strings.Contains(err.Error(), `no message "Nope"`) {
		t.Errorf("missing message: %v", err)
	}
}

func TestLoadErrorsNameFileLineColumn(t *testing.T) {
	tests := []struct {
		name string
		fs   fstest.MapFS
		want []string
	}{
		{"syntax", fstest.MapFS{"a.proto": {Data: []byte("syntax = \"proto3\";\nmessage M {\n  int32 x = ;\n}\n")}}, []string{"a.proto:3:13:"}},
		{"unknown type", fstest.MapFS{"a.proto": {Data: []byte("syntax = \"proto3\";\nmessage M {\n  Nope x = 1;\n}\n")}}, []string{"a.proto:3:3:", "Nope"}},
		{"every error", fstest.MapFS{"a.proto": {Data: []byte("syntax = \"proto3\";\nmessage M {\n  Nope x = 1;\n  Nope2 y = 2;\n}\n")}}, []string{"a.proto:3:3:", "a.proto:4:3:"}},
		{"duplicate number", fstest.MapFS{"a.proto": {Data: []byte("syntax = \"proto3\";\nmessage M {\n  int32 x = 1;\n  int32 y = 1;\n}\n")}}, []string{"a.proto:4:13:"}},
		{"missing import", fstest.MapFS{"a.proto": {Data: []byte("syntax = \"proto3\";\nimport \"b.proto\";\nmessage M {}\n")}}, []string{"a.proto:2:8:", "b.proto"}},
		{"import leaves root", fstest.MapFS{"a.proto": {Data: []byte("syntax = \"proto3\";\nimport \"../outside/x.proto\";\nmessage M {}\n")}}, []string{"a.proto:2:8:", "leaves the catalog"}},
		{"absolute import", fstest.MapFS{"a.proto": {Data: []byte("syntax = \"proto3\";\nimport \"/etc/x.proto\";\nmessage M {}\n")}}, []string{"a.proto:2:8:"}},
		{"no message", fstest.MapFS{"a.proto": {Data: []byte("syntax = \"proto3\";\nenum E { E0 = 0; }\n")}}, []string{"a.proto:1:1:", "no message"}},
		// A catalog's own google.protobuf.Duration of other fields made
		// protojson and the sampler panic (they treat it by full name).
		{"own well-known package", fstest.MapFS{"a.proto": {Data: []byte("syntax = \"proto3\";\npackage google.protobuf;\nmessage Duration { string seconds = 1; }\nmessage M { Duration d = 1; }\n")}}, []string{"a.proto:2:1:", "reserved for the well-known types"}},
		{"imports own well-known package", fstest.MapFS{
			"a.proto":   {Data: []byte("syntax = \"proto3\";\nimport \"wkt.proto\";\nmessage M { google.protobuf.Duration d = 1; }\n")},
			"wkt.proto": {Data: []byte("syntax = \"proto3\";\npackage google.protobuf;\nmessage Duration { string seconds = 1; }\n")},
		}, []string{"wkt.proto:2:1:", "reserved"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.fs, "a.proto", "")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			var es Errors
			var e *Error
			if !errors.As(err, &es) && !errors.As(err, &e) {
				t.Errorf("error %T is neither Errors nor *Error", err)
			}
		})
	}
}

// An os.Root refuses a symlink that leaves the catalog even when the
// import path itself looks local.
func TestLoadRefusesSymlinkOutOfRoot(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "x.proto"), []byte("syntax = \"proto3\";\nmessage X {}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.proto"), []byte("syntax = \"proto3\";\nimport \"x.proto\";\nmessage M { X x = 1; }\n"), 0o644)
	if err := os.Symlink(filepath.Join(outside, "x.proto"), filepath.Join(dir, "x.proto")); err != nil {
		t.Skip(err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := Load(r.FS(), "a.proto", ""); err == nil || !strings.Contains(err.Error(), "a.proto:2:8") {
		t.Errorf("symlink out of root: %v", err)
	}
}

func TestLoadProto2AndEditions(t *testing.T) {
	for name, src := range map[string]string{
		"proto2":   "syntax = \"proto2\";\nmessage M { required int32 a = 1; optional group G = 2 { optional int32 b = 3; } optional int32 c = 4 [default = 7]; }\n",
		"editions": "edition = \"2023\";\nmessage M { int32 a = 1; string b = 2 [features.field_presence = IMPLICIT]; }\n",
	} {
		if _, err := Load(fstest.MapFS{"a.proto": {Data: []byte(src)}}, "a.proto", ""); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCanonicalIgnoresFormattingAndComments(t *testing.T) {
	load := func(src string) []byte {
		s, err := Load(fstest.MapFS{"a.proto": {Data: []byte(src)}}, "a.proto", "")
		if err != nil {
			t.Fatal(err)
		}
		return s.Canonical()
	}
	a := load("syntax = \"proto3\";\nmessage M { int32 a = 1; }\n")
	b := load("// comment\nsyntax = \"proto3\";\n\nmessage M {\n  // the a\n  int32 a = 1;\n}\n")
	c := load("syntax = \"proto3\";\nmessage M { int64 a = 1; }\n")
	if !bytes.Equal(a, b) {
		t.Error("formatting changed the canonical form")
	}
	if bytes.Equal(a, c) {
		t.Error("a type change kept the canonical form")
	}
}

func TestPosition(t *testing.T) {
	s, err := Load(rootFS(t).FS(), "orders.proto", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := Location(s.Message.Fields().ByName("total")); got != "orders.proto:10:3" {
		t.Errorf("Location = %s", got)
	}
}

func mapFS(src string) fstest.MapFS { return fstest.MapFS{"a.proto": {Data: []byte(src)}} }

// A catalog file at google/protobuf/timestamp.proto does not replace the
// bundled well-known type (its JSON form is by full name).
func TestLoadWellKnownTypesAreBundled(t *testing.T) {
	fsys := fstest.MapFS{
		"google/protobuf/timestamp.proto": {Data: []byte("syntax = \"proto3\";\npackage google.protobuf;\nmessage Timestamp { string seconds = 1; }\n")},
		"a.proto":                         {Data: []byte("syntax = \"proto3\";\nimport \"google/protobuf/timestamp.proto\";\nmessage M { google.protobuf.Timestamp at = 1; }\n")},
	}
	s, err := Load(fsys, "a.proto", "")
	if err != nil {
		t.Fatal(err)
	}
	if k := s.Message.Fields().Get(0).Message().Fields().ByName("seconds").Kind(); k != protoreflect.Int64Kind {
		t.Errorf("Timestamp.seconds is %v: the catalog's copy replaced the bundled one", k)
	}
	m := Sampler{}.Sample(s.Message, 1)
	if _, err := EncodeJSON(m); err != nil {
		t.Error(err)
	}
	if _, err := Load(fsys, "google/protobuf/timestamp.proto", ""); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("loading a catalog file under google/protobuf/: %v", err)
	}
}
