package catalog

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/report"
)

// LoadDeferred reads the catalog in dir like Load, but compiles no schema:
// CompileType compiles one type's versions when they are needed and
// ReleaseType lets them go, so a command that walks the catalog type by
// type (compat check, lint) holds the compiled schemas of the types in
// hand, not of the whole catalog. Each type gets a compiler of its own:
// santhosh-tekuri's compiler keeps every schema it compiled for as long
// as it lives. The files themselves (text, decoded JSON) are read once, at
// load, and shared by every type. The LoadError holds the problems found
// before compiling; CompileType returns the rest.
func LoadDeferred(dir string) (*Catalog, error) { return loadDir(context.Background(), dir, true) }

// LoadDeferredContext is LoadDeferred reading no more files once ctx is
// done (a signal): the load then stops soon and its error is ctx's cause
// (errors.Is context.Canceled), with no catalog.
func LoadDeferredContext(ctx context.Context, dir string) (*Catalog, error) {
	return loadDir(ctx, dir, true)
}

// stoppingFS is a file system that fails every read once ctx is done, so
// that a load of thousands of files stops soon after a signal.
type stoppingFS struct {
	fs.FS
	ctx context.Context
}

func (s stoppingFS) Open(name string) (fs.File, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return s.FS.Open(name)
}

func (s stoppingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	return fs.ReadDir(s.FS, name)
}

func (s stoppingFS) ReadFile(name string) ([]byte, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return fs.ReadFile(s.FS, name)
}

func (s stoppingFS) Stat(name string) (fs.FileInfo, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return fs.Stat(s.FS, name)
}

// LoadFSDeferred is LoadDeferred reading from fsys (see LoadFS).
func LoadFSDeferred(fsys fs.FS, display string) (*Catalog, error) {
	return loadWith(&loader{fsys: fsys, display: display, deferred: true})
}

// LoadFSDeferredContext is LoadFSDeferred reading no more files once ctx
// is done, as LoadDeferredContext.
func LoadFSDeferredContext(ctx context.Context, fsys fs.FS, display string) (*Catalog, error) {
	return loadFSContext(ctx, fsys, display, true)
}

// deferred is what a catalog loaded by LoadDeferred needs to compile later.
// CompileType runs from several goroutines at once.
type deferred struct {
	display string

	mu         sync.Mutex
	sharedDirs []string // computed on first use
	sharedDone bool
	// reported, used and kinds are the formatLoader's, across every
	// CompileType call: a shared file's problem is reported once, and
	// LintShared knows which shared files versions used.
	reported map[string]bool
	used     map[string]bool
	kinds    map[format.Kind]bool
	// listings are the directories listed while compiling.
	listings *listings
	// compilers are the Avro and Protobuf compilers of every
	// CompileType and LintShared call (fileCompilers).
	compilers *fileCompilers
}

func newDeferred(display string) *deferred {
	return &deferred{display: display, reported: map[string]bool{}, used: map[string]bool{}, kinds: map[format.Kind]bool{},
		listings: newListings(), compilers: &fileCompilers{m: map[format.Kind]format.FileCompiler{}}}
}

// Deferred reports whether the catalog was loaded without compiling
// (LoadDeferred), so that CompileType must be called before a type's
// Schema and Compiled are set.
func (c *Catalog) Deferred() bool { return c.deferred != nil }

// CompileType compiles the versions of t (a type of c) and returns the
// problems that loading would have reported for them: after it, each
// version's Schema, Compiled and Digest are set as Load sets them. On a
// catalog that Load compiled it does nothing.
func (c *Catalog) CompileType(t *EventType) []report.Finding {
	d := c.deferred
	if d == nil {
		return nil
	}
	l, closeFS, probs := c.reopen()
	if probs != nil {
		return probs
	}
	defer closeFS()
	sessions := rootSessions{}
	fl := &formatLoader{loader: l, reported: map[string]bool{}, used: map[string]bool{}, compilers: d.compilers}
	var out []report.Finding
	for _, v := range t.Versions {
		c.decodeVersion(v)
		if fromRoot, f := c.compileFromRoot(sessions, v); fromRoot {
			if f != nil {
				out = append(out, *f)
			}
			continue
		}
		if fl.shared == nil {
			fl.shared = d.shared(l, c)
		}
		fl.compileVersion(t, v)
	}
	// Format problems are reported once per catalog, as Load reports them.
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, f := range l.errs {
		if k := reportKey(f); !d.reported[k] {
			d.reported[k] = true
			out = append(out, f)
		}
	}
	for p := range fl.used {
		d.used[p] = true
	}
	if _, ok := fileCompiler(t.Format); ok {
		d.kinds[t.Format] = true
	}
	sortFindings(out)
	return out
}

