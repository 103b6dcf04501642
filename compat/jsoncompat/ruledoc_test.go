package jsoncompat

import (
	"strings"
	"testing"
)

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
