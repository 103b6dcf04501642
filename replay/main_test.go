package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/internal/bugs"
	"github.com/evtool/evtool/internal/waitfor"
	"github.com/evtool/evtool/kafka"
)

// The test binary doubles as the consumer under test: with
// REPLAY_TEST_CONSUMER set it runs a small consumer in that mode instead
// of the tests (see testConsumer).
func TestMain(m *testing.M) {
	if mode := os.Getenv("REPLAY_TEST_CONSUMER"); mode != "" {
		os.Exit(testConsumer(mode))
	}
	if dir := os.Getenv("REPLAY_TEST_FORMATS_CONSUMER"); dir != "" {
		os.Exit(formatsConsumer(dir))
	}
	if name := os.Getenv("REPLAY_TEST_BUG"); name != "" {
		os.Exit(bugConsumer(name))
	}
	os.Exit(m.Run())
}

// bugConsumer runs a consumer of the bug catalogue (internal/bugs). With
// REPLAY_TEST_NO_DLQ set it has no dead-letter topic: it skips what it
// cannot read.
func bugConsumer(name string) int {
	bug, err := bugs.Parse(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if os.Getenv("REPLAY_TEST_NO_DLQ") != "" {
		os.Unsetenv("EVTOOL_DLQ_TOPIC")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := bugs.Run(ctx, bug); err != nil {
		fmt.Fprintf(os.Stderr, "%s consumer: %v\n", bug, err)
		return 1
	}
	return 0
}

// testConsumer is a consumer of the orders events with in-memory state.
// Modes:
//
//	correct       dedupe by event id; per order, the newest orderVersion wins
//	naive         no dedupe; per order, the last event wins
//	exit          prints to stderr and exits 3 at once
//	never-commit  consumes but never commits
//	html          serves HTML on /state
//	slow-start    sleeps 300ms before consuming (like go run compiling)
//	random        correct, and its state holds its pid (nondeterministic)
//	flaky         correct, except that its state in the run named chaos
//	              (not in confirm or shrink) has an extra member
//	reject-all    dead-letters every event (header dlq.error) and applies none
//	reject-paid   correct, except that it dead-letters every order.paid event
//	empty-state   correct, but serves {} as its state
//	held-state    correct, but a state request waits until it has
//	              consumed a record (or the request ends)
//	over-commit   correct, but commits 1000 past what it read
//	republish     correct, and once it has seen 30 events and the
//	              harness has listed the end offsets of its run (see
//	              listedSignal) it produces a copy of the last one to its
//	              own topic (a retry), moving the end offset
//
// With REPLAY_TEST_IGNORE_TERM set it ignores SIGTERM; with
// REPLAY_TEST_TOUCH set it creates that file in EVTOOL_WORKDIR.
func testConsumer(mode string) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "test consumer: "+format+"\n", args...)
		return 1
	}
	if mode == "exit" {
		fmt.Fprintln(os.Stderr, "connecting to the database...")
		fmt.Fprintln(os.Stderr, "fatal: cannot open database: permission denied")
		return 3
	}
	sigs := []os.Signal{syscall.SIGTERM, os.Interrupt}
	if os.Getenv("REPLAY_TEST_IGNORE_TERM") != "" {
		signal.Ignore(syscall.SIGTERM)
		sigs = sigs[1:]
	}
	ctx, stop := signal.NotifyContext(context.Background(), sigs...)
	defer stop()
	if name := os.Getenv("REPLAY_TEST_TOUCH"); name != "" {
		if err := os.WriteFile(filepath.Join(os.Getenv("EVTOOL_WORKDIR"), name), nil, 0o644); err != nil {
			return fail("%v", err)
		}
	}
	if mode == "slow-start" {
		// The slowness is what is tested (settle waits for a consumer
		// that starts late), not a wait for something.
		time.Sleep(300 * time.Millisecond)
	}
	var mu sync.Mutex
	counts := map[string]int{}
	type order struct {
		Version int64  `json:"version"`
		Last    string `json:"last"`
	}
	orders := map[string]*order{}

	ln, err := net.Listen("tcp", os.Getenv("EVTOOL_ADDR"))
	if err != nil {
		return fail("%v", err)
	}
	serving := make(chan struct{})
	var startServing sync.Once
	if mode != "held-state" {
		startServing.Do(func() { close(serving) })
	}
	go func() {
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-serving:
			case <-r.Context().Done():
				return
			}
			if mode == "html" {
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprint(w, "<!DOCTYPE html><html><body><h1>Orders</h1></body></html>")
				return
			}
			mu.Lock()
			defer mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			state := map[string]any{"events": counts, "orders": orders}
			if mode == "random" {
				state["pid"] = os.Getpid()
			}
			if mode == "flaky" && os.Getenv("EVTOOL_RUN") == "chaos" {
				state["glitch"] = true
			}
			if mode == "empty-state" {
				fmt.Fprint(w, "{}")
				return
			}
			_ = json.NewEncoder(w).Encode(state)
		}))
	}()

	opts, err := kafka.ClientConfig{
		Brokers:       strings.Split(os.Getenv("EVTOOL_BROKERS"), ","),
		SASLMechanism: os.Getenv("EVTOOL_SASL_MECHANISM"),
		SASLUser:      os.Getenv("EVTOOL_SASL_USER"),
		SASLPassword:  os.Getenv("EVTOOL_SASL_PASSWORD"),
	}.Options()
	if err != nil {
		return fail("%v", err)
	}
	cl, err := kgo.NewClient(append(opts,
		kgo.ConsumerGroup(os.Getenv("EVTOOL_GROUP")),
		kgo.ConsumeTopics(os.Getenv("EVTOOL_TOPIC")),
		kgo.DisableAutoCommit(),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), // republish: to the record's partition
	)...)
	if err != nil {
		return fail("%v", err)
	}
	defer cl.Close()
	republished := false
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return 0
		}
		recs := fs.Records()
		mu.Lock()
		for _, r := range recs {
			d, _, err := envelope.FromRecord(r)
			if err != nil || d == nil {
				mu.Unlock()
				return fail("bad record: %v", err)
			}
			var data struct {
				OrderID      string `json:"orderId"`
				OrderVersion int64  `json:"orderVersion"`
			}
			_ = json.Unmarshal(d.Event.Data(), &data)
			id := d.Event.ID()
			if mode == "reject-all" || mode == "reject-paid" && d.Event.Type() == "com.example.order.paid" {
				dead := &kgo.Record{Topic: os.Getenv("EVTOOL_DLQ_TOPIC"), Key: r.Key, Value: r.Value,
					Headers: append(slices.Clone(r.Headers), kgo.RecordHeader{Key: "dlq.error", Value: []byte("rejected " + d.Event.Type())})}
				if err := cl.ProduceSync(ctx, dead).FirstErr(); err != nil && ctx.Err() == nil {
					mu.Unlock()
					return fail("dead-letter: %v", err)
				}
				continue
			}
			if mode != "naive" && counts[id] > 0 {
				continue
			}
			counts[id]++
			o := orders[data.OrderID]
			if o == nil {
				o = &order{}
				orders[data.OrderID] = o
			}
			if mode == "naive" || data.OrderVersion > o.Version {
				o.Version, o.Last = data.OrderVersion, d.Event.Type()
			}
		}
		republish := mode == "republish" && !republished && len(counts) >= 30 && len(recs) > 0
		mu.Unlock()
		if len(recs) > 0 {
			startServing.Do(func() { close(serving) })
		}
		if republish {
			republished = true
			// The late produce is what is tested (a retry after the
			// harness listed the end offsets): it waits for the test's
			// word that the harness has listed them.
			if code := waitListed(ctx); code >= 0 {
				return code
			}
			last := recs[len(recs)-1]
			cp := &kgo.Record{Topic: last.Topic, Partition: last.Partition, Key: last.Key, Value: last.Value, Headers: last.Headers}
			if err := cl.ProduceSync(ctx, cp).FirstErr(); err != nil {
				return fail("republish: %v", err)
			}
		}
		if mode == "over-commit" && len(recs) > 0 {
			offs := map[string]map[int32]kgo.EpochOffset{}
			for _, r := range recs {
				if offs[r.Topic] == nil {
					offs[r.Topic] = map[int32]kgo.EpochOffset{}
				}
				offs[r.Topic][r.Partition] = kgo.EpochOffset{Epoch: -1, Offset: r.Offset + 1 + 1000}
			}
			cl.CommitOffsetsSync(ctx, offs, nil)
		} else if mode != "never-commit" && len(recs) > 0 {
			if err := cl.CommitRecords(ctx, recs...); err != nil && ctx.Err() == nil {
				return fail("commit: %v", err)
			}
		}
	}
}

