package catalog_test

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/catalog/catalogtest"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/report"
)

// lintDeferred is what `evtool lint` does with a catalog: loaded
// deferred, each type compiled, its examples checked and let go, then
// the shared files. It returns every finding, sorted, and the versions'
// digests.
func lintDeferred(cat *catalog.Catalog, loadErr error) ([]report.Finding, map[string]string) {
	var out []report.Finding
	if le, ok := loadErr.(*catalog.LoadError); ok {
		out = append(out, le.Findings...)
	}
	digests := map[string]string{}
	for _, t := range cat.Types {
		out = append(out, cat.CompileType(t)...)
		out = append(out, cat.CheckTypeExamples(t)...)
		for _, v := range t.Versions {
			digests[v.File] = v.Digest
		}
		cat.ReleaseType(t)
	}
	out = append(out, cat.LintShared()...)
	return sortedFindings(out), digests
}

// lintLoaded is lintDeferred on a catalog compiled whole by Load.
func lintLoaded(cat *catalog.Catalog, loadErr error) ([]report.Finding, map[string]string) {
	var out []report.Finding
	if le, ok := loadErr.(*catalog.LoadError); ok {
		out = append(out, le.Findings...)
	}
	out = append(out, cat.CheckExamples()...)
	digests := map[string]string{}
	for _, t := range cat.Types {
		for _, v := range t.Versions {
			digests[v.File] = v.Digest
		}
	}
	return sortedFindings(out), digests
}

func sortedFindings(fs []report.Finding) []report.Finding {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Rule+a.Pointer+a.Message < b.Rule+b.Pointer+b.Message
	})
	return fs
}

// TestDeferredSameAsLoad: a catalog loaded deferred and compiled type by
// type (what compat check and lint do), whose version files are decoded
// again when their type is compiled, finds what Load finds, with the
// same digests, on every load fixture and on a generated catalog.
func TestDeferredSameAsLoad(t *testing.T) {
	type source struct {
		name string
		fsys fstest.MapFS
	}
	var sources []source
	files, _ := filepath.Glob("testdata/load/*.txtar")
	for _, file := range files {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		fsys := fstest.MapFS{}
		for _, f := range a.Files {
			fsys[f.Name] = &fstest.MapFile{Data: f.Data, Mode: 0o644}
		}
		sources = append(sources, source{strings.TrimSuffix(filepath.Base(file), ".txtar"), fsys})
	}
	gen := t.TempDir()
	if err := catalogtest.Generate(gen, catalogtest.GenOptions{Types: 12, Versions: 3, Shape: catalogtest.ShapeHeavy, Mix: catalogtest.MixAll, Shared: 4}); err != nil {
		t.Fatal(err)
	}
	for _, s := range sources {
		t.Run(s.name, func(t *testing.T) {
			want, wantDigests := lintLoaded(catalog.LoadFS(s.fsys, "cat"))
			got, gotDigests := lintDeferred(catalog.LoadFSDeferred(s.fsys, "cat"))
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("findings differ (-Load +LoadDeferred):\n%s", d)
			}
			if d := cmp.Diff(wantDigests, gotDigests); d != "" {
				t.Errorf("digests differ (-Load +LoadDeferred):\n%s", d)
			}
		})
	}
	t.Run("generated", func(t *testing.T) {
		want, wantDigests := lintLoaded(catalog.Load(gen))
		got, gotDigests := lintDeferred(catalog.LoadDeferred(gen))
		if len(wantDigests) != 36 {
			t.Fatalf("%d versions, want 36", len(wantDigests))
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("findings differ (-Load +LoadDeferred):\n%s", d)
		}
		if d := cmp.Diff(wantDigests, gotDigests); d != "" {
			t.Errorf("digests differ (-Load +LoadDeferred):\n%s", d)
		}
	})
}

// TestDeferredReleasesDocuments: a catalog loaded deferred holds no
// decoded version document (nor example value) before its type is
// compiled or after it is released, so that memory follows the types
// being checked, not the catalog; while compiled, a version is as Load
// makes it.
func TestDeferredReleasesDocuments(t *testing.T) {
	dir := t.TempDir()
	if err := catalogtest.Generate(dir, catalogtest.GenOptions{Types: 10, Versions: 3, Shape: catalogtest.ShapeHeavy, Mix: catalogtest.MixAll, Shared: 4}); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.LoadDeferred(dir)
	if err != nil {
		t.Fatal(err)
	}
	held := func(when string, t0 *catalog.EventType) {
		t.Helper()
		for _, v := range t0.Versions {
			if v.Format == format.JSONSchema && v.Doc != nil {
				t.Errorf("%s: %s still holds its decoded document", when, v.File)
			}
			if v.Format != format.JSONSchema && v.Text != nil {
				t.Errorf("%s: %s still holds its text", when, v.File)
			}
			for _, ex := range v.Examples {
				if ex.Value != nil {
					t.Errorf("%s: %s holds its decoded value", when, ex.File)
				}
			}
		}
	}
	kinds := map[format.Kind]bool{}
	for _, typ := range cat.Types {
		kinds[typ.Format] = true
		held("after load", typ)
		if probs := cat.CompileType(typ); len(probs) > 0 {
			t.Fatalf("%s: %v", typ.Name, probs)
		}
		for _, v := range typ.Versions {
			if v.Compiled == nil || v.Digest == "" || v.Format == format.JSONSchema && (v.Doc == nil || !strings.HasPrefix(string(v.Compiled.Canonical()), "{")) {
				t.Errorf("%s is not compiled as Load compiles it", v.File)
			}
		}
		if fs := cat.CheckTypeExamples(typ); len(fs) > 0 {
			t.Errorf("%s: examples: %v", typ.Name, fs)
		}
		cat.ReleaseType(typ)
		held("after ReleaseType", typ)
	}
	if len(kinds) != 3 {
		t.Fatalf("formats %v: the generated catalog should mix all three", kinds)
	}
}

// TestDeferredHeapBound: what a deferred catalog keeps from load to the
// end of a command is about its files' text, not their decoded form
// (several times larger). Generous: before it kept about 8 bytes of heap per
// byte of JSON read here, catalog.LoadDeferred under 3.
func TestDeferredHeapBound(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: generates and loads 150 heavy types")
	}
	dir := t.TempDir()
	if err := catalogtest.Generate(dir, catalogtest.GenOptions{Types: 150, Versions: 3, Shape: catalogtest.ShapeHeavy, Mix: catalogtest.MixJSON, Shared: 4}); err != nil {
		t.Fatal(err)
	}
	var jsonBytes int64
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".json") {
			jsonBytes += info.Size()
		}
		return nil
	})
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	cat, err := catalog.LoadDeferred(dir)
	if err != nil {
		t.Fatal(err)
	}
	kept := int64(heap()) - int64(before)
	runtime.KeepAlive(cat)
	t.Logf("LoadDeferred keeps %d bytes of heap for %d bytes of JSON (%.1f per byte)", kept, jsonBytes, float64(kept)/float64(jsonBytes))
	if kept > 3*jsonBytes {
		t.Errorf("LoadDeferred keeps %d bytes of heap for %d bytes of JSON files: more than 3 per byte, so decoded documents are held", kept, jsonBytes)
	}
}
