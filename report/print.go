package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/evtool/evtool/internal/jsonvalue"
)

// Format names an output format.
type Format string

const (
	FormatText     Format = "text"
	FormatJSON     Format = "json"
	FormatGitHub   Format = "github"
	FormatJUnit    Format = "junit"
	FormatMarkdown Format = "markdown"
	FormatSARIF    Format = "sarif"
)

// BasicFormats are offered by every reporting command; GateFormats by the
// gate commands (compat check/diff); RunFormats by the commands that run a
// system and judge it (replay, verify).
var (
	BasicFormats = []Format{FormatText, FormatJSON}
	GateFormats  = []Format{FormatText, FormatJSON, FormatGitHub, FormatJUnit, FormatMarkdown, FormatSARIF}
	RunFormats   = []Format{FormatText, FormatJSON, FormatJUnit}
)

// ParseFormat checks name against the formats a command offers.
func ParseFormat(name string, offered []Format) (Format, error) {
	names := make([]string, len(offered))
	for i, f := range offered {
		if string(f) == name {
			return f, nil
		}
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q: use one of %s", name, strings.Join(names, ", "))
}

// Printer renders findings as they arrive. Streaming formats (text, json,
// github) write each finding at once, so a command that checks a million
// events holds none of them in memory; document formats buffer.
type Printer interface {
	Add(f Finding) error
	// Close writes the summary; checked counts what was examined.
	Close(checked int, unit string) error
}

// NewPrinter returns the printer for format writing to w.
func NewPrinter(w io.Writer, format Format, command string) (Printer, error) {
	switch format {
	case FormatText:
		return &textPrinter{w: bufio.NewWriter(w)}, nil
	case FormatJSON:
		return &jsonPrinter{w: bufio.NewWriter(w), command: command}, nil
	case FormatGitHub, FormatJUnit, FormatMarkdown, FormatSARIF:
		return &bufferedPrinter{w: w, format: format, report: Report{Command: command}}, nil
	}
	return nil, fmt.Errorf("unknown format %q", format)
}

// Write prints a whole report in format.
func Write(w io.Writer, format Format, r *Report) error {
	p, err := NewPrinter(w, format, r.Command)
	if err != nil {
		return err
	}
	if bp, ok := p.(*bufferedPrinter); ok {
		bp.report.Rules, bp.report.ToolVersion = r.Rules, r.ToolVersion
	}
	for _, f := range r.Findings {
		if err := p.Add(f); err != nil {
			return err
		}
	}
	return p.Close(r.Checked, r.Unit)
}

// Flush writes out what a streaming printer has buffered, for a command
// that prints findings as they come (validate --until follow); document
// formats have nothing to write before Close.
func Flush(p Printer) error {
	switch p := p.(type) {
	case *textPrinter:
		return p.w.Flush()
	case *jsonPrinter:
		return p.w.Flush()
	}
	return nil
}

type textPrinter struct {
	w                        *bufio.Writer
	subject                  string
	errors, warnings, ignore int
}

func (p *textPrinter) Add(f Finding) error {
	f = escapeFinding(f)
	switch {
	case f.Failing():
		p.errors++
	case f.Ignored != "":
		p.ignore++
	case f.Severity == SeverityWarning:
		p.warnings++
	}
	if f.Subject != "" && f.Subject != p.subject {
		p.subject = f.Subject
		fmt.Fprintf(p.w, "%s\n", SafeLine(f.Subject))
	}
	indent := ""
	if f.Subject != "" {
		indent = "  "
	}
	var b strings.Builder
	b.WriteString(indent)
	if loc := f.Location(); loc != "" {
		b.WriteString(loc)
		b.WriteString(": ")
	}
	b.WriteString(string(f.Severity))
	if f.Ignored != "" {
		b.WriteString(" (approved: " + oneLine(f.Ignored) + ")")
	}
	b.WriteString(" [" + f.Rule + "]")
	if f.Pointer != "" {
		b.WriteString(" at " + f.Pointer)
	}
	b.WriteString(": " + oneLine(f.Message))
	fmt.Fprintln(p.w, SafeLine(b.String()))
	if words := DirectionWords(f); words != "" {
		fmt.Fprintf(p.w, "%s    %s: %s\n", indent, SafeLine(f.Direction), words)
	}
	if f.OldPointer != "" || f.NewPointer != "" {
		fmt.Fprintf(p.w, "%s    old %s%s\n", indent, orRoot(f.OldPointer), valueSuffix(f.OldValue))
		fmt.Fprintf(p.w, "%s    new %s%s\n", indent, orRoot(f.NewPointer), valueSuffix(f.NewValue))
	}
	if cx := counterexample(f); cx != "" {
		fmt.Fprintf(p.w, "%s    counterexample: %s\n", indent, cx)
	}
	return nil
}

func (p *textPrinter) Close(checked int, unit string) error {
	if unit == "" {
		unit = "item"
	}
	fmt.Fprintf(p.w, "%d %s checked: %d error%s, %d warning%s", checked, plural(unit, checked),
		p.errors, plural("", p.errors), p.warnings, plural("", p.warnings))
	if p.ignore > 0 {
		fmt.Fprintf(p.w, ", %d approved", p.ignore)
	}
	fmt.Fprintln(p.w)
	return p.w.Flush()
}

type jsonPrinter struct {
	w       *bufio.Writer
	command string
	n       int
	errors  int
	warns   int
}

func (p *jsonPrinter) Add(f Finding) error {
	// JSON keeps names and pointers exact (its string escapes already keep
	// line breaks off the output); JSONSafe escapes what JSON carries raw.
	f.Message = shortenDigits(f.Message)
	if p.n == 0 {
		fmt.Fprintf(p.w, "{\"command\":%s,\"findings\":[\n", mustJSON(p.command))
	} else {
		p.w.WriteString(",\n")
	}
	p.n++
	if f.Failing() {
		p.errors++
	} else if f.Severity == SeverityWarning {
		p.warns++
	}
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	_, err = p.w.Write(JSONSafe(b))
	return err
}

func (p *jsonPrinter) Close(checked int, unit string) error {
	if p.n == 0 {
		fmt.Fprintf(p.w, "{\"command\":%s,\"findings\":[", mustJSON(p.command))
	} else {
		p.w.WriteString("\n")
	}
	fmt.Fprintf(p.w, "],\"checked\":%d,\"unit\":%s,\"errors\":%d,\"warnings\":%d,\"ok\":%t}\n",
		checked, mustJSON(unit), p.errors, p.warns, p.errors == 0)
	return p.w.Flush()
}

// bufferedPrinter collects findings for the document formats, which need the
// whole set before they can write (SARIF runs, JUnit suites).
type bufferedPrinter struct {
	w      io.Writer
	format Format
	report Report
}

func (p *bufferedPrinter) Add(f Finding) error {
	// Each document format escapes what it shows (SARIF keeps the file's
	// real name in its URI).
	p.report.Findings = append(p.report.Findings, f)
	return nil
}

func (p *bufferedPrinter) Close(checked int, unit string) error {
	p.report.Checked, p.report.Unit = checked, unit
	switch p.format {
	case FormatGitHub:
		return writeGitHub(p.w, &p.report)
	case FormatJUnit:
		return writeJUnit(p.w, &p.report)
	case FormatMarkdown:
		return writeMarkdown(p.w, &p.report)
	case FormatSARIF:
		return writeSARIF(p.w, &p.report)
	}
	return fmt.Errorf("unknown format %q", p.format)
}

func mustJSON(v any) string {
	b, err := jsonvalue.Marshal(v, "")
	if err != nil {
		return `""`
	}
	return string(b)
}

// valueSuffix is ": value" for a finding's old or new value, or nothing
// when the finding carries none (a schema, or a keyword that is absent:
// the pointer then says where to look).
func valueSuffix(v any) string {
	if v == nil {
		return ""
	}
	b, err := jsonvalue.Marshal(v, "")
	if err != nil {
		return ": " + Escape(fmt.Sprint(v))
	}
	return ": " + string(JSONSafe(b))
}

// DirectionWords says whom a compatibility finding's direction is about,
// for a reader who does not know what FORWARD means: a consumer on the old
// version reading events written with the new one (FORWARD), or the other
// way round (BACKWARD). "" for a finding without a direction.
func DirectionWords(f Finding) string {
	reader, writer := "the new schema", "events written with the old one"
	if strings.EqualFold(f.Direction, "FORWARD") {
		reader, writer = "the old schema", "events written with the new one"
	}
	switch {
	case f.OldVersion > 0 && f.OldVersion == f.NewVersion:
		// A published version edited in place.
		reader, writer = fmt.Sprintf("v%d as edited", f.NewVersion), fmt.Sprintf("events written with v%d as published", f.OldVersion)
		if strings.EqualFold(f.Direction, "FORWARD") {
			reader, writer = fmt.Sprintf("v%d as published", f.OldVersion), fmt.Sprintf("events written with v%d as edited", f.NewVersion)
		}
	case f.OldVersion > 0 && f.NewVersion > 0:
		reader, writer = fmt.Sprintf("v%d", f.NewVersion), fmt.Sprintf("v%d events", f.OldVersion)
		if strings.EqualFold(f.Direction, "FORWARD") {
			reader, writer = fmt.Sprintf("v%d", f.OldVersion), fmt.Sprintf("v%d events", f.NewVersion)
		}
	}
	if !strings.EqualFold(f.Direction, "FORWARD") && !strings.EqualFold(f.Direction, "BACKWARD") {
		return ""
	}
	return "a consumer on " + reader + " reading " + writer
}

// orRoot shows the root pointer as "/", as findings' Pointer does.
func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// oneLine keeps a message on one output line whatever it quotes.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

func plural(word string, n int) string {
	if n == 1 {
		return word
	}
	if word == "" {
		return "s"
	}
	return word + "s"
}
