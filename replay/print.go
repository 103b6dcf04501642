package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/report"
)

// Format is a report format: evtool's one output-format enum.
type Format = report.Format

// Report formats.
const (
	FormatText  = report.FormatText
	FormatJSON  = report.FormatJSON
	FormatJUnit = report.FormatJUnit
)

// FormatForFile picks a report format from a file name: .json, .xml
// (JUnit), anything else text.
func FormatForFile(name string) Format {
	switch {
	case strings.HasSuffix(name, ".json"):
		return FormatJSON
	case strings.HasSuffix(name, ".xml"):
		return FormatJUnit
	}
	return FormatText
}

// Write prints a report in a format.
func Write(w io.Writer, f Format, r *Report) error {
	switch f {
	case FormatText:
		return WriteText(w, r)
	case FormatJSON:
		return WriteJSON(w, r)
	case FormatJUnit:
		return WriteJUnit(w, r)
	}
	return fmt.Errorf("unknown format %q", f)
}

// maxTextDifferences and maxTextDiffLines bound the differences and the
// go-cmp diff in text.
const (
	maxTextDifferences = 20
	maxTextDiffLines   = 80
)

// WriteText prints the report for people.
func WriteText(w io.Writer, r *Report) error {
	var b bytes.Buffer
	verdict := strings.ToUpper(string(r.Verdict))
	fmt.Fprintf(&b, "replay %s: %s\n", r.Scenario, verdict)
	if inv := r.Events; inv != nil {
		fmt.Fprintf(&b, "  events    %d from %s (%s)\n", inv.Events, inv.Source, typeCounts(inv.Types))
	}
	broker := "brokers " + r.Brokers
	if r.Brokers == "embedded" {
		broker = "embedded broker"
	}
	topic := ""
	if r.Events != nil {
		topic = ", topic " + r.Events.Topic
	}
	compression := ""
	if r.Compression != "" && r.Compression != "none" {
		compression = ", " + r.Compression + " compression"
	}
	fmt.Fprintf(&b, "  kafka     %s%s, %d partitions, %s mode%s\n", broker, topic, r.Partitions, r.Mode, compression)
	faults := ""
	if r.Faults != "all" {
		faults = ", faults " + r.Faults
	}
	fmt.Fprintf(&b, "  chaos     seed %d%s: %s\n", r.Seed, faults, r.Chaos)
	var shrinkRuns, shrinkFailed int
	var shrinkTime time.Duration
	for _, run := range r.Runs {
		if contractNarrowing(run.Name) {
			continue // summarized in the contract section
		}
		if run.Name == "shrink" {
			shrinkRuns++
			shrinkTime += time.Duration(run.TotalTime)
			if run.Verdict == Fail {
				shrinkFailed++
			}
			continue
		}
		label := run.Name
		if run.ID != "" && run.ID != run.Name {
			label = run.ID
		}
		fmt.Fprintf(&b, "  %-10s %s\n", label, runLine(run))
		for _, k := range run.Kills {
			fmt.Fprintf(&b, "             %s\n", k)
		}
		for _, d := range run.Downstream {
			fmt.Fprintf(&b, "             %s\n", d.Summary)
		}
		if run.Instances > 1 || len(run.Rebalances) > 0 {
			fmt.Fprintf(&b, "             group: %d instance(s), protocol %s\n", run.Instances, run.Protocol)
			if !r.Embedded() {
				fmt.Fprintf(&b, "             group %s\n", polledGroupNote)
			}
			for _, l := range run.timeline() {
				fmt.Fprintf(&b, "             %s\n", l)
			}
		}
	}
	if shrinkRuns > 0 {
		fmt.Fprintf(&b, "  %-10s %d runs, %d failed; total %s\n", "shrinking", shrinkRuns, shrinkFailed, roundDuration(shrinkTime))
	}
	fmt.Fprintf(&b, "%s\n", r.Summary)

	for _, run := range r.Runs {
		if run.Name == "shrink" || run.Name == "confirm" || contractNarrowing(run.Name) {
			continue // summarized in their lines and the shrink and contract sections
		}
		if f := run.Failure; f != nil && f.Reason != "expect" {
			label := run.Name
			if run.ID != "" {
				label = run.ID
			}
			fmt.Fprintf(&b, "\n%s run: %s\n", label, f.Message)
			if len(f.Lag) > 0 {
				b.WriteString("  lag per partition:\n")
				for _, l := range f.Lag {
					committed := "nothing committed"
					if l.Committed >= 0 {
						committed = fmt.Sprintf("committed %d", l.Committed)
					}
					fmt.Fprintf(&b, "    partition %d: end %d, %s, lag %d\n", l.Partition, l.End, committed, l.Lag)
				}
			}
			if len(f.Output) > 0 {
				fmt.Fprintf(&b, "  consumer output (last %d lines):\n", len(f.Output))
				for _, l := range f.Output {
					fmt.Fprintf(&b, "    | %s\n", l)
				}
			}
		}
		for _, e := range run.Expect {
			if !e.OK {
				fmt.Fprintf(&b, "  expect (%s:%d) failed in the %s run: %s\n", r.Scenario, e.Line, run.Name, e)
			}
		}
		writeFindings(&b, run)
	}
	if c := r.Nondeterministic; c != nil {
		b.WriteString("\ndifferences between the two clean runs:\n")
		writeComparison(&b, c, "(-baseline +baseline-2)")
	}
	if c := r.Comparison; c != nil && !c.Equal {
		b.WriteString("\ndifferences:\n")
		writeComparison(&b, c, "(-baseline +chaos)")
	}
	if len(r.NearFaults) > 0 && (r.Shrink == nil || len(r.Shrink.Faults) == 0) {
		what := "faults near the differences"
		if r.Comparison == nil || r.Comparison.Equal {
			what = "faults applied in the chaos run (first ones)"
		}
		if len(r.NearKeys) > 0 {
			what += " (keys " + strings.Join(limit(r.NearKeys, 10), ", ") + ")"
		}
		fmt.Fprintf(&b, "\n%s:\n", what)
		for _, f := range r.NearFaults {
			fmt.Fprintf(&b, "  %s\n", f.Describe(r.Embedded()))
		}
	} else if r.Verdict == Fail && r.Comparison != nil && !r.Comparison.Equal && r.Shrink == nil {
		b.WriteString("\nno applied fault concerns the keys near the differences\n")
	}
	if sr := r.Shrink; sr != nil {
		writeShrink(&b, sr, r.Embedded())
	}
	writeContract(&b, r.Contract)
	if r.Verdict == Fail && r.Reproduce != "" {
		fmt.Fprintf(&b, "\nseed %d\nreproduce: %s\n", r.Seed, r.Reproduce)
		if r.ReproduceNear != "" && r.Shrink == nil {
			fmt.Fprintf(&b, "only the faults near the differences: %s\n", r.ReproduceNear)
		}
		if r.Shrink != nil && len(r.Shrink.Faults) > 0 {
			fmt.Fprintf(&b, "reproduce the minimal failure: %s\n", r.Shrink.Reproduce)
		}
	}
	if r.Error != "" && r.Verdict == Error && strings.Contains(r.Error, "\n") {
		fmt.Fprintf(&b, "\nerror: %s\n", r.Error) // the summary has its first line
	}
	if r.Workdir != "" {
		fmt.Fprintf(&b, "work directory and consumer logs: %s\n", r.Workdir)
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wn)
	}
	// The report quotes the scenario, the events and the consumer's output:
	// nothing of theirs may reach a terminal or a CI log raw.
	_, err := io.WriteString(w, report.SafeLines(b.String()))
	return err
}

