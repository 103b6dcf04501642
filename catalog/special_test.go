//go:build unix

package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe where a file is expected is refused before it is opened
// (opening it would block until a writer comes), with its path.
func TestNamedPipeRefused(t *testing.T) {
	for _, rel := range []string{"schemas/x.y/v2.json", "schemas/x.y/examples/v1/a.json", "schemas/x.y/event.yaml", "evtool.yaml"} {
		t.Run(rel, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "schemas", "x.y", "examples", "v1"), 0o755)
			files := map[string]string{"evtool.yaml": "version: 1\n", "schemas/x.y/v1.json": `{"type":"object"}`,
				"schemas/x.y/v2.json": `{"type":"object"}`, "schemas/x.y/event.yaml": "topic: t\n", "schemas/x.y/examples/v1/a.json": `{}`}
			for p, text := range files {
				if p != rel {
					os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644)
				}
			}
			if err := syscall.Mkfifo(filepath.Join(dir, rel), 0o644); err != nil {
				t.Skip(err)
			}
			done := make(chan error, 1)
			go func() { _, err := Load(dir); done <- err }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), filepath.FromSlash(rel)) || !strings.Contains(err.Error(), "not a regular file (a named pipe)") {
					t.Fatalf("err = %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Load blocks on a named pipe")
			}
		})
	}
}
