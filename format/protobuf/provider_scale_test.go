package protobuf

import (
	"slices"
	"testing"
)

// TestImports: the import scan of the incremental gate, and where it
// gives up (all) rather than miss a file.
func TestImports(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
		all        bool
	}{
		{"none", "syntax = \"proto3\";\nmessage A {}\n", nil, false},
		{"plain and public", "import \"common/s1.proto\";\nimport public \"./common/s2.proto\";\n", []string{"common/s1.proto", "common/s2.proto"}, false},
		{"escaped path", "import \"common/s\\061.proto\";\n", nil, true},
		{"the word in a comment", "// import nothing\nimport \"a.proto\";\n", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, all := Provider{}.Imports([]byte(tc.text))
			if !slices.Equal(got, tc.want) || all != tc.all {
				t.Errorf("Imports = %q, %v; want %q, %v", got, all, tc.want, tc.all)
			}
		})
	}
}
