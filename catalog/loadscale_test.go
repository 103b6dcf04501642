package catalog_test

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"testing"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/catalog/catalogtest"
)

// countingFS counts the listings of each directory and the opens of each
// file.
type countingFS struct {
	fsys fs.FS

	mu    sync.Mutex
	lists map[string]int
	opens map[string]int
}

func newCountingFS(fsys fs.FS) *countingFS {
	return &countingFS{fsys: fsys, lists: map[string]int{}, opens: map[string]int{}}
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opens[name]++
	c.mu.Unlock()
	return c.fsys.Open(name)
}

func (c *countingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	c.mu.Lock()
	c.lists[name]++
	c.mu.Unlock()
	return fs.ReadDir(c.fsys, name)
}

// readCounts are what one load of a generated catalog read: how often it
// listed the catalog root, and the most times it opened one shared .avsc
// file.
type readCounts struct {
	RootListings    int
	SharedAvscOpens int
}

func (c *countingFS) counts() readCounts {
	out := readCounts{RootListings: c.lists["schemas"]}
	for name, n := range c.opens {
		if path.Dir(name) == "schemas/common" && strings.HasSuffix(name, ".avsc") {
			out.SharedAvscOpens = max(out.SharedAvscOpens, n)
		}
	}
	return out
}

// TestLoadReadsOncePerLoad: loading a catalog lists its root and reads
// each shared Avro file as often with 40 types as with 10 (a few times in
// all, never once per Avro version): Load (validate, the registry
// commands) as LoadDeferred compiled type by type (compat check, lint).
// Listing the root of thousands of types per Avro version made loading
// quadratic, and reading and parsing every shared .avsc per version was a
// third of the CPU of a 3,000-type load.
func TestLoadReadsOncePerLoad(t *testing.T) {
	loads := map[string]func(fs.FS) error{
		"Load": func(fsys fs.FS) error {
			_, err := catalog.LoadFS(fsys, "cat")
			return err
		},
		"LoadDeferred": func(fsys fs.FS) error {
			cat, err := catalog.LoadFSDeferred(fsys, "cat")
			if err != nil {
				return err
			}
			var probs []error
			for _, typ := range cat.Types {
				if fs := cat.CompileType(typ); len(fs) > 0 {
					probs = append(probs, catalog.Problems(fs))
				}
				cat.ReleaseType(typ)
			}
			if fs := cat.LintShared(); len(fs) > 0 {
				probs = append(probs, catalog.Problems(fs))
			}
			if len(probs) > 0 {
				return fmt.Errorf("%v", probs)
			}
			return nil
		},
	}
	dirs := map[int]string{}
	for _, n := range []int{10, 40} {
		dirs[n] = t.TempDir()
		// Shared 3: the Avro versions reference every shared file.
		if err := catalogtest.Generate(dirs[n], catalogtest.GenOptions{Types: n, Versions: 3, Mix: catalogtest.MixAll, Shared: 3}); err != nil {
			t.Fatal(err)
		}
	}
	for name, load := range loads {
		t.Run(name, func(t *testing.T) {
			var got [2]readCounts
			for i, n := range []int{10, 40} {
				c := newCountingFS(os.DirFS(dirs[n]))
				if err := load(c); err != nil {
					t.Fatalf("%d types: %v", n, err)
				}
				got[i] = c.counts()
			}
			if got[0] != got[1] || got[1].RootListings > 3 || got[1].SharedAvscOpens > 2 {
				t.Errorf("10 types: %+v; 40 types: %+v; want the same, at most 3 root listings and 2 opens of a shared .avsc", got[0], got[1])
			}
		})
	}
}
