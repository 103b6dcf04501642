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
