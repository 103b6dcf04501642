package catalog

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"

	"go.yaml.in/yaml/v3"
)

// Prefilter is what an incremental `compat check --against REV` loads of
// the catalog in a git work tree and of its base at REV: the catalog
// directories with the type directories that cannot have changed hidden.
// It is decided from bytes only, before any schema is parsed: git names
// the files that differ from REV (`git diff --name-only`, plus the
// untracked ones), and a scan of the schema files' raw bytes for their
// references and ids, which each format's provider does
// (format.ReferenceScanner, format.InputScanner), finds the types that
// reach a changed file, transitively. Whatever the scan cannot place counts as reaching every
// file. The hidden types' result is the one they have on the base, as
// for the types Unchanged names.
type Prefilter struct {
	// Head and Base are the catalog directory (on disk) and the catalog at
	// the revision, with the hidden type directories absent.
	Head, Base fs.FS
	// BaseDisplay prefixes paths of the base in findings ("REV:dir").
	BaseDisplay string
	// Total counts the types of the head catalog; Hidden names those not
	// loaded.
	Total  int
	Hidden []string
	closer func() error
}

// Close releases the head directory.
func (p *Prefilter) Close() error {
	if p == nil || p.closer == nil {
		return nil
	}
	return p.closer()
}

// PrefilterGit compares the catalog in dir (inside a git work tree) with
// the same directory at rev. It returns nil and the reason when the
// whole catalog must be loaded: evtool.yaml or a file outside the schemas
// directory differs, a directory changed between type and shared, a
// symbolic link, a reference the scan cannot place from a type that must
// be loaded. An error is git's (no such revision, not a work tree).
func PrefilterGit(ctx context.Context, dir, rev string) (*Prefilter, string, error) {
	lt, err := listGitTree(ctx, dir, rev)
	if err != nil {
		return nil, "", err
	}
	changed, err := gitChanged(ctx, dir, lt.commit)
	if err != nil {
		return nil, "", fmt.Errorf("--against %s: %v", rev, err)
	}
	baseOID := make(map[string]string, len(lt.entries))
	for _, e := range lt.entries {
		baseOID[e.path] = e.oid
	}
	if _, ok := baseOID[ConfigName]; !ok {
		return nil, "no " + ConfigName + " at the revision", nil
	}
	if changed[ConfigName] {
		return nil, ConfigName + " differs from the revision", nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, "", err
	}
	pf, reason, err := prefilter(ctx, dir, rev, lt, baseOID, changed, root)
	if pf == nil {
		root.Close()
		return nil, reason, err
	}
	pf.closer = root.Close
	return pf, "", nil
}

// gitChanged lists the files of dir (paths relative to it) whose content
// in the work tree may differ from commit's: those `git diff` names
// (tracked, staged or not, deleted included) and the untracked ones,
// ignored files included, since the loader reads them too.
func gitChanged(ctx context.Context, dir, commit string) (map[string]bool, error) {
	out := map[string]bool{}
	diff, err := git(ctx, dir, nil, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", "--relative", commit, "--", ".")
	if err != nil {
		return nil, fmt.Errorf("git diff: %v", err)
	}
	others, err := git(ctx, dir, nil, "ls-files", "--others", "-z", "--", ".")
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %v", err)
	}
	for _, p := range strings.Split(diff+"\x00"+others, "\x00") {
		if p != "" {
			out[p] = true
		}
	}
	// git diff does not look at files marked assume-unchanged (tag in
	// lower case) or skip-worktree (S), as sparse checkouts and some
	// monorepo tools mark them, but the head is read from disk: such a
	// file may differ however git reports it, so it counts as changed.
	tagged, err := git(ctx, dir, nil, "ls-files", "-v", "-z", "--", ".")
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %v", err)
	}
	for _, e := range strings.Split(tagged, "\x00") {
		if len(e) < 3 || e[1] != ' ' {
			continue
		}
		if tag := e[0]; tag == 'S' || (tag >= 'a' && tag <= 'z') {
			out[e[2:]] = true
		}
	}
	return out, nil
}

// scanned is one schema file's references and ids as the byte scan of
// its format finds them (scanFile).
type scanned = format.References

