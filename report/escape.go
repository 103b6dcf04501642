package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Escape makes text from the input (a property or directory name, a value)
// safe to print in a terminal or a CI log: control characters (C0, DEL,
// C1), line and paragraph separators, bidirectional controls (U+061C,
// U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the other invisible
// format characters are written as Go escapes (\n, \x1b, \u202e), and
// invalid UTF-8 as \xNN. A newline can then never start a line of its own:
// a catalog cannot write "::error ...::" or "::stop-commands::" into a
// GitHub Actions log, nor reorder what a reader sees. Every printer and the
// command's error output use it.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case escaped(r):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || escaped(r) {
			return true
		}
		i += size
	}
	return false
}

// escaped reports whether r is invisible or changes how the text around it
// is laid out: controls, separators and format characters (category Cf,
// which holds the bidirectional controls, zero-width characters and the
// byte order mark).
func escaped(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
		r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r)
}

// SafeLines makes text of several lines safe to print: each line is
// escaped (tabs kept) and SafeLine guards its start. An error or a log
// message may quote input holding a raw line break: what follows it then
// starts a line, and is shown escaped when it would read as a command.
func SafeLines(s string) string { return mapLines(s, Escape, SafeLine) }

// mapLines applies esc to the text between the line breaks and tabs of s,
// then line (when not nil) to each line.
func mapLines(s string, esc, line func(string) string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		parts := strings.Split(l, "\t")
		for j := range parts {
			parts[j] = esc(parts[j])
		}
		lines[i] = strings.Join(parts, "\t")
		if line != nil {
			lines[i] = line(lines[i])
		}
	}
	return strings.Join(lines, "\n")
}

// SafeLine escapes the first character of a line that a CI log would take
// for a command: GitHub Actions reads "::" after leading white space as a
// workflow command, and "##[" as its older form (Azure Pipelines' "##vso["
// and TeamCity's "##teamcity[" start the same way).
func SafeLine(s string) string {
	rest := strings.TrimLeft(s, " \t")
	if strings.HasPrefix(rest, "::") || strings.HasPrefix(rest, "##") {
		i := len(s) - len(rest)
		return s[:i] + fmt.Sprintf(`\x%02x`, s[i]) + s[i+1:]
	}
	return s
}

// JSONSafe rewrites, in JSON text, the characters Escape escapes that JSON
// carries raw (DEL, C1 controls, line separators, format characters such
// as the bidirectional controls) as \u escapes, and invalid UTF-8 as
// \ufffd: the text decodes to the same values, and a terminal or a log
// shows it inert. Outside strings valid JSON holds only ASCII, so the
// rewrite cannot change its structure.
func JSONSafe(b []byte) []byte {
	clean := true
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r >= 0x7f && (r == utf8.RuneError && size == 1 || escaped(r)) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case r >= 0x7f && escaped(r):
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// maxDigits is the longest run of digits a message shows in full.
const maxDigits = 40

// shortenDigits abbreviates runs of more than maxDigits digits (a number of
// 10,000 digits quoted by a message) to their first and last digits and
// their length. Only messages are shortened: the data is not touched.
func shortenDigits(s string) string {
	var b strings.Builder
	run := 0
	flush := func(end int) {
		start := end - run
		if run > maxDigits {
			fmt.Fprintf(&b, "%s…%s (%d digits)", s[start:start+16], s[end-4:end], run)
		} else {
			b.WriteString(s[start:end])
		}
		run = 0
	}
	long := false
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			run++
			if run > maxDigits {
				long = true
			}
			continue
		}
		if run > 0 {
			flush(i)
		}
		b.WriteByte(s[i])
	}
	if !long {
		return s
	}
	if run > 0 {
		flush(len(s))
	}
	return b.String()
}

// escapeFinding escapes the text fields of f that printers show to people;
// the JSON printer keeps them exact (see JSONSafe).
func escapeFinding(f Finding) Finding {
	f.Message = Escape(shortenDigits(f.Message))
	f.File = Escape(f.File)
	f.Pointer = Escape(f.Pointer)
	f.Subject = Escape(f.Subject)
	f.Type = Escape(f.Type)
	f.OldPointer = Escape(f.OldPointer)
	f.NewPointer = Escape(f.NewPointer)
	f.Ignored = Escape(f.Ignored)
	f.Rule = Escape(f.Rule)
	if f.Record != nil {
		r := *f.Record
		r.Topic = Escape(r.Topic)
		f.Record = &r
	}
	return f
}
