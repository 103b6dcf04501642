package confluent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/evtool/evtool/registry"
)

// TestStateIgnoredByLoader: the server's state directory and leftover
// temporary files never disturb `evtool lint`, even when corrupt.
func TestStateIgnoredByLoader(t *testing.T) {
	dir := minimalCatalog(t, "NONE", map[string]string{
		"schemas/" + StateDir + "/" + IDsFile:                    `{"truncated`,
		"schemas/" + StateDir + "/" + ConfigFile:                 `not json`,
		"schemas/com.example.thing.happened/.v2.json.tmp-123456": `{"half a sch`,
		"schemas/com.example.new.type/.v1.json.tmp-99":           `{`,
		".evtool.yaml.tmp-1":                                     `garbage`,
	})
	cat, err := registry.Load(dir)
	if err != nil {
		t.Fatalf("the loader read the server's files: %v", err)
	}
	if len(cat.Types) != 1 || len(cat.Types[0].Versions) != 1 {
		t.Fatalf("types %v", cat.Names())
	}
	// The server refuses a corrupt ids file rather than renumbering.
	if _, err := NewServer(ServerOptions{Dir: dir}); err == nil {
		t.Fatal("a corrupt ids file was accepted")
	}
	if err := os.Remove(filepath.Join(dir, "schemas", StateDir, IDsFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "schemas", StateDir, ConfigFile), []byte(`{"format":1,"subjects":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(ServerOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if left := tempFiles(t, dir); len(left) != 0 {
		t.Fatalf("leftovers not removed: %v", left)
	}
	if got := s.Subjects(); len(got) != 1 {
		t.Fatalf("subjects %v", got)
	}
}
