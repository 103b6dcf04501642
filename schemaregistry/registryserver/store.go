package registryserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing/fstest"

	"go.yaml.in/yaml/v3"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat"
	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/schemaregistry"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
)

// The server's state lives beside evtool.yaml, outside the catalog root
// (whose hidden directories lint reports as unread, and which go:embed
// leaves out):
//
//	evtool.ids.json              schema ids, by digest of the registry form
//	                             (catalog.SchemaIDsFile; committed: every
//	                             command that frames or checks ids reads it)
//	.registry/config.json        compatibility levels set for subjects
//	                             that have no version yet
//	.registry/serve.lock         the lock of a running server (ignored by git)
//
// Serve used to keep ids.json and config.json in <root>/.registry/: both
// are read from there when the new files are absent, and moved on the
// server's first write.
const (
	StateDir   = ".registry"
	IDsFile    = "ids.json"
	ConfigFile = "config.json"
)

// idsDoc is the ids file.
type idsDoc struct {
	About  string         `json:"about"`
	Format int            `json:"format"`
	NextID int            `json:"next_id"`
	IDs    map[string]int `json:"ids"`
}

type pendingDoc struct {
	About    string            `json:"about"`
	Format   int               `json:"format"`
	Subjects map[string]string `json:"subjects"`
}

// snapshot is an immutable view of the catalog the server answers reads
// from; writes build a new one.
type snapshot struct {
	files    fstest.MapFS // catalog files by slash path relative to the catalog directory
	root     string       // catalog root inside files
	cat      *catalog.Catalog
	subjects map[string]*subjectState
	names    []string
	byID     map[int]*schemaRec
	// shared are the catalog's shared schemas by subject (each has
	// version 1 only; v is a stand-in naming the file).
	shared map[string]*versionState
	// wellKnown are the well-known Protobuf files clients registered, by
	// subject (import path); never catalog files.
	wellKnown map[string]*versionState
	ids       map[string]int
	nextID    int
	pending   map[string]catalog.Mode
	// cache is the store's: a candidate catalog compiles only what it
	// changes.
	cache *catalog.SchemaCache
}

type subjectState struct {
	subject  string
	t        *catalog.EventType
	versions []*versionState
}

type versionState struct {
	v    *catalog.Version
	form *wire.Form
	id   int
}

type schemaRec struct {
	id     int
	form   *wire.Form
	usages []usage
}

