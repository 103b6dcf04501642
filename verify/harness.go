package verify

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/internal/supervise"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/records"
	"github.com/evtool/evtool/replay"
)

// FailAfterWriteHeader asks the producer to fail a request after it wrote
// (a rollback): a producer that published before its commit now has a
// phantom event.
const FailAfterWriteHeader = "X-Evtool-Fail-After-Write"

// DefaultShrinkBudget bounds the runs spent shrinking a failure.
const DefaultShrinkBudget = 24

// Options tune a verification.
type Options struct {
	// Brokers, when set, is a cluster to use instead of an embedded
	// broker per run (faults then strike less exactly: see docs).
	Brokers []string
	Client  kafka.ClientConfig
	// Seed overrides chaos.seed.
	Seed *uint64
	// Faults selects the faults of the plan the chaos run applies.
	Faults chaos.Selection
	// ShrinkBudget bounds the shrinking runs (0: none).
	ShrinkBudget int
	// Command prefixes reproduce lines (default "evtool verify <file>").
	Command string
	// Log, when set, receives a line per step.
	Log io.Writer
	// StopGrace is how long a producer has to exit after SIGTERM.
	StopGrace time.Duration
}

// Harness runs a scenario.
type Harness struct {
	sc   *Scenario
	opts Options
	cat  *catalog.Catalog
	// ids are the catalog's registry ids: the topic's framed records are
	// checked against them, as validate --topic does.
	ids  *catalog.SchemaIDs
	seed uint64
	plan []Fault
	sp   *supervise.Spawner
}

// NewHarness loads the scenario's catalog and draws its plan.
func NewHarness(sc *Scenario, cat *catalog.Catalog, opts Options) (*Harness, error) {
	h := &Harness{sc: sc, opts: opts, cat: cat}
	ids, err := catalog.LoadSchemaIDs(cat)
	if err != nil {
		return nil, err
	}
	h.ids = ids
	switch {
	case opts.Seed != nil:
		h.seed = *opts.Seed
	case sc.Chaos.Seed != nil:
		h.seed = *sc.Chaos.Seed
	default:
		var b [8]byte
		_, _ = rand.Read(b[:])
		for _, x := range b {
			h.seed = h.seed<<8 | uint64(x)
		}
		h.seed %= 1 << 53 // prints and parses exactly
	}
	if h.opts.Command == "" {
		h.opts.Command = "evtool verify " + sc.File
	}
	if len(h.opts.Brokers) == 0 {
		h.opts.Brokers = sc.Brokers
	}
	if h.opts.StopGrace <= 0 {
		h.opts.StopGrace = 5 * time.Second
	}
	h.plan = Plan(sc, h.seed)
	h.sp = supervise.NewSpawner()
	return h, nil
}

// checkCluster refuses, against a cluster (--brokers or kafka.brokers),
// the selected faults only the embedded broker can inject: a produce error
// needs a broker that refuses, drops or leaves a request unanswered on
// purpose, and a verdict without it would pass a producer it never tested.
func (h *Harness) checkCluster() error {
	if len(h.opts.Brokers) == 0 {
		return nil
	}
	var refused []string
	for _, fl := range h.plan {
		if fl.Kind == KindProduceError && h.opts.Faults.Has(fl.Index) {
			refused = append(refused, fmt.Sprintf("#%d", fl.Index))
		}
	}
	if len(refused) == 0 {
		return nil
	}
	return fmt.Errorf("%s: chaos.produce_errors (fault %s) needs the embedded broker: against the cluster %s evtool cannot make the broker refuse, drop or leave a produce request unanswered; run without --brokers and kafka.brokers, or leave those faults out with --faults",
		h.sc.File, strings.Join(refused, ", "), strings.Join(h.opts.Brokers, ","))
}

// Seed is the plan's seed.
func (h *Harness) Seed() uint64 { return h.seed }

// Plan is the fault plan.
func (h *Harness) Plan() []Fault { return h.plan }

// Close stops the harness, killing any producer still running.
func (h *Harness) Close() { h.sp.Close() }

func (h *Harness) logf(format string, args ...any) {
	if h.opts.Log != nil {
		fmt.Fprintf(h.opts.Log, "verify: "+format+"\n", args...)
	}
}

