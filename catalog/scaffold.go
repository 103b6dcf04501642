package catalog

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
)

//go:embed all:scaffold-jsonschema all:scaffold-avro all:scaffold-protobuf
var scaffoldFS embed.FS

// Scaffold writes a new catalog of JSON Schema types (evtool.yaml and one
// example type) into dir and returns the files it wrote. It refuses to
// overwrite anything.
func Scaffold(dir string) ([]string, error) { return ScaffoldFormat(dir, formats.DefaultKind) }

// ScaffoldFormat is Scaffold for a catalog whose example type is written
// in the given format; the dataschema template ends in the format's
// extension, so that events name their version's file.
func ScaffoldFormat(dir string, kind format.Kind) ([]string, error) {
	// One scaffold per format, named for its kind.
	if _, ok := formats.ForKind(kind); !ok {
		return nil, fmt.Errorf("no scaffold for format %q", kind)
	}
	sub := "scaffold-" + string(kind)
	root, _ := fs.Sub(scaffoldFS, sub)
	var files []string
	if err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files = append(files, p)
		return nil
	}); err != nil {
		return nil, err
	}
	for _, p := range files {
		target := filepath.Join(dir, filepath.FromSlash(p))
		if _, err := os.Lstat(target); err == nil {
			return nil, fmt.Errorf("%s already exists: evtool init does not overwrite files", target)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	var written []string
	for _, p := range files {
		data, err := fs.ReadFile(root, p)
		if err != nil {
			return written, err
		}
		target := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return written, err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return written, err
		}
		written = append(written, target)
	}
	return written, nil
}
