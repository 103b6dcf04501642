package compat

import (
	"strings"
	"testing"
)

// Every rule of every engine and of the gate has a section in the one
// rules document (SARIF links to it by rule id), with its summary and
// a complete doc.
func TestRulesDocCoversFormats(t *testing.T) {
	doc := RulesMarkdown()
	for _, r := range Rules() {
		if !strings.Contains(doc, "\n### "+r.ID+"\n") {
			t.Errorf("no section for %s", r.ID)
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

// Rules and LookupRule span every engine of the table, not one format's:
// each engine's rules are found by id, as the engine documents them.
func TestLookupRuleEveryEngine(t *testing.T) {
	for kind, e := range Engines() {
		rules := e.Rules()
		if len(rules) == 0 {
			t.Errorf("%s: the engine documents no rule", kind)
		}
		for _, want := range rules {
			got, ok := LookupRule(want.ID)
			if !ok || got.Summary != want.Summary || got.Severity != want.Severity {
				t.Errorf("%s: LookupRule(%s) = %+v, %v; want %+v", kind, want.ID, got, ok, want)
			}
		}
	}
	for _, r := range catalogRules() {
		if _, ok := LookupRule(r.ID); !ok {
			t.Errorf("gate rule %s not found", r.ID)
		}
	}
	if r, ok := LookupRule("no-such-rule"); ok {
		t.Errorf("LookupRule found %+v for an unknown id", r)
	}
}
