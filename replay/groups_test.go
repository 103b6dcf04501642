package replay

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/internal/bugs"
)

// groupChaos is a chaos section with rebalance faults for three instances.
func groupChaos(seed int, count int, kinds string) string {
	return "chaos:\n  seed: " + itoa(seed) + "\n  rebalance: {count: " + itoa(count) + ", kinds: [" + kinds + "], stall: 3s}\n"
}

func itoa(n int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(n)) }

func fmtInt(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func groupScenario(t testing.TB, bug bugs.Bug, events int, chaosText string) *Scenario {
	text := bugScenarioText(t, bug, events, "", chaosText)
	text = strings.Replace(text, "  quiet: 100ms\n", "  quiet: 300ms\n  instances: 3\n", 1)
	return writeScenario(t, text)
}

// The correct consumer passes three instances under every rebalance kind;
// the report has the generations, who owned what, and the protocol.
func TestGroupCorrectThroughKafka(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sc := groupScenario(t, bugs.Correct, 200, groupChaos(1, 5, "join, leave, kill, stall, eager"))
	rep, err := Replay(ctx, sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := reportText(rep)
	if rep.Verdict != Pass {
		t.Fatalf("verdict %s:\n%s", rep.Verdict, text)
	}
	ch := rep.Runs[len(rep.Runs)-1]
	if len(ch.Rebalances) != 5 || len(ch.Generations) < 3 || ch.Protocol.Protocol == "" {
		t.Fatalf("rebalances %d, generations %d, protocol %q:\n%s", len(ch.Rebalances), len(ch.Generations), ch.Protocol, text)
	}
	for _, g := range ch.Generations {
		for _, o := range g.Owners {
			if o.Instance < 0 && len(o.Partitions) > 0 && !strings.Contains(g.Cause, "eager") {
				t.Errorf("generation %d: member %s not named as an instance", g.Number, o.Member)
			}
		}
	}
	t.Log(text)
}

var _ = slices.Contains[[]int]
var _ = chaos.Rebalance
