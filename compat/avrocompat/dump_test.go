package avrocompat

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/compat/engine"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestReportGolden pins the report form of every rule test: rule, place,
// pointers into both files, message and counterexample.
func TestReportGolden(t *testing.T) {
	var b strings.Builder
	for _, tt := range ruleTests {
		old, new := mustParse(t, "v1.avsc", tt.old), mustParse(t, "v2.avsc", tt.new)
		for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
			for _, f := range Compare(old, new, dir, engine.Options{}) {
				r := f.ToReport(engine.Pair{Type: "t", OldFile: "v1.avsc", NewFile: "v2.avsc"}, old, new)
				fmt.Fprintf(&b, "%s %s: %s %s %s:%d old=%s new=%s\n  %s\n  %s\n", tt.name, r.Direction, r.Rule, r.Severity, r.File, r.Line, r.OldPointer, r.NewPointer, r.Message, r.Counterexample)
			}
		}
	}
	const golden = "testdata/rules.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("report differs from %s (-want +got), rerun with -update:\n%s", golden, diff)
	}
}
