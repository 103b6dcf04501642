package dlq

import "github.com/evtool/evtool/report"

// RuleNotAnEvent: a dead-letter entry whose record carries no CloudEvent.
const RuleNotAnEvent = "not-an-event"

// RuleDocs documents every rule id this package emits (see
// catalog.RuleDocs for how the rule table uses it).
func RuleDocs() []report.RuleDoc {
	return []report.RuleDoc{
		{ID: RuleNotAnEvent, Summary: "a dead-letter entry carries no CloudEvent", Detail: "dlq inspect and redrive check each entry's event as validate does; this entry's record has no CloudEvent to check (the message says why), so it cannot be redriven as one."},
	}
}
