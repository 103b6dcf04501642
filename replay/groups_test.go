package replay

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/internal/bugs"
	"github.com/evtool/evtool/internal/waitfor"
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
	// Three consumer processes of the correct consumer through kills,
	// stalls and rejoins took more than 20 s to settle at load 30 on 2
	// cores (seed 4 of TestGroupCorrectTwentySeeds, now
	// TestGroupCorrectSixSeeds): bugScenarioText gives
	// it settleHangBound, and the tests bound it by its progress.
	text = strings.Replace(text, "  quiet: 100ms\n", "  quiet: 300ms\n  instances: 3\n", 1)
	return writeScenario(t, text)
}

// The correct consumer passes three instances under every rebalance kind;
// the report has the generations, who owned what, and the protocol.
func TestGroupCorrectThroughKafka(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	// Bounded by its progress: the three consumers run beside the
	// package's other replays (past 3 minutes at load 30).
	ctx, opts := watchProgress(t, Options{})
	sc := groupScenario(t, bugs.Correct, 200, groupChaos(1, 5, "join, leave, kill, stall, eager"))
	rep, err := Replay(ctx, sc, opts)
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
	if testing.Short() {
		t.Skip("-short: the bug catalogue through kfake, one replay per bug (minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
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
			ctx, opts := watchProgress(t, Options{ShrinkBudget: 12})
			sc := groupScenarioDelay(t, tt.bug, tt.events, tt.delay, tt.chaos)
			if tt.settle != "" {
				d, _ := time.ParseDuration(tt.settle)
				sc.Consumer.SettleTimeout = d
			}
			rep, err := Replay(ctx, sc, opts)
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
// (eager included) over six seeds, one baseline for all. Six, not the
// twenty it was: through Kafka each seed is a three-process chaos run of
// 10 to 15 s idle, and the twenty took 255 s of the package's full tier
// at load 20, which with the rest ran past go test's default 10-minute
// timeout; replaytest runs the in-process model over many more seeds.
// Seeds 1-6 plan every kind (the plan is the seed's, whatever the load):
// eager and stall in 3, leave in 5.
func TestGroupCorrectSixSeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	sc := groupScenario(t, bugs.Correct, 300, "chaos:\n  rebalance: {count: 4, kinds: [join, leave, kill, stall], eager: true, stall: 1s}\n")
	moves := map[chaos.RebalanceKind]int{}
	stale := 0
	passesSeeds(t, sc, 6, nil, func(seed uint64, ch *RunResult) {
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
	for _, k := range chaos.RebalanceKinds {
		if moves[k] == 0 {
			t.Errorf("no %s fault in 6 seeds: %v", k, moves)
		}
	}
	// Whether a stalled zombie's retried commit reaches the broker after
	// its eviction depends on timing (6 in 20 seeds at load 20): counted,
	// not required; TestGroupStalledAloneRejoins makes one certain.
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
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	ctx, opts := watchProgress(t, Options{})
	text := bugScenarioText(t, bugs.Correct, 300, ", BUGS_KIP848: \"1\", BUGS_CHUNK_DELAY: 20ms", groupChaos(2, 3, "join, kill, stall"))
	text = strings.Replace(text, "  quiet: 100ms\n", "  quiet: 300ms\n  instances: 3\n", 1)
	rep, err := Replay(ctx, writeScenario(t, text), opts)
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
// and shrinks to the join. Against --brokers (a real cluster) a poll sees
// the offset of the partition that moved go back, without its sender.
// The correct consumer passes the same scenario.
func TestGroupRevokedCommitThroughKafka(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	for _, tt := range []struct {
		bug  bugs.Bug
		want Verdict
		// brokers: the broker is reached with --brokers, as a real
		// cluster: the rewind is polled, its sender not named.
		brokers bool
	}{
		{bugs.RevokedCommit, Fail, false},
		{bugs.Correct, Pass, false},
		{bugs.RevokedCommit, Fail, true},
		{bugs.Correct, Pass, true},
	} {
		name := "embedded/" + string(tt.bug)
		if tt.brokers {
			name = "brokers/" + string(tt.bug)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			text := bugScenarioText(t, tt.bug, 600, ", BUGS_CHUNK_DELAY: 100ms, BUGS_CHUNK_RECORDS: \"4\", BUGS_HEARTBEAT: 300ms", groupChaos(3, 1, "join"))
			text = strings.Replace(text, "  quiet: 100ms\n", "  quiet: 300ms\n  instances: 3\n", 1)
			text = strings.Replace(text, "partitions: 3", "partitions: 6", 1)
			opts := Options{ShrinkBudget: 4}
			if tt.brokers {
				opts = Options{Brokers: externalBroker(t), ShrinkBudget: -1}
			}
			ctx, opts := watchProgress(t, opts)
			rep, err := Replay(ctx, writeScenario(t, text), opts)
			if err != nil {
				t.Fatal(err)
			}
			out := reportText(rep)
			if rep.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s:\n%s", rep.Verdict, tt.want, out)
			}
			ch := rep.Run("chaos")
			if tt.want == Pass {
				if len(ch.Rewinds) > 0 {
					t.Errorf("rewinds reported for the correct consumer: %v", ch.Rewinds)
				}
				return
			}
			if ch.Failure == nil || ch.Failure.Reason != "rewound" || len(ch.Rewinds) == 0 {
				t.Fatalf("want a rewound failure:\n%s", out)
			}
			// The failing rewind is the first by a member that did not
			// own the partition, not always the first listed: the new
			// owner's first commit, below the stale one that came
			// before it, is a rewind too (more often on a loaded
			// machine).
			if tt.brokers {
				if i := slices.IndexFunc(ch.Rewinds, func(rw Rewind) bool { return rw.Moved }); i < 0 || !ch.Rewinds[i].Polled || ch.Rewinds[i].Instance != -1 {
					t.Errorf("rewinds %+v: want one polled, of a partition that moved, sender not named", ch.Rewinds)
				}
				if !strings.Contains(out, "a poll cannot tell who committed") {
					t.Errorf("the report does not say the sender is not known:\n%s", out)
				}
				return
			}
			if !slices.ContainsFunc(ch.Rewinds, func(rw Rewind) bool { return rw.Foreign }) || rep.Confirmed == nil || !*rep.Confirmed || rep.Shrink == nil || len(rep.Shrink.Faults) != 1 || rep.Shrink.Faults[0].Move != chaos.Join {
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
			ctx, opts := watchProgress(t, Options{})
			text := bugScenarioText(t, bugs.Correct, 300, ", BUGS_CHUNK_DELAY: 100ms, BUGS_HEARTBEAT: 300ms", groupChaos(3, 1, "join"))
			text = strings.Replace(text, "  quiet: 100ms\n", "  quiet: 300ms\n  instances: 3\n", 1)
			text = strings.Replace(text, "partitions: 3", tt.partitions, 1)
			rep, err := Replay(ctx, writeScenario(t, text), opts)
			if err != nil {
				t.Fatal(err)
			}
			ch := rep.Run("chaos")
			if rep.Verdict != Pass || len(ch.Rebalances) != 1 {
				t.Fatalf("want a passing run with one join:\n%s", reportText(rep))
			}
			// A sticky balancer keeps every partition with its owner only
			// if the group was balanced when the instance joined: on a
			// loaded machine the three instances may not all hold one
			// yet, and then the newcomer may get one.
			if tt.partitions == "partitions: 3" && !balancedBefore(ch.Generations, ch.Rebalances[0].Time) {
				if !strings.Contains(ch.Rebalances[0].Outcome, "the group took it in") {
					t.Fatalf("want a join the group took in:\n%s", reportText(rep))
				}
				t.Skipf("the group was not one partition per instance when the fault struck (a loaded machine); the join: %s", ch.Rebalances[0].Outcome)
			}
			if !strings.Contains(ch.Rebalances[0].Outcome, tt.want) {
				t.Fatalf("want a join that says %q:\n%s", tt.want, reportText(rep))
			}
		})
	}
}

// externalBroker starts a kfake as a cluster replay reaches with
// --brokers: the embedded broker's hooks and group state are off.
func externalBroker(t *testing.T) []string {
	t.Helper()
	b, err := kafka.StartBroker(kafka.BrokerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b.Addrs()
}

// Against --brokers the group is followed through the admin API: the
// report has polled generations naming the instances, the protocol, and
// says what needs the embedded broker; a stall evicts the stalled member
// (LeaveGroup) and its partitions move, a join says which partitions
// moved to it.
func TestGroupBrokersMode(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	// The chunk delay is spent outside the consumer's store lock: a
	// polled stall strikes at any moment, and one that stops an instance
	// holding the lock its peers wait for keeps them from rejoining
	// (BlockRebalanceOnPoll), so the group cannot move its partitions
	// until the SIGCONT. The outcome says so; that replay is run again
	// (at most twice) rather than taken as the harness's fault.
	text := bugScenarioText(t, bugs.Correct, 300, ", BUGS_CHUNK_DELAY: 200ms, BUGS_HEARTBEAT: 300ms", "chaos:\n  seed: 2\n  rebalance: {count: 2, kinds: [stall, join], stall: 3s}\n") // seed 2: a stall, then a join
	text = strings.Replace(text, "  quiet: 100ms\n", "  quiet: 300ms\n  instances: 3\n", 1)
	text = strings.Replace(text, "partitions: 3", "partitions: 6", 1)
	var rep *Report
	var out string
	var ch *RunResult
	for attempt := 1; ; attempt++ {
		var err error
		ctx, opts := watchProgress(t, Options{Brokers: externalBroker(t)})
		rep, err = Replay(ctx, writeScenario(t, text), opts)
		if err != nil {
			t.Fatal(err)
		}
		out = reportText(rep)
		ch = rep.Run("chaos")
		stuck := ch != nil && slices.ContainsFunc(ch.Rebalances, func(rb Rebalance) bool {
			return rb.Move == chaos.Stall && strings.Contains(rb.Outcome, "the group had not moved its partitions")
		})
		if !stuck || attempt == 3 {
			break
		}
		t.Logf("attempt %d: the stall struck an instance holding the store lock, again:\n%s", attempt, out)
	}
	if rep.Verdict != Pass || ch == nil || len(ch.Rebalances) != 2 {
		t.Fatalf("verdict %s:\n%s", rep.Verdict, out)
	}
	if ch.Protocol.Protocol != "classic" || len(ch.Generations) < 2 {
		t.Fatalf("protocol %q, %d generations, want classic and at least 2:\n%s", ch.Protocol, len(ch.Generations), out)
	}
	for _, g := range ch.Generations {
		if !g.Polled {
			t.Errorf("generation %d not marked polled", g.Number)
		}
		for _, o := range g.Owners {
			if o.Instance < 0 {
				t.Errorf("generation %d: member %s not named as an instance", g.Number, o.Member)
			}
		}
	}
	if ch.Rebalances[0].Move != chaos.Stall || ch.Rebalances[1].Move != chaos.Join {
		t.Fatalf("faults %s, %s: want a stall, then a join", ch.Rebalances[0].Move, ch.Rebalances[1].Move)
	}
	for _, rb := range ch.Rebalances {
		switch rb.Move {
		case chaos.Stall:
			if rb.Evicted == 0 || !strings.Contains(rb.Outcome, "its partitions moved") {
				t.Errorf("stall: evicted %d, outcome %q", rb.Evicted, rb.Outcome)
			}
		case chaos.Join:
			if !strings.Contains(rb.Outcome, "moved to it") {
				t.Errorf("join: outcome %q", rb.Outcome)
			}
		}
	}
	for _, want := range []string{"polled generation #1 (start", "need the embedded broker"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	t.Log(out)
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
	if !w.settled(context.Background(), cons) {
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
		waitfor.Must(t, 30*time.Second, fmt.Sprintf("the group stable with %d member(s)", n), func() bool {
			st := b.Group("g", "t")
			return st != nil && st.State == "Stable" && len(st.Members) == n
		})
	}
	a := join()
	defer a.Close()
	wait(1)
	res.Generations = []Generation{{Number: 1}}
	if w.settled(context.Background(), cons) {
		t.Fatal("settled with one member for two running instances")
	}
	c := join()
	defer c.Close()
	wait(2)
	if !w.settled(context.Background(), cons) {
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
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	ctx, opts := watchProgress(t, Options{})
	text := bugScenarioText(t, bugs.Correct, 300, ", BUGS_CHUNK_DELAY: 100ms, BUGS_HEARTBEAT: 20s", "chaos:\n  seed: 1\n  rebalance: {count: 1, kinds: [stall], stall: 1s}\n")
	rep, err := Replay(ctx, writeScenario(t, text), opts)
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

// Polled (a real cluster), a rewind of a partition that moved is one to
// fail the run even when the poll missed the generation in between (the
// partition unassigned while it was revoked): it names the former owner,
// not the sender. A rewind of a partition that never moved is listed only.
func TestGroupPolledRewind(t *testing.T) {
	res := &RunResult{Group: "g", Topic: "t"}
	w := &groupWatch{h: &Harness{}, res: res, start: time.Now(), members: map[string]int{"a": 0, "b": 1}, eager: map[string]bool{},
		senders: map[int32]map[int64]string{}, owners: map[int32]string{}, lastOwner: map[int32]string{}, former: map[int32]string{}}
	gen := func(committed map[int32]int64, owners ...kafka.GroupMember) *kafka.GroupState {
		return &kafka.GroupState{State: "Stable", Generation: -1, Members: owners, Committed: committed}
	}
	a := func(ps ...int32) kafka.GroupMember { return kafka.GroupMember{ID: "a", Partitions: ps} }
	b := func(ps ...int32) kafka.GroupMember { return kafka.GroupMember{ID: "b", Partitions: ps} }
	w.observe(gen(map[int32]int64{0: 10, 1: 10}, a(0, 1)))
	w.observe(gen(map[int32]int64{0: 20, 1: 20}, a(0), b()))  // p1 revoked
	w.observe(gen(map[int32]int64{0: 30, 1: 40}, a(0), b(1))) // p1 to b
	if f := w.foreignRewind(); f != nil {
		t.Fatalf("a rewind before any offset went back: %+v", f)
	}
	w.observe(gen(map[int32]int64{0: 25, 1: 30}, a(0), b(1)))
	if len(res.Generations) != 3 || res.Generations[2].Number != 3 || !res.Generations[2].Polled {
		t.Fatalf("generations %+v: want 3, numbered as seen, polled", res.Generations)
	}
	if len(res.Rewinds) != 2 {
		t.Fatalf("rewinds %+v, want p0 and p1", res.Rewinds)
	}
	f := w.foreignRewind()
	if f == nil || f.Partition != 1 || !f.Polled || !f.Moved || f.Former != 0 || f.Owner != 1 || f.Instance != -1 {
		t.Fatalf("failing rewind %+v: want p1, polled, moved from instance 0 to 1, sender not known", f)
	}
	want := "p1 went back from 40 to 30 between two polls (--brokers: a poll cannot tell who committed; the partition had moved from instance 0 to instance 1, so likely its former owner committing a partition revoked from it)"
	if got := f.String(); got != want {
		t.Errorf("rewind:\n%s\nwant:\n%s", got, want)
	}
	for _, rw := range res.Rewinds {
		if rw.Partition == 0 && (rw.Moved || !strings.Contains(rw.String(), "owner: instance 0")) {
			t.Errorf("p0 never moved: %+v %s", rw, rw)
		}
	}
}

// Polled, a rewind of a partition that moved fails the run only when its
// former owner can still commit it: its member is still in the group, or
// its instance rejoined as another member. A former owner that was killed
// (gone from the group, or restarted as the partition's owner now) cannot
// have sent it: the owner itself reset the partition, listed only.
func TestGroupPolledRewindFormerOwner(t *testing.T) {
	m := func(id string, ps ...int32) kafka.GroupMember { return kafka.GroupMember{ID: id, Partitions: ps} }
	gen := func(committed map[int32]int64, owners ...kafka.GroupMember) *kafka.GroupState {
		return &kafka.GroupState{State: "Stable", Generation: -1, Members: owners, Committed: committed}
	}
	for _, tt := range []struct {
		name string
		// after: the group once p1 moved from a (instance 0) and its
		// offset went back.
		after *kafka.GroupState
		fails bool
	}{
		{"former owner still in the group", gen(map[int32]int64{0: 30, 1: 20}, m("a", 0), m("b", 1)), true},
		{"former owner's instance rejoined as another member", gen(map[int32]int64{0: 30, 1: 20}, m("c", 0), m("b", 1)), true},
		{"former owner killed, not restarted", gen(map[int32]int64{0: 30, 1: 20}, m("b", 0, 1)), false},
		{"former owner restarted as the owner", gen(map[int32]int64{0: 30, 1: 20}, m("b", 0), m("c", 1)), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := &RunResult{Group: "g", Topic: "t"}
			w := &groupWatch{h: &Harness{}, res: res, start: time.Now(), members: map[string]int{"a": 0, "b": 1, "c": 0}, eager: map[string]bool{},
				senders: map[int32]map[int64]string{}, owners: map[int32]string{}, lastOwner: map[int32]string{}, former: map[int32]string{}}
			w.observe(gen(map[int32]int64{0: 10, 1: 10}, m("a", 0, 1), m("b")))
			moved := tt.after.Members
			// p1 moved to its owner in after, at offset 40.
			w.observe(gen(map[int32]int64{0: 30, 1: 40}, moved...))
			w.observe(tt.after)
			if len(res.Rewinds) != 1 || res.Rewinds[0].Partition != 1 {
				t.Fatalf("rewinds %+v, want p1's", res.Rewinds)
			}
			if f := w.foreignRewind(); (f != nil) != tt.fails {
				t.Fatalf("failing rewind %+v, want one: %v (%s)", f, tt.fails, res.Rewinds[0])
			}
		})
	}
}

// On the embedded broker every commit that moves an offset back is a
// rewind, to -1 (no offset: the next owner starts over) too, as before
// the group was polled on real clusters; only a poll skips -1.
func TestGroupEmbeddedRewindToNoOffset(t *testing.T) {
	b, err := kafka.StartBroker(kafka.BrokerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, tt := range []struct {
		name string
		h    *Harness
		want int
	}{
		{"embedded", &Harness{embedded: b}, 1},
		{"polled", &Harness{}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := &RunResult{Group: "g", Topic: "t"}
			w := &groupWatch{h: tt.h, res: res, start: time.Now(), members: map[string]int{}, eager: map[string]bool{},
				senders: map[int32]map[int64]string{}, owners: map[int32]string{}, lastOwner: map[int32]string{}, former: map[int32]string{}}
			w.mu.Lock()
			w.noteRewinds(map[int32]int64{0: 10})
			w.noteRewinds(map[int32]int64{0: -1})
			w.mu.Unlock()
			if len(res.Rewinds) != tt.want {
				t.Fatalf("rewinds %+v, want %d", res.Rewinds, tt.want)
			}
		})
	}
}

// A kill or stall whose instance's member is not known evicts every
// member not known as an instance (Apache Kafka: member hosts without a
// port); the outcome says so, and says nothing when the member was known.
func TestGroupGuessedEviction(t *testing.T) {
	w := &groupWatch{res: &RunResult{}, members: map[string]int{"a": 0, "b": 1}}
	for _, tt := range []struct {
		name    string
		inst    int
		members []string
		want    string
	}{
		{"known", 1, []string{"b"}, ""},
		{"none", 2, nil, ""},
		{"not known", 2, []string{"x", "y"}, "; instance 2's member was not known: the 2 member(s) not known as an instance were evicted, live ones included (the whole group rebalanced)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := w.guessedEviction(tt.inst, tt.members); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// balancedBefore reports whether the last generation before at gave each
// member exactly one partition.
func balancedBefore(gens []Generation, at Duration) bool {
	var last *Generation
	for i := range gens {
		if gens[i].Time < at {
			last = &gens[i]
		}
	}
	if last == nil || len(last.Owners) == 0 {
		return false
	}
	for _, o := range last.Owners {
		if len(o.Partitions) != 1 {
			return false
		}
	}
	return true
}