// listedEnv names the directory where listedSignal marks the runs whose
// end offsets the harness has listed: a file named after the run
// (EVTOOL_RUN).
const listedEnv = "REPLAY_TEST_LISTED"

// listedSignal is the Progress of a test whose consumer must act only
// after the harness listed the end offsets it settles against. settle
// lists them before it reports any lag, so a run's first Lag report
// creates the file of that run in dir, which waitListed waits for. A
// second run of the same name (several baselines) finds the file there.
type listedSignal struct {
	t    *testing.T
	dir  string
	next Progress

	mu     sync.Mutex
	listed map[string]bool
}

// waitForListing returns the scenario text and options of a test with the
// republish consumer: the consumer's environment names a new directory,
// and opts.Progress marks in it the runs whose end offsets were listed.
func waitForListing(t *testing.T, text string, opts Options) (string, Options) {
	t.Helper()
	const env = "env: {REPLAY_TEST_CONSUMER: republish}"
	if strings.Count(text, env) != 1 {
		t.Fatalf("the scenario has no consumer line %q to add %s to:\n%s", env, listedEnv, text)
	}
	l := &listedSignal{t: t, dir: t.TempDir(), next: opts.Progress, listed: map[string]bool{}}
	opts.Progress = l
	return strings.Replace(text, env, "env: {REPLAY_TEST_CONSUMER: republish, "+listedEnv+": "+l.dir+"}", 1), opts
}