// maxTextFindings bounds the downstream findings text lists per run.
const maxTextFindings = 20

// writeFindings lists a run's downstream findings with their timelines.
func writeFindings(b *bytes.Buffer, run *RunResult) {
	n := 0
	for _, d := range run.Downstream {
		n += len(d.Findings)
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(b, "  downstream findings in the %s run:\n", run.Name)
	shown := 0
	for _, d := range run.Downstream {
		for _, f := range d.Findings {
			if shown == maxTextFindings {
				fmt.Fprintf(b, "    ... (%d more)\n", n-shown)
				return
			}
			shown++
			fmt.Fprintf(b, "    %s\n", f)
			for _, st := range f.Timeline {
				fmt.Fprintf(b, "      %s\n", st)
			}
			if f.More > 0 {
				fmt.Fprintf(b, "      ... (%d more requests)\n", f.More)
			}
		}
	}
}

func runLine(run *RunResult) string {
	var parts []string
	copies := int64(run.Applied[chaos.Duplicate])
	switch {
	case run.Applied != nil:
		s := fmt.Sprintf("%d events", run.Events)
		if copies > 0 {
			s += fmt.Sprintf(" + %d copies", copies)
		}
		if m := run.Applied[chaos.Poison]; m > 0 {
			s += fmt.Sprintf(" + %d poison", m)
		}
		if m := run.Applied[chaos.Reorder]; m > 0 {
			s += fmt.Sprintf(", %d moved", m)
		}
		if m := run.Applied[chaos.Skew]; m > 0 {
			s += fmt.Sprintf(", %d skewed", m)
		}
		if m := run.Applied[chaos.Crash]; m > 0 {
			s += fmt.Sprintf(", %d crash(es)", m)
		}
		if run.Selected != "" && run.Selected != "all" {
			s += " (faults " + run.Selected + ")"
		}
		parts = append(parts, s)
	default:
		parts = append(parts, fmt.Sprintf("%d events", run.Events))
	}
	parts = append(parts, "produced in "+run.ProduceTime.String())
	switch {
	case run.Failure != nil:
		parts = append(parts, "FAILED: "+run.Failure.Reason)
	case run.Settled:
		parts = append(parts, "settled in "+run.SettleTime.String())
	}
	if run.Failure == nil && run.Verdict == Fail && run.Differences > 0 {
		parts = append(parts, fmt.Sprintf("DIFFERS in %d place(s)", run.Differences))
	}
	parts = append(parts, "total "+run.TotalTime.String())
	return strings.Join(parts, "; ")
}

// writeComparison prints the differences and the go-cmp diff.
func writeComparison(b *bytes.Buffer, c *Comparison, legend string) {
	for i, d := range c.Differences {
		if i == maxTextDifferences {
			break
		}
		fmt.Fprintf(b, "  %s\n", d)
	}
	if n := len(c.Differences) + c.More; n > maxTextDifferences {
		fmt.Fprintf(b, "  ... (%d in all)\n", n)
	}
	diff := strings.TrimRight(c.Diff, "\n")
	if lines := strings.Split(diff, "\n"); len(lines) > maxTextDiffLines {
		diff = strings.Join(lines[:maxTextDiffLines], "\n") + fmt.Sprintf("\n... (%d more lines; --format json has more)", len(lines)-maxTextDiffLines)
	}
	fmt.Fprintf(b, "\ndiff %s:\n%s\n", legend, indent(diff, "  "))
}

// writeShrink prints the minimal failing set of faults, the events they
// apply to and what the minimal run saw.
func writeShrink(b *bytes.Buffer, sr *ShrinkReport, embedded bool) {
	what := "1-minimal: without any one of them the consumer passes"
	if !sr.Minimal {
		what = "the budget ran out: the smallest failing set found, maybe not minimal"
		if sr.Error != "" {
			what = "stopped by an error: " + sr.Error
		}
	}
	fmt.Fprintf(b, "\nshrunk from %d faults to %d (%s) in %d runs (budget %d; %s):\n", sr.From, len(sr.Faults), sr.summary(), sr.Runs, sr.Budget, what)
	for _, f := range sr.Faults {
		fmt.Fprintf(b, "  %s\n", f.Describe(embedded))
	}
	for _, k := range sr.Kills {
		fmt.Fprintf(b, "  %s\n", k)
	}
	for _, rb := range sr.Rebalances {
		fmt.Fprintf(b, "  %s\n", rb)
	}
	if sr.Run == "" {
		return
	}
	if f := sr.Failure; f != nil && f.Reason != "expect" {
		fmt.Fprintf(b, "the minimal run (%s) failed: %s\n", sr.Run, f.Message)
		for _, l := range limit(f.Output, 10) {
			fmt.Fprintf(b, "    | %s\n", l)
		}
		return
	}
	for _, e := range sr.Expect {
		fmt.Fprintf(b, "expectation failed in the minimal run (%s): %s\n", sr.Run, e)
	}
	if c := sr.Comparison; c != nil && !c.Equal {
		fmt.Fprintf(b, "state diff of the minimal run (%s):\n", sr.Run)
		for i, d := range c.Differences {
			if i == maxTextDifferences {
				fmt.Fprintf(b, "  ... (%d in all)\n", len(c.Differences)+c.More)
				break
			}
			fmt.Fprintf(b, "  %s\n", d)
		}
	}
}

func typeCounts(m map[string]int64) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, m[n])
	}
	return strings.Join(parts, ", ")
}

