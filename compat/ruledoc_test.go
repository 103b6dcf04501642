package compat

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/compat/avrocompat"
	"github.com/evtool/evtool/compat/protocompat"
)

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

// One id names one rule: every rule of the gate and of every engine is in
// the rules table once (an id in two rows sends SARIF and an ignore entry
// to either meaning).
func TestRuleIDsOnce(t *testing.T) {
	seen := map[string]string{}
	for _, d := range RuleDocs() {
		if other, ok := seen[d.ID]; ok {
			t.Errorf("rule id %s twice: %q and %q", d.ID, other, d.Summary)
		}
		seen[d.ID] = d.Summary
	}
}