func (l *listedSignal) Phase(run, phase string) {
	if l.next != nil {
		l.next.Phase(run, phase)
	}
}

func (l *listedSignal) Produced(run string, done, total int64) {
	if l.next != nil {
		l.next.Produced(run, done, total)
	}
}

func (l *listedSignal) Lag(run string, lag int64) {
	l.mu.Lock()
	if !l.listed[run] {
		l.listed[run] = true
		if err := os.WriteFile(filepath.Join(l.dir, run), nil, 0o644); err != nil {
			l.t.Errorf("marking run %s listed: %v", run, err)
		}
	}
	l.mu.Unlock()
	if l.next != nil {
		l.next.Lag(run, lag)
	}
}

// waitListed waits until the file of this run (EVTOOL_RUN) is in the
// directory $REPLAY_TEST_LISTED (listedSignal): -1 when it is, else the
// consumer's exit code (0 when stopped meanwhile).
func waitListed(ctx context.Context) int {
	dir := os.Getenv(listedEnv)
	if dir == "" {
		fmt.Fprintf(os.Stderr, "test consumer: republish needs %s (see listedSignal)\n", listedEnv)
		return 2
	}
	p := filepath.Join(dir, os.Getenv("EVTOOL_RUN"))
	listed := func() bool { _, err := os.Stat(p); return err == nil }
	if !waitfor.Condition(2*time.Minute, func() bool { return ctx.Err() != nil || listed() }) {
		fmt.Fprintf(os.Stderr, "test consumer: %s did not appear within 2m: the harness reported no lag of run %s\n", p, os.Getenv("EVTOOL_RUN"))
		return 1
	}
	if ctx.Err() != nil {
		return 0
	}
	return -1
}
