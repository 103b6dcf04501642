package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strings"
	"unicode/utf8"
)

// The gate formats: what CI systems read. They are document formats (they
// need every finding first), so NewPrinter buffers them.

// title is the one line a finding shows in an annotation or a table.
func title(f Finding) string {
	var b strings.Builder
	if f.Subject != "" {
		b.WriteString("[" + f.Subject + "] ")
	}
	if f.Direction != "" {
		b.WriteString(f.Direction + " ")
	}
	b.WriteString(f.Rule)
	switch {
	case f.NewPointer != "":
		b.WriteString(" at " + f.NewPointer)
	case f.OldPointer != "":
		b.WriteString(" at old " + f.OldPointer)
	case f.Pointer != "":
		b.WriteString(" at " + f.Pointer)
	}
	b.WriteString(": " + oneLine(f.Message))
	if f.Ignored != "" {
		b.WriteString(" (approved: " + oneLine(f.Ignored) + ")")
	}
	return b.String()
}

func counterexample(f Finding) string {
	if len(f.Counterexample) == 0 {
		return ""
	}
	return string(JSONSafe(f.Counterexample))
}

// level maps a finding to error/warning/notice: approved breaks are
// notices, so they show without failing.
func level(f Finding) string {
	switch {
	case f.Failing():
		return "error"
	case f.Ignored != "":
		return "notice"
	case f.Severity == SeverityWarning:
		return "warning"
	}
	return "notice"
}

func summaryLine(r *Report) string {
	errs, warns, _ := r.Counts()
	approved := 0
	for _, f := range r.Findings {
		if f.Ignored != "" {
			approved++
		}
	}
	unit := unitOr(r.Unit)
	s := fmt.Sprintf("%d %s checked: %d error%s, %d warning%s", r.Checked, plural(unit, r.Checked), errs, plural("", errs), warns, plural("", warns))
	if approved > 0 {
		s += fmt.Sprintf(", %d approved", approved)
	}
	return s
}

func unitOr(u string) string {
	if u == "" {
		return "item"
	}
	return u
}

