// Package srtest holds the test helpers of the schema registry client's
// and server's packages: catalogs written into temporary directories and
// franz-go registry clients.
package srtest

import (
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/catalog"
)

// CopyDir copies the tree at src into dst.
func CopyDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// WriteCatalog writes files (slash paths) under a new temporary directory.
func WriteCatalog(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// LoadCat loads the catalog at dir or fails the test.
func LoadCat(t testing.TB, dir string) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	return cat
}

// SRClient is a franz-go registry client of url.
func SRClient(t testing.TB, url string, opts ...sr.ClientOpt) *sr.Client {
	t.Helper()
	// sr's default client gives up after 5 s, which 60 registrations
	// serialized by the catalog lock pass on a loaded 2-core machine.
	base := []sr.ClientOpt{sr.URLs(url), sr.HTTPClient(&http.Client{Timeout: 60 * time.Second})}
	cl, err := sr.NewClient(append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// SRCode is the registry error code of err (0 when it has none).
func SRCode(err error) int {
	if re, ok := err.(*sr.ResponseError); ok {
		return re.ErrorCode
	}
	return 0
}

// MinimalCatalog is a catalog with one type whose data is an open object.
func MinimalCatalog(t testing.TB, mode string, extra map[string]string) string {
	t.Helper()
	files := map[string]string{
		"evtool.yaml": "version: 1\ncompat:\n  mode: " + mode + "\n  samples: 4\n",
		"schemas/com.example.thing.happened/v1.json": `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {"id": {"type": "string"}},
  "required": ["id"]
}
`,
	}
	for k, v := range extra {
		files[k] = v
	}
	return WriteCatalog(t, files)
}

// MustContain fails the test unless s contains sub.
func MustContain(t testing.TB, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Fatalf("%q does not contain %q", s, sub)
	}
}
