package jsoncompat

import (
	"fmt"
	"strings"

	"github.com/evtool/evtool/compat/engine"
)

// RulesSection is the JSON Schema engine's section of docs/rules.md
// (engine.Engine.Section): a table of its rules and gate's, by direction
// and keyword, then a paragraph per rule naming the rule of the other
// direction of the same difference.
func RulesSection(gate []engine.Rule) string {
	var b strings.Builder
	b.WriteString("| rule | direction | keyword | severity | meaning |\n|---|---|---|---|---|\n")
	rules := append(Rules(), gate...)
	isGate := map[string]bool{}
	for _, r := range gate {
		isGate[r.ID] = true
	}
	for _, r := range rules {
		dir := "both"
		if r.Direction != "" {
			dir = strings.ToUpper(string(r.Direction))
		}
		if isGate[r.ID] {
			dir = "catalog"
		}
		kw := r.Compares
		if kw != "" {
			kw = "`" + kw + "`"
		}
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s | %s |\n", r.ID, r.ID, dir, kw, r.Severity, r.Summary)
	}
	b.WriteString("\n## Details\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "\n### %s\n\n", r.ID)
		if r.Direction != "" {
			other := ""
			for _, o := range rules {
				if o.ID != r.ID && o.Compares == r.Compares && o.Detail == r.Detail && o.Direction != "" && o.Direction != r.Direction {
					other = o.ID
				}
			}
			fmt.Fprintf(&b, "%s, %s. ", strings.ToUpper(string(r.Direction)), lowerFirst(r.Summary))
			if other != "" {
				fmt.Fprintf(&b, "The same difference in the other direction is [`%s`](#%s).", other, other)
			}
			b.WriteString("\n\n")
		} else {
			b.WriteString(engine.UpperFirst(r.Summary) + ".\n\n")
		}
		b.WriteString(r.Detail + "\n")
	}
	return b.String()
}
