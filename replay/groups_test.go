package replay

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/internal/bugs"
	"github.com/evtool/evtool/kafka"
)

// groupChaos is a chaos section with rebalance faults for three instances.
func groupChaos(seed int, count int, kinds string) string {
	return "chaos:\n  seed: " + strconv.Itoa(seed) + "\n  rebalance: {count: " + strconv.Itoa(count) + ", kinds: [" + kinds + "], stall: 3s}\n"
}

func groupScenario(t testing.TB, bug bugs.Bug, events int, chaosText string) *Scenario {
	return groupScenarioDelay(t, bug, events, "20ms", chaosText)
}

func groupScenarioDelay(t testing.TB, bug bugs.Bug, events int, delay, chaosText string) *Scenario {
	text := bugScenarioText(t, bug, events, ", BUGS_CHUNK_DELAY: "+delay, chaosText)
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

// The group bugs of the catalogue fail under the rebalance faults that
// expose them with three instances, the failure is confirmed, and
// shrinking keeps at most 3 faults with a rebalance among them; the
// reproduce command names them.
func TestGroupCatalogueThroughKafka(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		bug    bugs.Bug
		chaos  string
		settle string
		events int
		delay  string
	}{
		// revoked-commit needs six partitions and a slow consumer:
		// TestGroupRevokedCommitThroughKafka.
		{bugs.MemoryDedupe, groupChaos(4, 2, "kill"), "", 300, "20ms"},
		{bugs.ZombieNoFence, groupChaos(5, 2, "stall"), "", 300, "20ms"},
		{bugs.InstanceState, strings.Replace(groupChaos(7, 1, "kill, leave"), "stall: 3s", "stall: 3s, restart: false", 1), "", 600, "50ms"},
	} {
		t.Run(string(tt.bug), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			sc := groupScenarioDelay(t, tt.bug, tt.events, tt.delay, tt.chaos)
			if tt.settle != "" {
				d, _ := time.ParseDuration(tt.settle)
				sc.Consumer.SettleTimeout = d
			}
			rep, err := Replay(ctx, sc, Options{ShrinkBudget: 12})
			if err != nil {
				t.Fatal(err)
			}
			text := reportText(rep)
			if rep.Verdict != Fail || rep.Confirmed == nil || !*rep.Confirmed || rep.Shrink == nil {
				t.Fatalf("verdict %s:\n%s", rep.Verdict, text)
			}
			sr := rep.Shrink
			if len(sr.Faults) == 0 || len(sr.Faults) > 3 || !slices.ContainsFunc(sr.Faults, func(f chaos.Fault) bool { return f.Kind == chaos.Rebalance }) {
				t.Fatalf("shrunk to %v, want at most 3 faults with a rebalance:\n%s", sr.Faults, text)
			}
			if !strings.Contains(text, "--faults "+faultList(sr.Faults)) {
				t.Errorf("no reproduce command for the minimal set:\n%s", text)
			}
			t.Logf("%s: %d of %d faults in %d runs: %s", tt.bug, len(sr.Faults), sr.From, sr.Runs, sr.Faults[0])
		})
	}
}

// The correct consumer passes three instances under every rebalance kind
// (eager included) over 20 seeds, one baseline for all.
func TestGroupCorrectTwentySeeds(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("20 chaos runs of three processes")
	}
	sc := groupScenario(t, bugs.Correct, 300, "chaos:\n  rebalance: {count: 4, kinds: [join, leave, kill, stall], eager: true, stall: 1s}\n")
	moves := map[chaos.RebalanceKind]int{}
	stale := 0
	passesSeeds(t, sc, 20, nil, func(seed uint64, ch *RunResult) {
		if len(ch.Rebalances) != 4 {
			t.Fatalf("seed %d: %d rebalance faults applied, want 4", seed, len(ch.Rebalances))
		}
		for _, r := range ch.Rebalances {
			moves[r.Move]++
		}
		for _, c := range ch.StaleCommits {
			if c.Instance >= 0 && c.Error != "" {
				stale++
			}
		}
	})
	// Zombies resume and retry their dropped commits: refused, and said so.
	if stale == 0 {
		t.Error("no stale commit reported in 20 seeds")
	}
	for _, k := range chaos.RebalanceKinds {
		if moves[k] == 0 {
			t.Errorf("no %s fault in 20 seeds: %v", k, moves)
		}
	}
	t.Logf("faults applied: %v; stale commits %d", moves, stale)
}

