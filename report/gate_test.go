package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/gate")

// gateReport is a compat check report with every kind of finding a gate
// prints: a failing break with a counterexample, a warning, an approved
// break, a catalog-level error and a stale approval.
func gateReport() *Report {
	return &Report{Command: "compat check", Unit: "version pair", Checked: 3, Findings: []Finding{
		{Rule: "type-removed", Severity: SeverityError, File: "schemas/com.example.gone", Type: "com.example.gone", Subject: "com.example.gone",
			Message: "type com.example.gone exists on the base (1 published version(s)) and was removed"},
		{Rule: "max-length-decreased", Severity: SeverityError, File: "schemas/com.example.order.placed/v2.json", Line: 12, Pointer: "/properties/orderId/maxLength",
			Subject: "com.example.order.placed v1 -> v2", Type: "com.example.order.placed", OldVersion: 1, NewVersion: 2, Direction: "BACKWARD",
			OldPointer: "/properties/orderId/maxLength", NewPointer: "/properties/orderId/maxLength", OldValue: 10, NewValue: 5,
			Counterexample: json.RawMessage(`{"orderId":"aaaaaa"}`), Fingerprint: "0123456789abcdef",
			Message: "Old schema allows a string of length 6, new schema's maxLength is 5 (counterexample: an old event the new schema rejects)"},
		{Rule: "pattern-changed", Severity: SeverityWarning, File: "schemas/com.example.order.placed/v2.json", Line: 14, Pointer: "/properties/sku/pattern",
			Subject: "com.example.order.placed v1 -> v2", Type: "com.example.order.placed", OldVersion: 1, NewVersion: 2, Direction: "FORWARD",
			OldPointer: "/properties/sku/pattern", NewPointer: "/properties/sku/pattern", Fingerprint: "fedcba9876543210",
			Message: "Could not decide whether every string the new schema allows matches the old schema's pattern, a|b, and \"quotes\" <tags> & 100%"},
		{Rule: "enum-value-removed", Severity: SeverityError, Ignored: "status EXPIRED never shipped", File: "schemas/com.example.order.paid/v2.json", Line: 20,
			Pointer: "/properties/status/enum", Subject: "com.example.order.paid v1 -> v2", Type: "com.example.order.paid", OldVersion: 1, NewVersion: 2,
			Direction: "BACKWARD", OldPointer: "/properties/status/enum/2", NewPointer: "/properties/status/enum", OldValue: "EXPIRED", Fingerprint: "1111222233334444",
			Counterexample: json.RawMessage(`{"status":"EXPIRED"}`),
			Message:        "Old schema allows \"EXPIRED\", new schema rejects it"},
		{Rule: "ignore-stale", Severity: SeverityWarning, File: "evtool.yaml", Line: 9, Pointer: "/compat/ignore/1",
			Message: "ignore entry (rule const-changed) matches no finding: a stale approval; remove it"},
	}}
}

func TestGateFormats(t *testing.T) {
	for _, format := range []Format{FormatGitHub, FormatJUnit, FormatMarkdown, FormatSARIF, FormatText, FormatJSON} {
		t.Run(string(format), func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, format, gateReport()); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "gate", "report."+string(format))
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./report -run TestGateFormats -update)", err)
			}
			if got := buf.String(); got != string(want) {
				t.Errorf("%s output differs from %s (run with -update after checking the change):\n%s", format, golden, got)
			}
		})
	}
}

// The document formats must be well formed whatever the messages contain.
func TestGateFormatsWellFormed(t *testing.T) {
	r := gateReport()
	var buf bytes.Buffer
	if err := Write(&buf, FormatSARIF, r); err != nil {
		t.Fatal(err)
	}
	var sarif struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID       string `json:"ruleId"`
				Level        string `json:"level"`
				Suppressions []any  `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &sarif); err != nil {
		t.Fatalf("sarif is not JSON: %v", err)
	}
	if sarif.Version != "2.1.0" || len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) != len(r.Findings) {
		t.Fatalf("sarif shape: %+v", sarif)
	}
	if len(sarif.Runs[0].Results[3].Suppressions) != 1 {
		t.Errorf("approved finding is not suppressed in SARIF")
	}
	buf.Reset()
	if err := Write(&buf, FormatJUnit, r); err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Failures []struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &suites); err != nil {
		t.Fatalf("junit is not XML: %v", err)
	}
	if suites.Failures != 2 {
		t.Errorf("junit failures = %d, want 2 (the approved break does not fail)", suites.Failures)
	}
	for _, s := range suites.Suites {
		for _, c := range s.Cases {
			if len(c.Failures) > 1 {
				t.Errorf("a test case with %d <failure> elements (viewers show one)", len(c.Failures))
			}
		}
	}
	buf.Reset()
	if err := Write(&buf, FormatGitHub, r); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if strings.HasPrefix(line, "::") && strings.Count(line, "::") != 2 {
			t.Errorf("annotation with an unescaped '::': %q", line)
		}
	}
	if !strings.Contains(buf.String(), "::error file=schemas/com.example.order.placed/v2.json,line=12,") {
		t.Errorf("no annotation on the schema file and line:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), "::notice ") {
		t.Errorf("approved break is not a notice:\n%s", buf.String())
	}
}

func TestGateEmpty(t *testing.T) {
	for _, format := range []Format{FormatGitHub, FormatJUnit, FormatMarkdown, FormatSARIF} {
		var buf bytes.Buffer
		if err := Write(&buf, format, &Report{Command: "compat check", Checked: 4, Unit: "version pair"}); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if buf.Len() == 0 {
			t.Errorf("%s: empty output for an empty report", format)
		}
	}
}

// Two errors of one subject: one <failure>, naming the first and counting
// the rest, with both in its text.
func TestJUnitOneFailurePerCase(t *testing.T) {
	r := &Report{Command: "compat check", Checked: 1, Unit: "version pair", Findings: []Finding{
		{Rule: "type-narrowed", Severity: SeverityError, Subject: "t v1 -> v2", Message: "first <break>"},
		{Rule: "enum-value-removed", Severity: SeverityError, Subject: "t v1 -> v2", Message: "second break"},
	}}
	var buf bytes.Buffer
	if err := Write(&buf, FormatJUnit, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Count(out, "<failure ") != 1 || !strings.Contains(out, `message="first &lt;break&gt; (and 1 more)"`) || !strings.Contains(out, "second break") {
		t.Fatalf("junit:\n%s", out)
	}
}

func TestMarkdownCells(t *testing.T) {
	for _, tt := range []struct{ in, cell, code string }{
		{"a|b", `a\|b`, "`a\\|b`"},
		{"<x> & `y`", "&lt;x&gt; & \\`y\\`", "`` <x> & `y` ``"},
		{"/properties/a_b*", `/properties/a\_b\*`, "`/properties/a_b*`"},
		{"![x](https://t.example/p.png) [y](https://e.example)", `!\[x\](https://t.example/p.png) \[y\](https://e.example)`, "`![x](https://t.example/p.png) [y](https://e.example)`"},
	} {
		if got := mdCell(tt.in); got != tt.cell {
			t.Errorf("mdCell(%q) = %q, want %q", tt.in, got, tt.cell)
		}
		if got := mdCode(tt.in); got != tt.code {
			t.Errorf("mdCode(%q) = %q, want %q", tt.in, got, tt.code)
		}
	}
}
