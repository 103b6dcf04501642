package compat

import (
	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/report"
)

// Catalog-level rule ids (compat check --against and the ignore list).
const (
	RulePublishedModified = "published-version-modified"
	RuleVersionRemoved    = "version-removed"
	RuleTypeRemoved       = "type-removed"
	RuleIgnoreStale       = "ignore-stale"
	// RuleBaseCatalog: the --against catalog has lint findings.
	RuleBaseCatalog    = "base-catalog"
	RuleTypesUnchanged = "types-unchanged"
)

// catalogRules are the gate's own rules, built on each call: a
// package-level slice could be changed by any caller.
func catalogRules() []engine.Rule {
	return []engine.Rule{
		{ID: RulePublishedModified, Severity: report.SeverityError, Summary: "a version that exists on the base was edited in place",
			Detail: "Published versions are immutable: consumers generated code from them and events were written with them. The digest of the canonical JSON (formatting does not count) or of a file it references changed. Add a new version instead."},
		{ID: RuleVersionRemoved, Severity: report.SeverityError, Summary: "a published version was deleted",
			Detail: "Events of that version are still in the log and consumers may still decode them. Deprecate it in event.yaml instead."},
		{ID: RuleTypeRemoved, Severity: report.SeverityError, Summary: "a published event type was deleted",
			Detail: "Events of that type are still in the log. Deprecate its versions instead, or approve the removal."},
		{ID: RuleFormatChanged, Severity: report.SeverityError, Summary: "two versions of a type are in different formats",
			Detail: "A published version on the base is in another format (JSON Schema, Avro, Protobuf) than the head's versions: data written in one format cannot be read with a schema of another. Keep the type's format, or add a new type."},
		{ID: RuleFormatUnsupported, Severity: report.SeverityError, Summary: "no compatibility engine was given for the type's format",
			Detail: "The caller of the catalog check gave no comparer for the format, so the pair was not checked; the gate fails rather than pass it. evtool's commands give every format."},
		{ID: RuleIgnoreStale, Severity: report.SeverityWarning, Summary: "an ignore entry in evtool.yaml matches no finding",
			Detail: "A stale approval: the break it approved is gone (or its type, rule, path or fingerprint is misspelled). Delete the entry named by its line."},
		{ID: RuleBaseCatalog, Severity: report.SeverityWarning, Summary: "the base catalog has problems",
			Detail: "The catalog compat check compares against (--against) does not load cleanly; the message quotes its first findings. Versions that did not load there are not treated as published, so changes to them are not checked."},
		{ID: RuleTypesUnchanged, Severity: report.SeverityInfo, Summary: "types whose files are the same as on the base were not compared",
			Detail: "compat check --against a git revision or a directory compiles and compares only the types whose directory, or a file their schemas reference (transitively), differs from the base, or that a consumer contract added, removed or edited reads, or all of them when evtool.yaml differs. The others keep the verdict they have on the base, which is assumed to have passed the gate: a failure the base already has stays unseen for them. The message counts them; --full compares every type."},
	}
}

// Rules lists every rule id of every engine (in the table's order,
// engines) and of the gate, in documentation order. One id names one
// rule: the rules' test fails when two engines, or an engine and the
// gate, share one.
func Rules() []engine.Rule {
	var out []engine.Rule
	for _, e := range engines() {
		out = append(out, e.Rules()...)
	}
	return append(out, catalogRules()...)
}

// LookupRule returns the rule with the given id, of any engine or of the
// gate.
func LookupRule(id string) (engine.Rule, bool) {
	for _, r := range Rules() {
		if r.ID == id {
			return r, true
		}
	}
	return engine.Rule{}, false
}

// RuleDocs documents every rule of every engine and of the gate for the
// printers (SARIF).
func RuleDocs() []report.RuleDoc {
	var out []report.RuleDoc
	for _, r := range Rules() {
		out = append(out, r.Doc())
	}
	return out
}
