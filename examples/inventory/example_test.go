package inventory_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/examples/internal/exampletest"
	"github.com/evtool/evtool/examples/inventory"
)

const consumerPkg = "./examples/inventory/consumer"

// The catalog lints clean (its examples in the Protobuf JSON mapping
// included), its versions pass the gate under FULL_TRANSITIVE with the
// default wire-json profile, and the events validate.
func TestCatalog(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"lint"}, "7 schemas checked: 0 errors, 0 warnings"},
		{[]string{"compat", "check"}, "5 version pairs checked: 0 errors, 0 warnings"},
		{[]string{"validate", "events.jsonl"}, "94 events checked: 0 errors, 0 warnings"},
	} {
		out, code := exampletest.Evtool(t, ".", tt.args...)
		if code != 0 || !strings.Contains(out, tt.want) {
			t.Errorf("evtool %s: exit %d, want 0 and %q:\n%s", strings.Join(tt.args, " "), code, tt.want, out)
		}
	}
}

// The gate watches the example: narrowing a quantity to int32 in a new
// version is a break with a counterexample.
func TestCatalogBreakCaught(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.CopyFS(dir, inventory.Catalog); err != nil {
		t.Fatal(err)
	}
	v2 := filepath.Join(dir, "schemas", "com.example.inventory.stock.reserved", "v2.proto")
	text, err := os.ReadFile(v2)
	if err != nil {
		t.Fatal(err)
	}
	narrowed := strings.Replace(string(text), "int64 quantity = 3;", "int32 quantity = 3;", 1)
	if err := os.WriteFile(v2, []byte(narrowed), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := exampletest.Evtool(t, dir, "compat", "check")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	for _, want := range []string{"com.example.inventory.stock.reserved v1 -> v2", "[proto-field-integer-changed]", "counterexample"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

// The consumer ends in the same stock under duplicates, reordering,
// version skew, poison events and two crashes.
func TestReplay(t *testing.T) {
	t.Parallel()
	exampletest.ReplayPasses(t, ".", consumerPkg, "duplicate", "reorder", "skew", "poison", "crash")
}

// The naive consumer fails the same kind of replay.
func TestReplayNaive(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a second replay through kfake and child consumers; TestReplay stands for the example in the short tier, and replay's catalogue tests for failing consumers")
	}
	t.Parallel()
	exampletest.ReplayNaiveFails(t, ".", consumerPkg, "the chaos state differs from the baseline state", "/stock/")
}

// The embedded catalog carries the registry ids whenever the directory has
// them (after `evtool registry serve` ran on it), and matches the disk.
func TestCatalogEmbedsIDs(t *testing.T) { exampletest.EmbedsIDs(t, ".", inventory.Catalog) }
