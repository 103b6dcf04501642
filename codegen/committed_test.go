package codegen

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/catalog"
)

// The generated packages committed in the repository are what the
// generator makes today (the drift gate of `evtool gen go --check`, run
// as a test so that a change to the generator or its runtime cannot land
// without them). The packages are found by walking the repository for
// shared files, whose header records the catalog each was made from: no
// list to keep. With -update the stale ones are rewritten.
func TestCommittedGeneratedCode(t *testing.T) {
	root := ".."
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// testdata holds goldens made without a recorded catalog;
			// dot directories hold no package.
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != SharedFile {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.HasPrefix(b, []byte(Header+"\n")) {
			return nil
		}
		dir := filepath.Dir(path)
		found = append(found, filepath.ToSlash(dir))
		src, ok := ReadSource(b)
		if !ok {
			t.Errorf("%s records no catalog under its header: regenerate it with evtool gen go", path)
			return nil
		}
		checkCommitted(t, dir, src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The walk must see the packages known to be committed; more may
	// come without a change here.
	for _, want := range []string{"../examples/orders/events", "../examples/payments/events",
		"../bench/codegen/events", "../bench/codegen/plain", "../bench/codegen/avro/events"} {
		if !strings.Contains(" "+strings.Join(found, " ")+" ", " "+want+" ") {
			t.Errorf("the walk did not find %s (found %q)", want, found)
		}
	}
}

// checkCommitted regenerates the package in dir from what its header
// records and compares it with the files there.
func checkCommitted(t *testing.T, dir string, src Source) {
	t.Helper()
	catDir := filepath.Join(dir, filepath.FromSlash(src.Catalog))
	cat, err := catalog.Load(catDir)
	if err != nil {
		t.Errorf("%s: its catalog %s: %v", dir, src.Catalog, err)
		return
	}
	res, err := Generate(cat, Options{Package: src.Package, Plain: src.Plain, Catalog: src.Catalog})
	if err != nil {
		t.Errorf("%s: %v", dir, err)
		return
	}
	regen := "go run ./cmd/evtool gen go --dir " + filepath.ToSlash(strings.TrimPrefix(catDir, "../")) + " --out " + strings.TrimPrefix(filepath.ToSlash(dir), "../")
	if src.Plain {
		regen = "go test ./codegen -run TestCommittedGeneratedCode -update"
	}
	want := map[string]bool{}
	for _, f := range res.Files {
		want[f.Name] = true
		path := filepath.Join(dir, f.Name)
		got, err := os.ReadFile(path)
		if err == nil && bytes.Equal(got, f.Data) {
			continue
		}
		if *update {
			if err := os.WriteFile(path, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s is stale; regenerate with\n\t%s", path, regen)
	}
	gens, _ := filepath.Glob(filepath.Join(dir, "*_gen.go"))
	for _, g := range gens {
		if !want[filepath.Base(g)] {
			t.Errorf("%s is not generated any more; remove it", g)
		}
	}
}

// ReadSource reads back what the header records, and nothing from files
// that do not record it.
func TestReadSource(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want Source
		ok   bool
	}{
		{"events", Header + "\n// Catalog: ..\n\n// Package events ...\npackage events\n", Source{Catalog: "..", Package: "events"}, true},
		{"plain", Header + "\n// Catalog: ../catalog (plain types)\n\npackage plain\n", Source{Catalog: "../catalog", Package: "plain", Plain: true}, true},
		{"no catalog line", Header + "\n\npackage events\n", Source{}, false},
		{"empty catalog", Header + "\n// Catalog: \n\npackage events\n", Source{}, false},
		{"not generated", "// Catalog: ..\n\npackage events\n", Source{}, false},
		{"no package clause", Header + "\n// Catalog: ..\n", Source{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ReadSource([]byte(tc.src))
			if ok != tc.ok || got != tc.want {
				t.Errorf("ReadSource = %+v, %t; want %+v, %t", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// A catalog path that would break the comment line is refused, and the
// recorded line reads back as written.
func TestCatalogLineRoundTrip(t *testing.T) {
	cat, err := catalog.Load("../examples/orders")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"a\nb", "a\rb", "x (plain types)", "a\u2028b\x00"} {
		if _, err := Generate(cat, Options{Package: "events", Catalog: bad}); err == nil {
			t.Errorf("catalog %q: no error", bad)
		}
	}
	for _, c := range []string{"..", "../../my catalog/ä"} {
		res, err := Generate(cat, Options{Package: "events", Catalog: c})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Files {
			src, ok := ReadSource(f.Data)
			if f.Name != SharedFile {
				if ok {
					t.Errorf("%s records a catalog", f.Name)
				}
				continue
			}
			if !ok || src != (Source{Catalog: c, Package: "events"}) {
				t.Errorf("%s: %+v, %t", f.Name, src, ok)
			}
		}
	}
}
