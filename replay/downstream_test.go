package replay

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/downstream"
	"github.com/evtool/evtool/internal/bugs"
)

// emailScenario is the email stand-in of the downstream tests: receipts
// of order ord-00023 can never be sent (422).
func emailScenario(seed int, kinds string, outage string) string {
	o := ""
	if outage != "" {
		o = ", outage: {count: 1, duration: " + outage + "}"
	}
	return fmt.Sprintf(`downstream:
  email:
    effect: {key: /receiptId}
    idempotency: {header: Idempotency-Key}
    answer: {status: 202, body: {queued: true}}
    terminal: {when: {pointer: /to, matches: "^ord-00023@"}, status: 422}
    limits: {rate: 5000, concurrency: 8}
chaos:
  seed: %d
  downstream:
    email: {rate: 0.2, kinds: [%s]%s}
expect:
  effects: {email: exactly-once}
  retries: {email: {max_attempts: 20}}
  effects_order: per-key
`, seed, kinds, o)
}

const allDownstreamKinds = "429, 500, 503, timeout, reset, slow"

// The correct consumer passes every downstream fault kind and an outage:
// each receipt sent once, the terminal ones dead-lettered.
func TestDownstreamCorrectPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	sc := writeScenario(t, bugScenarioText(t, bugs.Correct, 150, "", emailScenario(11, allDownstreamKinds, "1s")))
	ctx, opts := watchProgress(t, Options{Baselines: 1})
	rep, err := Replay(ctx, sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	text := reportText(rep)
	if rep.Verdict != Pass {
		t.Fatalf("verdict %s:\n%s", rep.Verdict, text)
	}
	ch := rep.Run("chaos")
	if ch.Applied[chaos.Downstream] == 0 || ch.Applied[chaos.Outage] != 1 {
		t.Fatalf("applied %v", ch.Applied)
	}
	kinds := map[chaos.DownstreamKind]bool{}
	for _, f := range ch.Faults {
		kinds[f.Answer] = true
	}
	for _, k := range chaos.DownstreamKinds {
		if !kinds[k] {
			t.Errorf("no %s fault applied", k)
		}
	}
	if len(ch.Downstream) != 1 {
		t.Fatalf("downstream results %+v", ch.Downstream)
	}
	sum := ch.Downstream[0].Summary
	if sum.Effects == 0 || sum.Outages != 1 || sum.ByOutcome[downstream.Terminated] == 0 || sum.ByOutcome[downstream.Faulted] == 0 || sum.ByOutcome[downstream.InOutage] == 0 {
		t.Errorf("summary %+v", sum)
	}
	if len(ch.DLQ) == 0 {
		t.Errorf("no terminal receipt dead-lettered")
	}
	t.Log(text)
	for _, s := range []string{"downstream email: ", "peak concurrency", "outage"} {
		if !strings.Contains(text, s) {
			t.Errorf("report lacks %q:\n%s", s, text)
		}
	}
}

