package catalog

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/format/protobuf"
)

// TestSchemaCache: a catalog loaded again through the same cache compiles
// only the Avro and Protobuf schemas that read a changed file, a changed
// directory listing (a new .avsc beside the ones an Avro schema resolves
// among) or a file that appeared where a compiler looked; the schemas it
// keeps are the ones it compiled before, and a schema that fails is
// compiled again each time (its findings are reported each time).
func TestSchemaCache(t *testing.T) {
	base := fstest.MapFS{
		"evtool.yaml":                   {Data: []byte("version: 1\n")},
		"schemas/common/money.avsc":     {Data: []byte(`{"type":"record","name":"Money","namespace":"com.x","fields":[{"name":"minor","type":"long"}]}`)},
		"schemas/com.x.paid/v1.avsc":    {Data: []byte(`{"type":"record","name":"Paid","namespace":"com.x","fields":[{"name":"amount","type":"Money"}]}`)},
		"schemas/com.x.moved/v1.proto":  {Data: []byte("syntax = \"proto3\";\npackage m;\nmessage Moved {\n  string sku = 1;\n}\n")},
		"schemas/com.x.shipped/v1.json": {Data: []byte(`{"type":"object"}`)},
	}
	with := func(fsys fstest.MapFS, name, text string) fstest.MapFS {
		out := maps.Clone(fsys)
		out[name] = &fstest.MapFile{Data: []byte(text)}
		return out
	}
	broken := with(base, "schemas/com.x.moved/v1.proto", "syntax = \"proto3\";\nmessage {\n")
	for _, tc := range []struct {
		name   string
		second fstest.MapFS
		want   []string // files compiled by the second load
	}{
		{"unchanged", base, nil},
		{"version edited", with(base, "schemas/com.x.moved/v1.proto", "syntax = \"proto3\";\npackage m;\nmessage Moved {\n  string sku = 1;\n  int32 n = 2;\n}\n"), []string{"schemas/com.x.moved/v1.proto"}},
		{"shared type edited", with(base, "schemas/common/money.avsc", `{"type":"record","name":"Money","namespace":"com.x","fields":[{"name":"minor","type":"int"}]}`), []string{"schemas/com.x.paid/v1.avsc"}},
		{"file added to a shared directory", with(base, "schemas/common/fee.avsc", `{"type":"record","name":"Fee","namespace":"com.x","fields":[]}`), []string{"schemas/com.x.paid/v1.avsc", "schemas/common/fee.avsc"}},
		{"JSON Schema edited", with(base, "schemas/com.x.shipped/v1.json", `{"type":"string"}`), nil},
		{"broken", broken, []string{"schemas/com.x.moved/v1.proto"}},
	} {
		var compiled []string
		cache := &SchemaCache{OnCompile: func(key string) {
			for _, part := range strings.Split(key, "\x00") {
				if strings.HasSuffix(part, ".avsc") || strings.HasSuffix(part, ".proto") {
					compiled = append(compiled, part)
				}
			}
		}}
		first, err := LoadFSCached(base, ".", cache)
		if err != nil {
			t.Fatal(err)
		}
		if len(compiled) != 2 {
			t.Fatalf("%s: first load compiled %q, want both schemas", tc.name, compiled)
		}
		compiled = nil
		second, err := LoadFSCached(tc.second, ".", cache)
		if (err != nil) != (tc.name == "broken") {
			t.Fatalf("%s: %v", tc.name, err)
		}
		slices.Sort(compiled)
		if !slices.Equal(compiled, tc.want) {
			t.Errorf("%s: compiled %q, want %q", tc.name, compiled, tc.want)
		}
		for _, typ := range []string{"com.x.paid", "com.x.moved"} {
			a, b := first.Lookup(typ).Version(1), second.Lookup(typ).Version(1)
			kept := a.Compiled == b.Compiled
			if want := !slices.Contains(tc.want, "schemas/"+typ+"/v1"+map[string]string{"com.x.paid": ".avsc", "com.x.moved": ".proto"}[typ]); kept != want {
				t.Errorf("%s: %s v1 kept %v, want %v", tc.name, typ, kept, want)
			}
		}
		if tc.name == "broken" {
			compiled = nil
			if _, err := LoadFSCached(broken, ".", cache); err == nil || len(compiled) != 1 {
				t.Errorf("a broken schema again: %v, compiled %q", err, compiled)
			}
		}
	}
}

