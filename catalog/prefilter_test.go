package catalog

import (
	"slices"
	"testing"

	"github.com/evtool/evtool/format"
)

// rootOnly is a format compiled from the root whose provider has no
// reference scan; fileOnly one compiled file by file with no import scan.
// Their methods are never called: the scan only asks what they are.
type (
	rootOnly struct {
		format.Provider
		format.RootCompiler
	}
	fileOnly struct {
		format.Provider
		format.FileCompiler
	}
)

// TestScanWith: a file is scanned by its format's provider; a format
// whose provider cannot say what a file references (no
// format.ReferenceScanner for one compiled from the root, no
// format.InputScanner for one compiled file by file, no provider)
// references anything, the safe side, rather than nothing.
func TestScanWith(t *testing.T) {
	for _, tc := range []struct {
		name     string
		p        format.Provider
		refs     []format.RefKey
		anything bool
	}{
		{"root-compiled, no scanner: anything", rootOnly{}, nil, true},
		{"file-compiled, no scanner: anything", fileOnly{}, nil, true},
		{"no provider: anything", nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := scanWith(tc.p, "a/v1.json", []byte(`{"$ref": "../common/s1.json"}`))
			if !slices.Equal(s.Refs, tc.refs) || s.Anything != tc.anything {
				t.Errorf("scanWith = refs %q anything %v, want refs %q anything %v", s.Refs, s.Anything, tc.refs, tc.anything)
			}
		})
	}
}

// TestScanFile: scanFile asks the provider of the file's format through
// the format table: a JSON Schema file's $ref and a Protobuf file's
// import both name a path.
func TestScanFile(t *testing.T) {
	for _, tc := range []struct {
		rel, text string
		refs      []format.RefKey
	}{
		{"a/v1.json", `{"$ref": "../common/s1.json"}`, []format.RefKey{format.PathKey("common/s1.json")}},
		{"a/v1.proto", "syntax = \"proto3\";\nimport \"common/s1.proto\";\n", []format.RefKey{format.PathKey("common/s1.proto")}},
	} {
		s := scanFile(tc.rel, []byte(tc.text))
		if !slices.Equal(s.Refs, tc.refs) || s.Anything {
			t.Errorf("scanFile(%s) = refs %q anything %v, want refs %q", tc.rel, s.Refs, s.Anything, tc.refs)
		}
	}
}

// TestIsVersionPath: the files a deferred load may evict are the version
// files of formats compiled from the root, directly in a type directory.
func TestIsVersionPath(t *testing.T) {
	for rel, want := range map[string]bool{
		"com.example.a/v1.json":          true,
		"com.example.a/v12.json":         true,
		"com.example.a/v1.avsc":          false, // compiled file by file
		"com.example.a/v1.proto":         false,
		"com.example.a/s1.json":          false, // not a version
		"com.example.a/v01.json":         false,
		"v1.json":                        false, // not in a type directory
		"common/nested/v1.json":          false,
		"com.example.a/examples/v1.json": false,
	} {
		if got := isVersionPath(rel); got != want {
			t.Errorf("isVersionPath(%s) = %v, want %v", rel, got, want)
		}
	}
}