// The text report's timeline merges generations, faults and stale commits
// in time order, naming instances, the eager member and members it could
// not name.
func TestGroupTimeline(t *testing.T) {
	ms := func(n int) Duration { return Duration(time.Duration(n) * time.Millisecond) }
	r := &RunResult{
		Generations: []Generation{
			{Number: 3, Time: ms(100), Cause: "start", Owners: []Owner{{Instance: 0, Partitions: []int32{0}}, {Instance: 1, Partitions: []int32{1, 2}}}},
			{Number: 4, Time: ms(900), Cause: "rebalance 1 (stall): instance 1 stalled", Committed: map[int32]int64{0: 40, 1: 7},
				Owners: []Owner{{Instance: 0, Partitions: []int32{0, 1, 2}}, {Instance: -1, Eager: true, Member: "m-eager"}, {Instance: -1, Member: "kgo-0123456789abcdef"}}},
		},
		Rebalances:   []Rebalance{{Fault: 2, Rebalance: 1, Move: chaos.Stall, Time: ms(500), Instance: 1, Trigger: "stalled (SIGSTOP) at the commit", Dropped: map[int32]int64{1: 9}}},
		StaleCommits: []StaleCommit{{Time: ms(1500), Instance: 1, Error: "UNKNOWN_MEMBER_ID", Why: "evicted", Offsets: map[int32]int64{1: 9}}},
	}
	got := strings.Join(r.timeline(), "\n")
	want := strings.Join([]string{
		"  100ms  generation 3 (start): i0[0] i1[1 2]; committed nothing",
		"  500ms  rebalance 1 (stall, fault #2) at 500ms: instance 1 stalled (SIGSTOP) at the commit; dropped the commit of p1=9",
		"  900ms  generation 4 (rebalance 1 (stall): instance 1 stalled): i0[0 1 2] eager[] ?456789abcdef[]; committed p0=40 p1=7",
		"   1.5s  stale commit from instance 1 (p1=9) refused: UNKNOWN_MEMBER_ID (evicted)",
	}, "\n")
	if got != want {
		t.Fatalf("timeline:\n%s\nwant:\n%s", got, want)
	}
}