// TestSchemaCacheDropsUnused: what a load did not use (a removed file, a
// candidate the server refused) leaves the cache when the load ends.
func TestSchemaCacheDropsUnused(t *testing.T) {
	fsys := fstest.MapFS{
		"evtool.yaml":                 {Data: []byte("version: 1\n")},
		"schemas/com.x.a/v1.proto":    {Data: []byte("syntax = \"proto3\";\nmessage A {\n  string s = 1;\n}\n")},
		"schemas/com.x.b/v1.avsc":     {Data: []byte(`{"type":"record","name":"B","fields":[]}`)},
		"schemas/com.x.b/v2.avsc":     {Data: []byte(`{"type":"record","name":"B","fields":[{"name":"n","type":"int","default":0}]}`)},
		"schemas/shared/unused.proto": {Data: []byte("syntax = \"proto3\";\nmessage U {}\n")},
	}
	cache := &SchemaCache{}
	size := func() int {
		cache.mu.Lock()
		defer cache.mu.Unlock()
		return len(cache.m)
	}
	if _, err := LoadFSCached(fsys, ".", cache); err != nil {
		t.Fatal(err)
	}
	if n := size(); n != 4 {
		t.Fatalf("%d entries after the first load, want 4", n)
	}
	smaller := maps.Clone(fsys)
	delete(smaller, "schemas/com.x.b/v2.avsc")
	delete(smaller, "schemas/shared/unused.proto")
	if _, err := LoadFSCached(smaller, ".", cache); err != nil {
		t.Fatal(err)
	}
	if n := size(); n != 2 {
		t.Errorf("%d entries after a load of 2 schemas, want 2", n)
	}
}

// TestSchemaCacheConcurrentLoads: loads of different catalogs through one
// cache at once (serve checks several subjects in parallel) each get the
// schemas of their own files: a schema one load compiled is never served
// to a load whose files differ (run with -race).
func TestSchemaCacheConcurrentLoads(t *testing.T) {
	cache := &SchemaCache{}
	variant := func(i int) fstest.MapFS {
		return fstest.MapFS{
			"evtool.yaml":                  {Data: []byte("version: 1\n")},
			"schemas/common/money.avsc":    {Data: []byte(fmt.Sprintf(`{"type":"record","name":"Money","namespace":"com.x","fields":[{"name":"f%d","type":"long"}]}`, i%3))},
			"schemas/com.x.paid/v1.avsc":   {Data: []byte(`{"type":"record","name":"Paid","namespace":"com.x","fields":[{"name":"amount","type":"Money"}]}`)},
			"schemas/common/c.proto":       {Data: []byte(fmt.Sprintf("syntax = \"proto3\";\npackage common;\nmessage C {\n  string g%d = 1;\n}\n", i%3))},
			"schemas/com.x.moved/v1.proto": {Data: []byte("syntax = \"proto3\";\npackage m;\nimport \"common/c.proto\";\nmessage Moved {\n  common.C c = 1;\n}\n")},
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 24 {
		wg.Go(func() {
			cat, err := LoadFSCached(variant(i), ".", cache)
			if err != nil {
				errs <- err
				return
			}
			paid := cat.Lookup("com.x.paid").Version(1).Compiled.(*avro.Schema)
			if got, want := paid.Root.Fields[0].Type.Fields[0].Name, fmt.Sprintf("f%d", i%3); got != want {
				errs <- fmt.Errorf("load %d: Money's field is %s, want %s", i, got, want)
			}
			moved := cat.Lookup("com.x.moved").Version(1).Compiled.(*protobuf.Schema)
			if got, want := string(moved.Message.Fields().Get(0).Message().Fields().Get(0).Name()), fmt.Sprintf("g%d", i%3); got != want {
				errs <- fmt.Errorf("load %d: C's field is %s, want %s", i, got, want)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
