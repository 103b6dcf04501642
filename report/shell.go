package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ShellWord quotes s as one word of a command line that a reader pastes
// into a shell (the reproduce lines): as is when it holds only characters
// no shell treats specially, in single quotes otherwise, and in bash's
// $'...' quoting when it holds what Escape escapes (controls, invalid
// UTF-8, bidirectional and other invisible characters), each byte of those
// written \xHH. The line then never holds a raw control byte, yet bash
// (and zsh, ksh, and POSIX sh since 2024) gives the command the exact
// bytes. A NUL cannot be in an argument: a shell ends the word there.
func ShellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,@+", r))
	}) < 0 {
		return s
	}
	if !needsEscape(s) {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == utf8.RuneError && size == 1 || escaped(r):
			// Two hex digits each: bash reads at most two after \x.
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('\'')
	return b.String()
}
