package catalog

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// GitTree is the catalog directory dir as it is at git revision rev, read
// with `git rev-parse`, `git ls-tree` and `git cat-file` only: it works in a
// shallow clone as long as rev's commit (and so its tree) was fetched.
// Display is what findings prefix paths with ("origin/main:examples/orders").
type GitTree struct {
	FS      fs.FS
	Display string
	Commit  string
}

// ErrNoCatalogAtRev reports that the revision has no evtool.yaml at dir's path.
var ErrNoCatalogAtRev = errors.New("no catalog at that revision")

// fetchHint tells how to make rev available in a shallow clone. A plain
// `git fetch --depth=1 origin main` only sets FETCH_HEAD: the refspec must
// name the remote-tracking ref for origin/main to exist.
func fetchHint(rev string) string {
	const full = "In CI, fetch it first (actions/checkout with fetch-depth: 0, or "
	if isHexCommit(rev) {
		return full + "`git fetch --depth=1 origin " + rev + "`)"
	}
	remote, branch, ok := strings.Cut(strings.TrimPrefix(rev, "refs/remotes/"), "/")
	if b, local := strings.CutPrefix(rev, "refs/heads/"); local || !ok || branch == "" || remote == "" {
		remote, branch = "origin", b
	}
	tracking := remote + "/" + branch
	return full + "`git fetch --depth=1 " + remote + " " + branch + ":refs/remotes/" + tracking + "`) and pass it as " + tracking
}

// isHexCommit reports whether rev looks like an abbreviated or full commit id.
func isHexCommit(rev string) bool {
	if len(rev) < 7 || len(rev) > 64 {
		return false
	}
	for _, c := range rev {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// ReadGitTree reads dir (a directory inside a git work tree) at rev.
func ReadGitTree(ctx context.Context, dir, rev string) (*GitTree, error) {
	lt, err := listGitTree(ctx, dir, rev)
	if err != nil {
		return nil, err
	}
	tree := &GitTree{Display: lt.display, Commit: lt.commit}
	m, err := readGitBlobs(ctx, dir, rev, lt.entries)
	if err != nil {
		return nil, err
	}
	if _, ok := m[ConfigName]; !ok {
		where := lt.prefix
		if where == "" {
			where = "the repository root"
		}
		return nil, fmt.Errorf("--against %s: %w: %s has no %s at %s (if this change adds the catalog, run without --against)", rev, ErrNoCatalogAtRev, where, ConfigName, rev)
	}
	tree.FS = m
	return tree, nil
}

// gitEntry is a file of a git tree: its path relative to the catalog
// directory and its blob's object id.
type gitEntry struct{ path, oid string }

// gitListing is dir at rev as `git ls-tree` lists it.
type gitListing struct {
	prefix  string // dir's path in the repository ("" at its root)
	commit  string
	display string
	entries []gitEntry
}

// listGitTree lists the files of dir at rev without reading them.
func listGitTree(ctx context.Context, dir, rev string) (*gitListing, error) {
	if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\x00\n") {
		return nil, fmt.Errorf("--against %q: not a valid git revision", rev)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("--against %s: git is not installed (pass a directory holding the base catalog instead)", rev)
	}
	prefix, err := git(ctx, dir, nil, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, fmt.Errorf("--against %s: %s is not inside a git work tree (%v); pass a directory holding the base catalog instead", rev, dir, err)
	}
	prefix = strings.TrimSuffix(strings.TrimSpace(prefix), "/")
	commit, err := git(ctx, dir, nil, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		if kind := gitObjectKind(ctx, dir, rev); kind != "" && kind != "commit" {
			// Present but no commit: fetching would not help.
			if kind == "blob" {
				kind = "blob (a file)"
			}
			return nil, fmt.Errorf("--against %s: %s names a git %s, not a commit: pass a commit, a branch or a tag of a commit", rev, rev, kind)
		}
		return nil, fmt.Errorf("--against %s: git revision not found. %s", rev, fetchHint(rev))
	}
	commit = strings.TrimSpace(commit)
	args := []string{"ls-tree", "-r", "-z", "--full-tree", commit}
	if prefix != "" {
		args = append(args, "--", prefix+"/")
	}
	out, err := git(ctx, dir, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("--against %s: git ls-tree: %v", rev, err)
	}
	var entries []gitEntry
	for _, rec := range strings.Split(out, "\x00") {
		if rec == "" {
			continue
		}
		meta, p, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 3 || f[1] != "blob" || f[0] == "120000" {
			continue // submodules and symlinks are not catalog files
		}
		rel := p
		if prefix != "" {
			rel = strings.TrimPrefix(p, prefix+"/")
		}
		if !fs.ValidPath(rel) {
			continue
		}
		entries = append(entries, gitEntry{rel, f[2]})
	}
	display := rev + ":"
	if prefix != "" {
		display = rev + ":" + prefix
	}
	return &gitListing{prefix: prefix, commit: commit, display: display, entries: entries}, nil
}

// gitObjectKind is the kind of object rev names (commit, tree, blob), an
// annotated tag peeled to what it points at; "" when rev names none here.
func gitObjectKind(ctx context.Context, dir, rev string) string {
	kind, err := git(ctx, dir, nil, "cat-file", "-t", rev)
	if err != nil {
		return ""
	}
	if kind = strings.TrimSpace(kind); kind == "tag" {
		if peeled, err := git(ctx, dir, nil, "cat-file", "-t", rev+"^{}"); err == nil {
			kind = strings.TrimSpace(peeled)
		}
	}
	return kind
}

// readGitBlobs reads the blobs of entries with one `git cat-file --batch`.
func readGitBlobs(ctx context.Context, dir, rev string, entries []gitEntry) (memFS, error) {
	m := memFS{}
	if len(entries) == 0 {
		return m, nil
	}
	var in bytes.Buffer
	for _, e := range entries {
		in.WriteString(e.oid + "\n")
	}
	raw, err := gitBytes(ctx, dir, &in, "cat-file", "--batch")
	if err != nil {
		return nil, fmt.Errorf("--against %s: git cat-file: %v", rev, err)
	}
	r := bufio.NewReader(bytes.NewReader(raw))
	for _, e := range entries {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("--against %s: git cat-file: short output", rev)
		}
		h := strings.Fields(header)
		if len(h) != 3 || h[1] != "blob" {
			return nil, fmt.Errorf("--against %s: git cat-file: object %s is missing (is the clone complete for this revision?)", rev, e.oid)
		}
		size, err := strconv.Atoi(h[2])
		if err != nil || size < 0 {
			return nil, fmt.Errorf("--against %s: git cat-file: bad header %q", rev, header)
		}
		data := make([]byte, size)
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, fmt.Errorf("--against %s: git cat-file: %v", rev, err)
		}
		_, _ = r.ReadByte() // the newline after the content
		m[e.path] = data
	}
	return m, nil
}

