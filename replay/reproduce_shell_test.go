package replay

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/report"
)

// TestReproduceLinePastes: a reproduce line whose scenario, broker or
// contract field holds a line break, an escape or a quote prints as one
// line without a raw control byte, and pasted into bash gives evtool the
// exact arguments.
func TestReproduceLinePastes(t *testing.T) {
	scenario := "odd\nname's.yaml"
	h := &Harness{opts: Options{Command: "evtool replay " + shellQuote(scenario), Brokers: []string{"h\x1b]0;x\a:9092"},
		Client: kafka.ClientConfig{SASLUser: "u s\u202eer"}}, seed: 7}
	fields := []Field{{Type: "com.example.T", Pointer: "/a\nb"}, {Type: "com.example.T", Pointer: "/it's/\\n"}}
	line := h.contractReproduce(fields)
	want := []string{"replay", scenario, "--seed", "7", "--brokers", "h\x1b]0;x\a:9092", "--sasl-user", "u s\u202eer", "--baselines", "1",
		"--contract-field", "com.example.T:/a\nb", "--contract-field", "com.example.T:/it's/\\n"}

	var text bytes.Buffer
	if err := WriteText(&text, &Report{Scenario: scenario, Verdict: Fail, Summary: "FAIL", Reproduce: line, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	var printed string
	for _, l := range strings.Split(text.String(), "\n") {
		if p, ok := strings.CutPrefix(l, "reproduce: "); ok {
			printed = p
		}
	}
	if printed == "" || report.Escape(printed) != printed {
		t.Fatalf("reproduce line %q is missing or holds control bytes in\n%s", printed, text.String())
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to paste the line into")
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", `evtool() { printf '%s\0' "$@"; }; `+printed)
	cmd.Env = []string{"LC_ALL=C", "HOME=/nonexistent"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, want) {
		t.Errorf("pasting %s gives\n%q, want\n%q", printed, got, want)
	}
	for _, f := range fields {
		i := slices.Index(got, f.Type+":"+f.Pointer)
		if i < 0 {
			t.Fatalf("no --contract-field for %q", f.Pointer)
		}
		if back, err := ParseContractField(got[i]); err != nil || back != f {
			t.Errorf("ParseContractField(%q) = %v, %v; want %v", got[i], back, err, f)
		}
	}
}