func limit(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], "…")
}

func indent(s, prefix string) string {
	if s == "" {
		return s
	}
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// WriteJSON prints the report as one JSON document.
func WriteJSON(w io.Writer, r *Report) error {
	return writeJSON(w, r)
}

// writeJSON prints v indented, the characters a terminal or a CI log would
// act on written as \u escapes (the values decode unchanged).
func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(report.JSONSafe(b.Bytes()))
	return err
}

// WriteJUnit prints the report as JUnit XML: one test case per scenario,
// failing with the text report.
func WriteJUnit(w io.Writer, r *Report) error { return WriteJUnitAll(w, []*Report{r}) }

// WriteJUnitAll prints the reports of several scenarios as one JUnit
// suite, a test case per scenario.
func WriteJUnitAll(w io.Writer, reps []*Report) error {
	s := report.JUnitSuite{Name: "evtool replay"}
	for _, r := range reps {
		var text bytes.Buffer
		if err := WriteText(&text, r); err != nil {
			return err
		}
		c := report.JUnitCase{Name: r.Scenario, Classname: "evtool.replay", Time: time.Duration(r.Duration)}
		switch r.Verdict {
		case Fail, Nondeterministic:
			typ := "consumer-failed"
			if r.Verdict == Nondeterministic {
				typ = "nondeterministic"
			} else if r.contractOnly() {
				typ = RuleUndeclaredRead
			}
			c.Failure = &report.JUnitProblem{Message: r.Summary, Type: typ, Text: text.String()}
		case Error:
			c.Error = &report.JUnitProblem{Message: r.Summary, Type: "error", Text: text.String()}
		case Skipped:
			c.Skipped = &report.JUnitProblem{Message: r.Summary}
		default:
			c.SystemOut = text.String()
		}
		s.Cases = append(s.Cases, c)
	}
	return report.WriteJUnit(w, &report.JUnit{Name: "evtool replay", Suites: []report.JUnitSuite{s},
		Attrs: report.JUnitTotals | report.JUnitTotalErrors | report.JUnitSuiteErrors | report.JUnitTimes})
}