type usage struct {
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// store is the catalog directory behind the server.
type store struct {
	dir      string
	readOnly bool
	strategy schemaregistry.Strategy
	hook     func(tmp, final string) error // tests: crash simulation

	mu   sync.Mutex // serializes writes
	snap atomic.Pointer[snapshot]
	// cache keeps the compiled Avro and Protobuf schemas between the
	// loads before each write: one slow schema costs once, not on every
	// registration of any subject.
	cache *catalog.SchemaCache
	// subjects serializes the registrations of one subject, check
	// included: each depends on the one before.
	subjects subjectLocks
}

// subjectLocks are per-subject locks whose wait a context bounds; a
// subject's entry lives while someone holds or waits for it.
type subjectLocks struct {
	mu sync.Mutex
	m  map[string]*subjectLock
}

type subjectLock struct {
	ch    chan struct{}
	users int
}

// lock takes subject's lock, or fails when ctx is done first; the returned
// function releases it.
func (l *subjectLocks) lock(ctx context.Context, subject string) (func(), error) {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*subjectLock{}
	}
	e := l.m[subject]
	if e == nil {
		e = &subjectLock{ch: make(chan struct{}, 1)}
		l.m[subject] = e
	}
	e.users++
	l.mu.Unlock()
	done := func() {
		l.mu.Lock()
		if e.users--; e.users == 0 {
			delete(l.m, subject)
		}
		l.mu.Unlock()
	}
	select {
	case e.ch <- struct{}{}:
		return func() { <-e.ch; done() }, nil
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
}

func openStore(dir string, readOnly bool, strategy schemaregistry.Strategy) (*store, []string, error) {
	s := &store{dir: dir, readOnly: readOnly, strategy: strategy, cache: &catalog.SchemaCache{}}
	files, root, err := readTree(dir)
	if err != nil {
		return nil, nil, err
	}
	var removed []string
	if !readOnly {
		// Leftovers of writes a crash interrupted: evtool.yaml's (in dir)
		// and everything under the catalog root.
		removed = removeTemps(filepath.Join(dir, filepath.FromSlash(root)), true)
		removed = append(removed, removeTemps(dir, false)...)
	}
	snap, err := s.build(files, root, nil)
	if err != nil {
		return nil, nil, err
	}
	if err := s.persistIDs(snap, nil); err != nil {
		return nil, nil, err
	}
	s.snap.Store(snap)
	return s, removed, nil
}

func (s *store) current() *snapshot { return s.snap.Load() }

// readTree reads evtool.yaml and every file under the catalog root except
// dot directories and temporary files.
func readTree(dir string) (fstest.MapFS, string, error) {
	// Files are read through an os.Root: a symlink out of the catalog is
	// never followed (it reads as missing), as catalog.Load refuses it.
	noCatalog := func(err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("no %s in %s: serve needs a catalog (run `evtool init %s` to create one)", catalog.ConfigName, dir, dir)
		}
		return err
	}
	croot, err := os.OpenRoot(dir)
	if err != nil {
		return nil, "", noCatalog(err)
	}
	defer croot.Close()
	cfgData, err := croot.ReadFile(catalog.ConfigName)
	if err != nil {
		return nil, "", noCatalog(err)
	}
	root, err := schemasRoot(dir, cfgData)
	if err != nil {
		return nil, "", err
	}
	files := fstest.MapFS{catalog.ConfigName: &fstest.MapFile{Data: cfgData, Mode: 0o644}}
	rootDir := filepath.Join(dir, filepath.FromSlash(root))
	err = filepath.WalkDir(rootDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == rootDir {
				return err
			}
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != rootDir && strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			if rel, err := filepath.Rel(dir, p); err == nil && rel != "." {
				files[filepath.ToSlash(rel)] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
			}
			return nil
		}
		if tempPattern().MatchString(name) {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return nil
		}
		data, err := croot.ReadFile(filepath.ToSlash(rel))
		if err != nil {
			return nil // a symlink to a directory or out of the catalog, a file that vanished
		}
		files[filepath.ToSlash(rel)] = &fstest.MapFile{Data: data, Mode: 0o644}
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("catalog root %s: %w", rootDir, unwrapPath(err))
	}
	return files, root, nil
}

// schemasRoot is the catalog root (slash path inside dir) evtool.yaml
// names.
func schemasRoot(dir string, cfgData []byte) (string, error) {
	var cfg struct {
		Schemas string `yaml:"schemas"`
	}
	_ = yaml.Unmarshal(cfgData, &cfg) // the loader reports a malformed file
	root := "schemas"
	if cfg.Schemas != "" {
		root = path.Clean(filepath.ToSlash(cfg.Schemas))
	}
	if !fs.ValidPath(root) {
		return "", fmt.Errorf("%s: schemas %q must be a relative path inside the catalog directory", filepath.Join(dir, catalog.ConfigName), cfg.Schemas)
	}
	return root, nil
}

