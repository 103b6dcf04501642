package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, é and 日本", "plain text, é and 日本"},
		{"a\nb", `a\nb`},
		{"x\r\n::error file=README.md::owned", `x\r\n::error file=README.md::owned`},
		{"tab\there", `tab\there`},
		{"esc \x1b[31mred", `esc \x1b[31mred`},
		{"del \x7f", `del \x7f`},
		{"c1 \u0085", `c1 \u0085`},
		{"bidi \u202eevil\u202c", `bidi \u202eevil\u202c`},
		{"isolate \u2066x\u2069", `isolate \u2066x\u2069`},
		{"marks \u200e\u200f\u061c", `marks \u200e\u200f\u061c`},
		{"separators \u2028\u2029", `separators \u2028\u2029`},
		{"zero width \u200b bom \ufeff", `zero width \u200b bom \ufeff`},
		{"bad utf-8 \xff", `bad utf-8 \xff`},
	} {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// No printer lets a message start a line of its own or carry invisible
// characters: a catalog cannot inject GitHub workflow commands.
func TestPrintersEscapeMessages(t *testing.T) {
	evil := "x\n::stop-commands::tok\n::error file=README.md::owned \u202e"
	f := Finding{Rule: "schema-json", Severity: SeverityError, Message: evil, File: "schemas/a\nb/v1.json", Line: 1,
		Subject: "type\n::warning::x", Pointer: "/properties/a\nb"}
	for _, format := range GateFormats {
		var buf bytes.Buffer
		if err := Write(&buf, format, &Report{Command: "lint", Findings: []Finding{f}, Checked: 1}); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(buf.String(), "\n") {
			trimmed := strings.TrimLeft(line, " \t\"<>")
			if strings.HasPrefix(trimmed, "::stop-commands") || strings.HasPrefix(trimmed, "::error file=README.md") ||
				strings.HasPrefix(trimmed, "::warning::x") {
				t.Errorf("%s: a message starts a line of its own:\n%s", format, buf.String())
			}
		}
		if strings.ContainsRune(buf.String(), '\u202e') {
			t.Errorf("%s: a bidi control is printed raw", format)
		}
	}
}

// Messages abbreviate huge numbers; the data is not a message.
func TestShortenDigits(t *testing.T) {
	big := strings.Repeat("9", 10000)
	for _, c := range []struct{ in, want string }{
		{"got 12345", "got 12345"},
		{"got " + strings.Repeat("1", 40) + " ok", "got " + strings.Repeat("1", 40) + " ok"},
		{"got the number " + big + ", want less", "got the number 9999999999999999…9999 (10000 digits), want less"},
		{"1." + big, "1.9999999999999999…9999 (10000 digits)"},
	} {
		if got := shortenDigits(c.in); got != c.want {
			t.Errorf("shortenDigits(%.60q...) = %.80q", c.in, got)
		}
	}
	var buf bytes.Buffer
	f := Finding{Rule: "ce-extension-value", Severity: SeverityError, Message: "got the number " + big, Counterexample: []byte(big)}
	if err := Write(&buf, FormatText, &Report{Findings: []Finding{f}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "(10000 digits)") {
		t.Errorf("number not shortened: %.200s", buf.String())
	}
}
