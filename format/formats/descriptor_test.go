package formats

import (
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/format"
)

// TestDescriptorFormers: only a format whose registry text may be a
// serialized descriptor (RegistryRuler.Descriptors) reads and writes one.
func TestDescriptorFormers(t *testing.T) {
	for _, p := range All() {
		r, ruler := p.(format.RegistryRuler)
		df, ok := p.(format.DescriptorFormer)
		if want := ruler && r.Descriptors(); ok != want {
			t.Errorf("%s: DescriptorFormer %v, want %v", p.Kind(), ok, want)
		}
		if !ok {
			continue
		}
		text := []byte("syntax = \"proto3\";\npackage a;\nmessage M { int64 n = 1; }\n")
		if got, err := df.RegistryText(text); err != nil || string(got) != string(text) {
			t.Errorf("%s: RegistryText of text = %q, %v; want it as it is", p.Kind(), got, err)
		}
		rc := p.(format.RegistryCompiler)
		s, err := rc.CompileRegistry(string(text), nil, "", func(s string) string { return s })
		if err != nil {
			t.Fatal(err)
		}
		b64, err := df.SerializedForm(s, "a.proto")
		if err != nil {
			t.Fatal(err)
		}
		got, err := df.RegistryText([]byte(b64))
		if err != nil || !strings.Contains(string(got), "message M") || !strings.Contains(string(got), "int64 n = 1") {
			t.Errorf("%s: RegistryText of its serialized form = %q, %v", p.Kind(), got, err)
		}
		if _, err := df.RegistryText([]byte("KAE=")); err == nil {
			t.Errorf("%s: RegistryText read KAE= as a descriptor", p.Kind())
		}
	}
}

// TestBuiltinFiles: the provider with built-in files (Protobuf's
// well-known ones) serves them, accepts a registration that declares what
// one declares and names the first difference of one that does not.
func TestBuiltinFiles(t *testing.T) {
	var found []format.Kind
	for _, p := range All() {
		bf, ok := p.(format.BuiltinFiler)
		if !ok {
			continue
		}
		found = append(found, p.Kind())
		files := bf.BuiltinFiles()
		if !slices.Contains(files, "google/protobuf/timestamp.proto") {
			t.Errorf("%s: BuiltinFiles %q lack timestamp.proto", p.Kind(), files)
		}
		for _, tc := range []struct {
			name    string
			builtin bool
			served  bool
		}{
			{"google/protobuf/timestamp.proto", true, true},
			{"google/protobuf/go_features.proto", true, false}, // linked, of another package
			{"google/protobuf/nope.proto", true, false},
			{"shop/money.proto", false, false},
		} {
			if got := bf.IsBuiltin(tc.name); got != tc.builtin {
				t.Errorf("%s: IsBuiltin(%s) = %v", p.Kind(), tc.name, got)
			}
			text, digest, ok, err := bf.BuiltinText(tc.name)
			if ok != tc.served || err != nil || ok && (len(text) == 0 || !strings.HasPrefix(digest, "sha256:")) {
				t.Errorf("%s: BuiltinText(%s) = %d bytes, %q, %v, %v", p.Kind(), tc.name, len(text), digest, ok, err)
			}
		}
		text, _, _, _ := bf.BuiltinText("google/protobuf/timestamp.proto")
		if diff, err := bf.CheckBuiltin("google/protobuf/timestamp.proto", text); diff != "" || err != nil {
			t.Errorf("%s: its own text differs: %q, %v", p.Kind(), diff, err)
		}
		short := "syntax = \"proto3\";\npackage google.protobuf;\nmessage Timestamp {\n  int64 seconds = 1;\n}\n"
		if diff, err := bf.CheckBuiltin("google/protobuf/timestamp.proto", []byte(short)); err != nil || diff != "it lacks field google.protobuf.Timestamp.nanos = 2 optional int32" {
			t.Errorf("%s: CheckBuiltin of a short Timestamp = %q, %v", p.Kind(), diff, err)
		}
		if _, err := bf.CheckBuiltin("google/protobuf/timestamp.proto", []byte("message {")); err == nil {
			t.Errorf("%s: CheckBuiltin parsed %q", p.Kind(), "message {")
		}
	}
	if !slices.Equal(found, []format.Kind{format.Protobuf}) {
		t.Errorf("built-in files in %v", found)
	}
}

// TestSameText: reference texts that differ in comments and layout only
// are the same schema for the format that says so.
func TestSameText(t *testing.T) {
	a := "syntax = \"proto3\";\npackage a;\nmessage M { int64 n = 1; }\n"
	b := "// moved\nsyntax = \"proto3\";\npackage a;\n\nmessage M {\n  int64 n = 1; // count\n}\n"
	c := "syntax = \"proto3\";\npackage a;\nmessage M { int32 n = 1; }\n"
	for _, p := range All() {
		st, ok := p.(format.SameTexter)
		if ok != (p.Kind() == format.Protobuf) {
			t.Errorf("%s: SameTexter %v", p.Kind(), ok)
		}
		if !ok {
			continue
		}
		if !st.SameText(a, b, "a/m.proto") || st.SameText(a, c, "a/m.proto") || st.SameText(a, "message {", "a/m.proto") {
			t.Errorf("%s: SameText wrong", p.Kind())
		}
	}
}