// build loads files as a catalog and derives the registry view. cat may
// be given when files were already loaded.
func (s *store) build(files fstest.MapFS, root string, cat *catalog.Catalog) (*snapshot, error) {
	if cat == nil {
		var err error
		cat, err = catalog.LoadFSCached(files, ".", s.cache)
		if err != nil {
			return nil, fmt.Errorf("the catalog in %s does not load (run `evtool lint --dir %s`):\n%w", s.dir, s.dir, err)
		}
	}
	sub, err := fs.Sub(files, root)
	if err != nil {
		return nil, err
	}
	forms := wire.NewDraftForms(sub, cat.Draft)
	snap := &snapshot{files: files, root: root, cat: cat, subjects: map[string]*subjectState{}, byID: map[int]*schemaRec{}, pending: map[string]catalog.Mode{}, cache: s.cache}
	ids, next, err := s.readIDs(root)
	if err != nil {
		return nil, err
	}
	snap.ids, snap.nextID = ids, next
	if snap.pending, err = s.readPending(root); err != nil {
		return nil, err
	}
	topics := map[string]int{}
	for _, t := range cat.Types {
		topics[t.Meta.Topic]++
	}
	for _, t := range cat.Types {
		subject, err := s.strategy.Subject(t)
		if err != nil || (s.strategy == schemaregistry.StrategyTopic && topics[t.Meta.Topic] > 1) {
			continue // no subject of its own under the strategy
		}
		st := &subjectState{subject: subject, t: t}
		for _, v := range t.Versions {
			f, err := forms.Of(v)
			if err != nil {
				return nil, err
			}
			id, ok := snap.ids[f.Digest]
			if !ok {
				id = snap.nextID
				snap.nextID++
				snap.ids[f.Digest] = id
			}
			st.versions = append(st.versions, &versionState{v: v, form: f, id: id})
			rec := snap.byID[id]
			if rec == nil {
				rec = &schemaRec{id: id, form: f}
				snap.byID[id] = rec
			}
			rec.usages = append(rec.usages, usage{Subject: subject, Version: v.Number})
		}
		snap.subjects[subject] = st
		snap.names = append(snap.names, subject)
		delete(snap.pending, subject)
	}
	snap.shared = map[string]*versionState{}
	for _, sh := range forms.AllShared() {
		if snap.subjects[sh.Subject] != nil || snap.shared[sh.Subject] != nil {
			continue // a type's subject, or a name two files define: not served
		}
		f := sharedForm(sh)
		id, ok := snap.ids[f.Digest]
		if !ok {
			id = snap.nextID
			snap.nextID++
			snap.ids[f.Digest] = id
		}
		vs := &versionState{v: &catalog.Version{Number: 1, Format: sh.Kind, RelPath: sh.Rel, File: path.Join(root, sh.Rel)}, form: f, id: id}
		snap.shared[sh.Subject] = vs
		snap.names = append(snap.names, sh.Subject)
		rec := snap.byID[id]
		if rec == nil {
			rec = &schemaRec{id: id, form: f}
			snap.byID[id] = rec
		}
		rec.usages = append(rec.usages, usage{Subject: sh.Subject, Version: 1})
	}
	snap.addWellKnown()
	sort.Strings(snap.names)
	return snap, nil
}

// stateDir holds the lock and the pending levels, beside evtool.yaml.
func (s *store) stateDir() string { return filepath.Join(s.dir, StateDir) }

// legacyStateDir is where serve kept its state before, inside the root.
func (s *store) legacyStateDir(root string) string {
	return filepath.Join(s.dir, filepath.FromSlash(root), StateDir)
}

// idsPath is the ids file, beside evtool.yaml.
func (s *store) idsPath() string {
	return filepath.Join(s.dir, filepath.FromSlash(catalog.SchemaIDsFile))
}

// legacyLeft reports whether a state file is only at its old place.
func legacyLeft(cur, legacy string) bool {
	_, err := os.Stat(cur)
	_, lerr := os.Stat(legacy)
	return errors.Is(err, fs.ErrNotExist) && lerr == nil
}

// dropLegacy removes the old state directory once its files have moved:
// its ids and levels files, then the lock's .gitignore and lock file (a
// server of this version locks beside evtool.yaml), then the directory if
// nothing else is in it.
func (s *store) dropLegacy(root string) {
	dir := s.legacyStateDir(root)
	if filepath.Clean(dir) == filepath.Clean(s.stateDir()) {
		// The root is the catalog directory: the levels and the lock are
		// where they belong; only the ids move.
		if _, err := os.Stat(s.idsPath()); err == nil {
			_ = os.Remove(filepath.Join(dir, IDsFile))
		}
		return
	}
	moved := map[string]string{IDsFile: s.idsPath(), ConfigFile: filepath.Join(s.stateDir(), ConfigFile)}
	for old, cur := range moved {
		if legacyLeft(cur, filepath.Join(dir, old)) {
			return // not moved yet
		}
	}
	for old := range moved {
		_ = os.Remove(filepath.Join(dir, old))
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range es {
		if e.Name() != ".gitignore" && e.Name() != LockFile {
			return
		}
	}
	_ = os.Remove(filepath.Join(dir, ".gitignore"))
	_ = os.Remove(filepath.Join(dir, LockFile))
	_ = os.Remove(dir)
}

func (s *store) readIDs(root string) (map[string]int, int, error) {
	p := s.idsPath()
	data, err := os.ReadFile(p)
	legacy := filepath.Join(s.legacyStateDir(root), IDsFile)
	if errors.Is(err, fs.ErrNotExist) {
		p = legacy
		data, err = os.ReadFile(p)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]int{}, 1, nil
	}
	if err != nil {
		return nil, 0, err
	}
	ids, next, err := parseIDs(p, data)
	if err != nil || p == legacy {
		return ids, next, err
	}
	// Both places hold ids (an older serve ran on another branch, or the
	// move was undone): the old file is deleted on the next write, so its
	// ids must all be in the new one, else clients' cached ids would be
	// lost without a word.
	old, err := os.ReadFile(legacy)
	if err != nil {
		return ids, next, nil
	}
	oldIDs, _, err := parseIDs(legacy, old)
	if err != nil {
		return nil, 0, err
	}
	for _, d := range slices.Sorted(maps.Keys(oldIDs)) {
		if id, ok := ids[d]; !ok || id != oldIDs[d] {
			return nil, 0, fmt.Errorf("%s gives schema %s id %d, which %s does not (%s): merge the ids into %s and delete %s (clients may have cached either)", legacy, d, oldIDs[d], p, idOr(id, ok), p, legacy)
		}
	}
	return ids, next, nil
}

