package protobuf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadFileImportDirs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("root/common/place.proto", "syntax = \"proto3\";\npackage common;\nmessage Place { int32 floor = 1; }\n")
	write("root/t/v1.proto", "syntax = \"proto3\";\npackage t;\nimport \"common/place.proto\";\nmessage M { common.Place at = 1; }\n")
	write("loose/v1.proto", "syntax = \"proto3\";\npackage t;\nimport \"common/place.proto\";\nmessage M { common.Place at = 1; }\n")
	write("bad/v1.proto", "syntax = \"proto3\";\npackage t;\nimport \"../root/common/place.proto\";\nmessage M {}\n")
	write("vendor/t/v1.proto", "syntax = \"proto3\";\npackage t;\nmessage M { string other = 1; }\n")
	write("outside.proto", "syntax = \"proto3\";\npackage o;\nmessage O {}\n")
	write("root/t/escape.proto", "syntax = \"proto3\";\npackage t;\nimport \"t/ln.proto\";\nmessage M {}\n")
	if err := os.Symlink(filepath.Join(dir, "outside.proto"), filepath.Join(dir, "root/t/ln.proto")); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "root")
	for _, tc := range []struct {
		name, file string
		dirs       []string
		wantName   string // Schema.File
		wantErr    string
	}{
		{"catalog root", "root/t/v1.proto", []string{root}, "t/v1.proto", ""},
		{"import directory for a file outside it", "loose/v1.proto", []string{root}, "v1.proto", ""},
		{"no import directory", "loose/v1.proto", nil, "", filepath.Join(dir, "loose", "v1.proto") + ":3:8"},
		{"import leaving the directory", "bad/v1.proto", []string{root}, "", "leaves the catalog"},
		// protoc refuses too ("Input is shadowed in the --proto_path"):
		// the file compared must be the file named.
		{"file shadowed by an earlier directory", "root/t/v1.proto", []string{filepath.Join(dir, "vendor"), root}, "", "shadowed"},
		{"import through a symlink leaving the directory", "root/t/escape.proto", []string{root}, "", "escapes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := LoadFile(filepath.Join(dir, tc.file), "", tc.dirs)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.File != tc.wantName {
				t.Errorf("File = %q, want %q", s.File, tc.wantName)
			}
			if p, ok := s.PathOf("common/place.proto"); !ok || p != filepath.Join(root, "common", "place.proto") {
				t.Errorf("PathOf(common/place.proto) = %q, %v", p, ok)
			}
		})
	}
}
