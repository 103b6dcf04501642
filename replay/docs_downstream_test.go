package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/downstream"
)

// TestDownstreamDocSamples parses every YAML sample of docs/replay.md's
// downstream section as a scenario (with an events and consumer section
// when the sample has none), and checks that the section names every
// finding and fault kind and the oracle's statistics as they are.
func TestDownstreamDocSamples(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "replay.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "### Downstream stand-ins")
	if start < 0 {
		t.Fatal("docs/replay.md has no downstream section")
	}
	sec := doc[start:]
	if end := strings.Index(sec[1:], "\n### "); end >= 0 {
		sec = sec[:end+1]
	}
	samples := 0
	for rest := sec; ; {
		i := strings.Index(rest, "```yaml\n")
		if i < 0 {
			break
		}
		rest = rest[i+len("```yaml\n"):]
		j := strings.Index(rest, "```")
		text := rest[:j]
		rest = rest[j+3:]
		if !strings.Contains(text, "consumer:") {
			text = "events: {file: e.jsonl}\nconsumer: {run: [c], state: {http: \"http://x\"}}\n" + text
		}
		sc, err := ParseScenario("sample.yaml", []byte(text))
		if err != nil {
			t.Errorf("sample %d: %v\n%s", samples+1, err, text)
			continue
		}
		if len(sc.Downstream) == 0 || sc.Chaos.Downstream == nil {
			t.Errorf("sample %d has no stand-in or no downstream faults", samples+1)
		}
		samples++
	}
	if samples < 2 {
		t.Fatalf("%d samples", samples)
	}
	flat := strings.Join(strings.Fields(sec), " ")
	for _, want := range []string{downstream.DuplicateEffect, downstream.MissingEffect, downstream.TerminalRetried, downstream.TerminalNotDeadLettered,
		downstream.RetryTooSoon, downstream.RetryStorm, downstream.SynchronizedRetries, downstream.MaxAttemptsExceeded, downstream.OverLimit,
		downstream.EffectOrder, downstream.FreshKeyPerAttemptDetail, "EVTOOL_DOWNSTREAM_", "Ce-Id",
		"10 ms slack", "at least 8 gaps", "1.25 ×", "2 × the request rate", "at least 10 requests", "within 2 ms", "80 %", "40 %"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the downstream section does not mention %q", want)
		}
	}
	for _, k := range chaos.DownstreamKinds {
		if !strings.Contains(sec, "`"+string(k)+"`") {
			t.Errorf("the downstream section does not describe kind %s", k)
		}
	}
	// The statistics the section states.
	if downstream.RetryAfterSlack.Milliseconds() != 10 || downstream.MinEnvelopeSamples != 8 || downstream.MinLateRetry != 4 || downstream.BackoffGrowth != 1.25 ||
		downstream.BackoffFloor.Milliseconds() != 10 || downstream.StormFactor != 2 || downstream.MinStormRequests != 10 || downstream.SyncWindow.Milliseconds() != 2 ||
		downstream.SyncFraction != 0.8 || downstream.MaxSyncChance != 0.4 || downstream.MinSyncRetries != 10 || downstream.MinSyncEffects != 3 ||
		chaos.MaxDownstreamAttempt != 3 || downstream.DefaultSlow.Milliseconds() != 200 || downstream.DefaultHold.Seconds() != 30 {
		t.Error("the oracle's statistics changed: update docs/replay.md's downstream section")
	}
}