// idOr says what an ids file gives a schema.
func idOr(id int, ok bool) string {
	if !ok {
		return "it has no id for it"
	}
	return fmt.Sprintf("it gives id %d", id)
}

// parseIDs reads an ids file's text; p names it in errors.
func parseIDs(p string, data []byte) (map[string]int, int, error) {
	var doc idsDoc
	// jsonstrict first: its errors carry a line and column, and it
	// refuses a digest given twice, which encoding/json resolves silently.
	if _, err := jsonstrict.Decode(data); err != nil {
		return nil, 0, fmt.Errorf("%s is not a valid ids file (%v): restore it from git or a backup; deleting it renumbers every schema id clients may have cached", p, err)
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.Format != 1 {
		return nil, 0, fmt.Errorf("%s is not a valid ids file (%v): restore it from git or a backup; deleting it renumbers every schema id clients may have cached", p, errOr(err, "unknown format"))
	}
	if doc.IDs == nil {
		doc.IDs = map[string]int{}
	}
	next := doc.NextID
	seen := map[int]string{}
	for d, id := range doc.IDs {
		if id < 1 || id > 1<<31-1 {
			return nil, 0, fmt.Errorf("%s: id %d of %s is not a positive 32-bit schema id", p, id, d)
		}
		if other, dup := seen[id]; dup {
			return nil, 0, fmt.Errorf("%s: id %d is given to both %s and %s", p, id, other, d)
		}
		seen[id] = d
		if id >= next {
			next = id + 1
		}
	}
	if next < 1 {
		next = 1
	}
	return doc.IDs, next, nil
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}

func (s *store) readPending(root string) (map[string]catalog.Mode, error) {
	p := filepath.Join(s.stateDir(), ConfigFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		p = filepath.Join(s.legacyStateDir(root), ConfigFile)
		data, err = os.ReadFile(p)
	}
	out := map[string]catalog.Mode{}
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	var doc pendingDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %v", p, err)
	}
	for subj, m := range doc.Subjects {
		mode, err := catalog.ParseMode(m)
		if err != nil {
			return nil, fmt.Errorf("%s: subject %s: %v", p, subj, err)
		}
		out[subj] = mode
	}
	return out, nil
}

