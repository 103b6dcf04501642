package catalog

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/yamldoc"
)

// Unchanged names the types of head whose compatibility result cannot
// differ from base's: evtool.yaml is the same, no consumer contract that
// reads the type differs, the type's directory holds the same files with
// the same bytes, and so does every file its schemas can reach: for a
// format compiled from the root, what its files' references reach as the
// root's files say (format.RootFiles.RefInputs: for JSON Schema the files
// its $refs and $schema name under every base the compiler may give
// them, followed transitively); for a format compiled by its provider,
// what format.InputScanner says (for Avro every .avsc of the shared
// directories, for Protobuf the files its imports name, transitively).
// Where a reference cannot be followed (too many candidate bases; an
// import the scan cannot read), every file of that format in the catalog
// counts. A skipped type's
// verdict is base's: callers say that base is assumed to pass. Both
// catalogs must be loaded from a file system (Load, LoadFS, or their
// deferred forms).
func Unchanged(head, base *Catalog) map[string]bool {
	out := map[string]bool{}
	if head == nil || base == nil || head.openFS == nil || base.openFS == nil {
		return out
	}
	hs, err := newInputScan(head)
	if err != nil {
		return out
	}
	defer hs.close()
	bs, err := newInputScan(base)
	if err != nil {
		return out
	}
	defer bs.close()
	if hs.digest(ConfigName) != bs.digest(ConfigName) || head.rootPath != base.rootPath {
		return out
	}
	contracts, ok := changedContracts(hs, bs)
	if !ok {
		return out
	}
	for _, t := range head.Types {
		bt := base.Lookup(t.Name)
		if bt == nil || t.Format != bt.Format || contracts[t.Name] {
			continue
		}
		if sameInputs(hs.inputs(t), bs.inputs(bt)) {
			out[t.Name] = true
		}
	}
	return out
}

// contractsDir is where consumer contracts sit beside evtool.yaml (the
// consumers package's Dir, which imports this one).
const contractsDir = "consumers"

// changedContracts names the types read by a contract that differs
// between the two catalogs (added, removed or edited: the types it reads
// on either side), whose consumer-aware verdicts may differ. ok is false
// when that cannot be told (a contract that does not parse, a directory
// that cannot be read): then every type counts as changed.
func changedContracts(head, base *inputScan) (types map[string]bool, ok bool) {
	types = map[string]bool{}
	names := map[string]bool{}
	for _, s := range []*inputScan{head, base} {
		entries, err := fs.ReadDir(s.fsys, contractsDir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, false
		}
		for _, e := range entries {
			names[e.Name()] = true
		}
	}
	for name := range names {
		p := path.Join(contractsDir, name)
		if head.digest(p) == base.digest(p) {
			continue
		}
		for _, s := range []*inputScan{head, base} {
			if s.digest(p) == absent {
				continue // not a readable file on this side (absent, or a directory)
			}
			data, err := readFile(s.fsys, p)
			if err != nil {
				return nil, false
			}
			doc, prob := yamldoc.Parse(data)
			if prob != nil {
				return nil, false
			}
			top, _ := doc.Value().(map[string]any)
			reads, isMap := top["reads"].(map[string]any)
			if top["reads"] != nil && !isMap {
				return nil, false
			}
			for typ := range reads {
				types[typ] = true
			}
		}
	}
	return types, true
}

func sameInputs(a, b map[string][sha256.Size]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// inputScan digests the files of one catalog, each once.
type inputScan struct {
	cat     *Catalog
	fsys    fs.FS
	close   func() error
	digests map[string][sha256.Size]byte // by path in fsys
	shared  map[string][]string          // files of the shared directories by extension, on first use
	all     map[string][]string          // every file of an extension, on first use
}

func newInputScan(c *Catalog) (*inputScan, error) {
	fsys, closeFS, err := c.openFS()
	if err != nil {
		return nil, err
	}
	return &inputScan{cat: c, fsys: fsys, close: closeFS, digests: map[string][sha256.Size]byte{}, all: map[string][]string{}}, nil
}

// absent is the digest of a file that cannot be read.
var absent = sha256.Sum256([]byte("\x00absent"))

// digest is the SHA-256 of the file at p (a path in fsys).
func (s *inputScan) digest(p string) [sha256.Size]byte {
	if d, ok := s.digests[p]; ok {
		return d
	}
	d := absent
	if data, err := readFile(s.fsys, p); err == nil {
		d = sha256.Sum256(data)
	}
	s.digests[p] = d
	return d
}

func (s *inputScan) full(rel string) string {
	if s.cat.rootPath == "" || s.cat.rootPath == "." {
		return rel
	}
	if rel == "." {
		return s.cat.rootPath
	}
	return s.cat.rootPath + "/" + rel
}

// inputs maps every file t's result depends on (paths in fsys) to its
// digest.
func (s *inputScan) inputs(t *EventType) map[string][sha256.Size]byte {
	out := map[string][sha256.Size]byte{}
	dir := s.full(t.Name)
	_ = fs.WalkDir(s.fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			out[p] = absent
			return nil
		}
		if !d.IsDir() {
			out[p] = s.digest(p)
		}
		return nil
	})
	sc, scanned := inputScanner(t.Format)
	switch {
	case scanned:
		s.scannedInputs(t, sc, out)
	case t.Format != "" && isFileCompiled(t.Format):
		// A format that cannot say what it reads: every file of it.
		for _, q := range s.allFiles(t.Format.Ext()) {
			out[q] = s.digest(q)
		}
	default:
		// A format that compiles from the root: what its files'
		// references reach.
		s.rootInputs(t, out)
	}
	return out
}