// With KIP-848 (the broker assigns partitions) the correct consumer passes
// kills, stalls and joins too, and the report names the protocol.
func TestGroupKIP848ThroughKafka(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	text := bugScenarioText(t, bugs.Correct, 300, ", BUGS_KIP848: \"1\", BUGS_CHUNK_DELAY: 20ms", groupChaos(2, 3, "join, kill, stall"))
	text = strings.Replace(text, "  quiet: 100ms\n", "  quiet: 300ms\n  instances: 3\n", 1)
	rep, err := Replay(ctx, writeScenario(t, text), Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := reportText(rep)
	ch := rep.Run("chaos")
	if rep.Verdict != Pass || ch == nil || !strings.HasPrefix(ch.Protocol.Protocol, "consumer (KIP-848)") || len(ch.Rebalances) != 3 {
		t.Fatalf("verdict %s, protocol %q:\n%s", rep.Verdict, ch.Protocol, out)
	}
	t.Log(out)
}

// Revoked-commit (i) commits, on a timer, the offsets of partitions it
// lost: once the new owner committed past them, the group's offsets go
// back. Its partitions must move while it is part way through them (a
// slow consumer: 100 ms a chunk of 4 records, six partitions worked on in turn, a
// short heartbeat so the join takes effect at once); the harness fails
// the run at the first rewind by a member that did not own the partition,
// and shrinks to the join. The correct consumer passes the same scenario.
func TestGroupRevokedCommitThroughKafka(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		bug  bugs.Bug
		want Verdict
	}{
		{bugs.RevokedCommit, Fail},
		{bugs.Correct, Pass},
	} {
		t.Run(string(tt.bug), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			text := bugScenarioText(t, tt.bug, 600, ", BUGS_CHUNK_DELAY: 100ms, BUGS_CHUNK_RECORDS: \"4\", BUGS_HEARTBEAT: 300ms", groupChaos(3, 1, "join"))
			text = strings.Replace(text, "  quiet: 100ms\n", "  quiet: 300ms\n  instances: 3\n", 1)
			text = strings.Replace(text, "partitions: 3", "partitions: 6", 1)
			rep, err := Replay(ctx, writeScenario(t, text), Options{ShrinkBudget: 4})
			if err != nil {
				t.Fatal(err)
			}
			out := reportText(rep)
			if rep.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s:\n%s", rep.Verdict, tt.want, out)
			}
			if tt.want == Pass {
				if ch := rep.Run("chaos"); len(ch.Rewinds) > 0 {
					t.Errorf("rewinds reported for the correct consumer: %v", ch.Rewinds)
				}
				return
			}
			ch := rep.Run("chaos")
			// The first rewind may be the new owner's own: its commit goes
			// below the offset a stale commit of the old owner had moved
			// forward.
			foreign := slices.ContainsFunc(ch.Rewinds, func(rw Rewind) bool { return rw.Foreign })
			if ch.Failure == nil || ch.Failure.Reason != "rewound" || !foreign ||
				rep.Confirmed == nil || !*rep.Confirmed || rep.Shrink == nil || len(rep.Shrink.Faults) != 1 || rep.Shrink.Faults[0].Move != chaos.Join {
				t.Fatalf("want a confirmed rewound failure shrunk to the join:\n%s", out)
			}
			if !strings.Contains(out, "offsets rewound: instance ") || !strings.Contains(out, "a partition it did not own") {
				t.Errorf("no rewind in the timeline:\n%s", out)
			}
		})
	}
}

// A join says which partitions moved to the new instance, and says so
// when none did: with as many instances as partitions a sticky balancer
// keeps every partition where it is (the fault struck nothing).
func TestGroupJoinOutcome(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, partitions, want string
	}{
		{"as many instances as partitions", "partitions: 3", "gave it no partition"},
		{"more partitions", "partitions: 6", "moved to it"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			text := bugScenarioText(t, bugs.Correct, 300, ", BUGS_CHUNK_DELAY: 100ms, BUGS_HEARTBEAT: 300ms", groupChaos(3, 1, "join"))
			text = strings.Replace(text, "  quiet: 100ms\n", "  quiet: 300ms\n  instances: 3\n", 1)
			text = strings.Replace(text, "partitions: 3", tt.partitions, 1)
			rep, err := Replay(ctx, writeScenario(t, text), Options{})
			if err != nil {
				t.Fatal(err)
			}
			ch := rep.Run("chaos")
			if rep.Verdict != Pass || len(ch.Rebalances) != 1 || !strings.Contains(ch.Rebalances[0].Outcome, tt.want) {
				t.Fatalf("want a join that says %q:\n%s", tt.want, reportText(rep))
			}
		})
	}
}

