package avrocompat

import (
	"fmt"
	"strings"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/report"
)

// rule documents one rule id the engine emits (engine.Rule's fields, in
// table order).
type rule struct {
	ID string
	// Direction is BACKWARD or FORWARD for rules named after the change
	// as seen in one direction, "both" otherwise.
	Direction string
	Severity  report.Severity
	Meaning   string
}

// Rules is the table of every rule id, in the order docs list them.
func Rules() []engine.Rule {
	var out []engine.Rule
	for _, r := range rules() {
		var d engine.Direction
		switch r.Direction {
		case "BACKWARD":
			d = engine.Backward
		case "FORWARD":
			d = engine.Forward
		}
		out = append(out, engine.Rule{ID: r.ID, Direction: d, Severity: r.Severity, Summary: r.Meaning})
	}
	return out
}

// DirectionName is how docs name a rule's direction: BACKWARD, FORWARD or
// both.
func DirectionName(d engine.Direction) string {
	if d == "" {
		return "both"
	}
	return strings.ToUpper(string(d))
}

func rules() []rule {
	return []rule{
		{"avro-field-added-without-default", "BACKWARD", report.SeverityError, "the reader has a field the writer's record lacks, with no default to fill it"},
		{"avro-field-removed-without-default", "FORWARD", report.SeverityError, "the new schema dropped a field the old reader needs and whose old declaration has no default"},
		{"avro-field-alias-ambiguous", "both", report.SeverityError, "two writer fields resolve to one reader field (one by its name, one by its alias, or both by aliases): the library refuses the pair"},
		{"avro-type-changed", "both", report.SeverityError, "the type changed beyond the specification's promotions (int→long→float→double, string↔bytes)"},
		{"avro-array-items-changed", "both", report.SeverityError, "an array's item type changed beyond a promotion"},
		{"avro-map-values-changed", "both", report.SeverityError, "a map's value type changed beyond a promotion"},
		{"avro-name-mismatch", "both", report.SeverityError, "a record, enum or fixed is read as one of another name, and no reader alias names the writer's"},
		{"avro-enum-symbol-removed", "BACKWARD", report.SeverityError, "a writer enum symbol is not among the reader's symbols and the reader enum has no default"},
		{"avro-enum-symbol-added", "FORWARD", report.SeverityError, "the new enum has a symbol the old reader lacks, and the old enum has no default"},
		{"avro-enum-symbol-defaulted", "both", report.SeverityInfo, "a writer enum symbol the reader lacks is read as the reader enum's default (compatible by the specification; the value changes)"},
		{"avro-union-branch-unmatched", "both", report.SeverityError, "a writer type (or union branch) matches no branch of the reader's union, or a writer union branch cannot be read as the reader's non-union type"},
		{"avro-fixed-size-changed", "both", report.SeverityError, "a fixed type changed size"},
		{"avro-decimal-scale-changed", "both", report.SeverityError, "a decimal's scale changed: every value is read 10^n larger or smaller (Java and Confluent: compatible)"},
		{"avro-decimal-precision-narrowed", "BACKWARD", report.SeverityError, "a decimal's precision decreased: larger writer values exceed the reader's (Java and Confluent: compatible)"},
		{"avro-decimal-precision-widened", "FORWARD", report.SeverityError, "the new decimal holds more digits than the old reader's precision (Java and Confluent: compatible)"},
		{"avro-timestamp-unit-changed", "both", report.SeverityError, "a timestamp's unit changed (millis, micros, nanos): every instant moves (Java and Confluent: compatible)"},
		{"avro-timestamp-local-changed", "both", report.SeverityError, "local-timestamp-* became timestamp-* or the other way: wall-clock times and UTC instants are confused (Java and Confluent: compatible)"},
		{"avro-time-unit-changed", "both", report.SeverityError, "time-millis became time-micros or the other way (Java and Confluent: compatible)"},
		{"avro-logical-type-changed", "both", report.SeverityError, "another change of logical type on a readable base type, e.g. date read as timestamp-millis (Java and Confluent: compatible)"},
		{"avro-logical-type-added-out-of-domain", "both", report.SeverityError, "the reader gives plain values a logical type whose domain does not hold every writer value (string as uuid, bytes or string as decimal or big-decimal, fixed as decimal, int or long as time-millis or time-micros); the counterexample is such a value and says what Java, Python or hamba/avro readers do with it (Java and Confluent: compatible)"},
		{"avro-logical-type-added", "both", report.SeverityWarning, "the reader gives plain values a logical type that holds every one of them (int as date, long as a timestamp, fixed(16) as uuid, fixed(12) as duration)"},
		{"avro-logical-type-dropped", "both", report.SeverityWarning, "the reader reads logical values as their plain base type"},
		{"avro-default-wrong-type", "both", report.SeverityError, "a reader default does not decode as its field's type (lint rejects such schemas first)"},
		{"avro-incomplete", "both", report.SeverityWarning, "the comparison was stopped (Options.Context) before the witness search finished; breaks found by the rules are still reported"},
		{"avro-unexplained-break", "both", report.SeverityError, "witness search found a writer datum the reader cannot read that no other rule predicted (a safety net)"},
	}
}

// RulesMarkdown renders the rule table for docs.
func RulesMarkdown() string {
	var b strings.Builder
	b.WriteString("<!-- Code generated by go test ./compat/avrocompat -run TestRulesDoc -update; DO NOT EDIT. -->\n\n")
	b.WriteString("# Avro compatibility rules\n\n")
	b.WriteString("Rule ids of the Avro engine (compat/avrocompat). Every error comes with a counterexample: a writer datum in Avro's JSON encoding, its binary in hex, and what the reader does with it.\n\n")
	b.WriteString("| rule | direction | severity | meaning |\n|---|---|---|---|\n")
	for _, r := range Rules() {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.ID, DirectionName(r.Direction), r.Severity, r.Summary)
	}
	return b.String()
}

// RulesSection is the Avro engine's section of docs/rules.md
// (engine.Engine.Section): its rules by direction; it lists no gate
// rules.
func RulesSection([]engine.Rule) string {
	return engine.Section("Avro compatibility rules",
		"Findings of Avro types (compat/avrocompat). The verdict is the specification's schema resolution with the reader "+
			"and writer per direction (BACKWARD: the new schema reads old data); logical-type meaning changes are breaks too. "+
			"Every error carries a counterexample: a writer datum in Avro's JSON encoding, its binary in hex, and what the reader "+
			"does with it. Where evtool differs from Confluent and Avro Java: docs/compat.md.",
		"| rule | direction | severity | meaning |\n|---|---|---|---|\n", Rules(),
		func(r engine.Rule) string {
			return fmt.Sprintf("| [`%s`](#%s) | %s | %s | %s |\n", r.ID, r.ID, DirectionName(r.Direction), r.Severity, engine.Cell(r.Summary))
		},
		func(r engine.Rule) string {
			return fmt.Sprintf("\n### %s\n\n%s: %s.\n", r.ID, DirectionName(r.Direction), r.Summary)
		})
}