// The downstream bugs fail under the faults that expose them, and shrink
// to at most 3 faults (none for the bugs that fail a clean run).
func TestDownstreamBugsFail(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the bug catalogue through kfake, one replay per bug (minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	for _, tt := range []struct {
		bug     bugs.Bug
		kinds   string
		outage  string
		finding string
	}{
		{bugs.FreshKey, "timeout", "", downstream.FreshKeyPerAttemptDetail},
		{bugs.NoBackoff, "503", "2s", downstream.RetryTooSoon},
		{bugs.RetryTerminal, "503", "", downstream.TerminalRetried},
		{bugs.Unbounded, "slow", "", downstream.OverLimit},
		{bugs.EffectBeforeDedupe, "503", "", downstream.DuplicateEffect},
		{bugs.RetryTopic, "500, 503", "", downstream.EffectOrder},
	} {
		t.Run(string(tt.bug), func(t *testing.T) {
			t.Parallel()
			rest := emailScenario(13, tt.kinds, tt.outage)
			switch tt.bug {
			case bugs.EffectBeforeDedupe:
				rest = strings.Replace(rest, "chaos:\n", "chaos:\n  crash: {count: 2}\n", 1)
			case bugs.Unbounded:
				// A provider limited to 100 requests/s: the correct
				// consumers limit their rate (BUGS_EMAIL_RATE), this one
				// does not.
				rest = strings.Replace(rest, "rate: 5000", "rate: 100", 1)
			}
			sc := writeScenario(t, bugScenarioText(t, tt.bug, 150, "", rest))
			ctx, opts := watchProgress(t, Options{Baselines: 1, ShrinkBudget: 12})
			rep, err := Replay(ctx, sc, opts)
			if err != nil {
				t.Fatal(err)
			}
			text := reportText(rep)
			if rep.Verdict != Fail || !strings.Contains(text, tt.finding) {
				t.Fatalf("verdict %s, want a failure with %s:\n%s", rep.Verdict, tt.finding, text)
			}
			// Findings name the event where it was written:
			// topic/partition@offset.
			if !regexp.MustCompile(`[^ ]+/[0-9]+@[0-9]+`).MatchString(text) {
				t.Errorf("no finding names topic/partition@offset:\n%s", text)
			}
			entry := bugEntry(tt.bug)
			if len(entry.Exposes) == 0 {
				if rep.Run("baseline").Failure == nil {
					t.Fatalf("%s passed its clean run:\n%s", tt.bug, text)
				}
				return
			}
			sr := rep.Shrink
			if sr == nil || len(sr.Faults) == 0 || len(sr.Faults) > 3 || !slices.ContainsFunc(sr.Faults, func(f chaos.Fault) bool { return slices.Contains(entry.Exposes, f.Kind) }) {
				t.Fatalf("shrunk to %+v, want at most 3 faults with one of %v:\n%s", sr, entry.Exposes, text)
			}
			t.Logf("%s: %d of %d faults in %d runs: %s", tt.bug, len(sr.Faults), sr.From, sr.Runs, sr.Faults[0])
		})
	}
}

func bugEntry(b bugs.Bug) bugs.Entry {
	for _, e := range bugs.DownstreamCatalogue {
		if e.Bug == b {
			return e
		}
	}
	return bugs.Entry{}
}

// Findings quote effect keys and ids from request bodies: every report
// format escapes them, and carries the summary and the findings.
func TestDownstreamReportFormats(t *testing.T) {
	hostile := "k\n::error::x\x1b[2J\u202e"
	f := downstream.Finding{Kind: downstream.DuplicateEffect, Downstream: "email", EffectKey: hostile, Message: "the effect happened 2 times",
		Event:    &downstream.Event{ID: hostile, Key: "ord-1", Topic: "t", Offset: -1},
		Timeline: []downstream.Step{{Seq: 1, Attempt: 1, Answer: "202 (effect applied)"}, {Seq: 2, Attempt: 2, AtMS: 5, Answer: "202 (effect applied)"}}}
	run := &RunResult{Name: "chaos", ID: "chaos", Verdict: Fail, Failure: &Failure{Reason: "downstream", Message: "1 downstream finding(s): " + f.String()},
		Downstream: []DownstreamResult{{Name: "email", Summary: downstream.Summary{Name: "email", Requests: 2, Effects: 2}, Findings: []downstream.Finding{f}}}}
	rep := &Report{Scenario: "s.yaml", Verdict: Fail, Summary: "the consumer failed the chaos run", Runs: []*RunResult{run}}
	for _, format := range []Format{FormatText, FormatJSON, FormatJUnit} {
		var b bytes.Buffer
		if err := Write(&b, format, rep); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimLeft(line, " \t"), "::") {
				t.Errorf("%s: a line reads as a workflow command: %q", format, line)
			}
		}
		if strings.ContainsAny(out, "\x1b\u202e") {
			t.Errorf("%s: control printed raw:\n%s", format, out)
		}
		for _, want := range []string{"duplicate-effect", "downstream email: 2 request(s)", "attempt 2 at 5ms"} {
			if format == FormatJSON {
				want = map[string]string{"duplicate-effect": `"kind": "duplicate-effect"`, "downstream email: 2 request(s)": `"requests": 2`, "attempt 2 at 5ms": `"atMs": 5`}[want]
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s report lacks %q:\n%s", format, want, out)
			}
		}
	}
}
