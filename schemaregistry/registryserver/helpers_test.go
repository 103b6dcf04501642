package registryserver

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/schemaregistry"
)

// copyDir copies the tree at src into dst.
func copyDir(t testing.TB, src, dst string) {
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

// ordersCatalog copies examples/orders into a temporary directory.
func ordersCatalog(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "orders")
	copyDir(t, filepath.Join("..", "..", "examples", "orders"), dir)
	return dir
}

// writeCatalog writes files (slash paths) under a new temporary directory.
func writeCatalog(t testing.TB, files map[string]string) string {
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

func loadCat(t testing.TB, dir string) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	return cat
}

// startServer serves dir with evtool's server on an httptest server.
func startServer(t testing.TB, opts ServerOptions) (*Server, string) {
	t.Helper()
	s, err := NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return s, hs.URL
}

func srClient(t testing.TB, url string, opts ...sr.ClientOpt) *sr.Client {
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

func newClient(t testing.TB, o schemaregistry.ClientOptions) *schemaregistry.Client {
	t.Helper()
	c, err := schemaregistry.NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var ctx = context.Background()

func srCode(err error) int {
	if re, ok := err.(*sr.ResponseError); ok {
		return re.ErrorCode
	}
	return 0
}

func srStatus(err error) int {
	if re, ok := err.(*sr.ResponseError); ok {
		return re.StatusCode
	}
	return 0
}

// minimalCatalog is a catalog with one type whose data is an open object.
func minimalCatalog(t testing.TB, mode string, extra map[string]string) string {
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
	return writeCatalog(t, files)
}

func mustContain(t testing.TB, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Fatalf("%q does not contain %q", s, sub)
	}
}

// doHandler calls the server's handler directly.
func doHandler(t testing.TB, s *Server, method, target, body string) apiResp {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, r)
	req.Header.Set("Content-Type", schemaregistry.ContentType)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	out := apiResp{status: w.Code, contentType: w.Header().Get("Content-Type"), body: w.Body.String()}
	var e struct {
		Code int `json:"error_code"`
	}
	_ = json.Unmarshal(w.Body.Bytes(), &e)
	out.code = e.Code
	return out
}

// formatCatalog copies ../testdata/formats/<name> (an Avro or Protobuf
// catalog whose versions use shared files, the client's tests' too) into a
// temporary directory.
func formatCatalog(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	copyDir(t, filepath.Join("..", "testdata", "formats", name), dir)
	return dir
}
