package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evtool/evtool/report"
)

// A named pipe among a catalog's .avsc files (a shared directory's, a
// type's) is refused by name, not opened: opening one blocks until a
// writer comes, in a syscall no signal ends, so a load hung for good.
func TestLoadRefusesNamedPipes(t *testing.T) {
	for _, where := range []string{"schemas/common/fifo.avsc", "schemas/x.y/fifo.avsc"} {
		t.Run(where, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range map[string]string{
				"evtool.yaml":            "version: 1\n",
				"schemas/x.y/event.yaml": "owner: x\n",
				"schemas/common/m.avsc":  `{"type": "record", "name": "M", "namespace": "x", "fields": [{"name": "a", "type": "long"}]}`,
				"schemas/x.y/v1.avsc":    `{"type": "record", "name": "P", "namespace": "y", "fields": [{"name": "m", "type": "x.M"}]}`,
			} {
				p := filepath.Join(dir, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			fifo := filepath.Join(dir, where)
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skip(err)
			}
			// Let a load blocked on the pipe go, whatever the outcome.
			t.Cleanup(func() {
				if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
			})
			for _, load := range []struct {
				name string
				f    func(string) (*Catalog, error)
			}{{"Load", Load}, {"LoadDeferred", LoadDeferred}} {
				done := make(chan error, 1)
				go func() {
					cat, err := load.f(dir)
					if err == nil && cat != nil && cat.Deferred() {
						var fs []report.Finding
						for _, typ := range cat.Types {
							fs = append(fs, cat.CompileType(typ)...)
						}
						if fs = append(fs, cat.LintShared()...); len(fs) > 0 {
							err = Problems(fs)
						}
					}
					done <- err
				}()
				select {
				case err := <-done:
					// One in a type's directory is read only for a
					// name the version does not define itself.
					if strings.HasPrefix(where, "schemas/common/") && (err == nil || !strings.Contains(err.Error(), "fifo.avsc") || !strings.Contains(err.Error(), "named pipe")) {
						t.Errorf("%s: got %v, want the pipe refused by name", load.name, err)
					}
				case <-time.After(30 * time.Second):
					t.Fatalf("%s: still loading after 30 s: blocked opening the named pipe", load.name)
				}
			}
		})
	}
}