// inputScanner is the provider of kind when it can say which files its
// versions read (format.InputScanner).
func inputScanner(kind format.Kind) (format.InputScanner, bool) {
	fc, ok := fileCompiler(kind)
	if !ok {
		return nil, false
	}
	sc, ok := fc.(format.InputScanner)
	return sc, ok
}

// isFileCompiled reports whether kind's provider compiles its files
// itself (a format.FileCompiler), not the catalog.
func isFileCompiled(kind format.Kind) bool {
	_, ok := fileCompiler(kind)
	return ok
}

// isRootCompiled reports whether kind's files compile from the catalog
// root read once (its provider is a format.RootCompiler).
func isRootCompiled(kind format.Kind) bool {
	_, ok := providerAs[format.RootCompiler](kind)
	return ok
}

// rootInputs adds the root's files the references of t's versions reach
// (format.RootFiles.RefInputs: a superset of what the compiler loads);
// every file of the format when its root cannot say (no
// format.RootFiler). A type without a format (no versions) reads none.
func (s *inputScan) rootInputs(t *EventType, out map[string][sha256.Size]byte) {
	rf := s.cat.rootFiles(t.Format)
	if rf == nil && isRootCompiled(t.Format) {
		for _, q := range s.allFiles(t.Format.Ext()) {
			out[q] = s.digest(q)
		}
		return
	}
	rels := make([]string, 0, len(t.Versions))
	for _, v := range t.Versions {
		rels = append(rels, v.RelPath)
	}
	read := func(rel string) {
		p := s.full(rel)
		out[p] = s.digest(p)
	}
	if rf == nil {
		for _, rel := range rels {
			read(rel)
		}
		return
	}
	rf.RefInputs(rels, read, func(rel string) { out[s.full(rel)] = absent })
}

// scannedInputs adds the files t's versions read as sc says: the shared
// directories' files of the format, and the files they import,
// transitively (paths relative to the root). A file whose imports the
// scan cannot read makes every file of the format an input.
func (s *inputScan) scannedInputs(t *EventType, sc format.InputScanner, out map[string][sha256.Size]byte) {
	ext := t.Format.Ext()
	if sc.ReadsShared() {
		for _, p := range s.sharedFiles(ext) {
			out[p] = s.digest(p)
		}
	}
	var queue []string
	for _, v := range t.Versions {
		queue = append(queue, v.RelPath)
	}
	seen := map[string]bool{}
	for len(queue) > 0 {
		rel := queue[0]
		queue = queue[1:]
		if seen[rel] || !fs.ValidPath(rel) {
			continue
		}
		seen[rel] = true
		p := s.full(rel)
		out[p] = s.digest(p)
		data, err := readFile(s.fsys, p)
		if err != nil {
			continue
		}
		imports, all := sc.Imports(data)
		if all {
			for _, q := range s.allFiles(ext) {
				out[q] = s.digest(q)
			}
			return
		}
		queue = append(queue, imports...)
	}
}

// sharedFiles lists the files with extension ext in the shared
// directories (paths in fsys).
func (s *inputScan) sharedFiles(ext string) []string {
	if files, ok := s.shared[ext]; ok {
		return files
	}
	l := &loader{fsys: s.fsys, root: s.cat.rootPath}
	var out []string
	for _, dir := range l.sharedDirs(s.cat) {
		entries, _ := fs.ReadDir(s.fsys, dir)
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ext) {
				out = append(out, path.Join(dir, e.Name()))
			}
		}
	}
	if s.shared == nil {
		s.shared = map[string][]string{}
	}
	s.shared[ext] = out
	return out
}

// allFiles lists every file with extension ext under the root.
func (s *inputScan) allFiles(ext string) []string {
	if files, ok := s.all[ext]; ok {
		return files
	}
	var files []string
	_ = fs.WalkDir(s.fsys, s.full("."), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ext) {
			files = append(files, p)
		}
		return nil
	})
	s.all[ext] = files
	return files
}