// persistIDs writes the ids file when snap assigned ids it does not hold.
func (s *store) persistIDs(snap *snapshot, extra map[string]int) error {
	if s.readOnly {
		return nil
	}
	onDisk, _, err := s.readIDs(snap.root)
	if err != nil {
		return err
	}
	all := maps.Clone(snap.ids)
	maps.Copy(all, extra)
	// Ids only at the old place move on the first write.
	changed := len(all) != len(onDisk) || legacyLeft(s.idsPath(), filepath.Join(s.legacyStateDir(snap.root), IDsFile))
	for d, id := range all {
		if onDisk[d] != id {
			changed = true
			break
		}
	}
	if !changed {
		return nil
	}
	next := snap.nextID
	for _, id := range all {
		if id >= next {
			next = id + 1
		}
	}
	doc := idsDoc{
		About:  "Schema ids assigned by `evtool registry serve`, keyed by the sha256 of each schema's registry form (as served). Commit this file with the catalog: replay, validate and verify frame and check records with these ids, and deleting it renumbers the ids clients cache.",
		Format: 1, NextID: next, IDs: all,
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(s.idsPath(), append(data, '\n'), false, s.hook); err != nil {
		return err
	}
	if legacyLeft(filepath.Join(s.stateDir(), ConfigFile), filepath.Join(s.legacyStateDir(snap.root), ConfigFile)) {
		if err := s.persistPending(snap.root, snap.pending); err != nil {
			return err
		}
	}
	s.dropLegacy(snap.root)
	return nil
}

func (s *store) persistPending(root string, pending map[string]catalog.Mode) error {
	doc := pendingDoc{About: "Compatibility levels set through `evtool registry serve` for subjects with no version yet; moved into the type's event.yaml when its first version is registered.",
		Format: 1, Subjects: map[string]string{}}
	for k, v := range pending {
		doc.Subjects[k] = string(v)
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	dir := s.stateDir()
	if err := mkdirDurable(dir); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, ConfigFile), append(data, '\n'), false, s.hook); err != nil {
		return err
	}
	s.dropLegacy(root)
	return nil
}

// refreshLocked re-reads the catalog from disk before a write, so that a
// change made outside the server (git pull) is not overwritten.
func (s *store) refreshLocked() (*snapshot, error) {
	cur := s.current()
	files, root, err := readTree(s.dir)
	if err != nil {
		return nil, err
	}
	idsChanged := false
	if cur != nil && root == cur.root {
		if idsChanged, err = s.mergeIDs(cur); err != nil {
			return nil, err
		}
		if !idsChanged && sameFiles(files, cur.files) {
			return cur, nil
		}
	}
	snap, err := s.build(files, root, nil)
	if err != nil {
		return nil, err
	}
	if err := s.persistIDs(snap, nil); err != nil {
		return nil, err
	}
	s.snap.Store(snap)
	return snap, nil
}

// mergeIDs folds the ids file, changed on disk since cur was built (a git
// pull that brings ids another server assigned), with the ids cur handed
// out, writing the union; it reports whether the file differed. An id
// given to two schemas, or a schema given two ids, is refused: clients
// may have cached either.
func (s *store) mergeIDs(cur *snapshot) (bool, error) {
	if s.readOnly {
		return false, nil
	}
	onDisk, _, err := s.readIDs(cur.root)
	if err != nil {
		return false, err
	}
	if maps.Equal(onDisk, cur.ids) {
		return false, nil
	}
	byID := map[int]string{}
	for d, id := range onDisk {
		byID[id] = d
	}
	extra := map[string]int{}
	for d, id := range cur.ids {
		if other, ok := onDisk[d]; ok {
			if other != id {
				return false, fmt.Errorf("%s changed on disk: it gives schema %s id %d, which this server serves as id %d; restore the file (clients may have cached either id)", s.idsPath(), d, other, id)
			}
			continue
		}
		if other, ok := byID[id]; ok {
			return false, fmt.Errorf("%s changed on disk: it gives id %d to schema %s, which this server gave to %s; restore the file (clients may have cached either)", s.idsPath(), id, other, d)
		}
		extra[d] = id
	}
	merged := *cur
	merged.ids = onDisk
	merged.nextID = 1
	for _, id := range cur.ids {
		merged.nextID = max(merged.nextID, id+1)
	}
	return true, s.persistIDs(&merged, extra)
}

func sameFiles(a, b fstest.MapFS) bool {
	if len(a) != len(b) {
		return false
	}
	for k, f := range a {
		g, ok := b[k]
		if !ok || !bytes.Equal(f.Data, g.Data) {
			return false
		}
	}
	return true
}

// mode returns the effective compatibility of a subject (existing or not).
func (snap *snapshot) mode(subject string) (catalog.Mode, catalog.Profile) {
	if st := snap.subjects[subject]; st != nil {
		return snap.cat.Compat(st.t)
	}
	mode, profile := snap.cat.Compat(nil)
	if m, ok := snap.pending[subject]; ok {
		mode = m
	}
	return mode, profile
}

// subjectLevel returns a subject's own level ("" when it has none).
func (snap *snapshot) subjectLevel(subject string) catalog.Mode {
	if st := snap.subjects[subject]; st != nil {
		return st.t.Meta.Compat.Mode
	}
	return snap.pending[subject]
}

