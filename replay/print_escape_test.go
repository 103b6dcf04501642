package replay

import (
	"bytes"
	"strings"
	"testing"
)

// The text report quotes the scenario, events and consumer output: a line
// break in them cannot start a workflow command, and terminal controls are
// escaped.
func TestWriteTextEscapes(t *testing.T) {
	rep := &Report{Scenario: "s.yaml\n::error::x", Verdict: Fail, Summary: "bad \x1b[2J\u202e",
		Error: "open e\n::stop-commands::t", Warnings: []string{"w\n  ::warning::y"}}
	var b bytes.Buffer
	if err := WriteText(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "::") {
			t.Errorf("a line reads as a workflow command: %q", line)
		}
	}
	if strings.ContainsAny(out, "\x1b\u202e") {
		t.Errorf("control printed raw:\n%s", out)
	}
}

// The JSON report keeps values exact and writes bidi controls and C1
// controls as \u escapes.
func TestWriteJSONEscapes(t *testing.T) {
	rep := &Report{Scenario: "s\u202e.yaml", Verdict: Fail, Summary: "x\u0085y"}
	for _, reps := range [][]*Report{{rep}, {rep, rep}} {
		var b bytes.Buffer
		if err := WriteAll(&b, FormatJSON, reps); err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(b.String(), "\u202e\u0085") {
			t.Errorf("raw control in JSON:\n%s", b.String())
		}
		if !strings.Contains(b.String(), `s\u202e.yaml`) {
			t.Errorf("scenario not escaped as JSON:\n%s", b.String())
		}
	}
}
