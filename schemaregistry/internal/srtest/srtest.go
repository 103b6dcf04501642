// Package srtest holds the test helpers of the schema registry client's
// and server's packages (the client's external tests, which start the
// server, included): catalogs written into temporary directories, franz-go
// registry clients, what a registry holds and the findings of a report.
package srtest

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/report"
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

// CopyCatalog copies the catalog at src into a new temporary directory
// (under src's base name) and returns its path.
func CopyCatalog(t testing.TB, src string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), filepath.Base(src))
	CopyDir(t, src, dir)
	return dir
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

// State is everything a registry holds that push may change.
type State struct {
	Subjects map[string][]sr.SubjectSchema
	Levels   map[string]string
}

// DumpState reads the State of the registry at url.
func DumpState(t testing.TB, url string, opts ...sr.ClientOpt) State {
	t.Helper()
	ctx := context.Background()
	cl := SRClient(t, url, opts...)
	subs, err := cl.Subjects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st := State{Subjects: map[string][]sr.SubjectSchema{}, Levels: map[string]string{}}
	for _, s := range subs {
		ss, err := cl.Schemas(ctx, s)
		if err != nil && SRCode(err) != 40401 {
			t.Fatal(err)
		}
		st.Subjects[s] = ss
		r := cl.Compatibility(ctx, s)
		st.Levels[s] = fmt.Sprint(r[0].Level, r[0].Err)
	}
	return st
}

// Rules lists "<subject> <rule>" of rep's findings of severity sev,
// sorted.
func Rules(rep *report.Report, sev report.Severity) []string {
	var out []string
	for _, f := range rep.Findings {
		if f.Severity == sev {
			out = append(out, f.Subject+" "+f.Rule)
		}
	}
	sort.Strings(out)
	return out
}

// Count is the number of rep's findings of rule.
func Count(rep *report.Report, rule string) int {
	n := 0
	for _, f := range rep.Findings {
		if f.Rule == rule {
			n++
		}
	}
	return n
}
