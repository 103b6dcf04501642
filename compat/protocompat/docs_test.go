package protocompat

import (
	"os"
	"strings"
	"testing"
)

// Every rule is documented in docs/protobuf.md's rule table.
func TestRulesDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/protobuf.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Rules() {
		if !strings.Contains(string(b), "| `"+r.ID+"` | "+string(r.Profile)+" |") {
			t.Errorf("rule %s (%s) is not in docs/protobuf.md's table", r.ID, r.Profile)
		}
	}
}