// writeGitHub prints workflow commands: one annotation per finding on the
// schema file and line, then the summary as plain text.
func writeGitHub(w io.Writer, r *Report) error {
	for _, f := range r.Findings {
		f = escapeFinding(f)
		var props []string
		if f.File != "" {
			props = append(props, "file="+ghProp(f.File))
			if f.Line > 0 {
				props = append(props, fmt.Sprintf("line=%d", f.Line))
			}
			if f.Column > 0 {
				props = append(props, fmt.Sprintf("col=%d", f.Column))
			}
		}
		props = append(props, "title="+ghProp("evtool "+r.Command+": "+f.Rule))
		msg := title(f)
		if cx := counterexample(f); cx != "" {
			msg += "\nCounterexample: " + cx
		}
		if _, err := fmt.Fprintf(w, "::%s %s::%s\n", level(f), strings.Join(props, ","), ghData(msg)); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(w, summaryLine(r))
	return err
}

func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// groups returns the findings by subject, in first-appearance order.
func groups(r *Report) (order []string, by map[string][]Finding) {
	by = map[string][]Finding{}
	for _, f := range r.Findings {
		f = escapeFinding(f)
		s := f.Subject
		if s == "" {
			s = f.File
		}
		if _, ok := by[s]; !ok {
			order = append(order, s)
		}
		by[s] = append(by[s], f)
	}
	return order, by
}

// writeJUnit prints JUnit XML: one test case per subject (a type or a
// version pair) with findings, failing when any of its findings fails, and
// one passing case for everything checked without findings.
func writeJUnit(w io.Writer, r *Report) error {
	class := "evtool." + strings.ReplaceAll(r.Command, " ", ".")
	suite := JUnitSuite{Name: "evtool " + r.Command}
	order, by := groups(r)
	for _, subj := range order {
		tc := JUnitCase{Name: subj, Classname: class}
		var out, failed []string
		var first Finding
		for _, f := range by[subj] {
			text := title(f)
			if loc := f.Location(); loc != "" {
				text = loc + ": " + text
			}
			if cx := counterexample(f); cx != "" {
				text += "\ncounterexample: " + cx
			}
			if f.Failing() {
				if len(failed) == 0 {
					first = f
				}
				failed = append(failed, text)
			} else {
				out = append(out, level(f)+": "+text)
			}
		}
		// One <failure> per test case (JUnit viewers show only one): the
		// first error is its message, every error is in its text.
		if len(failed) > 0 {
			msg := oneLine(first.Message)
			if len(failed) > 1 {
				msg = fmt.Sprintf("%s (and %d more)", msg, len(failed)-1)
			}
			tc.Failure = &JUnitProblem{Message: msg, Type: first.Rule, Text: strings.Join(failed, "\n\n")}
		}
		tc.SystemOut = strings.Join(out, "\n")
		suite.Cases = append(suite.Cases, tc)
	}
	if rest := r.Checked - len(order); rest > 0 || len(order) == 0 {
		rest = max(rest, 0)
		suite.Cases = append(suite.Cases, JUnitCase{Name: fmt.Sprintf("%d other %s without findings", rest, plural(unitOr(r.Unit), rest)), Classname: class})
	}
	return WriteJUnit(w, &JUnit{Name: "evtool", Suites: []JUnitSuite{suite}, Attrs: JUnitTotals | JUnitSuiteErrors})
}

// writeMarkdown prints a summary and one section per subject, for a pull
// request comment or a job summary ($GITHUB_STEP_SUMMARY).
func writeMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	status := "passed"
	if r.Failed() {
		status = "failed"
	}
	fmt.Fprintf(&b, "## evtool %s: %s\n\n%s\n", r.Command, status, summaryLine(r))
	order, by := groups(r)
	for _, subj := range order {
		fmt.Fprintf(&b, "\n### %s\n\n| level | rule | direction | where | message |\n|---|---|---|---|---|\n", mdCell(subj))
		var cxs []string
		for _, f := range by[subj] {
			where := mdCell(f.Location())
			switch {
			case f.NewPointer != "":
				where += " " + mdCode(f.NewPointer)
			case f.Pointer != "":
				where += " " + mdCode(f.Pointer)
			}
			msg := mdCell(oneLine(f.Message))
			if f.Ignored != "" {
				msg += " *(approved: " + mdCell(oneLine(f.Ignored)) + ")*"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", level(f), mdCode(f.Rule), strings.ToLower(f.Direction), where, msg)
			if cx := counterexample(f); cx != "" {
				cxs = append(cxs, fmt.Sprintf("`%s`%s:\n\n```json\n%s\n```\n", f.Rule, dirSuffix(f), indentJSON(f.Counterexample)))
			}
		}
		if len(cxs) > 0 {
			b.WriteString("\n<details><summary>Counterexamples</summary>\n\n")
			for _, c := range cxs {
				b.WriteString(c + "\n")
			}
			b.WriteString("</details>\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func dirSuffix(f Finding) string {
	if f.Direction == "" {
		return ""
	}
	return " (" + strings.ToLower(f.Direction) + ")"
}

// mdCell makes text safe in a Markdown table cell: no cell break, no
// HTML, no code span opened by a backtick in a message, and no link or
// image a name could bring into a pull request comment ("[text](url)").
func mdCell(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ", "<", "&lt;", ">", "&gt;", "`", "\\`", "*", "\\*", "_", "\\_",
		"[", "\\[", "]", "\\]").Replace(s)
}

// mdCode is s as a code span in a table cell: a fence longer than any run
// of backticks in s, and only the cell separator escaped (entities would
// show literally inside code).
func mdCode(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	s = strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// indentJSON indents JSON text as it is: numbers keep their digits, and
// <, > and & stay as written.
func indentJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Indent(&b, JSONSafe(raw), "", "  "); err != nil {
		return string(JSONSafe(raw))
	}
	return b.String()
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine,omitempty"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation struct {
		URI string `json:"uri"`
	} `json:"artifactLocation"`
	Region *sarifRegion `json:"region,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	Level               string             `json:"level"`
	Message             sarifText          `json:"message"`
	Locations           []sarifLocation    `json:"locations,omitempty"`
	PartialFingerprints map[string]string  `json:"partialFingerprints,omitempty"`
	Properties          map[string]any     `json:"properties,omitempty"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
}

type sarifRule struct {
	ID               string    `json:"id"`
	ShortDescription sarifText `json:"shortDescription"`
	FullDescription  sarifText `json:"fullDescription"`
	Help             struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown"`
	} `json:"help"`
	HelpURI string `json:"helpUri"`
}

type sarifRun struct {
	Tool struct {
		Driver struct {
			Name           string      `json:"name"`
			Version        string      `json:"version"`
			InformationURI string      `json:"informationUri"`
			Rules          []sarifRule `json:"rules"`
		} `json:"driver"`
	} `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

// writeSARIF prints SARIF 2.1.0 for code scanning: a result per finding
// with its rule, level, file and line, the fingerprint as a partial
// fingerprint, and approved findings as suppressions.
func writeSARIF(w io.Writer, r *Report) error {
	var rn sarifRun
	rn.Tool.Driver.Name = "evtool"
	rn.Tool.Driver.InformationURI = "https://github.com/evtool/evtool"
	rn.Tool.Driver.Version = r.ToolVersion
	if rn.Tool.Driver.Version == "" {
		rn.Tool.Driver.Version = "(unknown)"
		if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
			rn.Tool.Driver.Version = info.Main.Version
		}
	}
	rn.Results = []sarifResult{}
	seen := map[string]bool{}
	var ids []string
	for _, f := range r.Findings {
		file := f.File
		f = escapeFinding(f)
		if !seen[f.Rule] {
			seen[f.Rule] = true
			ids = append(ids, f.Rule)
		}
		lv := "note"
		switch f.Severity {
		case SeverityError:
			lv = "error"
		case SeverityWarning:
			lv = "warning"
		}
		msg := title(f)
		if cx := counterexample(f); cx != "" {
			msg += " Counterexample: " + cx
		}
		res := sarifResult{RuleID: f.Rule, Level: lv, Message: sarifText{msg}}
		if f.File != "" {
			var pl sarifPhysical
			pl.ArtifactLocation.URI = sarifURI(file)
			if f.Line > 0 {
				pl.Region = &sarifRegion{StartLine: f.Line, StartColumn: f.Column}
			}
			res.Locations = []sarifLocation{{pl}}
		}
		if f.Fingerprint != "" {
			res.PartialFingerprints = map[string]string{"evtoolFingerprint/v1": f.Fingerprint}
		}
		props := map[string]any{}
		for k, v := range map[string]string{"subject": f.Subject, "type": f.Type, "direction": f.Direction, "oldPointer": f.OldPointer, "newPointer": f.NewPointer} {
			if v != "" {
				props[k] = v
			}
		}
		if f.OldVersion > 0 {
			props["oldVersion"] = f.OldVersion
		}
		if f.NewVersion > 0 {
			props["newVersion"] = f.NewVersion
		}
		if len(f.Counterexample) > 0 {
			props["counterexample"] = f.Counterexample
		}
		if len(props) > 0 {
			res.Properties = props
		}
		if f.Ignored != "" {
			res.Suppressions = []sarifSuppression{{Kind: "external", Justification: f.Ignored}}
		}
		rn.Results = append(rn.Results, res)
	}
	sort.Strings(ids)
	rn.Tool.Driver.Rules = []sarifRule{}
	for _, id := range ids {
		d := ruleDoc(id, r.Rules)
		uri := RulesDocURL + "#" + id
		rule := sarifRule{ID: id, ShortDescription: sarifText{d.Summary}, FullDescription: sarifText{d.Detail}, HelpURI: uri}
		rule.Help.Text = d.Summary + ". " + d.Detail + " Documentation: " + uri
		rule.Help.Markdown = "**" + d.Summary + "**\n\n" + d.Detail + "\n\n[" + id + "](" + uri + ")"
		rn.Tool.Driver.Rules = append(rn.Tool.Driver.Rules, rule)
	}
	doc := sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{rn}}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := w.Write(JSONSafe(b.Bytes()))
	return err
}

// sarifURI turns a display path into a relative URI reference: the real
// name, with the characters a URI cannot hold raw (controls, space, '%',
// '#', '?', the invisible ones Escape names) percent-encoded, so that the
// result still names the file.
func sarifURI(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	var b strings.Builder
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		switch {
		case r == utf8.RuneError && size == 1, r <= ' ', r == '%', r == '#', r == '?', escaped(r):
			for _, c := range []byte(p[i : i+size]) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		default:
			b.WriteString(p[i : i+size])
		}
		i += size
	}
	return b.String()
}
