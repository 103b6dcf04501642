package catalog

import (
	"io/fs"
	"sync"
)

// listings are the directories listed while compiling the Avro and
// Protobuf versions of one catalog, by path (and the same without their
// subdirectories: listFiles). The Avro loader lists the shared
// directories, the catalog root among them, for every version: listing a
// root of thousands of types once per version made loading quadratic.
// The catalog is not written to while a command reads it. Safe for
// concurrent use (CompileType runs from several goroutines).
type listings struct {
	mu    sync.Mutex
	dirs  map[string][]fs.DirEntry
	files map[string][]fs.DirEntry
}

func newListings() *listings {
	return &listings{dirs: map[string][]fs.DirEntry{}, files: map[string][]fs.DirEntry{}}
}

// listingCache answers ReadDir from ls, listing each directory once.
type listingCache struct {
	fs.FS
	ls *listings
}

// withListings is fsys with its directory listings kept in ls (fsys
// itself when it keeps them already).
func withListings(fsys fs.FS, ls *listings) fs.FS {
	if _, ok := fsys.(*listingCache); ok {
		return fsys
	}
	return &listingCache{FS: fsys, ls: ls}
}

// Stat is the wrapped file system's: fs.Stat of a bare Open would open
// the file, and opening a named pipe blocks until a writer comes (the
// format readers stat first to refuse what is not a regular file).
func (l *listingCache) Stat(name string) (fs.FileInfo, error) { return fs.Stat(l.FS, name) }

func (l *listingCache) ReadDir(name string) ([]fs.DirEntry, error) {
	return l.ls.once(l.ls.dirs, name, func() ([]fs.DirEntry, error) { return fs.ReadDir(l.FS, name) })
}

// listFiles is ReadDir without the subdirectories, cached like ReadDir.
func (l *listingCache) listFiles(name string) ([]fs.DirEntry, error) {
	return l.ls.once(l.ls.files, name, func() ([]fs.DirEntry, error) {
		entries, err := l.ReadDir(name)
		return withoutDirs(entries), err
	})
}

// once is m[name], listed by list when it is not there yet (an error is
// not kept: the next call lists again).
func (ls *listings) once(m map[string][]fs.DirEntry, name string, list func() ([]fs.DirEntry, error)) ([]fs.DirEntry, error) {
	ls.mu.Lock()
	entries, ok := m[name]
	ls.mu.Unlock()
	if ok {
		return entries, nil
	}
	entries, err := list()
	if err != nil {
		return nil, err
	}
	ls.mu.Lock()
	m[name] = entries
	ls.mu.Unlock()
	return entries, nil
}

// fileLister is a file system that lists a directory's files without its
// subdirectories itself (listingCache, and the SchemaCache's recordingFS
// over one).
type fileLister interface {
	listFiles(name string) ([]fs.DirEntry, error)
}

// listFiles lists the files of the directory name of fsys, not its
// subdirectories: all that a format compiler looks for in a directory.
// The catalog root is a shared directory that holds every type
// directory, and going through thousands of them for each Avro version
// made compiling a catalog quadratic in its types.
func listFiles(fsys fs.FS, name string) ([]fs.DirEntry, error) {
	if l, ok := fsys.(fileLister); ok {
		return l.listFiles(name)
	}
	entries, err := fs.ReadDir(fsys, name)
	return withoutDirs(entries), err
}

func withoutDirs(entries []fs.DirEntry) []fs.DirEntry {
	out := make([]fs.DirEntry, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() {
			out = append(out, e)
		}
	}
	return out
}