func git(ctx context.Context, dir string, stdin io.Reader, args ...string) (string, error) {
	b, err := gitBytes(ctx, dir, stdin, args...)
	return string(b), err
}

func gitBytes(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, errors.New(msg)
	}
	return out, nil
}

// memFS is a read-only in-memory file system: slash paths to contents.
// A key ending in "/" (no contents) is a directory that exists even when
// it holds nothing: a base catalog whose types were all left out still
// has its schemas root.
type memFS map[string][]byte

func (m memFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if data, ok := m[name]; ok {
		return &memFile{name: path.Base(name), r: bytes.NewReader(data), size: int64(len(data))}, nil
	}
	prefix := name + "/"
	if name == "." {
		prefix = ""
	}
	_, marked := m[prefix]
	seen := map[string]bool{}
	var entries []fs.DirEntry
	for p, data := range m {
		if !strings.HasPrefix(p, prefix) || p == prefix {
			continue
		}
		rest := strings.TrimPrefix(p, prefix)
		first, more, isDir := strings.Cut(rest, "/")
		_ = more
		if seen[first] {
			continue
		}
		seen[first] = true
		if isDir {
			entries = append(entries, memEntry{name: first, dir: true})
		} else {
			entries = append(entries, memEntry{name: first, size: int64(len(data))})
		}
	}
	if len(entries) == 0 && name != "." && !marked {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return &memDir{name: path.Base(name), entries: entries}, nil
}

type memFile struct {
	name string
	r    *bytes.Reader
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memEntry{name: f.name, size: f.size}, nil }
func (f *memFile) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *memFile) Close() error               { return nil }

type memDir struct {
	name    string
	entries []fs.DirEntry
	off     int
}

func (d *memDir) Stat() (fs.FileInfo, error) { return memEntry{name: d.name, dir: true}, nil }
func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a directory")}
}
func (d *memDir) Close() error { return nil }
func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.off:]
	if n <= 0 {
		d.off = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	if n > len(rest) {
		n = len(rest)
	}
	d.off += n
	return rest[:n], nil
}

type memEntry struct {
	name string
	size int64
	dir  bool
}

func (e memEntry) Name() string { return e.name }
func (e memEntry) Size() int64  { return e.size }
func (e memEntry) Mode() fs.FileMode {
	if e.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (e memEntry) ModTime() time.Time         { return time.Time{} }
func (e memEntry) IsDir() bool                { return e.dir }
func (e memEntry) Sys() any                   { return nil }
func (e memEntry) Type() fs.FileMode          { return e.Mode().Type() }
func (e memEntry) Info() (fs.FileInfo, error) { return e, nil }
