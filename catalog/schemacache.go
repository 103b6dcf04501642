package catalog

import (
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"strings"
	"sync"
)

// SchemaCache keeps the Avro and Protobuf schemas a catalog compiled, for
// a process that loads the same catalog again and again (registry serve
// loads it before each write): a schema is compiled again only when a file
// its compilation looked at changed. Each entry records every file and
// directory the compiler read, with a digest of what it read (content,
// listing, or absence), and is used only when all of them read the same
// again: an edit made outside the process (git pull) is seen, never
// served stale. The file system must not change while a catalog loads
// from it (the server loads from a copy in memory). Failed compilations are not kept: their findings name
// files as the loading catalog shows them. Safe for concurrent use.
type SchemaCache struct {
	// OnCompile, when set, is called with the key of each compilation
	// the cache did not answer (tests count them). Set it before use.
	OnCompile func(key string)

	mu sync.Mutex
	m  map[string]*cacheEntry
	// gen counts loads; an entry no load used since the latest finished
	// one began is dropped (a candidate the server refused, a file
	// removed), so the cache holds what the catalog needs.
	gen uint64
}

type cacheEntry struct {
	value any
	reads []fsRead
	used  uint64 // the latest load that used it
}

// begin starts a load and returns its generation (0 for a nil cache).
func (c *SchemaCache) begin() uint64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	return c.gen
}

// end finishes the load of generation gen: entries that neither it nor a
// load begun after it used are dropped.
func (c *SchemaCache) end(gen uint64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.m {
		if e.used < gen {
			delete(c.m, k)
		}
	}
}

// fsRead is one thing a compilation read and the digest of what it saw.
type fsRead struct {
	name string
	dir  bool
	// files: the directory's files were listed, not its subdirectories
	// (listFiles), so a type directory added beside them changes nothing.
	files  bool
	digest [sha256.Size]byte
}

// compile returns, for the load of generation gen, what compile(fsys) returned for key, from the cache
// when every read of the cached compilation reads the same in fsys. A nil
// cache compiles every time.
func (c *SchemaCache) compile(gen uint64, key string, fsys fs.FS, compile func(fs.FS) (any, error)) (any, error) {
	if c == nil {
		return compile(fsys)
	}
	c.mu.Lock()
	e := c.m[key]
	c.mu.Unlock()
	if e != nil && e.fresh(fsys) {
		c.mu.Lock()
		e.used = max(e.used, gen)
		c.mu.Unlock()
		return e.value, nil
	}
	rec := &recordingFS{fsys: fsys, seen: map[fsRead]bool{}}
	v, err := compile(rec)
	if c.OnCompile != nil {
		c.OnCompile(key)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		delete(c.m, key)
		return v, err
	}
	if c.m == nil {
		c.m = map[string]*cacheEntry{}
	}
	c.m[key] = &cacheEntry{value: v, reads: rec.reads, used: gen}
	return v, nil
}

// fresh reports whether every read of e reads the same in fsys.
func (e *cacheEntry) fresh(fsys fs.FS) bool {
	for _, r := range e.reads {
		if readDigest(fsys, r) != r.digest {
			return false
		}
	}
	return true
}

// readDigest digests what r.name is in fsys: a file's content, a
// directory's listing (names and kinds; files only when r.files), or the
// error class when it cannot be read (absent, or not of that kind).
func readDigest(fsys fs.FS, r fsRead) [sha256.Size]byte {
	name := r.name
	h := sha256.New()
	if r.dir {
		var entries []fs.DirEntry
		var err error
		if r.files {
			entries, err = listFiles(fsys, name)
		} else {
			entries, err = fs.ReadDir(fsys, name)
		}
		if err != nil {
			h.Write([]byte("error: " + errClass(err)))
		}
		for _, e := range entries {
			h.Write([]byte(e.Name() + "\x00" + e.Type().String() + "\x00"))
		}
	} else if f, err := fsys.Open(name); err != nil {
		h.Write([]byte("error: " + errClass(err)))
	} else {
		// One byte over the largest file read: a file that grew past the
		// limit differs from one at the limit.
		if _, err := io.Copy(h, io.LimitReader(f, MaxFileSize+1)); err != nil {
			h.Write([]byte("\x00error: " + errClass(err)))
		}
		f.Close()
	}
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}

func errClass(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "not exist"
	case errors.Is(err, fs.ErrPermission):
		return "permission"
	}
	return "other"
}

// recordingFS passes reads to fsys and records each name read with the
// digest of what it holds. Compilers may read from several goroutines.
type recordingFS struct {
	fsys  fs.FS
	mu    sync.Mutex
	seen  map[fsRead]bool
	reads []fsRead
}

func (r *recordingFS) record(name string, dir bool) { r.recordRead(fsRead{name: name, dir: dir}) }

func (r *recordingFS) recordRead(key fsRead) {
	r.mu.Lock()
	done := r.seen[key]
	r.seen[key] = true
	r.mu.Unlock()
	if done {
		return
	}
	key.digest = readDigest(r.fsys, key)
	r.mu.Lock()
	r.reads = append(r.reads, key)
	r.mu.Unlock()
}

// Open records name as a file, or as a directory when it is one (a
// directory opened to be listed).
func (r *recordingFS) Open(name string) (fs.File, error) {
	f, err := r.fsys.Open(name)
	dir := false
	if err == nil {
		if st, serr := f.Stat(); serr == nil && st.IsDir() {
			dir = true
		}
	}
	r.record(name, dir)
	return f, err
}

func (r *recordingFS) ReadFile(name string) ([]byte, error) {
	r.record(name, false)
	return fs.ReadFile(r.fsys, name)
}

func (r *recordingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	r.record(name, true)
	return fs.ReadDir(r.fsys, name)
}

// listFiles records the files of the directory name as read, and lists
// them through fsys's cache (listFiles) when it has one.
func (r *recordingFS) listFiles(name string) ([]fs.DirEntry, error) {
	r.recordRead(fsRead{name: name, dir: true, files: true})
	return listFiles(r.fsys, name)
}

func (r *recordingFS) Stat(name string) (fs.FileInfo, error) {
	st, err := fs.Stat(r.fsys, name)
	r.record(name, err == nil && st.IsDir())
	return st, err
}

// cacheKey names one compilation: its kind, the file, and the arguments
// that change the result besides what the file system holds.
func cacheKey(parts ...string) string {
	return strings.Join(parts, "\x00")
}
