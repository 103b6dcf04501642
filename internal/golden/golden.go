// Package golden compares a test's output with a golden file under
// testdata, or rewrites the file when the test runs with -update.
package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Check fails t when got differs from the file at path; with update it
// writes got there instead. The flag stays the test package's: each
// declares its own -update.
func Check(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (rerun with -update to accept it):\n%s", path, got)
	}
}
