package registry

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed all:scaffold
var scaffoldFS embed.FS

// Scaffold writes a new catalog (evtool.yaml and one example type) into dir
// and returns the files it wrote. It refuses to overwrite anything.
func Scaffold(dir string) ([]string, error) {
	root, _ := fs.Sub(scaffoldFS, "scaffold")
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
