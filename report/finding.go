// Package report holds findings as data and prints them, one printer per
// output format. Every command that reports (lint, validate, compat, replay)
// builds a Report and hands it to Write; no command formats output itself.
package report

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Severity ranks a finding. Errors make a command exit 1; warnings and infos
// are shown but never fail a gate on their own.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

func (s Severity) rank() int {
	switch s {
	case SeverityError:
		return 0
	case SeverityWarning:
		return 1
	default:
		return 2
	}
}

// Finding is one observation about an input. Location fields are optional
// and printers show whichever are set. The compatibility fields are empty for
// non-compat findings.
type Finding struct {
	// Rule is a stable kebab-case identifier, e.g. "schema-compile" or
	// "required-property-added".
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`

	// Where: a file (display path), its line and column, and a JSON pointer
	// into the file's document or into the event.
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Pointer string `json:"pointer,omitempty"`
	// Record is where a finding about a Kafka record points: its topic,
	// partition and offset (validate --topic, verify).
	Record *RecordLocation `json:"record,omitempty"`

	// Subject groups findings in text output: an event type, a pair of
	// versions, an event's position in its input ("events.jsonl:12").
	Subject string `json:"subject,omitempty"`

	// Compatibility findings.
	Type           string          `json:"type,omitempty"`
	OldVersion     int             `json:"oldVersion,omitempty"`
	NewVersion     int             `json:"newVersion,omitempty"`
	Direction      string          `json:"direction,omitempty"`
	OldPointer     string          `json:"oldPointer,omitempty"`
	NewPointer     string          `json:"newPointer,omitempty"`
	OldValue       any             `json:"oldValue,omitempty"`
	NewValue       any             `json:"newValue,omitempty"`
	Counterexample json.RawMessage `json:"counterexample,omitempty"`
	Fingerprint    string          `json:"fingerprint,omitempty"`
	// Ignored holds the reason of the ignore entry that approved this
	// finding; ignored findings are reported but do not fail.
	Ignored string `json:"ignored,omitempty"`
}

// RecordLocation names one Kafka record.
type RecordLocation struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
}

// String renders "topic/partition@offset".
func (r RecordLocation) String() string {
	return fmt.Sprintf("%s/%d@%d", r.Topic, r.Partition, r.Offset)
}

// Location renders "file:line:col" with whatever parts are known, or
// "topic/partition@offset" for a finding about a Kafka record.
func (f Finding) Location() string {
	switch {
	case f.File == "" && f.Record != nil:
		return f.Record.String()
	case f.File == "":
		return ""
	case f.Line > 0 && f.Column > 0:
		return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
	case f.Line > 0:
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	default:
		return f.File
	}
}

// Failing reports whether the finding makes the command exit 1.
func (f Finding) Failing() bool {
	return f.Severity == SeverityError && f.Ignored == ""
}

// Report is the data a printer renders.
type Report struct {
	// Command names what produced the report, e.g. "lint" or "compat check".
	Command  string    `json:"command"`
	Findings []Finding `json:"findings"`
	// Checked counts what was examined (events, schemas, pairs); Summary
	// prints it so an empty report still says what it looked at.
	Checked int    `json:"checked"`
	Unit    string `json:"unit,omitempty"`
	// Rules documents the rule ids the findings may name beyond
	// CheckRules (the compat engine's); ToolVersion is evtool's version.
	// Document formats (SARIF) show them.
	Rules       []RuleDoc `json:"-"`
	ToolVersion string    `json:"-"`
}

// Failed reports whether any finding fails the command.
func (r *Report) Failed() bool {
	for _, f := range r.Findings {
		if f.Failing() {
			return true
		}
	}
	return false
}

// Counts returns the number of errors, warnings and infos (ignored findings
// are not errors).
func (r *Report) Counts() (errors, warnings, infos int) {
	for _, f := range r.Findings {
		switch {
		case f.Failing():
			errors++
		case f.Severity == SeverityWarning:
			warnings++
		case f.Severity == SeverityError:
			infos++ // approved (ignored) break
		default:
			infos++
		}
	}
	return
}

// Sort orders findings by file, line, subject and rule, keeping the relative
// order of equal ones (input order for events).
func (r *Report) Sort() {
	sort.SliceStable(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i], r.Findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Subject != b.Subject {
			return a.Subject < b.Subject
		}
		return a.Severity.rank() < b.Severity.rank()
	})
}

// Rank orders severities for sorting: errors first, then warnings, then
// the rest.
func (s Severity) Rank() int { return s.rank() }
