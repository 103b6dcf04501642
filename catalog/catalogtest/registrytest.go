// Package catalogtest holds test helpers for catalogs: one way for tests
// of every package to give a catalog the schema ids `evtool registry
// serve` would have written.
package catalogtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/evtool/evtool/catalog"
)

// WriteSchemaIDs writes ids into cat's ids file (catalog.SchemaIDsFile
// beside evtool.yaml), keyed as serve keys them, and returns them loaded
// as every command loads them.
func WriteSchemaIDs(t testing.TB, cat *catalog.Catalog, ids map[*catalog.Version]uint32) *catalog.SchemaIDs {
	t.Helper()
	byDigest := map[string]uint32{}
	next := uint32(1)
	for v, id := range ids {
		byDigest[catalog.SchemaIDDigest(v.Compiled)] = id
		next = max(next, id+1)
	}
	data, err := json.Marshal(map[string]any{"about": "test", "format": 1, "next_id": next, "ids": byDigest})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(cat.Dir, filepath.FromSlash(catalog.SchemaIDsFile))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := catalog.LoadSchemaIDs(cat)
	if err != nil {
		t.Fatal(err)
	}
	return loaded
}

// Numbered gives every version of cat the id 100 + 10·(type index) +
// version number: distinct, and readable in a failing test's output.
func Numbered(cat *catalog.Catalog) map[*catalog.Version]uint32 {
	ids := map[*catalog.Version]uint32{}
	for i, ty := range cat.Types {
		for _, v := range ty.Versions {
			ids[v] = uint32(100 + 10*i + v.Number)
		}
	}
	return ids
}