func (snap *snapshot) globalLevel() catalog.Mode {
	m, _ := snap.cat.Compat(nil)
	return m
}

// apiError is an error response: HTTP status, Confluent error code, message.
type apiError struct {
	Status int
	Code   int
	Msg    string
}

func (e *apiError) Error() string { return e.Msg }

func apiErr(status, code int, format string, args ...any) *apiError {
	return &apiError{Status: status, Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Confluent error codes.
const (
	codeSubjectNotFound     = 40401
	codeVersionNotFound     = 40402
	codeSchemaNotFound      = 40403
	codeLevelNotConfigured  = 40408
	codeIncompatible        = 40901 // Confluent 5.5+; older registries answered 409
	codeInvalidSchema       = 42201
	codeInvalidVersion      = 42202
	codeInvalidLevel        = 42203
	codeNotPermitted        = 42205
	codeInvalidSubject      = 42208
	codeSchemaTooLarge      = 42209
	codeStore               = 50001
	codeTimeout             = 50002 // Confluent's "operation timed out"
	codeUnauthorized        = 40101
	codeMalformedRequest    = 400
	codeMethodNotAllowed    = 405
	codeNotFound            = 404
	codeUnsupportedMedia    = 415
	codeForbidden           = 40301
	codeRequestTooLargeHTTP = 413
)

// candidate is a schema checked against the catalog as the subject's next
// version.
type candidate struct {
	files fstest.MapFS
	cat   *catalog.Catalog
	t     *catalog.EventType
	v     *catalog.Version
	rel   string // path inside files
	form  *wire.Form
}

// prepare places doc as the next version of subject in a copy of the
// catalog and loads it: the schema must compile there, as `evtool lint`
// would require.
func (snap *snapshot) prepare(subject, typ string, kind format.Kind, text, meta []byte) (*candidate, *apiError) {
	n := 1
	if t := snap.cat.Lookup(typ); t != nil {
		n = len(t.Versions) + 1
	}
	rel := path.Join(snap.root, typ, fmt.Sprintf("v%d%s", n, kind.Ext()))
	if n == 1 {
		// A directory of the schemas root that is not a type (shared
		// schemas, say) must not become one.
		prefix := path.Join(snap.root, typ) + "/"
		for name := range snap.files {
			if strings.HasPrefix(name, prefix) {
				return nil, apiErr(422, codeInvalidSubject, "subject %q names %s, a directory of the catalog that is not an event type (it holds %s): choose another subject", wire.Clip(subject), path.Join(snap.root, typ), path.Base(name))
			}
		}
		if other := caseVariant(snap.files, rel); other != "" {
			return nil, apiErr(422, codeInvalidSubject, "subject %q differs only in letter case or trailing dots from %s, which the catalog has: use that name (a case-insensitive file system would merge the two directories)", wire.Clip(subject), other)
		}
	}
	files := maps.Clone(snap.files)
	files[rel] = &fstest.MapFile{Data: text, Mode: 0o644}
	if meta != nil {
		files[path.Join(snap.root, typ, "event.yaml")] = &fstest.MapFile{Data: meta, Mode: 0o644}
	}
	cat, err := catalog.LoadFSCached(files, ".", snap.cache)
	if err != nil {
		var le *catalog.LoadError
		if errors.As(err, &le) {
			return nil, apiErr(422, codeInvalidSchema, "invalid schema: %s", relativeMessages(le, rel))
		}
		return nil, apiErr(422, codeInvalidSchema, "invalid schema: %v", err)
	}
	t := cat.Lookup(typ)
	if t == nil || t.Version(n) == nil {
		return nil, apiErr(422, codeInvalidSchema, "invalid schema: it does not load as %s v%d", typ, n)
	}
	sub, err := fs.Sub(files, snap.root)
	if err != nil {
		return nil, apiErr(500, codeStore, "internal error")
	}
	f, err := wire.NewDraftForms(sub, cat.Draft).Of(t.Version(n))
	if err != nil {
		return nil, apiErr(422, codeInvalidSchema, "invalid schema: %v", err)
	}
	return &candidate{files: files, cat: cat, t: t, v: t.Version(n), rel: rel, form: f}, nil
}

// caseVariant returns the file or directory of files that a file written
// at rel would meet on a case-insensitive file system (macOS, Windows)
// although spelled otherwise: the first path segment where rel and an
// existing file differ differs only in letter case, or in trailing dots,
// which Windows drops ("t." is "t"). A checkout there merges the two: a
// type's directory would take in a shared file, or one file replace
// another. It returns "" when there is none, else the smallest such path
// (for a stable message).
func caseVariant(files fstest.MapFS, rel string) string {
	segs := strings.Split(rel, "/")
	found := ""
	for name := range files {
		ns := strings.Split(name, "/")
		for i := 0; i < len(segs) && i < len(ns); i++ {
			if ns[i] == segs[i] {
				continue
			}
			if strings.EqualFold(strings.TrimRight(ns[i], "."), strings.TrimRight(segs[i], ".")) {
				if p := strings.Join(ns[:i+1], "/"); found == "" || p < found {
					found = p
				}
			}
			break
		}
	}
	return found
}

// typeFor maps a subject to the catalog type a registration may create or
// extend under the strategy, and for a new type the event.yaml to write
// with its first version (nil when it needs none). Under the topic
// strategy ("<topic>-value", the default of Confluent's serializers) the
// type must exist: it is the one type whose event.yaml has the topic. No
// subject is ever turned into a type it does not name.
func (snap *snapshot) typeFor(subject string, strategy schemaregistry.Strategy) (string, []byte, *apiError) {
	if st := snap.subjects[subject]; st != nil {
		return st.t.Name, nil, nil
	}
	var typ, topic string
	switch strategy {
	case schemaregistry.StrategyTopic:
		topic, ok := strings.CutSuffix(subject, schemaregistry.ValueSuffix)
		if !ok || topic == "" {
			return "", nil, apiErr(422, codeInvalidSubject, "subject %q is not <topic>-value: under the topic subject strategy (TopicNameStrategy) a subject names a topic's value schema; key schemas and other subjects are not catalog types", wire.Clip(subject))
		}
		var names []string
		for _, t := range snap.cat.Types {
			if t.Meta.Topic == topic {
				names = append(names, t.Name)
			}
		}
		if len(names) == 0 {
			return "", nil, apiErr(404, codeSubjectNotFound, "subject %q: no type of the catalog has topic %q in its event.yaml; under the topic subject strategy a registration extends that one type and never creates one: add the type in git (schemas/<type>/event.yaml with `topic: %s`)", wire.Clip(subject), wire.Clip(topic), wire.Clip(topic))
		}
		return "", nil, apiErr(422, codeInvalidSchema, "subject %q: topic %q carries %d types (%s), and the topic subject strategy (TopicNameStrategy) can serve one schema per topic: serve with --subject-strategy topic-type and use TopicRecordNameStrategy in the clients", wire.Clip(subject), wire.Clip(topic), len(names), strings.Join(names, ", "))
	case schemaregistry.StrategyTopicType:
		var ok bool
		if typ, topic, ok = strategy.Split(subject, nil); !ok {
			return "", nil, apiErr(422, codeInvalidSubject, "subject %q is not <topic>-<type> with a dotted type name, as the topic-type subject strategy (TopicRecordNameStrategy) needs", wire.Clip(subject))
		}
		if t := snap.cat.Lookup(typ); t != nil {
			return "", nil, apiErr(404, codeSubjectNotFound, "subject %q: type %s has topic %q in its event.yaml, not %q; change the topic in git, not through a registration", wire.Clip(subject), typ, t.Meta.Topic, wire.Clip(topic))
		}
	default:
		if !catalog.ValidTypeName(subject) {
			return "", nil, apiErr(422, codeInvalidSubject, "subject %q is not a valid event type name: subjects of an evtool registry are catalog types (dot-separated segments of letters, digits, '-' and '_')", wire.Clip(subject))
		}
		if strings.HasSuffix(subject, schemaregistry.ValueSuffix) || strings.HasSuffix(subject, "-key") {
			return "", nil, apiErr(404, codeSubjectNotFound, "subject %q looks like TopicNameStrategy's <topic>-value (the default of Confluent's serializers), and no type has that name; under the type subject strategy subjects are type names: serve with --subject-strategy topic (or registry.subject_strategy: topic in evtool.yaml) to map it to the type whose event.yaml has that topic, or configure the client's subject name strategy", wire.Clip(subject))
		}
		typ = subject
	}
	var meta strings.Builder
	if topic != "" {
		fmt.Fprintf(&meta, "topic: %s\n", wire.YAMLString(topic)) // quoted: a topic may read as a number or a bool
	}
	if lvl, ok := snap.pending[subject]; ok {
		fmt.Fprintf(&meta, "compat:\n  mode: %s\n", lvl)
	}
	if meta.Len() == 0 {
		return typ, nil, nil
	}
	return typ, []byte(meta.String()), nil
}

// relativeMessages renders load findings without the candidate's invented
// file name where it would confuse.
func relativeMessages(le *catalog.LoadError, rel string) string {
	var parts []string
	for i, f := range le.Findings {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(le.Findings)-5))
			break
		}
		msg := f.Message
		if f.Pointer != "" {
			msg = f.Pointer + ": " + msg
		}
		if f.File != "" && !strings.HasSuffix(filepath.ToSlash(f.File), rel) {
			msg = f.Location() + ": " + msg
		} else if f.Line > 0 {
			msg = fmt.Sprintf("line %d: %s", f.Line, msg)
		}
		parts = append(parts, msg)
	}
	return strings.Join(parts, "; ")
}

