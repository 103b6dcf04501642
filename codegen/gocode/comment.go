package gocode

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Comment renders text as a Go comment: every line starts with "//", so no
// text can end it early or inject code; control characters and invalid
// UTF-8 are replaced, and so are bidirectional controls and the other
// invisible format characters (U+202E, U+2066, U+200F, U+061C, ...), which
// could make the comment read differently from what the compiler sees
// (Trojan Source).
func Comment(text string) string {
	text = strings.ToValidUTF8(text, "\uFFFD")
	text = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u2028", "\n", "\u2029", "\n", "\uFEFF", "").Replace(text)
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		line = strings.Map(func(r rune) rune {
			switch {
			case r < 0x20 && r != '\t' || r == 0x7f:
				return ' '
			case r >= 0x80 && r <= 0x9f || unicode.Is(unicode.Cf, r):
				return '\uFFFD'
			}
			return r
		}, line)
		line = strings.TrimRight(line, " \t")
		if line == "" {
			b.WriteString("//\n")
			continue
		}
		for _, l := range wrap(line, 90) {
			b.WriteString("// " + l + "\n")
		}
	}
	return b.String()
}

// wrap breaks a long line at spaces (indented lines, code in doc
// comments, stay whole).
func wrap(line string, width int) []string {
	if len(line) <= width || line[0] == ' ' || line[0] == '\t' {
		return []string{line}
	}
	var out []string
	cur := ""
	for _, w := range strings.Fields(line) {
		if cur != "" && utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) > width {
			out = append(out, cur)
			cur = w
			continue
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	return append(out, cur)
}