// ReleaseType drops what CompileType compiled for t, so that the memory
// of a type already checked is reclaimed. On a catalog that Load compiled
// it does nothing. Digests stay.
func (c *Catalog) ReleaseType(t *EventType) {
	if c.deferred == nil {
		return
	}
	for _, v := range t.Versions {
		v.Compiled = nil
		if _, fromRoot := c.roots[v.Format]; !fromRoot {
			v.Text = nil // read again by CompileType
		} else if rf := c.rootFiles(v.Format); rf != nil && rf.Evicted(v.RelPath) {
			v.Doc = nil // evicted at load: decoded again by CompileType
		}
	}
}

// decodeVersion decodes again the document of a version compiled from
// the root whose file was evicted at load (evictVersion).
func (c *Catalog) decodeVersion(v *Version) {
	if v.Doc != nil {
		return
	}
	if rf := c.rootFiles(v.Format); rf != nil {
		v.Doc = rf.Document(v.RelPath)
	}
}

// LintShared compiles, after every type went through CompileType, the
// .avsc and .proto files of the shared directories that no version used,
// as Load does (lint checks every schema file), and returns their
// problems. On a catalog that Load compiled it does nothing.
func (c *Catalog) LintShared() []report.Finding {
	d := c.deferred
	if d == nil {
		return nil
	}
	l, closeFS, probs := c.reopen()
	if probs != nil {
		return probs
	}
	defer closeFS()
	d.mu.Lock()
	defer d.mu.Unlock()
	fl := &formatLoader{loader: l, reported: d.reported, used: d.used, compilers: d.compilers}
	if len(d.kinds) == 0 {
		return nil
	}
	if !d.sharedDone {
		d.sharedDirs, d.sharedDone = l.sharedDirs(c), true
	}
	fl.shared = d.sharedDirs
	fl.lintShared(d.kinds)
	sortFindings(l.errs)
	return l.errs
}

// shared returns the catalog's shared directories, listed once.
func (d *deferred) shared(l *loader, c *Catalog) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.sharedDone {
		d.sharedDirs, d.sharedDone = l.sharedDirs(c), true
	}
	return d.sharedDirs
}

// Problems returns findings (the problems of LoadFS and of CompileType)
// as the *LoadError Load returns, in Load's order; nil when there are none.
func Problems(findings []report.Finding) error {
	if len(findings) == 0 {
		return nil
	}
	out := append([]report.Finding(nil), findings...)
	sortFindings(out)
	return &LoadError{Findings: out}
}

// reopen opens the deferred catalog's file system again (directory
// listings cached) and returns a loader over it, or the problem.
func (c *Catalog) reopen() (*loader, func() error, []report.Finding) {
	fsys, closeFS, err := c.openFS()
	if err != nil {
		return nil, nil, []report.Finding{{Rule: RuleConfig, Severity: report.SeverityError, File: c.ConfigFile, Message: fmt.Sprintf("reopening the catalog: %v", err)}}
	}
	return &loader{fsys: &listingCache{FS: fsys, ls: c.deferred.listings}, display: c.deferred.display, root: c.rootPath}, closeFS, nil
}

// evictVersion tells the root's reader which files it may drop the
// decoded form of once read (format.RootReader.Evict): in a catalog
// loaded by LoadDeferred, the version files (their digest is kept; they
// are decoded again when their type is compiled), so that the catalog's
// decoded documents are not all held from load to the end of the
// command. Shared files, which many types reference, stay decoded.
func (l *loader) evictVersion(rel string) bool {
	return l.deferred && isVersionPath(rel)
}

// isVersionPath reports whether rel (relative to the root) is where a
// version file of a format compiled from the root is: TYPE/vN plus the
// format's extension (format.RootCompiler).
func isVersionPath(rel string) bool {
	dir, name := path.Split(rel)
	if dir == "" || strings.Contains(dir[:len(dir)-1], "/") || !isVersionFile(name) {
		return false
	}
	k, ok := format.KindOf(name)
	return ok && isRootCompiled(k)
}

// value is the example's decoded value.
func (ex *Example) value() any {
	if !ex.decodeAgain {
		return ex.Value
	}
	v, _ := jsonstrict.Decode(ex.Text) // decoded once already at load
	return v
}