// prefilter decides the types to load; see PrefilterGit.
func prefilter(ctx context.Context, dir, rev string, lt *gitListing, baseOID map[string]string, changed map[string]bool, root *os.Root) (*Prefilter, string, error) {
	rootFS := root.FS()
	cfgData, err := readFile(rootFS, ConfigName)
	if err != nil {
		return nil, "cannot read " + ConfigName, nil
	}
	var cfg struct {
		Schemas string `yaml:"schemas"`
	}
	if yaml.Unmarshal(cfgData, &cfg) != nil {
		return nil, ConfigName + " does not parse", nil
	}
	if cfg.Schemas == "" {
		cfg.Schemas = "schemas"
	}
	sroot := path.Clean(filepath.ToSlash(cfg.Schemas))
	if !fs.ValidPath(sroot) {
		return nil, "schemas is not a path inside the catalog", nil
	}
	// inRoot returns p (relative to the catalog directory) relative to the
	// schemas root.
	inRoot := func(p string) (string, bool) {
		if sroot == "." {
			return p, true
		}
		r, ok := strings.CutPrefix(p, sroot+"/")
		return r, ok
	}
	for p := range changed {
		if p == contractsDir || strings.HasPrefix(p, contractsDir+"/") {
			// A contract added, removed or edited changes the
			// consumer-aware verdicts of the types it reads (Unchanged).
			return nil, "consumer contracts differ", nil
		}
		if _, ok := inRoot(p); !ok {
			return nil, p + " (outside the schemas directory) differs", nil
		}
	}

	// The head's files: which top directories are types, and the scan of
	// every schema file.
	headTypes := map[string]bool{}
	kindTypes := map[format.Kind]map[string]bool{} // types by their versions' format, either side
	addKind := func(top, name string) {
		if k, ok := format.KindOf(name); ok && isVersionFile(name) {
			if kindTypes[k] == nil {
				kindTypes[k] = map[string]bool{}
			}
			kindTypes[k][top] = true
		}
	}
	tops := map[string]bool{} // top directories with files, head
	files := map[string]*scanned{}
	byTop := map[string][]string{}
	var headWalkProblem string
	// The scan reads through os.DirFS, not the Root: a third of its time
	// went to the Root's per-component opens. The walk refuses symbolic
	// links, so nothing outside the directory is read; the load itself
	// goes through the Root.
	scanFS := os.DirFS(dir)
	walkErr := fs.WalkDir(scanFS, sroot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			headWalkProblem = "cannot read " + p
			return fs.SkipAll
		}
		if d.Type()&fs.ModeSymlink != 0 || !utf8.ValidString(p) {
			headWalkProblem = p + " is a symbolic link or not UTF-8"
			return fs.SkipAll
		}
		rel, _ := inRoot(p)
		if p == sroot {
			return nil
		}
		if d.IsDir() {
			if !strings.Contains(rel, "/") {
				tops[rel] = true
			}
			if SkipSchemaDir(sroot, p) {
				return fs.SkipDir
			}
			return nil
		}
		top, rest, nested := strings.Cut(rel, "/")
		if nested {
			byTop[top] = append(byTop[top], rel)
			if !strings.Contains(rest, "/") {
				if rest == "event.yaml" || isVersionFile(rest) {
					headTypes[top] = true
				}
				addKind(top, rest)
			}
		}
		if isSchemaScan(d.Name()) {
			data, err := readFile(scanFS, p)
			if err != nil {
				headWalkProblem = "cannot read " + p
				return fs.SkipAll
			}
			files[rel] = scanFile(rel, data)
		}
		return nil
	})
	if walkErr != nil || headWalkProblem != "" {
		return nil, headWalkProblem, nil
	}
	for top := range headTypes {
		if strings.HasPrefix(top, ".") {
			delete(headTypes, top)
		}
	}

	// The base's top directories, from the listing.
	baseTypes := map[string]bool{}
	baseTops := map[string]bool{}
	for _, e := range lt.entries {
		rel, ok := inRoot(e.path)
		if !ok {
			continue
		}
		top, rest, nested := strings.Cut(rel, "/")
		if !nested || strings.HasPrefix(top, ".") {
			continue
		}
		baseTops[top] = true
		if !strings.Contains(rest, "/") && (rest == "event.yaml" || isVersionFile(rest)) {
			baseTypes[top] = true
			addKind(top, rest)
		}
	}
	for top := range tops {
		if baseTops[top] && baseTypes[top] != headTypes[top] {
			// A shared directory became a type or the reverse: what the
			// Avro and Protobuf loaders share changes.
			return nil, top + " changed between a type and a shared directory", nil
		}
	}
	isType := func(top string) bool { return headTypes[top] || baseTypes[top] }
	topOf := func(rel string) (string, bool) {
		top, _, nested := strings.Cut(rel, "/")
		return top, nested && isType(top)
	}

	// The changed files, relative to the root, and the base's side of
	// those that were there.
	var dRel []string
	var dBase []gitEntry
	for p := range changed {
		rel, _ := inRoot(p)
		dRel = append(dRel, rel)
		if oid, ok := baseOID[p]; ok && isSchemaScan(path.Base(p)) {
			dBase = append(dBase, gitEntry{p, oid})
		}
	}
	sort.Strings(dRel)
	baseChanged, err := readGitBlobs(ctx, dir, rev, dBase)
	if err != nil {
		return nil, "", err
	}
	baseScan := map[string]*scanned{}
	for p, data := range baseChanged {
		rel, _ := inRoot(p)
		baseScan[rel] = scanFile(rel, data)
	}
	for _, s := range append(mapsValues(files), mapsValues(baseScan)...) {
		for _, k := range append(s.Refs, s.IDs...) {
			if k.IsFileURL() {
				// A file: URL can name a catalog file by its path, which
				// the path matching below does not follow.
				return nil, "a schema names a file: URL", nil
			}
		}
	}

	// Who references what: match key -> files whose references (or ids)
	// have that key.
	index := map[format.RefKey][]string{}
	var anything []string
	for rel, s := range files {
		for _, k := range s.Refs {
			index[k] = append(index[k], rel)
		}
		for _, k := range s.IDs {
			if k.IsURL() {
				index[k] = append(index[k], rel) // a duplicate id
			}
		}
		if s.Anything {
			anything = append(anything, rel)
		}
	}
	for rel, s := range baseScan {
		if files[rel] == nil && s.Anything {
			anything = append(anything, rel)
		}
	}

	// Taint: the changed files, and every file that may reference a
	// tainted one, transitively.
	tainted := map[string]bool{}
	var queue []string
	taint := func(rel string) {
		if !tainted[rel] {
			tainted[rel] = true
			queue = append(queue, rel)
		}
	}
	for _, rel := range dRel {
		taint(rel)
	}
	if len(dRel) > 0 {
		for _, rel := range anything {
			taint(rel)
		}
	}
	for len(queue) > 0 {
		rel := queue[0]
		queue = queue[1:]
		for _, k := range tokensOf(rel, files[rel], baseScan[rel]) {
			for _, r := range index[k] {
				taint(r)
			}
		}
	}
	load := map[string]bool{}
	for rel := range tainted {
		if top, ok := topOf(rel); ok {
			load[top] = true
		} else if k, ok := format.KindOf(rel); ok && readsShared(k) {
			// Every version of the format reads every file of it in the
			// shared directories (Avro's named types).
			for top := range kindTypes[k] {
				load[top] = true
			}
		}
	}

	// What the loaded types reference must load with them: the files
	// their files name, on either side, transitively (a type's version
	// may reference another type's file).
	names := map[format.RefKey][]string{} // match key -> files it names
	for rel, s := range files {
		for _, k := range tokensOf(rel, s, nil) {
			names[k] = append(names[k], rel)
		}
	}
	seen := map[string]bool{}
	var fq []string
	addTop := func(top string) {
		if !load[top] {
			load[top] = true
		}
		for _, rel := range byTop[top] {
			if !seen[rel] {
				seen[rel] = true
				fq = append(fq, rel)
			}
		}
		for rel := range baseScan {
			if t, _, _ := strings.Cut(rel, "/"); t == top && !seen[rel] {
				seen[rel] = true
				fq = append(fq, rel)
			}
		}
	}
	for _, top := range slices.Sorted(maps.Keys(load)) {
		addTop(top)
	}
	// Shared files of the formats compiled by their providers are
	// compiled whole when no version uses them (LintShared): what they
	// import loads too.
	for rel := range files {
		if _, ok := topOf(rel); !ok && isFileCompiled(kindOfFile(rel)) && !seen[rel] {
			seen[rel] = true
			fq = append(fq, rel)
		}
	}
	for len(fq) > 0 {
		rel := fq[0]
		fq = fq[1:]
		for _, s := range []*scanned{files[rel], baseScan[rel]} {
			if s == nil {
				continue
			}
			if s.Anything {
				return nil, rel + " has a reference the byte scan cannot place", nil
			}
			for _, k := range s.Refs {
				for _, r := range names[k] {
					if top, ok := topOf(r); ok {
						if !load[top] {
							addTop(top)
						}
					} else if !seen[r] {
						seen[r] = true
						fq = append(fq, r)
					}
				}
			}
		}
	}

	pf := &Prefilter{BaseDisplay: lt.display}
	hideHead, hideBase := map[string]bool{}, map[string]bool{}
	for top := range headTypes {
		pf.Total++
		if !load[top] {
			hideHead[top] = true
			pf.Hidden = append(pf.Hidden, top)
		}
	}
	for top := range baseTypes {
		if !load[top] {
			hideBase[top] = true
		}
	}
	sort.Strings(pf.Hidden)
	pf.Head = &hiddenTypes{FS: rootFS, root: sroot, hide: hideHead}
	var keep []gitEntry
	rootInBase := false
	for _, e := range lt.entries {
		if rel, ok := inRoot(e.path); ok {
			rootInBase = true
			if top, _, nested := strings.Cut(rel, "/"); nested && hideBase[top] {
				continue
			}
		}
		keep = append(keep, e)
	}
	base, err := readGitBlobs(ctx, dir, rev, keep)
	if err != nil {
		return nil, "", err
	}
	if rootInBase && sroot != "." {
		// Every type may have been left out: the root stays, empty,
		// rather than read as missing (a false base-catalog warning).
		base[sroot+"/"] = nil
	}
	pf.Base = base
	return pf, "", nil
}

