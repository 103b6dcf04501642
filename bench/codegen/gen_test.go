package codegen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/codegen"
)

var update = flag.Bool("update", false, "regenerate events/ and plain/")

// TestGeneratedUpToDate checks that events/ and plain/ are what the
// generator makes of catalog/ (go test -run UpToDate -update rewrites
// them).
func TestGeneratedUpToDate(t *testing.T) {
	cat, err := catalog.Load("catalog")
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []struct {
		dir   string
		plain bool
	}{{"events", false}, {"plain", true}} {
		res, err := codegen.Generate(cat, codegen.Options{Package: pkg.dir, Plain: pkg.plain})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Files {
			path := filepath.Join(pkg.dir, f.Name)
			if *update {
				os.MkdirAll(pkg.dir, 0o755)
				if err := os.WriteFile(path, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			old, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(old, f.Data) {
				t.Errorf("%s is not up to date (go test ./bench/codegen -run UpToDate -update)", path)
			}
		}
	}
}