// RunResult is one run of the producer.
type RunResult struct {
	Name string `json:"name"`
	// Faults is the selection the run applied ("" for none, "all").
	Faults string `json:"faults"`
	// Applied are the indexes of the faults that struck.
	Applied  []int         `json:"applied"`
	Verdict  Verdict       `json:"verdict"`
	Expect   []string      `json:"expect,omitempty"`
	Notes    []string      `json:"notes,omitempty"`
	Stderr   []string      `json:"stderr,omitempty"`
	Duration time.Duration `json:"durationNs"`
}

// Failed reports whether the run found a class member or a failed
// expectation.
func (r *RunResult) Failed() bool { return r.Verdict.Failed() || len(r.Expect) > 0 }

// run is one run: a fresh topic (and embedded broker), work directory and
// relays producer instances; the workload with the selected faults; settle; judge.
func (h *Harness) run(ctx context.Context, name string, sel chaos.Selection, relays int) (*RunResult, error) {
	start := time.Now()
	res := &RunResult{Name: name, Faults: selText(sel)}
	h.logf("run %s (faults %s)", name, res.Faults)
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	topic := "evtool-verify-" + name + "-" + hex.EncodeToString(suffix[:])
	cc := h.opts.Client
	var broker *kafka.Broker
	if len(h.opts.Brokers) == 0 {
		b, err := kafka.StartBroker(kafka.BrokerConfig{Partitions: h.sc.Partitions, Topics: []string{topic}})
		if err != nil {
			return nil, err
		}
		defer b.Close()
		broker, cc.Brokers = b, b.Addrs()
	} else {
		cc.Brokers = h.opts.Brokers
	}
	opts, err := cc.Options()
	if err != nil {
		return nil, err
	}
	admCl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	if broker == nil {
		if err := kafka.WaitReachable(ctx, admCl, cc.Brokers, min(h.sc.Producer.SettleTimeout, 15*time.Second)); err != nil {
			return nil, fmt.Errorf("%w\ncheck --brokers (or kafka.brokers in %s), or leave both empty to use the embedded broker", err, h.sc.File)
		}
		if _, err := adm.CreateTopic(ctx, int32(h.sc.Partitions), -1, nil, topic); err != nil {
			return nil, fmt.Errorf("creating topic %s: %w", topic, err)
		}
		defer func() { _, _ = adm.DeleteTopics(context.WithoutCancel(ctx), topic) }()
	}
	workdir, err := os.MkdirTemp("", "evtool-verify-"+name+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(workdir)

	g := &group{h: h, workdir: workdir}
	for i := 0; i < relays; i++ {
		addr, err := replay.FreeAddr()
		if err != nil {
			return nil, err
		}
		vars := map[string]string{
			"EVTOOL_BROKERS": strings.Join(cc.Brokers, ","), "EVTOOL_TOPIC": topic,
			"EVTOOL_WORKDIR": workdir, "EVTOOL_ADDR": addr, "EVTOOL_RUN": name,
			"EVTOOL_INSTANCE": strconv.Itoa(i),
		}
		env := os.Environ()
		for k, v := range vars {
			env = append(env, k+"="+v)
		}
		env = append(env, h.opts.Client.Environ()...)
		for _, e := range h.sc.Producer.Env {
			env = append(env, e.Name+"="+replay.ExpandVars(e.Value, vars))
		}
		argv := make([]string, len(h.sc.Producer.Run))
		for j, a := range h.sc.Producer.Run {
			argv[j] = replay.ExpandVars(a, vars)
		}
		g.insts = append(g.insts, &instance{addr: addr, vars: vars, spec: supervise.Spec{Argv: argv, Dir: h.sc.Producer.Dir, Env: env, Name: fmt.Sprintf("producer-%d", i)}})
	}
	defer g.stopAll()
	for _, in := range g.insts {
		if err := g.start(in); err != nil {
			return nil, fmt.Errorf("starting the producer: %w", err)
		}
	}
	if err := g.waitReady(ctx, h.sc.Producer.ReadyTimeout); err != nil {
		res.Stderr = g.stderr()
		return nil, err
	}

	// Faults armed for the next produce requests (requests workload), or
	// keyed by produce ordinal (command workload).
	f := &faults{byStep: map[int][]Fault{}, sel: sel, embedded: broker != nil}
	for _, fl := range h.plan {
		if sel.Has(fl.Index) && fl.Kind != KindRollback {
			f.byStep[fl.Step] = append(f.byStep[fl.Step], fl)
		}
	}
	if broker != nil {
		remove := broker.OnProduce(func(kafka.ProduceRequest) (kafka.ProduceFault, func(error)) {
			fault, then := f.strike(g, len(h.sc.Workload.Command) > 0)
			if fault == kafka.ProduceAppend && relays > 1 {
				// Several relays: a request that arrives while another is
				// held goes first, so relays producing at once always
				// interleave (not only when the scheduler happens to).
				fault = kafka.ProduceYield
			}
			return fault, then
		})
		defer remove()
	}
	if err := h.drive(ctx, g, f, sel, res); err != nil {
		return nil, err
	}
	// Armed faults stay armed while the producer catches up (a relay
	// publishes after the requests were answered); those left when it
	// settles never struck.
	g.waitRestarts()
	facts, err := h.settle(ctx, g, adm, cc, topic, res)
	f.disarm()
	if err != nil {
		res.Stderr = g.stderr()
		return nil, err
	}
	if err := f.err(); err != nil {
		// The log is not what the plan says it is: judging it would blame
		// (or clear) the producer for the harness's failure.
		return nil, fmt.Errorf("run %s: %w", name, err)
	}
	g.stopAll()
	recs, err := h.readTopic(ctx, cc, topic)
	if err != nil {
		return nil, err
	}
	res.Verdict = Judge(facts, recs)
	res.Applied = f.appliedList()
	res.Expect = h.expectations(res)
	res.Notes = append(res.Notes, g.notes()...)
	if broker == nil && f.crashed() {
		res.Notes = append(res.Notes, "against a cluster a crash strikes once the request that armed it was answered: between produce requests, not exactly before or after an append")
	}
	if res.Failed() {
		res.Stderr = g.stderr()
	}
	res.Duration = time.Since(start)
	return res, nil
}

func selText(sel chaos.Selection) string {
	if sel.IsAll() {
		return "all"
	}
	return sel.String()
}

// drive runs the workload: each request in order, retried with its
// Idempotency-Key until it is answered (a rollback request is sent until
// answered, and never retried after an answer); or the workload command.
func (h *Harness) drive(ctx context.Context, g *group, f *faults, sel chaos.Selection, res *RunResult) error {
	w := h.sc.Workload
	if len(w.Command) > 0 {
		in := g.insts[0]
		argv := make([]string, len(w.Command))
		for i, a := range w.Command {
			argv[i] = replay.ExpandVars(a, in.vars)
		}
		p, err := h.sp.Start(supervise.Spec{Argv: argv, Dir: h.sc.Dir, Env: in.spec.Env, Name: "workload"})
		if err != nil {
			return fmt.Errorf("workload.command: %w", err)
		}
		select {
		case <-p.Done():
		case <-ctx.Done():
			p.Kill()
			return ctx.Err()
		}
		if _, how := p.Exited(); how != "" && !strings.Contains(how, "exit status 0") && how != "exited" {
			res.Notes = append(res.Notes, "workload.command "+how)
		}
		return nil
	}
	rollback := map[int]bool{}
	for _, fl := range h.plan {
		if fl.Kind == KindRollback && sel.Has(fl.Index) {
			rollback[fl.Step] = true
		}
	}
	client := &http.Client{Timeout: w.Timeout}
	for i, req := range w.Requests {
		f.arm(i)
		in := g.insts[i%len(g.insts)]
		if err := h.send(ctx, client, in, req, rollback[i], res); err != nil {
			return err
		}
		if rollback[i] {
			f.markApplied(h.plan, i)
		}
		if !f.embedded {
			// Without the broker's hooks a crash strikes once the request
			// that armed it was answered.
			f.strikeAfterRequest(g)
		}
	}
	return nil
}

func (h *Harness) send(ctx context.Context, client *http.Client, in *instance, req Request, rollback bool, res *RunResult) error {
	deadline := time.Now().Add(h.sc.Producer.ReadyTimeout)
	for attempt := 1; ; attempt++ {
		hr, err := http.NewRequestWithContext(ctx, req.Method, "http://"+in.addr+req.Path, bytes.NewReader(req.Body))
		if err != nil {
			return fmt.Errorf("workload request line %d: %w", req.Line, err)
		}
		for k, v := range req.Headers {
			hr.Header.Set(k, v)
		}
		if len(req.Body) > 0 && hr.Header.Get("Content-Type") == "" {
			hr.Header.Set("Content-Type", "application/json")
		}
		if rollback {
			hr.Header.Set(FailAfterWriteHeader, "1")
		}
		resp, err := client.Do(hr)
		if err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			if rollback || resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests {
				if resp.StatusCode >= 400 && !rollback {
					res.Notes = append(res.Notes, fmt.Sprintf("request line %d answered %s", req.Line, resp.Status))
				}
				return nil
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			why := "no answer"
			if err != nil {
				why = err.Error()
			} else {
				why = resp.Status
			}
			res.Notes = append(res.Notes, fmt.Sprintf("request line %d gave up after %d attempts: %s", req.Line, attempt, why))
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stateReadTimeout is the limit on one read of the producer's state: the
// time left until the settle deadline, at least minStateRead (a read
// started just before the deadline still gets a chance to answer).
func stateReadTimeout(deadline time.Time) time.Duration {
	return max(time.Until(deadline).Round(time.Millisecond), minStateRead)
}

// minStateRead is the least time a state read is given.
const minStateRead = 100 * time.Millisecond

// LostQuietFactor stretches producer.quiet while a committed fact has no
// event on the topic: a producer retrying a dropped request, or restarting
// after a crash, on a loaded machine can be silent for more than a second
// and still publish.
const LostQuietFactor = 5

// settle waits until the topic's end offsets and the producer's facts stay
// the same for producer.quiet (LostQuietFactor times that while a fact has
// no event), and returns the facts.
func (h *Harness) settle(ctx context.Context, g *group, adm *kadm.Client, cc kafka.ClientConfig, topic string, res *RunResult) ([]Fact, error) {
	deadline := time.Now().Add(h.sc.Producer.SettleTimeout)
	var last string
	stableSince := time.Now()
	// lostAt is the state (facts/records) in which a fact was found to
	// have no event; pending whether one had.
	var lostAt string
	pending := false
	in := g.insts[0]
	expand := func(s string) string { return replay.ExpandVars(s, in.vars) }
	// facts and now are those of the last state read that answered: a
	// read the deadline cuts short ends the wait with them.
	var facts []Fact
	var now string
	read := false
	timedOut := func(readErr error) []Fact {
		if readErr != nil {
			// Not "still changing": the state could not be read at the
			// end, and what is judged is the last state that answered.
			res.Notes = append(res.Notes, fmt.Sprintf("the last read of the producer's state, at the end of settle_timeout (%s), failed (%v): the facts judged are those of the read before it", h.sc.Producer.SettleTimeout, readErr))
			return facts
		}
		if quiet := time.Since(stableSince); lostAt == now && pending && quiet >= h.sc.Producer.Quiet {
			res.Notes = append(res.Notes, fmt.Sprintf("a committed fact still had no event after %s of quiet, when settle_timeout (%s) ended the wait for it", quiet.Round(time.Millisecond), h.sc.Producer.SettleTimeout))
		} else {
			res.Notes = append(res.Notes, fmt.Sprintf("did not settle within %s (facts/records still changing)", h.sc.Producer.SettleTimeout))
		}
		return facts
	}
	for {
		// A read of the state is bounded by what is left of
		// settle_timeout, not by a limit of its own: a producer whose state
		// hangs ends the run when the scenario says, not 30 s or a minute
		// later.
		raw, err := replay.ReadState(ctx, h.sp, h.sc.Producer.State, h.sc.Producer.Dir, in.spec.Env, expand,
			stateReadTimeout(deadline), "what was left of producer.settle_timeout")
		if err != nil {
			// A fault still armed may strike while settling: the state
			// is read again once the producer is back.
			if ctx.Err() != nil {
				return nil, err
			}
			if time.Now().After(deadline) {
				if read {
					return timedOut(err), nil
				}
				return nil, err
			}
			time.Sleep(50 * time.Millisecond)
			g.waitRestarts()
			last = ""
			continue
		}
		f, err := ParseFacts(h.sc.Producer.State.Source(), raw)
		if err != nil {
			return nil, err
		}
		ends, err := adm.ListEndOffsets(ctx, topic)
		if err != nil {
			return nil, fmt.Errorf("listing end offsets of %s: %w", topic, err)
		}
		var total int64
		ends.Each(func(o kadm.ListedOffset) { total += o.Offset })
		facts, now, read = f, fmt.Sprintf("%d/%d", len(f), total), true
		if now != last {
			last, stableSince = now, time.Now()
		} else if quiet := time.Since(stableSince); quiet >= h.sc.Producer.Quiet {
			if lostAt != now {
				// The state is unchanged since stableSince: reading the
				// topic once per state is enough.
				recs, err := h.readTopic(ctx, cc, topic)
				if err != nil {
					return nil, err
				}
				v := Judge(facts, recs)
				lostAt, pending = now, v.Count(ClassLost) > 0
			}
			if !pending || quiet >= LostQuietFactor*h.sc.Producer.Quiet {
				return facts, nil
			}
		}
		if time.Now().After(deadline) {
			return timedOut(nil), nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (h *Harness) readTopic(ctx context.Context, cc kafka.ClientConfig, topic string) ([]*records.Record, error) {
	r, err := kafka.OpenTopics(ctx, cc, kafka.ReadOptions{Topics: []string{topic}})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	chk := records.NewChecker(h.cat)
	chk.UseSchemaIDs(h.ids)
	var out []*records.Record
	for {
		rec, err := r.Next(ctx)
		if errors.Is(err, kafka.ErrEnd) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, chk.Check(rec))
	}
}

func (h *Harness) expectations(res *RunResult) []string {
	var out []string
	e := h.sc.Expect
	if e.Facts != nil && res.Verdict.Facts != *e.Facts {
		out = append(out, fmt.Sprintf("expect.facts: %d facts, want %d", res.Verdict.Facts, *e.Facts))
	}
	if e.DuplicatesMax != nil && res.Verdict.Duplicates > *e.DuplicatesMax {
		out = append(out, fmt.Sprintf("expect.duplicates_max: %d same-id duplicates, at most %d allowed", res.Verdict.Duplicates, *e.DuplicatesMax))
	}
	return out
}

// instance is one producer process (a relay when there are several).
type instance struct {
	addr string
	vars map[string]string
	spec supervise.Spec
	proc *supervise.Process
}

// group is the run's producer instances; a crash kills and restarts them
// all (one producer, possibly several relays, over one work directory).
type group struct {
	h        *Harness
	workdir  string
	mu       sync.Mutex
	insts    []*instance
	restarts sync.WaitGroup
	stopped  bool
	logNotes []string
	tails    []string
}

func (g *group) start(in *instance) error {
	p, err := g.h.sp.Start(in.spec)
	if err != nil {
		return err
	}
	in.proc = p
	return nil
}

func (g *group) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for _, in := range g.insts {
		for {
			c, err := net.DialTimeout("tcp", in.addr, time.Second)
			if err == nil {
				c.Close()
				break
			}
			if ex, how := in.proc.Exited(); ex {
				return fmt.Errorf("the producer exited before serving on %s: %s\n%s", in.addr, how, strings.Join(in.proc.Stderr(), "\n"))
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the producer did not serve on EVTOOL_ADDR=%s within %s", in.addr, timeout)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	return nil
}

// crash SIGKILLs every instance and waits for their exits; restart starts
// them again with the same environment.
func (g *group) crash() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, in := range g.insts {
		if in.proc != nil {
			in.proc.Kill()
			g.tails = append(g.tails, in.proc.Stderr()...)
		}
	}
}

func (g *group) restartLater() {
	g.restarts.Add(1)
	go func() {
		defer g.restarts.Done()
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.stopped {
			return
		}
		for _, in := range g.insts {
			if err := g.start(in); err != nil {
				g.logNotes = append(g.logNotes, "restarting the producer: "+err.Error())
			}
		}
	}()
}

func (g *group) waitRestarts() {
	g.restarts.Wait()
	_ = g.waitReady(context.Background(), g.h.sc.Producer.ReadyTimeout)
}

func (g *group) stopAll() {
	g.restarts.Wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return
	}
	g.stopped = true
	for _, in := range g.insts {
		if in.proc != nil {
			in.proc.Stop(g.h.opts.StopGrace)
			g.tails = append(g.tails, in.proc.Stderr()...)
		}
	}
}

func (g *group) notes() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.logNotes
}

func (g *group) stderr() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := append([]string(nil), g.tails...)
	for _, in := range g.insts {
		if in.proc != nil {
			out = append(out, in.proc.Stderr()...)
		}
	}
	if len(out) > 20 {
		out = out[len(out)-20:]
	}
	return out
}

// faults holds what is armed and what struck.
type faults struct {
	mu       sync.Mutex
	byStep   map[int][]Fault
	armed    []Fault
	applied  map[int]bool
	produces int
	sel      chaos.Selection
	embedded bool
	// failed is the first fault the broker could not inject.
	failed error
	// crashedBetween is set when a crash struck between requests
	// (against a cluster).
	crashedBetween bool
}

// fail records that fault fl did not strike as planned.
func (f *faults) fail(fl Fault, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failed == nil {
		f.failed = fmt.Errorf("the harness could not inject fault %s: %w", fl, err)
	}
}

// crashed reports whether a crash struck between requests.
func (f *faults) crashed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.crashedBetween
}

func (f *faults) err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

func (f *faults) arm(step int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.armed = append(f.armed, f.byStep[step]...)
}

func (f *faults) disarm() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.armed, f.byStep = nil, nil
}

func (f *faults) markApplied(plan []Fault, step int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fl := range plan {
		if fl.Kind == KindRollback && fl.Step == step && f.sel.Has(fl.Index) {
			f.setApplied(fl.Index)
		}
	}
}

func (f *faults) setApplied(i int) {
	if f.applied == nil {
		f.applied = map[int]bool{}
	}
	f.applied[i] = true
}

func (f *faults) appliedList() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []int{}
	for i := range f.applied {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// strike decides the fate of one produce request on the embedded broker;
// the broker calls then at the fault, with the error that kept it from
// striking as planned, if any.
func (f *faults) strike(g *group, byOrdinal bool) (fault kafka.ProduceFault, then func(error)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if byOrdinal {
		f.armed = append(f.armed, f.byStep[f.produces]...)
		f.produces++
	}
	if len(f.armed) == 0 {
		return kafka.ProduceAppend, nil
	}
	fl := f.armed[0]
	f.armed = f.armed[1:]
	f.setApplied(fl.Index)
	then = func(err error) {
		if err != nil {
			f.fail(fl, err)
		}
		if fl.Kind == KindCrash {
			g.crash()
			g.restartLater()
		}
	}
	switch {
	case fl.Kind == KindCrash && fl.Phase == BeforeAppend:
		return kafka.ProduceDrop, then
	case fl.Kind == KindCrash:
		return kafka.ProduceLostAck, then
	case fl.Phase == ErrRetriable:
		return kafka.ProduceRetriable, then
	case fl.Phase == ErrDisconnect:
		return kafka.ProduceDrop, then
	}
	return kafka.ProduceLostAck, then
}

// strikeAfterRequest applies an armed crash against a real cluster: at
// once, between requests; produce errors cannot be injected there.
func (f *faults) strikeAfterRequest(g *group) {
	f.mu.Lock()
	armed := f.armed
	f.armed = nil
	crash := false
	for _, fl := range armed {
		if fl.Kind == KindCrash {
			f.setApplied(fl.Index)
			crash = true
		}
	}
	f.crashedBetween = f.crashedBetween || crash
	f.mu.Unlock()
	if crash {
		g.crash()
		g.restartLater()
		g.waitRestarts()
	}
}
