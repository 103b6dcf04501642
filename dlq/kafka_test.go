package dlq_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/dlq"
	"github.com/evtool/evtool/dlq/dlqtest"
	"github.com/evtool/evtool/internal/waitfor"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/report"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var base = dlqtest.Base

// fixture is a broker with topic orders holding example events and
// orders.dlq holding their dead letters, one per convention, plus an
// invalid event and a record that is no event.
type fixture struct {
	b    *kafka.Broker
	cc   kafka.ClientConfig
	cat  *catalog.Catalog
	orig []*kgo.Record
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	b, err := kafka.StartBroker(kafka.BrokerConfig{Partitions: 3, Topics: []string{"orders", "orders.dlq"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	cat, err := catalog.Load("../examples/orders")
	if err != nil {
		t.Fatal(err)
	}
	fx := &fixture{b: b, cc: kafka.ClientConfig{Brokers: b.Addrs()}, cat: cat}
	events, err := os.ReadFile("../examples/orders/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if fx.orig, err = dlqtest.Seed(context.Background(), fx.cc, events, 0); err != nil {
		t.Fatal(err)
	}
	return fx
}

// TestInspectJSON checks inspect's JSON against a golden file (go test
// ./dlq -run TestInspectJSON -update rewrites it).
func TestInspectJSON(t *testing.T) {
	fx := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ins, err := dlq.Inspect(ctx, dlq.InspectOptions{Client: fx.cc, Topic: "orders.dlq", Catalog: fx.cat, Now: base.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := dlq.WriteInspection(&buf, report.FormatJSON, ins); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "inspect.golden.json")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, buf.Bytes()) {
		t.Errorf("inspect JSON differs from %s (rerun with -update to accept):\n%s", golden, buf.String())
	}
	buf.Reset()
	if err := dlq.WriteInspection(&buf, report.FormatText, ins); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"orders.dlq: 6 dead letter(s)",
		"0@1  2026-12-01T09:01:00Z  spring  from orders/1@0",
		"error  org.apache.kafka.connect.errors.DataException: Converting byte[] to Kafka Connect data failed",
		"event  com.example.order.placed v1 id a247fb24-2a46-4b64-a864-c299ad83398f",
		"summary: 6 record(s), oldest 2026-12-01T09:00:00Z (1h0m0s old)",
		"  by type:\n       5  com.example.order.placed",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, buf.String())
		}
	}
}

