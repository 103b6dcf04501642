package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// JUnit is a JUnit XML report: evtool's one JUnit writer prints it for
// every command (the gate, replay, verify); each command only maps its
// results to it. The writer counts tests, failures, errors and skips
// itself and sums the times.
type JUnit struct {
	// Name is the <testsuites> name; empty leaves the attribute out.
	Name   string
	Suites []JUnitSuite
	// Attrs are the optional attributes the document carries: each command
	// keeps the ones its users' CI has always read.
	Attrs JUnitAttrs
}

// JUnitAttrs selects optional attributes of a JUnit report.
type JUnitAttrs uint8

const (
	// JUnitTotals puts tests and failures on <testsuites>.
	JUnitTotals JUnitAttrs = 1 << iota
	// JUnitTotalErrors puts errors on <testsuites>.
	JUnitTotalErrors
	// JUnitSuiteErrors puts errors on each <testsuite>.
	JUnitSuiteErrors
	// JUnitTimes puts time (seconds) on every element, zero included.
	JUnitTimes
)

// JUnitSuite is a <testsuite>.
type JUnitSuite struct {
	Name  string
	Cases []JUnitCase
}

// JUnitCase is a <testcase>: it passes, fails, errs or is skipped.
type JUnitCase struct {
	Name      string
	Classname string
	Time      time.Duration
	Failure   *JUnitProblem
	Error     *JUnitProblem
	// Skipped uses only the message.
	Skipped *JUnitProblem
	// SystemOut is text the case printed; empty leaves it out.
	SystemOut string
}

// JUnitProblem is a <failure>, <error> or <skipped>: a one-line message,
// a type (a rule id; empty leaves it out) and text of several lines.
type JUnitProblem struct {
	Message string
	Type    string
	Text    string
}

// The XML shapes: attributes that are pointers are left out when nil,
// which lets a zero count print where a command shows it.
type (
	junitSuitesXML struct {
		XMLName  xml.Name        `xml:"testsuites"`
		Name     string          `xml:"name,attr,omitempty"`
		Tests    *int            `xml:"tests,attr"`
		Failures *int            `xml:"failures,attr"`
		Errors   *int            `xml:"errors,attr"`
		Skipped  int             `xml:"skipped,attr,omitempty"`
		Time     *string         `xml:"time,attr"`
		Suites   []junitSuiteXML `xml:"testsuite"`
	}
	junitSuiteXML struct {
		Name     string         `xml:"name,attr"`
		Tests    int            `xml:"tests,attr"`
		Failures int            `xml:"failures,attr"`
		Errors   *int           `xml:"errors,attr"`
		Skipped  int            `xml:"skipped,attr,omitempty"`
		Time     *string        `xml:"time,attr"`
		Cases    []junitCaseXML `xml:"testcase"`
	}
	junitCaseXML struct {
		Name      string           `xml:"name,attr"`
		Classname string           `xml:"classname,attr"`
		Time      *string          `xml:"time,attr"`
		Failure   *junitProblemXML `xml:"failure,omitempty"`
		Error     *junitProblemXML `xml:"error,omitempty"`
		Skipped   *junitSkippedXML `xml:"skipped,omitempty"`
		SystemOut string           `xml:"system-out,omitempty"`
	}
	junitProblemXML struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
	junitSkippedXML struct {
		Message string `xml:"message,attr"`
	}
)

// WriteJUnit prints j as JUnit XML. Every string is text from outside (a
// rule message, an event id, a scenario's name): encoding/xml escapes the
// markup, and junitText makes the characters XML 1.0 cannot hold, and the
// controls a terminal would act on, visible escapes instead.
func WriteJUnit(w io.Writer, j *JUnit) error {
	doc := junitSuitesXML{Name: junitText(j.Name)}
	var tests, failures, errors, skipped int
	var total time.Duration
	for _, s := range j.Suites {
		xs := junitSuiteXML{Name: junitText(s.Name), Tests: len(s.Cases)}
		var errs int
		var suiteTime time.Duration
		for _, c := range s.Cases {
			xc := junitCaseXML{Name: junitText(c.Name), Classname: junitText(c.Classname), SystemOut: junitLines(c.SystemOut)}
			if j.Attrs&JUnitTimes != 0 {
				xc.Time = seconds(c.Time)
			}
			suiteTime += c.Time
			if p := c.Failure; p != nil {
				xc.Failure = junitProblem(p)
				xs.Failures++
			}
			if p := c.Error; p != nil {
				xc.Error = junitProblem(p)
				errs++
			}
			if p := c.Skipped; p != nil {
				xc.Skipped = &junitSkippedXML{Message: junitText(p.Message)}
				xs.Skipped++
			}
			xs.Cases = append(xs.Cases, xc)
		}
		if j.Attrs&JUnitSuiteErrors != 0 {
			xs.Errors = &errs
		}
		if j.Attrs&JUnitTimes != 0 {
			xs.Time = seconds(suiteTime)
		}
		tests += xs.Tests
		failures += xs.Failures
		errors += errs
		skipped += xs.Skipped
		total += suiteTime
		doc.Suites = append(doc.Suites, xs)
	}
	if j.Attrs&JUnitTotals != 0 {
		doc.Tests, doc.Failures, doc.Skipped = &tests, &failures, skipped
	}
	if j.Attrs&JUnitTotalErrors != 0 {
		doc.Errors = &errors
	}
	if j.Attrs&JUnitTimes != 0 {
		doc.Time = seconds(total)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func junitProblem(p *JUnitProblem) *junitProblemXML {
	return &junitProblemXML{Message: junitText(p.Message), Type: junitText(p.Type), Text: junitLines(p.Text)}
}

func seconds(d time.Duration) *string {
	s := fmt.Sprintf("%.3f", d.Seconds())
	return &s
}

// junitText escapes one line of text for an attribute: Escape's escapes
// for controls and invalid UTF-8, and \u escapes for the noncharacters
// U+FFFE and U+FFFF, which XML 1.0 does not allow either (encoding/xml
// would print U+FFFD for them, losing what the input held).
func junitText(s string) string {
	s = Escape(s)
	if !strings.ContainsRune(s, '\ufffe') && !strings.ContainsRune(s, '\uffff') {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r == '\ufffe' || r == '\uffff' {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// junitLines escapes text of several lines as junitText does, keeping its
// line breaks and tabs.
func junitLines(s string) string { return mapLines(s, junitText, nil) }