// compatFindings compares cand with each of olds in the directions mode
// requires, with the engine of their format as `evtool compat check`
// chooses it, and applies evtool.yaml's approvals.
func compatFindings(ctx context.Context, cat *catalog.Catalog, t *catalog.EventType, cand *catalog.Version, olds []*catalog.Version, mode catalog.Mode, profile catalog.Profile) []report.Finding {
	if mode == catalog.ModeNone || len(olds) == 0 {
		return nil
	}
	opts := engine.Options{Profile: string(profile), Samples: cat.Config.Compat.Samples, Seed: 1, Context: ctx}
	cmp := compat.CompareOf(cand.Format)
	var out []report.Finding
	for _, o := range olds {
		if o.Compiled == nil || cand.Compiled == nil {
			continue
		}
		p := engine.Pair{Type: t.Name, OldVersion: o.Number, NewVersion: cand.Number, OldFile: o.File, NewFile: cand.File,
			Subject: fmt.Sprintf("%s v%d -> v%d", t.Name, o.Number, cand.Number)}
		vp := engine.VersionPair{Pair: p, Old: o, New: cand, OldCatalog: cat, NewCatalog: cat, LineOf: cat.LineOf}
		for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
			if (dir == engine.Backward && !mode.Backward()) || (dir == engine.Forward && !mode.Forward()) {
				continue
			}
			out = append(out, compat.ComparePair(vp, dir, opts, cmp)...)
		}
	}
	return keepFindings(compat.ApplyIgnores(out, cat.Config, cat.ConfigFile))
}

