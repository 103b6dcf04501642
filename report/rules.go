package report

// RuleDoc documents one rule id: a one-line summary and what it means and
// what to do about it. docs/rules.md has a section per rule id, and SARIF
// output gives every rule its summary, description and a link to it. Each
// package that emits rule ids documents them beside their code in a
// RuleDocs function; package rules collects those into the one table.
type RuleDoc struct {
	ID      string
	Summary string
	Detail  string
}

// RulesDocURL is where the rules are documented; a rule id is its anchor.
const RulesDocURL = "https://github.com/evtool/evtool/blob/main/docs/rules.md"

// ruleDoc returns the documentation of id from docs, or a generic one that
// points at the rules document.
func ruleDoc(id string, docs []RuleDoc) RuleDoc {
	for _, d := range docs {
		if d.ID == id {
			return d
		}
	}
	return RuleDoc{ID: id, Summary: "evtool rule " + id, Detail: "See the rule " + id + " in evtool's rules document."}
}
