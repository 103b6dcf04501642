// Package rules is evtool's one rule table: it collects the rule
// documentation each emitting package declares beside its rule ids
// (catalog.RuleDocs, the format providers' RuleDocs, envelope.RuleDocs,
// ..., and the compatibility engines' tables) for docs/rules.md and for
// SARIF output. A test finds every rule id the code emits and fails when
// one is missing here.
package rules

import (
	"fmt"
	"strings"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat"
	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/consumers"
	"github.com/evtool/evtool/dlq"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/records"
	"github.com/evtool/evtool/replay"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/schemaregistry"
)

// Check documents the rules of the catalog loader (lint) and of the
// formats' schema files, of events and records (validate, produce,
// replay, dlq, verify) and of registry sync (push, pull, diff), in
// documentation order.
func Check() []report.RuleDoc {
	version, root := schemaRuleDocs()
	var out []report.RuleDoc
	for _, docs := range [][]report.RuleDoc{
		catalog.RuleDocs(),
		version,
		root,
		catalog.ExampleRuleDocs(),
		envelope.RuleDocs(),
		records.RuleDocs(),
		replay.RuleDocs(),
		dlq.RuleDocs(),
		schemaregistry.RuleDocs(),
		consumers.RuleDocs(),
	} {
		out = append(out, docs...)
	}
	return out
}

// schemaRuleDocs are the rules of the formats' schema files, from every
// provider that documents its own (format.RuleDocumenter), in the
// providers' order: each version file's rules, then those across files.
func schemaRuleDocs() (version, root []report.RuleDoc) {
	for _, p := range formats.All() {
		if d, ok := p.(format.RuleDocumenter); ok {
			v, r := d.RuleDocs()
			version, root = append(version, v...), append(root, r...)
		}
	}
	return version, root
}

// All documents every rule id evtool emits: the compatibility rules of
// every format, then Check's. Reports carry it (report.Report.Rules) so
// that SARIF describes each rule its findings name.
func All() []report.RuleDoc {
	return append(compat.RuleDocs(), Check()...)
}

// Markdown renders docs/rules.md (go run ./compat/cmd/ruledoc >
// docs/rules.md; a test fails when the file is stale).
func Markdown() string {
	return compat.RulesMarkdown() + checkMarkdown(Check()) + contributing
}

// checkMarkdown is the part of docs/rules.md on the rules of lint,
// validate, replay and the registry commands, rendered from docs.
func checkMarkdown(docs []report.RuleDoc) string {
	var b strings.Builder
	b.WriteString("\n# Catalog, event and registry rules\n\n")
	b.WriteString("Findings of `evtool lint`, `evtool validate`, `evtool replay` and the registry commands name these rule ids.\n\n")
	b.WriteString("| rule | meaning |\n|---|---|\n")
	for _, r := range docs {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s |\n", r.ID, r.ID, r.Summary)
	}
	for _, r := range docs {
		fmt.Fprintf(&b, "\n### %s\n\n%s.\n\n%s\n", r.ID, engine.UpperFirst(r.Summary), r.Detail)
	}
	return b.String()
}

// contributing closes docs/rules.md: how the document is made and how a
// contributor adds a rule.
const contributing = `
# Adding a rule

This document is generated from evtool's one rule table (package ` + "`rules`" + `), which
collects what each package documents beside the code that emits its ids:

- the catalog, event, record and registry rules: a ` + "`Rule...`" + ` constant and an entry
  ` + "`{ID, Summary, Detail}`" + ` in the package's ` + "`RuleDocs()`" + ` (for example
  ` + "`records/ruledocs.go`" + `);
- the load and lint rules of a format's schema files: the format provider's own ` + "`RuleDocs()`" + `
  (` + "`format.RuleDocumenter`" + `: the rules of one version file, then those across files; for
  example ` + "`format/avro/ruledocs.go`" + `), taken from every provider in ` + "`formats.All()`" + `;
- the compatibility rules: the engines' own tables (` + "`compat.Rules()`" + `, the Avro and Protobuf
  engines' ` + "`Rules()`" + `).

To add a rule, declare its id as a constant beside the check that emits it, add its entry to
that package's table (a new package's ` + "`RuleDocs`" + ` goes into ` + "`rules.Check`" + `; a new format's
provider documents its rules with ` + "`RuleDocs`" + ` and is collected by itself), and regenerate
this file with ` + "`go run ./compat/cmd/ruledoc > docs/rules.md`" + `. ` + "`go test ./rules`" + ` reads every
non-test source and fails when code can emit a rule id (a ` + "`Rule...`" + ` constant, a ` + "`Rule:`" + ` field,
a ` + "`rule`" + ` argument or variable) that the table does not document, when a documented check
rule is no longer emitted, or when this file is stale. SARIF output describes each rule
from the same table and links to its section here.
`
