package compat

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/compat/avrocompat"
	"github.com/evtool/evtool/compat/protocompat"
)

var update = flag.Bool("update", false, "rewrite docs/rules.md")

// TestRulesDocUpToDate fails when docs/rules.md differs from the rule
// tables of every format (regenerate: go run ./compat/cmd/ruledoc >
// docs/rules.md, or go test ./compat -run TestRulesDocUpToDate
// -update).
func TestRulesDocUpToDate(t *testing.T) {
	path := filepath.Join("..", "docs", "rules.md")
	want := RulesMarkdown()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("docs/rules.md is stale: regenerate it with go run ./compat/cmd/ruledoc > docs/rules.md")
	}
}

// Every Avro and Protobuf rule has a section in the one rules document
// (SARIF links to it by rule id), and no id is in two formats.
func TestRulesDocCoversFormats(t *testing.T) {
	doc := RulesMarkdown()
	seen := map[string]bool{}
	var ids []string
	for _, r := range avrocompat.Rules() {
		ids = append(ids, r.ID)
	}
	for _, r := range protocompat.Rules() {
		ids = append(ids, r.ID)
	}
	for _, id := range ids {
		if seen[id] {
			t.Errorf("rule id %s twice", id)
		}
		seen[id] = true
		if !strings.Contains(doc, "\n### "+id+"\n") {
			t.Errorf("no section for %s", id)
		}
	}
	for _, d := range RuleDocs() {
		if d.ID == "" || d.Summary == "" {
			t.Errorf("rule doc %+v incomplete", d)
		}
	}
}
