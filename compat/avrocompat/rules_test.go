package avrocompat

import (
	"os"
	"testing"

	"github.com/evtool/evtool/compat/engine"
)

// TestRulesDoc keeps docs/rules-avro.md equal to the rule table.
func TestRulesDoc(t *testing.T) {
	const path = "../../docs/rules-avro.md"
	want := RulesMarkdown()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Fatalf("%s is stale: go test ./compat/avrocompat -run TestRulesDoc -update", path)
	}
}

// TestEmittedRulesAreDocumented: every rule the corpus produces is in the
// table with the severity it is emitted with.
func TestEmittedRulesAreDocumented(t *testing.T) {
	table := map[string]string{}
	for _, r := range Rules() {
		table[r.ID] = string(r.Severity)
	}
	for _, p := range corpusPairs(t) {
		for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
			for _, f := range Compare(p.writer, p.reader, dir, engine.Options{}) {
				if sev, ok := table[f.Rule]; !ok || sev != string(f.Severity) {
					t.Errorf("%s: rule %s (%s) is not in Rules() with that severity", p.name, f.Rule, f.Severity)
				}
			}
		}
	}
}
