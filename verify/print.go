package verify

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/evtool/evtool/report"
)

// Format names a report format: evtool's one output-format enum.
type Format = report.Format

// The report formats.
const (
	FormatText  = report.FormatText
	FormatJSON  = report.FormatJSON
	FormatJUnit = report.FormatJUnit
)

// Write prints a report in a format.
func Write(w io.Writer, f Format, r *Report) error {
	switch f {
	case FormatJSON:
		// JSON keeps keys and ids exact; JSONSafe escapes the bidi and C1
		// controls JSON would carry raw.
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(report.JSONSafe(b), '\n'))
		return err
	case FormatJUnit:
		return writeJUnit(w, r)
	}
	return writeText(w, r)
}

// WritePlan lists the plan, one fault a line, marking the selected ones.
func WritePlan(w io.Writer, plan []Fault, selected func(int) bool) error {
	bw := bufio.NewWriter(w)
	if len(plan) == 0 {
		fmt.Fprintln(bw, "no faults")
	}
	for _, f := range plan {
		mark := "  "
		if selected(f.Index) {
			mark = "* "
		}
		fmt.Fprintln(bw, mark+line(f.String()))
	}
	return bw.Flush()
}

func writeText(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	verdict := "PASS"
	if !r.Pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(bw, "verify %s (seed %d): %s\n", line(r.Scenario), r.Seed, verdict)
	writeRun(bw, r.Clean, "clean run (no faults)")
	if r.Chaos != nil {
		writeRun(bw, r.Chaos, fmt.Sprintf("chaos run (%d faults planned, %d struck: %s)", len(r.Plan), len(r.Chaos.Applied), indexes(r.Chaos.Applied)))
		for _, i := range r.Chaos.Applied {
			if i < len(r.Plan) {
				fmt.Fprintf(bw, "    %s\n", line(r.Plan[i].String()))
			}
		}
	}
	if !r.Pass && r.Reproduce != "" {
		fmt.Fprintf(bw, "\nseed %d\nreproduce: %s\n", r.Seed, line(r.Reproduce))
	}
	if s := r.Shrink; s != nil {
		how := "1-minimal"
		if !s.Minimal {
			how = "budget ran out: not proven minimal"
		}
		fmt.Fprintf(bw, "smallest failing set: %d fault(s) after %d run(s) (%s)\n", len(s.Faults), s.Tests, how)
		for _, f := range s.Faults {
			fmt.Fprintf(bw, "  %s\n", line(f.String()))
		}
		if s.Result != nil {
			fmt.Fprintf(bw, "  fails with: %s\n", classCounts(&s.Result.Verdict))
		}
		fmt.Fprintf(bw, "reproduce the minimal failure: %s\n", line(s.Reproduce))
	}
	return bw.Flush()
}

func writeRun(bw *bufio.Writer, run *RunResult, title string) {
	if run == nil {
		return
	}
	v := &run.Verdict
	status := "pass"
	if run.Failed() {
		status = "FAIL"
	}
	fmt.Fprintf(bw, "%s: %s\n  %d facts, %d records, %d same-id duplicate(s) (allowed)\n  %s\n", title, status, v.Facts, v.Records, v.Duplicates, classCounts(v))
	for _, c := range v.Classes {
		for i, m := range c.Members {
			if i == 10 {
				fmt.Fprintf(bw, "    %s: ... %d more\n", c.Name, len(c.Members)-10)
				break
			}
			fmt.Fprintf(bw, "    %s: %s\n", c.Name, line(m.Message))
			for _, rec := range m.Records {
				fmt.Fprintf(bw, "      record %s id=%s key=%s\n", line(rec.At.String()), line(rec.ID), line(rec.Key))
			}
		}
	}
	for _, e := range run.Expect {
		fmt.Fprintf(bw, "    expect: %s\n", line(e))
	}
	for _, n := range run.Notes {
		fmt.Fprintf(bw, "  note: %s\n", line(n))
	}
	if run.Failed() && len(run.Stderr) > 0 {
		fmt.Fprintf(bw, "  producer stderr (last lines):\n")
		for _, l := range run.Stderr {
			fmt.Fprintf(bw, "    | %s\n", line(l))
		}
	}
}

// line escapes text from outside (a record's key or id, a producer's
// output, a scenario's name) for one line of the text report: Escape turns
// line breaks, terminal and bidi controls and invalid UTF-8 into inert
// escapes, and SafeLine keeps what is left from reading as a CI log command
// where it starts the line.
func line(s string) string {
	return report.SafeLine(report.Escape(s))
}

func classCounts(v *Verdict) string {
	parts := make([]string, len(v.Classes))
	for i, c := range v.Classes {
		parts[i] = fmt.Sprintf("%s %d", c.Name, c.Count)
	}
	return strings.Join(parts, ", ")
}

func indexes(s []int) string {
	if len(s) == 0 {
		return "none"
	}
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ",")
}

// writeJUnit writes one test case per verdict class of the chaos run (of
// the clean run when that one failed), and one for the expectations.
func writeJUnit(w io.Writer, r *Report) error {
	run := r.Chaos
	if run == nil || r.Clean.Failed() {
		run = r.Clean
	}
	scenario := report.Escape(r.Scenario)
	s := report.JUnitSuite{Name: "verify " + scenario}
	for _, c := range run.Verdict.Classes {
		jc := report.JUnitCase{Name: c.Name, Classname: "verify." + scenario}
		if c.Count > 0 {
			var b strings.Builder
			for _, m := range c.Members {
				b.WriteString(report.Escape(m.Message) + "\n")
				for _, rec := range m.Records {
					fmt.Fprintf(&b, "  record %s id=%s key=%s\n", report.Escape(rec.At.String()), report.Escape(rec.ID), report.Escape(rec.Key))
				}
			}
			fmt.Fprintf(&b, "seed %d; reproduce: %s\n", r.Seed, report.Escape(r.Reproduce))
			if r.Shrink != nil {
				fmt.Fprintf(&b, "reproduce the minimal failure: %s\n", report.Escape(r.Shrink.Reproduce))
			}
			jc.Failure = &report.JUnitProblem{Message: fmt.Sprintf("%d %s in run %s", c.Count, c.Name, report.Escape(run.Name)), Text: b.String()}
		}
		s.Cases = append(s.Cases, jc)
	}
	jc := report.JUnitCase{Name: "expect", Classname: "verify." + scenario}
	if len(run.Expect) > 0 {
		jc.Failure = &report.JUnitProblem{Message: "expectations failed", Text: escapeAll(run.Expect)}
	}
	s.Cases = append(s.Cases, jc)
	return report.WriteJUnit(w, &report.JUnit{Suites: []report.JUnitSuite{s}})
}

// escapeAll escapes each line of lines, one a line.
func escapeAll(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = report.Escape(l)
	}
	return strings.Join(out, "\n")
}
