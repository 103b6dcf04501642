package compat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRulesDocUpToDate fails when docs/rules.md differs from the rule table
// (regenerate: go run ./compat/cmd/ruledoc > docs/rules.md, or go test
// ./compat -run TestRulesDocUpToDate -update).
func TestRulesDocUpToDate(t *testing.T) {
	path := filepath.Join("..", "docs", "rules.md")
	want := RulesMarkdown()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: generate it with go run ./compat/cmd/ruledoc > docs/rules.md", err)
	}
	if string(got) != want {
		t.Fatalf("docs/rules.md is stale: regenerate it with go run ./compat/cmd/ruledoc > docs/rules.md")
	}
}

// Every rule id is kebab-case and unique, and every kind has a message.
func TestRuleTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		if seen[r.ID] && r.Direction != "" {
			t.Errorf("duplicate rule id %s", r.ID)
		}
		seen[r.ID] = true
		for _, part := range strings.Split(r.ID, "-") {
			if part == "" || strings.ToLower(part) != part {
				t.Errorf("rule id %q is not kebab-case", r.ID)
			}
		}
		if r.Summary == "" || r.Detail == "" {
			t.Errorf("rule %s has no summary or detail", r.ID)
		}
	}
	for k := Kind(0); k < numKinds; k++ {
		if kinds[k].tmpl == "" || kinds[k].backward == "" || kinds[k].forward == "" {
			t.Errorf("kind %d is incomplete", k)
		}
	}
}
