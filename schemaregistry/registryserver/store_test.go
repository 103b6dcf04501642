package registryserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/internal/waitfor"
	"github.com/evtool/evtool/schemaregistry/internal/srtest"
)

// TestStateIgnoredByLoader: the server's state directory and leftover
// temporary files never disturb `evtool lint`, even when corrupt.
func TestStateIgnoredByLoader(t *testing.T) {
	dir := srtest.MinimalCatalog(t, "NONE", map[string]string{
		"schemas/" + StateDir + "/" + IDsFile:                    `{"truncated`,
		"schemas/" + StateDir + "/" + ConfigFile:                 `not json`,
		"schemas/com.example.thing.happened/.v2.json.tmp-123456": `{"half a sch`,
		"schemas/com.example.new.type/.v1.json.tmp-99":           `{`,
		".evtool.yaml.tmp-1":                                     `garbage`,
	})
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatalf("the loader read the server's files: %v", err)
	}
	if len(cat.Types) != 1 || len(cat.Types[0].Versions) != 1 {
		t.Fatalf("types %v", cat.Names())
	}
	// The server refuses a corrupt ids file rather than renumbering.
	if _, err := NewServer(ServerOptions{Dir: dir}); err == nil {
		t.Fatal("a corrupt ids file was accepted")
	}
	if err := os.Remove(filepath.Join(dir, "schemas", StateDir, IDsFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "schemas", StateDir, ConfigFile), []byte(`{"format":1,"subjects":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(ServerOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if left := tempFiles(t, dir); len(left) != 0 {
		t.Fatalf("leftovers not removed: %v", left)
	}
	if got := s.Subjects(); len(got) != 1 {
		t.Fatalf("subjects %v", got)
	}
}

// TestServerLock: two writing servers on one catalog would hand out the
// same schema ids; the second refuses to start and names the first.
// Read-only servers share the lock with each other, not with a writer.
func TestServerLock(t *testing.T) {
	dir := srtest.MinimalCatalog(t, "NONE", nil)
	first, err := NewServer(ServerOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- first.Serve(sctx, ln) }()
	addr := "http://" + ln.Addr().String()
	lockPath := filepath.Join(dir, StateDir, LockFile)
	waitFor(t, func() bool {
		data, _ := os.ReadFile(lockPath)
		return strings.Contains(string(data), addr)
	})

	for _, readOnly := range []bool{false, true} {
		_, err := NewServer(ServerOptions{Dir: dir, ReadOnly: readOnly})
		if !errors.Is(err, ErrLocked) {
			t.Fatalf("second server (read-only %v) started: %v", readOnly, err)
		}
		srtest.MustContain(t, err.Error(), fmt.Sprintf("pid %d on %s", os.Getpid(), addr))
		srtest.MustContain(t, err.Error(), lockPath)
	}
	// The lock file stays out of git and out of the catalog.
	ignore, err := os.ReadFile(filepath.Join(dir, StateDir, ".gitignore"))
	if err != nil || strings.TrimSpace(string(ignore)) != LockFile {
		t.Fatalf(".gitignore = %q, %v", ignore, err)
	}
	srtest.LoadCat(t, dir)

	stop()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	first.Close()

	// Released: read-only servers share it, and keep a writer out.
	r1, err := NewServer(ServerOptions{Dir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := NewServer(ServerOptions{Dir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewServer(ServerOptions{Dir: dir}); !errors.Is(err, ErrLocked) {
		t.Fatalf("a writer started next to read-only servers: %v", err)
	}
	r1.Close()
	r2.Close()
	w, err := NewServer(ServerOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	waitfor.Must(t, 30*time.Second, "condition", cond)
}

// TestServerIDsChangedOnDisk: ids.json changed under a running server (a
// git pull that brings only ids another server assigned) is read before
// the next write: the ids on disk are kept and no id is given twice.
func TestServerIDsChangedOnDisk(t *testing.T) {
	dir := srtest.MinimalCatalog(t, "NONE", nil)
	s, _ := startServer(t, ServerOptions{Dir: dir})
	p := filepath.Join(dir, catalog.SchemaIDsFile)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var doc idsDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	const pulled = "sha256:from-another-server"
	taken := doc.NextID
	doc.IDs[pulled] = taken
	doc.NextID = taken + 1
	data, _ = json.Marshal(doc)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := doHandler(t, s, "POST", "/subjects/"+thing+"/versions", registerBody(thingV2))
	if r.status != 200 {
		t.Fatalf("HTTP %d %s", r.status, r.body)
	}
	if strings.Contains(r.body, fmt.Sprintf(`"id":%d,`, taken)) {
		t.Fatalf("the new schema got id %d, which ids.json gives to another: %s", taken, r.body)
	}
	if got := idsOnDisk(t, dir); got[pulled] != taken {
		t.Fatalf("the pulled id was dropped from ids.json: %v", got)
	}
}

// TestServerIDsConflictOnDisk: an ids.json that gives one of the server's
// ids to another schema is refused before anything is written.
func TestServerIDsConflictOnDisk(t *testing.T) {
	dir := srtest.MinimalCatalog(t, "NONE", nil)
	s, _ := startServer(t, ServerOptions{Dir: dir})
	p := filepath.Join(dir, catalog.SchemaIDsFile)
	doc := idsDoc{About: "x", Format: 1, NextID: 2, IDs: map[string]int{"sha256:another": 1}}
	data, _ := json.Marshal(doc)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := doHandler(t, s, "POST", "/subjects/"+thing+"/versions", registerBody(thingV2))
	if r.status != 500 || !strings.Contains(r.body, "gives id 1 to schema sha256:another") {
		t.Fatalf("HTTP %d %s", r.status, r.body)
	}
	if _, err := os.Stat(filepath.Join(dir, "schemas", thing, "v2.json")); err == nil {
		t.Fatal("written despite the conflicting ids")
	}
}

// TestReadIDsErrorsNameWhere: serve's broken ids.json is refused with the
// line of the fault; a digest given twice and an id that no 32-bit
// schema id frame holds are errors, not whichever value decoding keeps.
func TestReadIDsErrorsNameWhere(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"syntax", "{\"format\": 1,\n \"ids\": {\"a\": 1,}}", "line 2"},
		{"duplicate digest", "{\"format\": 1,\n \"ids\": {\"a\": 1,\n  \"a\": 2}}", "line 3"},
		{"id over 32 bits", `{"format":1,"ids":{"a":4294967297}}`, "id 4294967297 of a is not a positive 32-bit schema id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &store{dir: t.TempDir()}
			if err := os.WriteFile(s.idsPath(), []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := s.readIDs(".")
			if err == nil || !strings.Contains(err.Error(), IDsFile) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %s and %q", err, IDsFile, tc.want)
			}
		})
	}
}

// TestServeMovesLegacyState: ids and pending levels that an older serve
// kept in <root>/.registry/ are read from there and moved beside
// evtool.yaml on the first start, with the same ids; the old directory is
// gone, so lint has nothing hidden to warn about, and a server whose state
// is in the new place creates nothing under the root.
func TestServeMovesLegacyState(t *testing.T) {
	dir := srtest.MinimalCatalog(t, "NONE", nil)
	s, _ := startServer(t, ServerOptions{Dir: dir})
	before := doHandler(t, s, "GET", "/subjects/"+thing+"/versions/1", "")
	s.Close()
	legacy := filepath.Join(dir, "schemas", StateDir)
	if _, err := os.Stat(legacy); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("serve created %s: %v", legacy, err)
	}
	if cat := srtest.LoadCat(t, dir); len(cat.Warnings) > 0 {
		t.Fatalf("lint warns after serve: %v", cat.Warnings)
	}
	// The layout an older serve left: ids (one of them moved, so that
	// renumbering would show) and a pending level under the root.
	ids := idsOnDisk(t, dir)
	for d := range ids {
		ids[d] += 40
	}
	data, _ := json.Marshal(idsDoc{About: "old", Format: 1, NextID: 100, IDs: ids})
	files := map[string]string{IDsFile: string(data), ConfigFile: `{"format":1,"subjects":{"com.example.later.thing":"FULL"}}`, ".gitignore": LockFile + "\n", LockFile: ""}
	if err := os.MkdirAll(legacy, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(legacy, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(dir, catalog.SchemaIDsFile)); err != nil {
		t.Fatal(err)
	}
	// Every command reads the old place until serve moves it.
	if got, err := catalog.LoadSchemaIDs(srtest.LoadCat(t, dir)); err != nil || got.Empty() {
		t.Fatalf("legacy ids not read: %v %v", got, err)
	}
	s2, _ := startServer(t, ServerOptions{Dir: dir})
	after := doHandler(t, s2, "GET", "/subjects/"+thing+"/versions/1", "")
	if want := strings.Replace(before.body, fmt.Sprintf(`"id":%d`, ids[firstKey(ids)]-40), fmt.Sprintf(`"id":%d`, ids[firstKey(ids)]), 1); after.body != want {
		t.Errorf("after the move: %s, want %s", after.body, want)
	}
	if got := doHandler(t, s2, "GET", "/config/com.example.later.thing", ""); !strings.Contains(got.body, "FULL") {
		t.Errorf("the pending level was lost: %s", got.body)
	}
	if _, err := os.Stat(legacy); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is still there: %v", legacy, err)
	}
	if got := idsOnDisk(t, dir); fmt.Sprint(got) != fmt.Sprint(ids) {
		t.Errorf("%s = %v, want %v", catalog.SchemaIDsFile, got, ids)
	}
	if _, err := os.Stat(filepath.Join(dir, StateDir, ConfigFile)); err != nil {
		t.Errorf("the pending level did not move: %v", err)
	}
	if cat := srtest.LoadCat(t, dir); len(cat.Warnings) > 0 {
		t.Errorf("lint warns after the move: %v", cat.Warnings)
	}
}

func firstKey(m map[string]int) string {
	for k := range m {
		return k
	}
	return ""
}

// TestServeStateWithRootDot: where the catalog root is the catalog
// directory (schemas: .), the state directory beside evtool.yaml is in
// the root: writes keep the lock and the levels there (nothing is
// "moved" onto itself), and lint does not report it.
func TestServeStateWithRootDot(t *testing.T) {
	dir := srtest.WriteCatalog(t, map[string]string{
		"evtool.yaml":               "version: 1\nschemas: .\ncompat:\n  mode: NONE\n",
		thing + "/v1.json":          `{"type":"object"}`,
		StateDir + "/" + ConfigFile: `{"format":1,"subjects":{"com.example.later.thing":"FULL"}}`,
	})
	s, _ := startServer(t, ServerOptions{Dir: dir})
	if r := doHandler(t, s, "POST", "/subjects/"+thing+"/versions", registerBody(thingV2)); r.status != 200 {
		t.Fatalf("HTTP %d %s", r.status, r.body)
	}
	for _, name := range []string{LockFile, ConfigFile, ".gitignore"} {
		if _, err := os.Stat(filepath.Join(dir, StateDir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if got := doHandler(t, s, "GET", "/config/com.example.later.thing", ""); !strings.Contains(got.body, "FULL") {
		t.Errorf("the pending level was lost: %s", got.body)
	}
	if cat := srtest.LoadCat(t, dir); len(cat.Warnings) > 0 {
		t.Errorf("lint warns: %v", cat.Warnings)
	}
}

// TestServeLegacyIDsBesideNew: ids at both places (an older serve ran on
// another branch after the move). The old file is deleted on the next
// write, so it must hold nothing the new one lacks: ids it repeats go
// (and serve writes), an id the new file lacks or gives otherwise stops
// serve naming both files, and the old file is kept.
func TestServeLegacyIDsBesideNew(t *testing.T) {
	cases := []struct {
		name    string
		legacy  func(cur map[string]int) map[string]int
		refused string // in NewServer's error
	}{
		{"repeats", func(cur map[string]int) map[string]int { return cur }, ""},
		{"extra id", func(cur map[string]int) map[string]int {
			m := maps.Clone(cur)
			m["sha256:elsewhere"] = 77
			return m
		}, "sha256:elsewhere id 77"},
		{"other id", func(cur map[string]int) map[string]int {
			m := map[string]int{}
			for d, id := range cur {
				m[d] = id + 50
			}
			return m
		}, "merge the ids into"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := srtest.MinimalCatalog(t, "NONE", nil)
			s, _ := startServer(t, ServerOptions{Dir: dir})
			s.Close()
			legacy := filepath.Join(dir, "schemas", StateDir)
			data, _ := json.Marshal(idsDoc{About: "old", Format: 1, NextID: 200, IDs: tc.legacy(idsOnDisk(t, dir))})
			if err := os.MkdirAll(legacy, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(legacy, IDsFile), data, 0o644); err != nil {
				t.Fatal(err)
			}
			s2, err := NewServer(ServerOptions{Dir: dir})
			if tc.refused != "" {
				if err == nil {
					s2.Close()
					t.Fatalf("serve started with ids at both places that differ")
				}
				srtest.MustContain(t, err.Error(), tc.refused)
				srtest.MustContain(t, err.Error(), filepath.Join(legacy, IDsFile))
				if _, err := os.Stat(filepath.Join(legacy, IDsFile)); err != nil {
					t.Errorf("the old ids file is gone: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close()
			if r := doHandler(t, s2, "POST", "/subjects/"+thing+"/versions", registerBody(thingV2)); r.status != 200 {
				t.Fatalf("HTTP %d %s", r.status, r.body)
			}
			if _, err := os.Stat(legacy); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s is still there: %v", legacy, err)
			}
		})
	}
}

// TestServeMovesLegacyIDsWithRootDot: with the root at the catalog
// directory (schemas: .), the old ids file is in the state directory
// itself: it moves to evtool.ids.json on the first write all the same,
// and lint then has no hidden ids to warn about; the lock and the levels
// stay.
func TestServeMovesLegacyIDsWithRootDot(t *testing.T) {
	dir := srtest.WriteCatalog(t, map[string]string{
		"evtool.yaml":      "version: 1\nschemas: .\ncompat:\n  mode: NONE\n",
		thing + "/v1.json": `{"type":"object"}`,
	})
	s, _ := startServer(t, ServerOptions{Dir: dir})
	s.Close()
	ids := idsOnDisk(t, dir)
	for d := range ids {
		ids[d] += 40
	}
	data, _ := json.Marshal(idsDoc{About: "old", Format: 1, NextID: 100, IDs: ids})
	if err := os.WriteFile(filepath.Join(dir, StateDir, IDsFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, catalog.SchemaIDsFile)); err != nil {
		t.Fatal(err)
	}
	s2, _ := startServer(t, ServerOptions{Dir: dir})
	if r := doHandler(t, s2, "POST", "/subjects/"+thing+"/versions", registerBody(thingV2)); r.status != 200 {
		t.Fatalf("HTTP %d %s", r.status, r.body)
	}
	got := idsOnDisk(t, dir)
	for d, id := range ids {
		if got[d] != id {
			t.Errorf("%s: id %d, want %d", d, got[d], id)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, StateDir, IDsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old ids file is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, StateDir, LockFile)); err != nil {
		t.Errorf("the lock is gone: %v", err)
	}
	if cat := srtest.LoadCat(t, dir); len(cat.Warnings) > 0 {
		t.Errorf("lint warns: %v", cat.Warnings)
	}
}
