package engine

import "strings"

// Cell is s as a cell of a markdown table: its pipes escaped.
func Cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// UpperFirst is s with its first letter upper case, as a summary starts a
// sentence in docs.
func UpperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Section renders an engine's section of docs/rules.md: its title (a
// level-one heading), intro, the table head, a row per rule, then a
// paragraph per rule (each starts with its own heading).
func Section(title, intro, head string, rules []Rule, row, detail func(Rule) string) string {
	var b strings.Builder
	b.WriteString("\n# " + title + "\n\n" + intro + "\n\n" + head)
	for _, r := range rules {
		b.WriteString(row(r))
	}
	for _, r := range rules {
		b.WriteString(detail(r))
	}
	return b.String()
}
