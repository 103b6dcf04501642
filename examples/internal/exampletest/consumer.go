package exampletest

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/envelope"
)

// Store is an example consumer's database.
type Store[E any] interface {
	Apply(ctx context.Context, events []E) (int, error)
	State(ctx context.Context) (map[string]any, error)
	Close() error
}

// StateAfter applies batches to a fresh database (file name in a
// temporary directory), reopening it with open before each batch as a
// restarted consumer does, and returns the state at the end.
func StateAfter[E any, S Store[E]](t testing.TB, name string, open func(path string) (S, error), batches ...[]E) map[string]any {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	for _, b := range batches {
		st, err := open(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.Apply(context.Background(), b)
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	st, err := open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	state, err := st.State(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// BinaryRecord is the binary-mode record of an event with id ev-1 and the
// given attributes, its data as given.
func BinaryRecord(t testing.TB, source, typ, dataschema, contentType string, data []byte) *kgo.Record {
	t.Helper()
	e := event.New()
	e.SetID("ev-1")
	e.SetSource(source)
	e.SetType(typ)
	e.SetDataSchema(dataschema)
	if err := e.SetData(contentType, data); err != nil {
		t.Fatal(err)
	}
	r, err := envelope.ToRecord(context.Background(), &e, envelope.ModeBinary)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// CatalogWithIDs copies the catalog in fsys to a temporary directory and
// gives versions registry ids (evtool.ids.json beside evtool.yaml, as
// `evtool registry serve` keeps them); ids maps "type@vN" to an id. It
// returns the directory.
func CatalogWithIDs(t testing.TB, fsys fs.FS, ids map[string]uint32) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, fsys); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	byDigest := map[string]uint32{}
	for name, id := range ids {
		typ, ver, _ := strings.Cut(name, "@v")
		n, _ := strconv.Atoi(ver)
		v := cat.Lookup(typ).Version(n)
		if v == nil {
			t.Fatalf("no version %s", name)
		}
		byDigest[catalog.SchemaIDDigest(v.Compiled)] = id
	}
	data, err := json.Marshal(map[string]any{"ids": byDigest})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.FromSlash(catalog.SchemaIDsFile))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// EmbedsIDs fails unless the //go:embed line of the catalog.go in dir
// takes the ids file (catalog.SchemaIDsFile) whenever it exists, and the
// embedded catalog has it exactly when dir has: the example consumer
// checks the schema id of every record against the catalog it embeds,
// and replay frames with the ids on disk.
func EmbedsIDs(t testing.TB, dir string, embedded fs.FS) {
	t.Helper()
	_, onDisk := os.Stat(filepath.Join(dir, catalog.SchemaIDsFile))
	_, inFS := fs.Stat(embedded, catalog.SchemaIDsFile)
	if (onDisk == nil) != (inFS == nil) {
		t.Errorf("%s on disk: %v, embedded: %v", catalog.SchemaIDsFile, onDisk, inFS)
	}
	src, err := os.ReadFile(filepath.Join(dir, "catalog.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(src), "\n") {
		patterns, ok := strings.CutPrefix(line, "//go:embed ")
		if !ok {
			continue
		}
		for _, p := range strings.Fields(patterns) {
			if m, err := path.Match(p, catalog.SchemaIDsFile); err == nil && m {
				return
			}
		}
		t.Fatalf("%s: //go:embed %s leaves out %s: the consumer would refuse the ids replay frames with (unknown-schema-id)", filepath.Join(dir, "catalog.go"), patterns, catalog.SchemaIDsFile)
	}
	t.Fatalf("%s has no //go:embed line", filepath.Join(dir, "catalog.go"))
}
