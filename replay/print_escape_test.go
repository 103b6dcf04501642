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
