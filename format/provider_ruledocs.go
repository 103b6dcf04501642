package format

import "github.com/evtool/evtool/report"

// RuleDocumenter is a Provider that documents the rule ids it emits (its
// LintRule or ReadRule, and the others its compilers give findings)
// beside the code that emits them: the rule table (package rules)
// collects every provider's into docs/rules.md and SARIF, and its test
// fails when code emits an id no table documents.
type RuleDocumenter interface {
	// RuleDocs documents the rules of one version's schema file (it does
	// not read, parse or compile), then the rules of the catalog root as
	// a whole (references and ids across files): the rule table lists
	// every format's version rules before the rules across files, the
	// order lint meets them in.
	RuleDocs() (version, root []report.RuleDoc)
}