// keepFindings drops stale-approval findings: they are the catalog's
// business, not the registration's.
func keepFindings(out []report.Finding) []report.Finding {
	kept := out[:0]
	for _, f := range out {
		if f.Rule != compat.RuleIgnoreStale {
			kept = append(kept, f)
		}
	}
	return kept
}

func failing(fs []report.Finding) bool {
	for _, f := range fs {
		if f.Failing() {
			return true
		}
	}
	return false
}

// messages renders findings as Confluent's verbose messages: failing ones
// first.
func messages(fs []report.Finding) []string {
	out := []string{}
	for _, pass := range []bool{true, false} {
		for _, f := range fs {
			if f.Failing() != pass {
				continue
			}
			var b strings.Builder
			if !pass {
				if f.Ignored != "" {
					b.WriteString("approved: ")
				} else {
					b.WriteString(string(f.Severity) + ": ")
				}
			}
			b.WriteString(f.Subject)
			if f.Direction != "" {
				b.WriteString(" " + f.Direction)
			}
			b.WriteString(" [" + f.Rule + "]")
			switch {
			case f.NewPointer != "":
				b.WriteString(" at " + f.NewPointer)
			case f.OldPointer != "":
				b.WriteString(" at old " + f.OldPointer)
			}
			b.WriteString(": " + f.Message)
			if len(f.Counterexample) > 0 {
				b.WriteString(" counterexample: " + string(f.Counterexample))
			}
			out = append(out, b.String())
		}
	}
	return out
}

// unwrapPath is the cause of a *fs.PathError (err itself when it is
// none), for messages that name the path themselves.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
