package registryserver

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
)

// tempPattern matches the temporary files writeAtomic creates (".NAME.tmp-N");
// the server removes leftovers when it starts.
var tempPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\..+\.tmp-[0-9]+$`) })

// errExists reports that a no-clobber write found its target already there.
var errExists = errors.New("file already exists")

// writeAtomic writes data to path so that readers (and a restart after a
// crash) see either the old state or the whole new file: it writes a
// temporary file in the same directory, fsyncs it, moves it into place and
// fsyncs the directory. With noClobber an existing path is never replaced
// (errExists): the move is a hard link, which fails if the name is taken.
// hook, when set (tests), runs after the temporary file is complete and
// before it is moved into place; its error leaves the temporary file behind
// as a crash would.
func writeAtomic(path string, data []byte, noClobber bool, hook func(tmp, final string) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Chmod(0o644); err != nil && runtime.GOOS != "windows" {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if hook != nil {
		if err := hook(tmp, path); err != nil {
			return err
		}
	}
	if noClobber {
		err := os.Link(tmp, path)
		switch {
		case err == nil:
			os.Remove(tmp)
		case errors.Is(err, fs.ErrExist):
			os.Remove(tmp)
			return errExists
		default:
			// No hard links on this file system: check, then rename.
			if _, serr := os.Lstat(path); serr == nil {
				os.Remove(tmp)
				return errExists
			}
			if err := os.Rename(tmp, path); err != nil {
				os.Remove(tmp)
				return err
			}
		}
	} else if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// syncDir makes a directory's entries (a rename, a new file) durable.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// mkdirDurable creates dir (and parents) and fsyncs its parent so the new
// entry survives a crash.
func mkdirDurable(dir string) error {
	if info, err := os.Stat(dir); err == nil && info.IsDir() {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return syncDir(filepath.Dir(dir))
}

// removeTemps deletes leftover temporary files in root (and, recursively,
// its subdirectories, dot directories included: the ids file lives in one)
// and reports their paths.
func removeTemps(root string, recursive bool) []string {
	var removed []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != root && (!recursive || d.Name() == ".git") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") && tempPattern().MatchString(d.Name()) {
			if os.Remove(p) == nil {
				removed = append(removed, p)
			}
		}
		return nil
	})
	return removed
}

// symlinkOnPath returns the first directory between base and the file
// rel (a slash path inside base) that is a symlink, "" when there is none.
// The catalog is read through an os.Root, which does not follow a symlink
// out of it; a write must not follow one either, or a registration would
// put files outside the catalog. Directories not there yet are created
// later, so the walk stops at the first one missing.
func symlinkOnPath(base, rel string) (string, error) {
	segs := strings.Split(rel, "/")
	p := base
	for _, seg := range segs[:len(segs)-1] {
		p = filepath.Join(p, seg)
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return p, nil
		}
	}
	return "", nil
}
