package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestJUnitHostileText: text from outside holding bytes XML 1.0 cannot
// carry (NUL, ESC, U+FFFE, invalid UTF-8), markup and line breaks prints as
// well-formed XML whose every character is allowed, with the controls as
// visible escapes, wherever it sits (names, messages, types, texts).
func TestJUnitHostileText(t *testing.T) {
	hostile := "a\x00b\x1b[31mc\ufffed\uffff<e>&\"f\xff\u202e"
	for _, tc := range []struct {
		name string
		set  func(j *JUnit)
	}{
		{"report name", func(j *JUnit) { j.Name = hostile }},
		{"suite name", func(j *JUnit) { j.Suites[0].Name = hostile }},
		{"case name", func(j *JUnit) { j.Suites[0].Cases[0].Name = hostile }},
		{"classname", func(j *JUnit) { j.Suites[0].Cases[0].Classname = hostile }},
		{"failure message", func(j *JUnit) { j.Suites[0].Cases[0].Failure = &JUnitProblem{Message: hostile} }},
		{"failure type", func(j *JUnit) { j.Suites[0].Cases[0].Failure = &JUnitProblem{Type: hostile} }},
		{"failure text", func(j *JUnit) {
			j.Suites[0].Cases[0].Failure = &JUnitProblem{Text: hostile + "\n::error::x\n" + hostile}
		}},
		{"error text", func(j *JUnit) { j.Suites[0].Cases[0].Error = &JUnitProblem{Text: hostile} }},
		{"skipped message", func(j *JUnit) { j.Suites[0].Cases[0].Skipped = &JUnitProblem{Message: hostile} }},
		{"system-out", func(j *JUnit) { j.Suites[0].Cases[0].SystemOut = hostile }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := &JUnit{Suites: []JUnitSuite{{Name: "s", Cases: []JUnitCase{{Name: "c", Classname: "k"}}}}, Attrs: JUnitTotals | JUnitTimes}
			tc.set(j)
			var buf bytes.Buffer
			if err := WriteJUnit(&buf, j); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if !utf8.ValidString(out) {
				t.Fatalf("invalid UTF-8:\n%q", out)
			}
			for _, r := range out {
				if r != '\n' && !xmlChar(r) || escaped(r) && r != '\n' || r == utf8.RuneError {
					t.Fatalf("character %U reached the output:\n%q", r, out)
				}
			}
			if !strings.Contains(out, `a\x00b\x1b[31mc\ufffed\uffff`) || !strings.Contains(out, `\xff\u202e`) {
				t.Errorf("the controls are not shown as escapes:\n%s", out)
			}
			if err := xml.Unmarshal(buf.Bytes(), new(struct{})); err != nil {
				t.Errorf("not XML: %v\n%s", err, out)
			}
		})
	}
}

// xmlChar reports whether XML 1.0 allows r (its production Char).
func xmlChar(r rune) bool {
	return r == 0x9 || r == 0xa || r == 0xd || r >= 0x20 && r <= 0xd7ff || r >= 0xe000 && r <= 0xfffd || r >= 0x10000 && r <= 0x10ffff
}

// TestJUnitCounts: the writer counts cases, failures, errors and skips per
// suite and over the report, sums the times, and prints the optional
// attributes a report asks for, zeros included.
func TestJUnitCounts(t *testing.T) {
	j := &JUnit{Name: "n", Suites: []JUnitSuite{
		{Name: "a", Cases: []JUnitCase{{Name: "pass", Time: 1500e6}, {Name: "fail", Failure: &JUnitProblem{Message: "m"}, Time: 250e6}}},
		{Name: "b", Cases: []JUnitCase{{Name: "err", Error: &JUnitProblem{Message: "e"}}, {Name: "skip", Skipped: &JUnitProblem{Message: "s"}}}},
	}}
	for _, tc := range []struct {
		attrs JUnitAttrs
		want  []string
		not   []string
	}{
		{0, []string{`<testsuites name="n">`, `<testsuite name="a" tests="2" failures="1">`, `<testsuite name="b" tests="2" failures="0" skipped="1">`, `<testcase name="pass" classname="">`},
			[]string{"errors=", "time="}},
		{JUnitTotals | JUnitTotalErrors | JUnitSuiteErrors | JUnitTimes, []string{`<testsuites name="n" tests="4" failures="1" errors="1" skipped="1" time="1.750">`,
			`<testsuite name="a" tests="2" failures="1" errors="0" time="1.750">`, `<testsuite name="b" tests="2" failures="0" errors="1" skipped="1" time="0.000">`,
			`<testcase name="pass" classname="" time="1.500">`, `<error message="e"></error>`, `<skipped message="s"></skipped>`}, nil},
	} {
		var buf bytes.Buffer
		if err := WriteJUnit(&buf, &JUnit{Name: j.Name, Suites: j.Suites, Attrs: tc.attrs}); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("attrs %b: no %s in\n%s", tc.attrs, w, buf.String())
			}
		}
		for _, w := range tc.not {
			if strings.Contains(buf.String(), w) {
				t.Errorf("attrs %b: %s in\n%s", tc.attrs, w, buf.String())
			}
		}
	}
}