// isSchemaScan reports whether a file's references are scanned: those
// of the formats compiled from the root (format.ReferenceScanner) and
// of the formats whose versions read what they name
// (format.InputScanner), or cannot say.
func isSchemaScan(name string) bool {
	k, ok := format.KindOf(name)
	return ok && !strings.HasPrefix(name, ".") && (!isFileCompiled(k) || !readsShared(k))
}

// readsShared reports whether the versions of kind read every file of
// the format in the shared directories: format.InputScanner says so, or
// a format compiled by its provider that cannot say what it reads.
func readsShared(k format.Kind) bool {
	if !isFileCompiled(k) {
		return false
	}
	sc, ok := inputScanner(k)
	return !ok || sc.ReadsShared()
}

// tokensOf lists the match keys under which a file can be referenced:
// its path, its name, and its ids on either side (format.RefKey).
func tokensOf(rel string, head, base *scanned) []format.RefKey {
	out := []format.RefKey{format.PathKey(rel), format.SegmentKey(path.Base(rel))}
	for _, s := range []*scanned{head, base} {
		if s == nil {
			continue
		}
		for _, k := range s.IDs {
			out = append(out, k)
		}
	}
	return out
}

// scanFile finds the references and ids of one file (rel: its path
// relative to the root) from its bytes, as the provider of its format
// scans them (scanWith).
func scanFile(rel string, data []byte) *scanned {
	p, _ := formats.ForFile(rel)
	return scanWith(p, rel, data)
}

