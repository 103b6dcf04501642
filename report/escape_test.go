package report

import (
	"bytes"
	"encoding/json"
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

// hostile holds what Escape escapes and JSON may carry raw: a bidi
// override, NEL, a line separator, a C1 CSI and an astral format character.
const hostile = "a\u202eb\u0085c\u2028d\u009b31me\U000e0041f"

func rawHostile(s string) bool {
	return strings.ContainsAny(s, "\u202e\u0085\u2028\u009b\U000e0041")
}

// The JSON formats keep names and pointers exact: decoding the output gives
// back what the finding held, while no character Escape escapes is printed
// raw, values and counterexamples included.
func TestJSONKeepsDataExact(t *testing.T) {
	f := Finding{Rule: "enum-value-removed", Severity: SeverityError, Message: "allows \"x\n" + hostile + "\"",
		File: "schemas/a\nb/v2.json", Line: 1, Pointer: "/properties/x\n::error::y" + hostile, Subject: "t v1 -> v2",
		OldPointer: "/properties/" + hostile, NewPointer: "/p\r\n", OldValue: hostile, NewValue: []any{hostile},
		Counterexample: []byte(`{"` + hostile + `":"` + hostile + `"}`)}
	var buf bytes.Buffer
	if err := Write(&buf, FormatJSON, &Report{Command: "compat check", Findings: []Finding{f}, Checked: 1}); err != nil {
		t.Fatal(err)
	}
	if rawHostile(buf.String()) {
		t.Errorf("json: a character is printed raw:\n%s", buf.String())
	}
	var got struct{ Findings []Finding }
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("json output does not parse: %v\n%s", err, buf.String())
	}
	g := got.Findings[0]
	if g.File != f.File || g.Pointer != f.Pointer || g.OldPointer != f.OldPointer || g.NewPointer != f.NewPointer ||
		g.Message != f.Message || g.OldValue != hostile {
		t.Errorf("json: data changed:\n got %+v\nwant %+v", g, f)
	}
	var cx map[string]string
	if err := json.Unmarshal(g.Counterexample, &cx); err != nil || cx[hostile] != hostile {
		t.Errorf("json: counterexample changed: %s (%v)", g.Counterexample, err)
	}

	buf.Reset()
	if err := Write(&buf, FormatSARIF, &Report{Command: "compat check", Findings: []Finding{f}, Checked: 1}); err != nil {
		t.Fatal(err)
	}
	if rawHostile(buf.String()) {
		t.Errorf("sarif: a character is printed raw:\n%s", buf.String())
	}
	var sarif struct {
		Runs []struct {
			Results []struct {
				Properties struct {
					Counterexample map[string]string
				}
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &sarif); err != nil {
		t.Fatalf("sarif output does not parse: %v", err)
	}
	if got := sarif.Runs[0].Results[0].Properties.Counterexample; got[hostile] != hostile {
		t.Errorf("sarif: counterexample changed: %v", got)
	}
}

// The text and document formats show values and counterexamples with the
// characters escaped too.
func TestPrintersEscapeValues(t *testing.T) {
	f := Finding{Rule: "enum-value-removed", Severity: SeverityError, Message: "m", File: "v2.json", Line: 1,
		Subject: "t v1 -> v2", Direction: "BACKWARD", OldPointer: "/enum/0", NewPointer: "/enum", OldValue: hostile,
		NewValue: []any{hostile}, Counterexample: []byte(`{"` + hostile + `":"` + hostile + `"}`)}
	for _, format := range append([]Format{FormatText}, GateFormats...) {
		var buf bytes.Buffer
		if err := Write(&buf, format, &Report{Command: "compat check", Findings: []Finding{f}, Checked: 1}); err != nil {
			t.Fatal(err)
		}
		if rawHostile(buf.String()) {
			t.Errorf("%s: a character is printed raw:\n%s", format, buf.String())
		}
	}
}

// A name that starts a printed line (validate's input file, a subject)
// cannot read as a workflow command.
func TestTextLineStartsAreNotCommands(t *testing.T) {
	fs := []Finding{
		{Rule: "data-invalid", Severity: SeverityError, Message: "m", File: "::error::x.jsonl", Line: 1, Subject: "::warning::x.jsonl:1"},
		{Rule: "data-invalid", Severity: SeverityError, Message: "m", File: "##[error]x.jsonl", Line: 2},
	}
	var buf bytes.Buffer
	if err := Write(&buf, FormatText, &Report{Command: "validate", Findings: fs, Checked: 2}); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(buf.String(), "\n") {
		if l := strings.TrimLeft(line, " \t"); strings.HasPrefix(l, "::") || strings.HasPrefix(l, "##") {
			t.Errorf("a line reads as a command: %q", line)
		}
	}
	if !strings.Contains(buf.String(), `\x3a:warning::x.jsonl:1`) {
		t.Errorf("subject not shown escaped:\n%s", buf.String())
	}
}

func TestSafeLines(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"cannot open x\n::error::y: no such file", `cannot open x` + "\n" + `\x3a:error::y: no such file`},
		{"a\n   ::warning::b", "a\n   \\x3a:warning::b"},
		{"a\n##[error]b", "a\n\\x23#[error]b"},
		{"lines\n\tkept\n  indented", "lines\n\tkept\n  indented"},
		{"esc \x1b[2J\u202e", `esc \x1b[2J\u202e`},
		{"a: b::c", "a: b::c"},
	} {
		if got := SafeLines(c.in); got != c.want {
			t.Errorf("SafeLines(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// SARIF's artifact URI names the real file: the escapes a message shows
// (a backslash sequence) would turn into path separators.
func TestSARIFURIKeepsFileName(t *testing.T) {
	for _, c := range []struct{ file, uri string }{
		{"schemas/a b#?%/v1.json", "schemas/a%20b%23%3F%25/v1.json"},
		{"schemas/a\nb\u202e/v1.json", "schemas/a%0Ab%E2%80%AE/v1.json"},
		{"schemas/é/v1.json", "schemas/é/v1.json"},
		{`schemas\x\v1.json`, "schemas/x/v1.json"},
	} {
		f := Finding{Rule: "schema-json", Severity: SeverityError, Message: "m", File: c.file, Line: 1}
		var buf bytes.Buffer
		if err := Write(&buf, FormatSARIF, &Report{Command: "lint", Findings: []Finding{f}, Checked: 1}); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Runs []struct {
				Results []struct {
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct{ URI string }
						}
					}
				}
			}
		}
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if got := doc.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI; got != c.uri {
			t.Errorf("file %q: uri %q, want %q", c.file, got, c.uri)
		}
	}
}
