package codegen

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/catalog"
)

// The generated packages committed in the repository are what the
// generator makes today (the drift gate of `evtool gen go --check`, run
// as a test so that a change to the generator or its runtime cannot land
// without them).
func TestCommittedGeneratedCode(t *testing.T) {
	for _, c := range []struct{ catalog, out string }{
		{"../examples/orders", "../examples/orders/events"},
		{"../bench/codegen/catalog", "../bench/codegen/events"},
	} {
		cat, err := catalog.Load(c.catalog)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Generate(cat, Options{Package: DefaultPackage(c.out)})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for _, f := range res.Files {
			want[f.Name] = true
			got, err := os.ReadFile(filepath.Join(c.out, f.Name))
			if err != nil || !bytes.Equal(got, f.Data) {
				t.Errorf("%s/%s is stale; regenerate with\n\tgo run ./cmd/evtool gen go --dir %s --out %s",
					c.out, f.Name, strings.TrimPrefix(c.catalog, "../"), strings.TrimPrefix(c.out, "../"))
			}
		}
		gens, _ := filepath.Glob(filepath.Join(c.out, "*_gen.go"))
		for _, g := range gens {
			if !want[filepath.Base(g)] {
				t.Errorf("%s is not generated any more; remove it", g)
			}
		}
	}
}