// admin returns an admin client of the fixture's broker.
func (fx *fixture) admin(t *testing.T) *kadm.Client {
	t.Helper()
	o, err := fx.cc.Options()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(o...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

// consumed reads what a topic holds.
func consumed(t *testing.T, cc kafka.ClientConfig, topic string) []*kgo.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	settled(t, ctx, cc, topic)
	r, err := kafka.OpenTopics(ctx, cc, kafka.ReadOptions{Topics: []string{topic}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []*kgo.Record
	for {
		rec, err := r.Next(ctx)
		if errors.Is(err, kafka.ErrEnd) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
}

// settled waits until the topic's last stable offsets reach its high
// watermarks: the markers of the transactions redrive committed are
// written after EndTxn returns, and until then a committed read stops
// short of the records. A crashed run's open transaction does not settle:
// settled gives up after 2s and the read sees what is committed.
func settled(t *testing.T, ctx context.Context, cc kafka.ClientConfig, topic string) {
	t.Helper()
	o, err := cc.Options()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(o...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	waitfor.Condition(2*time.Second, func() bool {
		hw, err1 := adm.ListEndOffsets(ctx, topic)
		lso, err2 := adm.ListCommittedOffsets(ctx, topic)
		if err1 != nil || err2 != nil {
			return false
		}
		same := true
		hw.Each(func(o kadm.ListedOffset) {
			if l, ok := lso.Lookup(topic, o.Partition); !ok || l.Offset != o.Offset {
				same = false
			}
		})
		return same
	})
}

func redrive(t *testing.T, fx *fixture, o dlq.RedriveOptions) *dlq.Redrive {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o.Client, o.Topic, o.Catalog = fx.cc, "orders.dlq", fx.cat
	res, err := dlq.RunRedrive(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func actions(res *dlq.Redrive) string {
	var b strings.Builder
	for _, o := range res.Outcomes {
		b.WriteString(string(o.Action)[:2] + " ")
	}
	return strings.TrimSpace(b.String())
}

func header(r *kgo.Record, key string) (string, bool) {
	for _, h := range r.Headers {
		if h.Key == key {
			return string(h.Value), true
		}
	}
	return "", false
}

func TestRedrive(t *testing.T) {
	fx := newFixture(t)
	dry := redrive(t, fx, dlq.RedriveOptions{})
	// send: the four valid events; refused: the invalid one and the one
	// without an event (and without an origin).
	if got, want := actions(dry), "se se se se re re"; got != want {
		t.Fatalf("dry run: %s, want %s", got, want)
	}
	if n := len(consumed(t, fx.cc, "orders")); n != 5 {
		t.Fatalf("a dry run sent: orders holds %d records", n)
	}
	res := redrive(t, fx, dlq.RedriveOptions{Apply: true})
	if got, want := actions(res), "se se se se re re"; got != want {
		t.Fatalf("apply: %s, want %s", got, want)
	}
	recs := consumed(t, fx.cc, "orders")
	if len(recs) != 9 {
		t.Fatalf("orders holds %d records, want 5 + 4 redriven", len(recs))
	}
	redriven := 0
	for _, r := range recs {
		n, ok := header(r, dlq.RedriveCountHeader)
		if !ok {
			continue
		}
		redriven++
		if n != "1" {
			t.Errorf("%s/%d@%d: redrive count %q", r.Topic, r.Partition, r.Offset, n)
		}
		for _, h := range r.Headers {
			if h.Key != dlq.RedriveCountHeader && dlq.IsDLQHeader(h.Key) {
				t.Errorf("redriven record keeps the dead-letter header %s", h.Key)
			}
		}
		if _, ok := header(r, "ce_id"); !ok {
			t.Errorf("redriven record lost its ce_ headers: %v", r.Headers)
		}
	}
	if redriven != 4 {
		t.Errorf("%d redriven records", redriven)
	}
	// A rerun of the group resumes after everything decided: nothing more.
	again := redrive(t, fx, dlq.RedriveOptions{Apply: true})
	if len(again.Outcomes) != 0 || len(consumed(t, fx.cc, "orders")) != 9 {
		t.Fatalf("rerun: %s; orders holds %d", actions(again), len(consumed(t, fx.cc, "orders")))
	}
	// Another group with --force sends the invalid event; the non-event
	// has no origin and is still refused.
	forced := redrive(t, fx, dlq.RedriveOptions{Apply: true, Force: true, Group: "forced", ErrorMatch: regexp.MustCompile(`^invalid|boom`)})
	if got, want := actions(forced), "sk sk sk sk se re"; got != want {
		t.Fatalf("forced: %s, want %s", got, want)
	}
	if !strings.HasPrefix(forced.Outcomes[4].Reason, "forced: ") {
		t.Errorf("forced reason %q", forced.Outcomes[4].Reason)
	}
}

// TestRedriveLoopGuard dead-letters redriven records again until the loop
// guard refuses them.
func TestRedriveLoopGuard(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	for round := 1; round <= 3; round++ {
		res := redrive(t, fx, dlq.RedriveOptions{Apply: true, IDs: []string{"a247fb24-2a46-4b64-a864-c299ad83398f"}, MaxRedrives: 2})
		var o *dlq.Outcome
		for i := range res.Outcomes {
			if res.Outcomes[i].Action != dlq.ActionSkipped {
				o = &res.Outcomes[i]
			}
		}
		if o == nil {
			t.Fatalf("round %d: nothing selected: %s", round, actions(res))
		}
		if round == 3 {
			if o.Action != dlq.ActionRefused || !strings.Contains(o.Reason, "loop guard") {
				t.Fatalf("round 3: %s %s", o.Action, o.Reason)
			}
			return
		}
		if o.Action != dlq.ActionSent {
			t.Fatalf("round %d: %s %s", round, o.Action, o.Reason)
		}
		// The consumer fails again: it dead-letters the redriven record.
		// The redriven record: consumed returns partitions in no set
		// order, so the last record read need not be it.
		var last *kgo.Record
		for _, r := range consumed(t, fx.cc, "orders") {
			if n, ok := header(r, dlq.RedriveCountHeader); ok && n == fmt.Sprint(round) {
				last = r
			}
		}
		if last == nil {
			t.Fatalf("round %d: the redriven record is not on orders", round)
		}
		if err := dlqtest.Produce(ctx, fx.cc, dlqtest.DeadLetter(last, "orders.dlq", dlq.ConventionEvtool, "unknown-version", "still failing")); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRedriveCrashBetweenProduceAndCommit stops a run after a produce was
// acknowledged and before its commit: the produce and the commit are one
// transaction, so a consumer reading committed records never sees the
// record the crash cut off, and the rerun sends it once.
func TestRedriveCrashBetweenProduceAndCommit(t *testing.T) {
	fx := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	crash := errors.New("crash")
	func() {
		defer func() {
			if r := recover(); r != crash {
				panic(r)
			}
		}()
		_, _ = dlq.RunRedrive(ctx, dlq.RedriveOptions{Client: fx.cc, Topic: "orders.dlq", Catalog: fx.cat, Apply: true,
			AfterSend: func(o dlq.Outcome) {
				if o.Offset == 1 {
					panic(crash) // the process dies: no commit for 0@1
				}
			}})
	}()
	if n := len(consumed(t, fx.cc, "orders")); n != 6 {
		t.Fatalf("before the crash 1 record was sent and committed; orders holds %d", n)
	}
	res := redrive(t, fx, dlq.RedriveOptions{Apply: true})
	if got, want := actions(res), "se se se re re"; got != want {
		t.Fatalf("rerun: %s, want %s (resuming at 0@1)", got, want)
	}
	if n := len(consumed(t, fx.cc, "orders")); n != 9 {
		t.Fatalf("orders holds %d, want 5 + 4: each record sent once", n)
	}
}

// TestRedriveInterrupted cancels the run between records: it commits what
// it sent and says where it stopped; the rerun sends the rest.
func TestRedriveInterrupted(t *testing.T) {
	fx := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := dlq.RunRedrive(ctx, dlq.RedriveOptions{Client: fx.cc, Topic: "orders.dlq", Catalog: fx.cat, Apply: true,
		AfterSend: func(o dlq.Outcome) {
			if o.Offset == 1 {
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Interrupted != "before orders.dlq/0@2; rerun to resume" {
		t.Fatalf("interrupted %q", res.Interrupted)
	}
	again := redrive(t, fx, dlq.RedriveOptions{Apply: true})
	if got, want := actions(again), "se se re re"; got != want {
		t.Fatalf("rerun: %s, want %s", got, want)
	}
	if n := len(consumed(t, fx.cc, "orders")); n != 9 {
		t.Fatalf("orders holds %d, want 9: each record sent once", n)
	}
}

// A record with malformed dead-letter headers stops redrive before it:
// the group does not pass it, and inspect lists it with the problem.
func TestRedriveMalformed(t *testing.T) {
	fx := newFixture(t)
	bad := &kgo.Record{Topic: "orders.dlq", Value: []byte("x"), Headers: []kgo.RecordHeader{{Key: "kafka_dlt-original-topic", Value: []byte("orders")}, {Key: "kafka_dlt-original-offset", Value: []byte{1, 2, 3}}}}
	if err := dlqtest.Produce(context.Background(), fx.cc, bad); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"se se se se re re er", "er"} {
		res := redrive(t, fx, dlq.RedriveOptions{Apply: true})
		if got := actions(res); got != want {
			t.Fatalf("apply: %s, want %s", got, want)
		}
		if want := "orders.dlq/0@6: header kafka_dlt-original-offset: 0x010203 (3 bytes): want a decimal number or a big-endian int64 (8 bytes)"; res.Err != want {
			t.Fatalf("error %q, want %q", res.Err, want)
		}
	}
	if n := len(consumed(t, fx.cc, "orders")); n != 9 {
		t.Fatalf("orders holds %d, want 9", n)
	}
	ins, err := dlq.Inspect(context.Background(), dlq.InspectOptions{Client: fx.cc, Topic: "orders.dlq"})
	if err != nil {
		t.Fatal(err)
	}
	if ins.Summary.Malformed != 1 || ins.Records[6].Problem == "" {
		t.Fatalf("malformed %d, problem %q", ins.Summary.Malformed, ins.Records[6].Problem)
	}
}

// TestRedriveSeveralPartitions spreads dead letters over three partitions,
// valid and invalid interleaved, crashes a run mid-way and reruns it: every
// valid record reaches orders once, and the group ends past every record
// of every partition.
func TestRedriveSeveralPartitions(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	var more []*kgo.Record
	for p := int32(1); p <= 2; p++ {
		for i, o := range fx.orig {
			r := dlqtest.DeadLetter(o, "orders.dlq", dlq.ConventionSpring, "x.Failed", fmt.Sprintf("p%d-%d", p, i))
			r.Partition = p
			more = append(more, r)
		}
	}
	if err := dlqtest.Produce(ctx, fx.cc, more...); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("crash")
	sent := 0
	func() {
		defer func() {
			if r := recover(); r != crash {
				panic(r)
			}
		}()
		_, _ = dlq.RunRedrive(ctx, dlq.RedriveOptions{Client: fx.cc, Topic: "orders.dlq", Catalog: fx.cat, Apply: true,
			AfterSend: func(o dlq.Outcome) {
				if sent++; o.Partition == 1 && o.Offset == 2 {
					panic(crash)
				}
			}})
	}()
	res := redrive(t, fx, dlq.RedriveOptions{Apply: true})
	if got, want := actions(res), "se se re se se se se re"; got != want {
		t.Fatalf("rerun: %s, want %s (resuming at 1@2)", got, want)
	}
	// 5 originals; valid dead letters: 4 in partition 0, 4 in 1, 4 in 2.
	if n := len(consumed(t, fx.cc, "orders")); n != 5+12 {
		t.Fatalf("orders holds %d, want 17: each valid record sent once", n)
	}
	if again := redrive(t, fx, dlq.RedriveOptions{Apply: true}); len(again.Outcomes) != 0 {
		t.Fatalf("a third run decided %s", actions(again))
	}
}

// TestRedriveDryRunMissingTarget: the dry run rehearses --apply, so a
// target topic that does not exist fails it too, before anything is sent.
func TestRedriveDryRunMissingTarget(t *testing.T) {
	fx := newFixture(t)
	for _, apply := range []bool{false, true} {
		res := redrive(t, fx, dlq.RedriveOptions{Apply: apply, To: "orders-retry", Type: "com.example.order.placed"})
		if !strings.Contains(res.Err, "target topic(s) orders-retry do not exist") {
			t.Errorf("apply %v: error %q", apply, res.Err)
		}
		if errored, _ := res.Failed(); !errored {
			t.Errorf("apply %v: not failed", apply)
		}
	}
	if n := len(consumed(t, fx.cc, "orders")); n != 5 {
		t.Fatalf("orders holds %d records", n)
	}
}

// TestRedriveDryRunWaitsForPendingCommit runs a dry run while a redrive of
// the same group has produced a record and added the group's progress to
// its transaction, which then commits: the dry run reads the group's
// offsets once no transaction holds them (RequireStable), so it does not
// list 0@1, which --apply would not send again.
func TestRedriveDryRunWaitsForPendingCommit(t *testing.T) {
	fx := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The group exists (the broker reports a transaction's pending
	// offsets of a group it knows): it sent 0@0 and passed the rest over.
	first := redrive(t, fx, dlq.RedriveOptions{Apply: true, Offsets: []dlq.Position{{Partition: 0, Offset: 0}}})
	if got, want := actions(first), "se sk sk sk sk sk"; got != want {
		t.Fatalf("first run: %s, want %s", got, want)
	}
	type result struct {
		res *dlq.Redrive
		err error
	}
	dry := make(chan result, 1)
	notices := make(chan string, 10)
	_, err := dlq.RunRedrive(ctx, dlq.RedriveOptions{Client: fx.cc, Topic: "orders.dlq", Catalog: fx.cat, Apply: true, Offsets: []dlq.Position{{Partition: 0, Offset: 1}},
		AfterSend: func(o dlq.Outcome) {
			go func() {
				res, err := dlq.RunRedrive(ctx, dlq.RedriveOptions{Client: fx.cc, Topic: "orders.dlq", Catalog: fx.cat, Passed: true,
					Notice: func(msg string) { notices <- msg }})
				dry <- result{res, err}
			}()
			// The transaction commits once the dry run said it waits
			// for it (it may wait up to minutes: silence would look
			// like a hang).
			select {
			case msg := <-notices:
				if want := "group evtool-redrive-orders.dlq has a transaction pending on its offsets"; !strings.HasPrefix(msg, want) {
					t.Errorf("notice %q, want %q…", msg, want)
				}
			case <-time.After(20 * time.Second):
				t.Error("the dry run never said it waits for the pending transaction")
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	got := <-dry
	if got.err != nil {
		t.Fatal(got.err)
	}
	if got, want := actions(got.res), "se se re re"; got != want {
		t.Fatalf("the dry run: %s, want %s (0@1 was sent by the transaction that was committing)", got, want)
	}
}

func passed(res *dlq.Redrive) string {
	var s []string
	for _, p := range res.Passed {
		s = append(s, p.String())
	}
	return strings.Join(s, " ")
}

// TestRedrivePassedAgain: the group passes over refused and skipped
// records but remembers them; --passed and --offset decide them again,
// and nothing the group sent is sent twice.
func TestRedrivePassedAgain(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	orders := func(want int) {
		t.Helper()
		if n := len(consumed(t, fx.cc, "orders")); n != want {
			t.Fatalf("orders holds %d records, want %d", n, want)
		}
	}
	for _, step := range []struct {
		name            string
		o               dlq.RedriveOptions
		actions, passed string
		orders          int
	}{
		{"apply", dlq.RedriveOptions{Apply: true}, "se se se se re re", "0@4 0@5", 9},
		{"rerun", dlq.RedriveOptions{Apply: true}, "", "0@4 0@5", 9},
		{"dry run of the passed", dlq.RedriveOptions{Passed: true}, "re re", "0@4 0@5", 9},
		{"one of them, forced", dlq.RedriveOptions{Apply: true, Force: true, Offsets: []dlq.Position{{Partition: 0, Offset: 4}}}, "se", "0@5", 10},
		{"the rest, elsewhere", dlq.RedriveOptions{Apply: true, Passed: true, Force: true, To: "orders"}, "se", "", 11},
		{"nothing left", dlq.RedriveOptions{Apply: true, Passed: true, Force: true, To: "orders"}, "", "", 11},
		// Another group selects one event: the others are not selected,
		// passed over, and sent by --passed; the refused stay.
		{"one id", dlq.RedriveOptions{Apply: true, Group: "typed", IDs: []string{"7fa2b328-7f5a-4eef-acb5-2d97f5cd4a18"}}, "sk sk sk se sk sk", "0@0 0@1 0@2 0@4 0@5", 12},
		{"the others", dlq.RedriveOptions{Apply: true, Group: "typed", Passed: true}, "se se se re re", "0@4 0@5", 15},
		{"again", dlq.RedriveOptions{Apply: true, Group: "typed", Passed: true}, "re re", "0@4 0@5", 15},
	} {
		res := redrive(t, fx, step.o)
		if res.Err != "" {
			t.Fatalf("%s: %s", step.name, res.Err)
		}
		if got := actions(res); got != step.actions {
			t.Fatalf("%s: %s, want %s", step.name, got, step.actions)
		}
		if got := passed(res); got != step.passed {
			t.Fatalf("%s: passed over %q, want %q", step.name, got, step.passed)
		}
		orders(step.orders)
	}
	for _, tc := range []struct {
		pos dlq.Position
		err string
	}{
		{dlq.Position{Partition: 0, Offset: 0}, "--offset 0@0: group evtool-redrive-orders.dlq decided orders.dlq/0@0 in an earlier run and did not pass it over: it sent it"},
		{dlq.Position{Partition: 0, Offset: 99}, "--offset 0@99: orders.dlq holds no record there (partition 0 ends at 6)"},
		{dlq.Position{Partition: 7, Offset: 0}, "--offset 7@0: orders.dlq holds no record there"},
	} {
		_, err := dlq.RunRedrive(ctx, dlq.RedriveOptions{Client: fx.cc, Topic: "orders.dlq", Catalog: fx.cat, Apply: true, Offsets: []dlq.Position{tc.pos}})
		if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
			t.Errorf("--offset %s: error %v, want %q", tc.pos, err, tc.err)
		}
	}
	orders(15)
}

// TestRedriveCommitsOnlyInTransactions: --apply commits the group's
// progress in transactions only, also past the refused and skipped
// records after its last send. A plain OffsetCommit is not fenced by the
// transactional ID: a run another run of the group took over would move
// the group back before what that one sent, and the next run would send
// it again.
func TestRedriveCommitsOnlyInTransactions(t *testing.T) {
	fx := newFixture(t)
	plain := 0
	for _, g := range []string{dlq.DefaultGroup("orders.dlq"), "none"} {
		defer fx.b.OnCommit(g, func([]kafka.CommitTopic) bool { plain++; return false })()
	}
	for _, step := range []struct {
		o                      dlq.RedriveOptions
		actions, rerun, passed string
	}{
		// The refused records come after the last send.
		{dlq.RedriveOptions{Apply: true}, "se se se se re re", "", "0@4 0@5"},
		// Nothing to send at all.
		{dlq.RedriveOptions{Apply: true, Group: "none", Type: "com.example.order.paid"}, "sk sk sk sk sk sk", "", "0@0 0@1 0@2 0@3 0@4 0@5"},
	} {
		if got := actions(redrive(t, fx, step.o)); got != step.actions {
			t.Fatalf("group %q: %s, want %s", step.o.Group, got, step.actions)
		}
		again := redrive(t, fx, step.o)
		if got := actions(again); got != step.rerun || passed(again) != step.passed {
			t.Fatalf("group %q, rerun: %s passing over %q, want %q passing over %q", step.o.Group, got, passed(again), step.rerun, step.passed)
		}
	}
	if plain > 0 {
		t.Fatalf("%d plain (unfenced) OffsetCommit(s) of the redrive groups", plain)
	}
}

// TestRedriveGroupPastTheEnd: offsets of the group past a partition's end
// belong to an earlier topic of the name; reading from there would pass
// over the records the topic holds now without deciding them.
func TestRedriveGroupPastTheEnd(t *testing.T) {
	fx := newFixture(t)
	adm := fx.admin(t)
	var offs kadm.Offsets
	offs.Add(kadm.Offset{Topic: "orders.dlq", Partition: 0, At: 100, LeaderEpoch: -1})
	if err := adm.CommitAllOffsets(context.Background(), dlq.DefaultGroup("orders.dlq"), offs); err != nil {
		t.Fatal(err)
	}
	for _, apply := range []bool{false, true} {
		_, err := dlq.RunRedrive(context.Background(), dlq.RedriveOptions{Client: fx.cc, Topic: "orders.dlq", Catalog: fx.cat, Apply: apply})
		if want := "group evtool-redrive-orders.dlq committed offset 100 on orders.dlq/0, past its end 6: "; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("apply %v: error %v, want %q…", apply, err, want)
		}
	}
	if n := len(consumed(t, fx.cc, "orders")); n != 5 {
		t.Fatalf("orders holds %d records", n)
	}
}

// TestRedrivePassedInterrupted: an interrupted --passed run says to rerun
// with --passed (a plain rerun reads on from the group's offset and
// leaves the rest passed over); that rerun sends each record once.
func TestRedrivePassedInterrupted(t *testing.T) {
	fx := newFixture(t)
	first := redrive(t, fx, dlq.RedriveOptions{Apply: true, IDs: []string{"7fa2b328-7f5a-4eef-acb5-2d97f5cd4a18"}})
	if got := passed(first); got != "0@0 0@1 0@2 0@4 0@5" {
		t.Fatalf("passed over %q", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := dlq.RunRedrive(ctx, dlq.RedriveOptions{Client: fx.cc, Topic: "orders.dlq", Catalog: fx.cat, Apply: true, Passed: true,
		AfterSend: func(o dlq.Outcome) {
			if o.Offset == 0 {
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "before orders.dlq/0@1; rerun with --passed to resume"; res.Interrupted != want {
		t.Fatalf("interrupted %q, want %q", res.Interrupted, want)
	}
	again := redrive(t, fx, dlq.RedriveOptions{Apply: true, Passed: true})
	if got, want := actions(again), "se se re re"; got != want {
		t.Fatalf("rerun: %s, want %s", got, want)
	}
	if n := len(consumed(t, fx.cc, "orders")); n != 5+4 {
		t.Fatalf("orders holds %d, want 9: each valid record sent once", n)
	}
}

// TestRedrivePassedDeleted: records passed over and then deleted
// (retention, DeleteRecords) leave the list: they cannot be decided again.
func TestRedrivePassedDeleted(t *testing.T) {
	fx := newFixture(t)
	if got := passed(redrive(t, fx, dlq.RedriveOptions{Apply: true, IDs: []string{"7fa2b328-7f5a-4eef-acb5-2d97f5cd4a18"}})); got != "0@0 0@1 0@2 0@4 0@5" {
		t.Fatalf("passed over %q", got)
	}
	adm := fx.admin(t)
	var before kadm.Offsets
	before.Add(kadm.Offset{Topic: "orders.dlq", Partition: 0, At: 2})
	resp, err := adm.DeleteRecords(context.Background(), before)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
	res := redrive(t, fx, dlq.RedriveOptions{Passed: true})
	if got, want := actions(res), "se re re"; got != want {
		t.Fatalf("dry run: %s, want %s", got, want)
	}
	if got, want := passed(res), "0@4 0@5"; got != want {
		t.Fatalf("passed over %q, want %q", got, want)
	}
	// A deleted record was passed over, not sent: naming it says it is
	// gone, not that the group sent it.
	_, err = dlq.RunRedrive(context.Background(), dlq.RedriveOptions{Client: fx.cc, Topic: "orders.dlq", Catalog: fx.cat, Offsets: []dlq.Position{{Partition: 0, Offset: 0}}})
	if want := "--offset 0@0: orders.dlq holds no record there (partition 0 starts at 2: the records before were deleted)"; err == nil || err.Error() != want {
		t.Fatalf("--offset 0@0: error %v, want %q", err, want)
	}
}

// TestRedrivePassedTwoPartitions: the passed-over lists of two partitions
// are kept apart, a send in one commits the records passed over in the
// other, and an interrupted --passed run resumes without a double send.
func TestRedrivePassedTwoPartitions(t *testing.T) {
	fx := newFixture(t)
	var copies []*kgo.Record
	for _, orig := range fx.orig[:4] {
		dl := dlqtest.DeadLetter(orig, "orders.dlq", dlq.ConventionEvtool, "unknown-version", "copy")
		dl.Partition = 1
		copies = append(copies, dl)
	}
	if err := dlqtest.Produce(context.Background(), fx.cc, copies...); err != nil {
		t.Fatal(err)
	}
	orders := func(step string, want int) {
		t.Helper()
		if n := len(consumed(t, fx.cc, "orders")); n != want {
			t.Fatalf("%s: orders holds %d records, want %d", step, n, want)
		}
	}
	id := "7fa2b328-7f5a-4eef-acb5-2d97f5cd4a18" // the fourth event, in both partitions
	first := redrive(t, fx, dlq.RedriveOptions{Apply: true, IDs: []string{id}})
	if got, want := actions(first), "sk sk sk se sk sk sk sk sk se"; got != want {
		t.Fatalf("first run: %s, want %s", got, want)
	}
	if got, want := passed(first), "0@0 0@1 0@2 0@4 0@5 1@0 1@1 1@2"; got != want {
		t.Fatalf("first run passed over %q, want %q", got, want)
	}
	orders("first run", 5+2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := dlq.RunRedrive(ctx, dlq.RedriveOptions{Client: fx.cc, Topic: "orders.dlq", Catalog: fx.cat, Apply: true, Passed: true,
		AfterSend: func(o dlq.Outcome) {
			if o.Partition == 1 {
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "before orders.dlq/1@1; rerun with --passed to resume"; res.Interrupted != want {
		t.Fatalf("interrupted %q, want %q", res.Interrupted, want)
	}
	orders("interrupted run", 5+2+4)
	again := redrive(t, fx, dlq.RedriveOptions{Apply: true, Passed: true})
	if got, want := actions(again), "re re se se"; got != want {
		t.Fatalf("rerun: %s, want %s", got, want)
	}
	if got, want := passed(again), "0@4 0@5"; got != want {
		t.Fatalf("rerun passed over %q, want %q", got, want)
	}
	orders("rerun", 5+2+4+2)
	if last := redrive(t, fx, dlq.RedriveOptions{Apply: true, Passed: true}); actions(last) != "re re" {
		t.Fatalf("last run: %s, want re re", actions(last))
	}
	orders("last run", 5+2+4+2)
}

// TestRedriveMetadataOverflow: when the records passed over in a
// partition would not fit in a commit's metadata, --apply stops (exit 2)
// before committing them; the dry run says so too instead of promising a
// run --apply cannot do.
func TestRedriveMetadataOverflow(t *testing.T) {
	fx := newFixture(t)
	var letters []*kgo.Record
	for i := range 2000 {
		letters = append(letters, dlqtest.DeadLetter(fx.orig[0], "orders.dlq", dlq.ConventionEvtool, "unknown-version", fmt.Sprintf("copy %d", i)))
	}
	if err := dlqtest.Produce(context.Background(), fx.cc, letters...); err != nil {
		t.Fatal(err)
	}
	// Every other copy: the rest are passed over one by one, each
	// between two sent, in some 4.5 kB of metadata.
	var every []dlq.Position
	for off := int64(6); off < 6+2000; off += 2 {
		every = append(every, dlq.Position{Partition: 0, Offset: off})
	}
	res := redrive(t, fx, dlq.RedriveOptions{Offsets: every})
	if want := "bytes of commit metadata, more than Kafka's default limit of 4096"; !strings.Contains(res.Err, want) {
		t.Fatalf("dry run: error %q, want one saying %q", res.Err, want)
	}
	if failed, _ := res.Failed(); !failed {
		t.Fatal("dry run: not failed")
	}
	// --apply sends what fits and stops before the commit that would
	// not; a rerun sends nothing twice and stops there again.
	sent := 0
	for run := range 2 {
		app := redrive(t, fx, dlq.RedriveOptions{Offsets: every[sent:], Apply: true})
		if want := "more than Kafka's default limit of 4096: decide them again (--passed) or use another --group"; !strings.Contains(app.Err, want) {
			t.Fatalf("--apply run %d: error %q, want one saying %q", run, app.Err, want)
		}
		if run == 0 && app.Counts.Sent < 800 || run == 1 && app.Counts.Sent != 0 {
			t.Fatalf("--apply run %d: %d sent", run, app.Counts.Sent)
		}
		sent += app.Counts.Sent
	}
	if n := len(consumed(t, fx.cc, "orders")); n != 5+sent {
		t.Fatalf("orders holds %d records, want %d", n, 5+sent)
	}
}

// TestRedriveOffsetInterrupted: an interrupted --offset run names the
// offsets still to decide; the rerun it prints does not refuse the named
// record it sent (it is no longer passed over) and sends each record once.
func TestRedriveOffsetInterrupted(t *testing.T) {
	fx := newFixture(t)
	first := redrive(t, fx, dlq.RedriveOptions{Apply: true, IDs: []string{"7fa2b328-7f5a-4eef-acb5-2d97f5cd4a18"}})
	if got := passed(first); got != "0@0 0@1 0@2 0@4 0@5" {
		t.Fatalf("passed over %q", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	named := []dlq.Position{{Partition: 0, Offset: 0}, {Partition: 0, Offset: 1}}
	res, err := dlq.RunRedrive(ctx, dlq.RedriveOptions{Client: fx.cc, Topic: "orders.dlq", Catalog: fx.cat, Apply: true, Offsets: named,
		AfterSend: func(o dlq.Outcome) {
			if o.Offset == 0 {
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "before orders.dlq/0@1; rerun with --offset 0@1 to resume"; res.Interrupted != want {
		t.Fatalf("interrupted %q, want %q", res.Interrupted, want)
	}
	again := redrive(t, fx, dlq.RedriveOptions{Apply: true, Offsets: named[1:]})
	if got, want := actions(again), "se"; got != want {
		t.Fatalf("rerun: %s, want %s", got, want)
	}
	if n := len(consumed(t, fx.cc, "orders")); n != 5+3 {
		t.Fatalf("orders holds %d, want 8 (0@3, then 0@0 and 0@1): each record sent once", n)
	}
}

// TestKcatReadsRedrivenRecord: a foreign client (kcat, when installed)
// reads the records redrive --apply re-produced with their key, value and
// headers, the redrive count among them, from a read_committed consumer.
func TestKcatReadsRedrivenRecord(t *testing.T) {
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat not installed")
	}
	fx := newFixture(t)
	redrive(t, fx, dlq.RedriveOptions{Apply: true})
	want := map[string]*kgo.Record{} // by key and value, as kcat prints them
	for _, r := range consumed(t, fx.cc, "orders") {
		if _, ok := header(r, dlq.RedriveCountHeader); ok {
			want[string(r.Key)+"\x1f"+string(r.Value)] = r
		}
	}
	if len(want) != 4 {
		t.Fatalf("%d redriven records, want 4", len(want))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, kcat, "-C", "-b", fx.b.Addrs()[0], "-t", "orders", "-e", "-q",
		"-X", "isolation.level=read_committed", "-f", "%k\x1f%s\x1f%h\x1e").Output()
	if err != nil {
		t.Fatalf("kcat: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(string(out), "\x1e") {
		f := strings.Split(line, "\x1f")
		if len(f) != 3 {
			continue
		}
		// The originals share key and value with the redriven records:
		// the redrive count is what tells them apart.
		if !strings.Contains(f[2], dlq.RedriveCountHeader+"=1") {
			continue
		}
		r, ok := want[f[0]+"\x1f"+f[1]]
		if !ok {
			t.Errorf("kcat read a redriven record evtool did not: key %q value %s", f[0], f[1])
			continue
		}
		seen++
		for _, h := range r.Headers {
			if !strings.Contains(f[2], h.Key+"="+string(h.Value)) {
				t.Errorf("kcat headers of key %q lack %s=%s: %s", r.Key, h.Key, h.Value, f[2])
			}
		}
	}
	if seen != len(want) {
		t.Fatalf("kcat read %d of the %d redriven records:\n%s", seen, len(want), out)
	}
}