// MultiReport is the JSON report of several scenarios.
type MultiReport struct {
	// Verdict is the worst of the scenarios' verdicts.
	Verdict Verdict   `json:"verdict"`
	Reports []*Report `json:"reports"`
}

// Worst returns the verdict of several scenarios: error over fail over
// pass (skipped scenarios do not count).
func Worst(reps []*Report) Verdict {
	v := Pass
	for _, r := range reps {
		switch r.Verdict {
		case Error:
			return Error
		case Fail, Nondeterministic:
			v = Fail
		}
	}
	return v
}

// WriteAll prints the reports of several scenarios: text one after the
// other, JSON as a MultiReport (a single scenario: its Report), JUnit a
// test case per scenario.
func WriteAll(w io.Writer, f Format, reps []*Report) error {
	if len(reps) == 1 {
		return Write(w, f, reps[0])
	}
	switch f {
	case FormatText:
		for i, r := range reps {
			if i > 0 {
				if _, err := io.WriteString(w, "\n"); err != nil {
					return err
				}
			}
			if err := WriteText(w, r); err != nil {
				return err
			}
		}
		return nil
	case FormatJSON:
		return writeJSON(w, MultiReport{Verdict: Worst(reps), Reports: reps})
	case FormatJUnit:
		return WriteJUnitAll(w, reps)
	}
	return fmt.Errorf("unknown format %q", f)
}