// Against --brokers the group cannot be seen: a stall lasts the whole of
// rebalance.stall and its outcome says that the harness did not see the
// partitions move; a join says it was started, not that the group took
// it in.
func TestGroupBrokersMode(t *testing.T) {
	t.Parallel()
	b, err := kafka.StartBroker(kafka.BrokerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	text := bugScenarioText(t, bugs.Correct, 300, ", BUGS_CHUNK_DELAY: 50ms", "chaos:\n  seed: 1\n  rebalance: {count: 2, kinds: [stall, join], stall: 2s}\n")
	text = strings.Replace(text, "  quiet: 100ms\n", "  quiet: 300ms\n  instances: 3\n", 1)
	rep, err := Replay(ctx, writeScenario(t, text), Options{Brokers: b.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	out := reportText(rep)
	ch := rep.Run("chaos")
	if rep.Verdict != Pass || ch == nil || len(ch.Rebalances) != 2 {
		t.Fatalf("verdict %s:\n%s", rep.Verdict, out)
	}
	for _, rb := range ch.Rebalances {
		switch rb.Move {
		case chaos.Stall:
			if time.Duration(rb.Stalled) < 2*time.Second || !strings.Contains(rb.Outcome, "cannot be seen") {
				t.Errorf("stall: stalled %s, outcome %q", rb.Stalled, rb.Outcome)
			}
		case chaos.Join:
			if !strings.Contains(rb.Outcome, "cannot be seen") {
				t.Errorf("join: outcome %q", rb.Outcome)
			}
		}
	}
}

// The group has settled once it is stable with a member per running
// instance: not while an instance (a zombie, a restarted one) is still
// joining, and always when the group never had a generation.
func TestGroupSettled(t *testing.T) {
	b, err := kafka.StartBroker(kafka.BrokerConfig{Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	res := &RunResult{Group: "g", Topic: "t"}
	w := &groupWatch{h: &Harness{embedded: b}, res: res, eager: map[string]bool{}}
	cons := &consumer{insts: []*instance{{index: 0}, {index: 1}}}
	if !w.settled(cons) {
		t.Fatal("a group without a generation counts as settled")
	}
	join := func() *kgo.Client {
		cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addrs()...), kgo.ConsumerGroup("g"), kgo.ConsumeTopics("t"), kgo.AllowAutoTopicCreation())
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for {
				if fs := cl.PollFetches(context.Background()); fs.IsClientClosed() {
					return
				}
			}
		}()
		return cl
	}
	wait := func(n int) {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if st := b.Group("g", "t"); st != nil && st.State == "Stable" && len(st.Members) == n {
				return
			}
		}
		t.Fatalf("the group did not get %d member(s)", n)
	}
	a := join()
	defer a.Close()
	wait(1)
	res.Generations = []Generation{{Number: 1}}
	if w.settled(cons) {
		t.Fatal("settled with one member for two running instances")
	}
	c := join()
	defer c.Close()
	wait(2)
	if !w.settled(cons) {
		t.Fatal("not settled with a member per running instance")
	}
}

// A lone instance stalled past its session (the harness evicts it) finds
// at SIGCONT that its commits are refused (ILLEGAL_GENERATION) and that
// nobody took its partitions: the rejoin hands them back to it. franz-go
// (v1.22.3) rejoins from the refused commit without calling
// OnPartitionsLost and, the partitions being "still" its own, keeps its
// fetch positions past the records whose commits were refused: nothing
// commits them again and the group never settles. The correct consumer
// starts a new client when a commit is refused as fenced, and settles.
// The race is made certain: a heartbeat that learns of the eviction first
// takes franz-go's safe path (OnPartitionsLost, offsets fetched again), so
// the heartbeat is slow (20 s) and the stall comes after the cooperative
// member's quick first heartbeat (500 ms into the session; 100 ms a chunk).
func TestGroupStalledAloneRejoins(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	text := bugScenarioText(t, bugs.Correct, 300, ", BUGS_CHUNK_DELAY: 100ms, BUGS_HEARTBEAT: 20s", "chaos:\n  seed: 1\n  rebalance: {count: 1, kinds: [stall], stall: 1s}\n")
	rep, err := Replay(ctx, writeScenario(t, text), Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := reportText(rep)
	ch := rep.Run("chaos")
	if rep.Verdict != Pass || ch == nil || len(ch.Rebalances) != 1 {
		t.Fatalf("verdict %s:\n%s", rep.Verdict, out)
	}
	// The group is empty once its lone member is evicted: the broker
	// (kfake, as Kafka) answers ILLEGAL_GENERATION, not UNKNOWN_MEMBER_ID,
	// and the report names what the broker answered.
	refused := slices.ContainsFunc(ch.StaleCommits, func(c StaleCommit) bool { return c.Error == "ILLEGAL_GENERATION" })
	if !refused {
		t.Fatalf("no commit refused as ILLEGAL_GENERATION: the stall did not make a zombie, or the report misnames the refusal:\n%s", out)
	}
	t.Log(out)
}
