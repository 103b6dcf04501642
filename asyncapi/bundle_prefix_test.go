package asyncapi

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/format/protobuf"
)

// TestProtoBundlePackagePrefixes: imports of packages that are prefixes of
// the version's package, or extend it, or of each other, are bundled into
// one file whose event message has the version's shape; the version's own
// references are left pointing at its own types.
func TestProtoBundlePackagePrefixes(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
	}{
		{"parent package", map[string]string{
			"base.proto": "syntax = \"proto3\";\npackage com.example;\nmessage Base {\n  string id = 1;\n}\n",
		}},
		{"child package", map[string]string{
			"base.proto": "syntax = \"proto3\";\npackage com.example.stock.detail;\nmessage Base {\n  string id = 1;\n}\n",
		}},
		{"root package", map[string]string{
			"base.proto": "syntax = \"proto3\";\npackage com;\nmessage Base {\n  string id = 1;\n}\n",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pkg := strings.TrimSuffix(strings.TrimPrefix(strings.Split(tc.files["base.proto"], "\n")[1], "package "), ";")
			fsys := fstest.MapFS{
				"unit.proto": {Data: []byte("syntax = \"proto3\";\npackage com.example.stock;\nmessage Unit {\n  string name = 1;\n}\n")},
				"v1.proto":   {Data: []byte("syntax = \"proto3\";\npackage com.example.stock;\nimport \"base.proto\";\nimport \"unit.proto\";\nmessage Taken {\n  ." + pkg + ".Base base = 1;\n  Unit unit = 2;\n  com.example.stock.Unit other = 3;\n  Inner inner = 4;\n  message Inner {\n    Unit u = 1;\n  }\n}\n")},
			}
			for k, v := range tc.files {
				fsys[k] = &fstest.MapFile{Data: []byte(v)}
			}
			s, err := protobuf.Load(fsys, "v1.proto", "com.example.stock.Taken")
			if err != nil {
				t.Fatal(err)
			}
			text, err := protoPayloadSchema(fsys["v1.proto"].Data, s)
			if err != nil {
				t.Fatalf("bundle: %v", err)
			}
			alone, err := protobuf.Load(fstest.MapFS{"bundle.proto": {Data: []byte(text)}}, "bundle.proto", "com.example.stock.Taken")
			if err != nil {
				t.Fatalf("the bundle does not compile on its own: %v\n%s", err, text)
			}
			if got, want := shape(alone.Message, 4), shape(s.Message, 4); got != want {
				t.Errorf("the bundle's event message differs:\n got %s\nwant %s\n%s", got, want, text)
			}
		})
	}
}