// scanWith scans the file rel of p's format: a format compiled by its
// provider names the files it imports (format.InputScanner, paths
// relative to the root), one compiled from the root what its references
// and ids can reach (format.ReferenceScanner). A file of a format whose
// provider cannot say references anything.
func scanWith(p format.Provider, rel string, data []byte) *scanned {
	if _, ok := p.(format.FileCompiler); ok {
		s := &scanned{}
		sc, ok := p.(format.InputScanner)
		if !ok {
			s.Anything = true
			return s
		}
		imports, all := sc.Imports(data)
		s.Anything = all
		for _, imp := range imports {
			s.Refs = append(s.Refs, format.PathKey(imp))
		}
		return s
	}
	rs, ok := p.(format.ReferenceScanner)
	if !ok {
		return &scanned{Anything: true}
	}
	s := rs.ScanReferences(rel, data)
	return &s
}

func mapsValues(m map[string]*scanned) []*scanned {
	out := make([]*scanned, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// hiddenTypes is a file system whose type directories in hide (names
// under root) do not exist.
type hiddenTypes struct {
	fs.FS
	root string
	hide map[string]bool
}

func (h *hiddenTypes) hidden(name string) bool {
	rel := name
	if h.root != "." {
		r, ok := strings.CutPrefix(name, h.root+"/")
		if !ok {
			return false
		}
		rel = r
	}
	top, _, _ := strings.Cut(rel, "/")
	return h.hide[top]
}

func (h *hiddenTypes) Open(name string) (fs.File, error) {
	if h.hidden(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return h.FS.Open(name)
}

func (h *hiddenTypes) Stat(name string) (fs.FileInfo, error) {
	if h.hidden(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return fs.Stat(h.FS, name)
}

func (h *hiddenTypes) ReadFile(name string) ([]byte, error) {
	if h.hidden(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return fs.ReadFile(h.FS, name)
}

func (h *hiddenTypes) ReadDir(name string) ([]fs.DirEntry, error) {
	if h.hidden(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	entries, err := fs.ReadDir(h.FS, name)
	if err != nil || name != h.root {
		return entries, err
	}
	out := entries[:0:0]
	for _, e := range entries {
		if !h.hide[e.Name()] {
			out = append(out, e)
		}
	}
	return out, nil
}

// HiddenTypes names the head types the prefilter left out (none on nil).
func (p *Prefilter) HiddenTypes() []string {
	if p == nil {
		return nil
	}
	return p.Hidden
}

// TotalTypes is the head catalog's type count: loaded, the count of the
// loaded catalog; prefiltered, the prefilter's.
func (p *Prefilter) TotalTypes(loaded int) int {
	if p == nil {
		return loaded
	}
	return p.Total
}

// Said is what the types-unchanged finding adds about the prefilter.
func (p *Prefilter) Said() string {
	if p == nil || len(p.Hidden) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d of them not read: git shows their files and the files they reference unchanged)", len(p.Hidden))
}

func kindOfFile(name string) format.Kind {
	k, _ := format.KindOf(name)
	return k
}
