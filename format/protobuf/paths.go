package protobuf

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LoadFile compiles the .proto file at the OS path file, as protoc does
// with -I: imports resolve in importDirs, in order, then in the file's own
// directory (and among the bundled well-known types). The file is compiled
// under its path relative to the first of those directories that holds
// it, so that a file importing "common/place.proto" from a catalog's
// schemas directory loads as lint loads it. Nothing outside the
// directories is read (each is an os.Root). The names in the errors are
// OS paths.
func LoadFile(file, message string, importDirs []string) (*Schema, error) {
	u, err := openDirs(append(append([]string{}, importDirs...), filepath.Dir(file)))
	if err != nil {
		return nil, err
	}
	defer u.close()
	name, at, ok := u.nameOf(file)
	if !ok {
		return nil, &Error{File: file, Message: "not inside any import directory"}
	}
	// Names open in the first directory that has them: an earlier one
	// with the same name would be compiled in place of file (protoc
	// refuses it the same way).
	for i, r := range u.roots[:at] {
		if _, err := r.Stat(name); err == nil {
			return nil, &Error{File: file, Message: fmt.Sprintf("is shadowed by %s: it loads as %s, which the import directory %s has first", filepath.Join(u.shown[i], filepath.FromSlash(name)), name, u.shown[i])}
		}
	}
	s, err := Load(u, name, message)
	if err != nil {
		return nil, u.show(err)
	}
	s.paths = map[string]string{}
	for _, f := range s.Files {
		s.paths[f] = u.pathOf(f)
	}
	return s, nil
}

// PathOf is the OS path a file of the schema (a name in Files, or a
// descriptor's file) was read from, for a schema LoadFile loaded.
func (s *Schema) PathOf(name string) (string, bool) {
	p, ok := s.paths[name]
	return p, ok
}

// dirsFS opens a name in the first of its directories that has it.
type dirsFS struct {
	dirs  []string // absolute, cleaned
	shown []string // as given, for messages
	roots []*os.Root
}

func openDirs(dirs []string) (*dirsFS, error) {
	u := &dirsFS{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			u.close()
			return nil, err
		}
		r, err := os.OpenRoot(abs)
		if err != nil {
			u.close()
			return nil, fmt.Errorf("import directory %s: %w", d, unwrapPath(err))
		}
		u.dirs, u.shown, u.roots = append(u.dirs, abs), append(u.shown, filepath.Clean(d)), append(u.roots, r)
	}
	return u, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (u *dirsFS) close() {
	for _, r := range u.roots {
		r.Close()
	}
}

func (u *dirsFS) Open(name string) (fs.File, error) {
	for _, r := range u.roots {
		f, err := r.FS().Open(name)
		if err == nil || !errors.Is(err, fs.ErrNotExist) {
			return f, err
		}
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// nameOf is file's slash path relative to the first directory that holds
// it, and that directory's index.
func (u *dirsFS) nameOf(file string) (string, int, bool) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", 0, false
	}
	for i, d := range u.dirs {
		rel, err := filepath.Rel(d, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			continue
		}
		return filepath.ToSlash(rel), i, true
	}
	return "", 0, false
}

// show names the files of a compile error by the OS path each was read
// from (the directory that served it).
func (u *dirsFS) show(err error) error {
	var errs Errors
	var one *Error
	switch {
	case errors.As(err, &errs):
	case errors.As(err, &one):
		errs = Errors{one}
	default:
		return err
	}
	out := make(Errors, len(errs))
	for i, e := range errs {
		c := *e
		if c.File != "" && fs.ValidPath(c.File) {
			c.File = u.pathOf(c.File)
		}
		out[i] = &c
	}
	if one != nil && len(out) == 1 {
		return out[0]
	}
	return out
}

// pathOf is the OS path of name in the first directory that has it (the
// last directory, the file's own, when none does).
func (u *dirsFS) pathOf(name string) string {
	for i, r := range u.roots {
		if _, err := r.Stat(name); err == nil {
			return filepath.Join(u.shown[i], filepath.FromSlash(name))
		}
	}
	return filepath.Join(u.shown[len(u.shown)-1], filepath.FromSlash(name))
}
