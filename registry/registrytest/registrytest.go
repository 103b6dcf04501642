// Package registrytest holds test helpers for catalogs: one way for tests
// of every package to give a catalog the schema ids `evtool registry
// serve` would have written.
package registrytest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/evtool/evtool/registry"
)

// WriteSchemaIDs writes ids into cat's ids file (registry.SchemaIDsFile
// beside evtool.yaml), keyed as serve keys them, and returns them loaded
// as every command loads them.
func WriteSchemaIDs(t testing.TB, cat *registry.Catalog, ids map[*registry.Version]uint32) *registry.SchemaIDs {
	t.Helper()
	byDigest := map[string]uint32{}
	next := uint32(1)
	for v, id := range ids {
		byDigest[registry.SchemaIDDigest(v.Compiled)] = id
		next = max(next, id+1)
	}
	data, err := json.Marshal(map[string]any{"about": "test", "format": 1, "next_id": next, "ids": byDigest})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(cat.Dir, filepath.FromSlash(registry.SchemaIDsFile))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := registry.LoadSchemaIDs(cat)
	if err != nil {
		t.Fatal(err)
	}
	return loaded
}

// Numbered gives every version of cat the id 100 + 10·(type index) +
// version number: distinct, and readable in a failing test's output.
func Numbered(cat *registry.Catalog) map[*registry.Version]uint32 {
	ids := map[*registry.Version]uint32{}
	for i, ty := range cat.Types {
		for _, v := range ty.Versions {
			ids[v] = uint32(100 + 10*i + v.Number)
		}
	}
	return ids
}
