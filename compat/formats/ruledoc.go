package formats

import (
	"fmt"
	"strings"

	"github.com/evtool/evtool/compat"
	avrocompat "github.com/evtool/evtool/compat/avro"
	pbcompat "github.com/evtool/evtool/compat/protobuf"
)

// RulesMarkdown renders the compatibility part of docs/rules.md: the rules
// of every format (JSON Schema, Avro, Protobuf). Package rules adds the
// catalog, event and registry rules to make the whole document.
func RulesMarkdown() string {
	var b strings.Builder
	b.WriteString(compat.JSONRulesMarkdown())
	b.WriteString("\n# Avro compatibility rules\n\n")
	b.WriteString("Findings of Avro types (compat/avro). The verdict is the specification's schema resolution with the reader " +
		"and writer per direction (BACKWARD: the new schema reads old data); logical-type meaning changes are breaks too. " +
		"Every error carries a counterexample: a writer datum in Avro's JSON encoding, its binary in hex, and what the reader " +
		"does with it. Where evtool differs from Confluent and Avro Java: docs/compat.md.\n\n")
	b.WriteString("| rule | direction | severity | meaning |\n|---|---|---|---|\n")
	for _, r := range avrocompat.Rules() {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s |\n", r.ID, r.ID, r.Direction, r.Severity, cell(r.Meaning))
	}
	for _, r := range avrocompat.Rules() {
		fmt.Fprintf(&b, "\n### %s\n\n%s: %s.\n", r.ID, r.Direction, r.Meaning)
	}
	b.WriteString("\n# Protobuf compatibility rules\n\n")
	b.WriteString("Findings of Protobuf types (compat/protobuf). `compat.profile` chooses `wire` (binary data keeps its meaning) " +
		"or `wire-json` (the default: wire, and the canonical JSON mapping too); a wire rule applies under both. Every break " +
		"carries a counterexample found by encoding with dynamicpb: the writer message in the JSON mapping, its bytes in hex, " +
		"and what the reader made of it. The last two columns name the nearest `buf breaking` rule and Confluent Schema " +
		"Registry's Protobuf change type (with its verdict).\n\n")
	b.WriteString("| rule | profile | severity | meaning | buf | Confluent |\n|---|---|---|---|---|---|\n")
	for _, r := range pbcompat.Rules() {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s | %s | %s |\n", r.ID, r.ID, r.Profile, r.Severity, cell(r.Summary), code(r.Buf), cell(r.Confluent))
	}
	for _, r := range pbcompat.Rules() {
		fmt.Fprintf(&b, "\n### %s\n\n%s (profile %s).", r.ID, upperFirst(r.Summary), r.Profile)
		if r.Buf != "" || r.Confluent != "" {
			fmt.Fprintf(&b, " Nearest buf rule: %s; Confluent: %s.", orNone(code(r.Buf)), orNone(r.Confluent))
		}
		if r.Differs != "" {
			fmt.Fprintf(&b, " Where evtool differs: %s", r.Differs)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func code(s string) string {
	if s == "" || s == "-" {
		return s
	}
	return "`" + s + "`"
}

func orNone(s string) string {
	if s == "" || s == "-" {
		return "none"
	}
	return s
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
