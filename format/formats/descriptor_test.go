package formats

import (
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
