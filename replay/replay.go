// Package replay is evtool's chaos replay harness: it produces a scenario's
// events through Kafka clean (the baseline, twice: a consumer whose clean
// runs differ is nondeterministic) and through a fault plan (duplicates,
// reordering, version skew, poison events, crashes; see package chaos),
// runs the consumer under test once per run with a fresh topic, group and
// work directory (killing and restarting it for crash faults), waits until
// its group has committed everything, reads its state, and passes when the
// chaos state equals the baseline state and every expectation holds. A
// failure is confirmed by a rerun and shrunk to a 1-minimal set of faults
// (delta debugging).
//
// The consumer is any program: the harness starts consumer.run with
// EVTOOL_BROKERS, EVTOOL_TOPIC, EVTOOL_GROUP, EVTOOL_WORKDIR, EVTOOL_ADDR
// and EVTOOL_RUN in its environment and reads its state from
// consumer.state (GET on a URL, or a command's stdout), as JSON.
//
// Memory does not grow with the payloads of the events: events are
// streamed from the file (or generator) through the fault plan into the
// producer, and the plan holds at most the reorder lookahead
// (chaos.ReorderLookahead) and pending copies; the embedded broker keeps
// its log on disk; the consumer's states are kept on disk and compared
// from their canonical files (see storedState).
package replay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/internal/pipeline"
)

// Verdict is the outcome of a replay.
type Verdict string

// Verdicts.
const (
	Pass  Verdict = "pass"
	Fail  Verdict = "fail"  // the consumer failed: exit 1
	Error Verdict = "error" // the harness could not decide: exit 2
	// Nondeterministic: two clean runs of the consumer ended in different
	// states, so a chaos run cannot be judged against them: exit 1.
	Nondeterministic Verdict = "nondeterministic"
	// Skipped: not run (--fail-fast after an earlier failure).
	Skipped Verdict = "skipped"
)

// DefaultShrinkBudget is how many runs shrinking may make.
const DefaultShrinkBudget = 30

// maxNearFaults bounds the faults listed near a difference.
const maxNearFaults = 30

// Report is everything a replay found, for the printers.
type Report struct {
	Scenario   string     `json:"scenario"`
	Seed       uint64     `json:"seed"`
	Faults     string     `json:"faults"`
	Chaos      string     `json:"chaos"`
	Events     *Inventory `json:"events,omitempty"`
	Brokers    string     `json:"brokers"`
	Partitions int        `json:"partitions"`
	Mode       string     `json:"mode"`
	// Compression is the codec of the batches the harness produced.
	Compression string        `json:"compression"`
	Runs        []*RunResult  `json:"runs"`
	Verdict     Verdict       `json:"verdict"`
	Summary     string        `json:"summary"`
	Comparison  *Comparison   `json:"comparison,omitempty"`
	NearKeys    []string      `json:"nearKeys,omitempty"`
	NearFaults  []chaos.Fault `json:"nearFaults,omitempty"`
	// Reproduce reruns the chaos run exactly; ReproduceNear applies only
	// the faults near the differences (a hint, not a proven minimum).
	Reproduce     string `json:"reproduce,omitempty"`
	ReproduceNear string `json:"reproduceNear,omitempty"`
	nearSelection chaos.Selection
	// Nondeterministic is the difference between the two clean runs of a
	// nondeterministic consumer.
	Nondeterministic *Comparison `json:"nondeterministic,omitempty"`
	// Confirmed says whether a rerun of the failing chaos run failed
	// again (nil: no rerun).
	Confirmed *bool `json:"confirmed,omitempty"`
	// Shrink is the smallest failing set of faults found.
	Shrink   *ShrinkReport `json:"shrink,omitempty"`
	Warnings []string      `json:"warnings,omitempty"`
	Error    string        `json:"error,omitempty"`
	Duration Duration      `json:"duration"`
	// Workdir is kept (--keep or --workdir) or "".
	Workdir string `json:"workdir,omitempty"`

	// Contract is the contract run's outcome (consumer.contract).
	Contract *ContractReport `json:"contract,omitempty"`
}

// Embedded reports whether the replay ran on the embedded broker, whose
// commits the harness intercepts (crash faults strike at the commit).
func (r *Report) Embedded() bool { return r.Brokers == "embedded" }

// Run finds the run with the given name.
func (r *Report) Run(name string) *RunResult {
	for _, x := range r.Runs {
		if x.Name == name {
			return x
		}
	}
	return nil
}

// Replay runs a scenario end to end: validate the events, connect, run the
// baseline twice (a consumer whose clean runs differ is reported as
// nondeterministic), run the chaos run, compare; a failure is confirmed by
// a rerun and shrunk to a minimal set of faults within the shrink budget.
// It returns the report and, for an error verdict, the error (exit 2); a
// failing consumer is a report with verdict Fail (or Nondeterministic) and
// no error. Errors before the first run (scenario, catalog, events, Kafka)
// come back without a report.
func Replay(ctx context.Context, sc *Scenario, opts Options) (*Report, error) {
	start := time.Now()
	h, err := NewHarness(sc, opts)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	contract, err := h.loadContract()
	if err != nil {
		return nil, err
	}
	inv, err := h.Validate(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.Connect(ctx); err != nil {
		return nil, err
	}
	rep := h.newReport(inv)
	defer func() {
		rep.Duration = Duration(time.Since(start))
		rep.Warnings = append(rep.Warnings, h.killedWarnings()...)
		if h.opts.Keep || h.opts.WorkDir != "" {
			rep.Workdir = h.root // made by the first run
		}
	}()
	fail := func(err error) (*Report, error) {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			err = errors.New("interrupted: " + strings.TrimSuffix(err.Error(), ": "+ctx.Err().Error()))
		}
		rep.Verdict, rep.Error = Error, err.Error()
		rep.Summary = "error: " + firstLine(err.Error())
		return rep, err
	}

	base, err := h.Run(ctx, RunSpec{Name: "baseline", Initial: true})
	if err != nil {
		return fail(fmt.Errorf("baseline run: %w", err))
	}
	rep.Runs = append(rep.Runs, base)
	if base.Failure == nil || base.Failure.Reason == "expect" {
		if f := h.checkBaseline(base); f != nil {
			if base.Failure != nil {
				f.Message += "; " + base.Failure.Message
			}
			base.Failure, base.Verdict = f, Fail
		}
	}
	if base.Failure != nil {
		rep.Verdict = Fail
		rep.Summary = "the consumer failed the baseline run (no faults): " + base.Failure.Message
		return rep, nil
	}
	if opts.Baselines != 1 {
		again, err := h.Run(ctx, RunSpec{Name: "baseline"})
		if err != nil {
			return fail(fmt.Errorf("second baseline run: %w", err))
		}
		rep.Runs = append(rep.Runs, again)
		if again.Failure != nil {
			rep.Verdict = Fail
			rep.Summary = "the consumer failed the second clean run (no faults), after passing the first: " + again.Failure.Message
			return rep, nil
		}
		c, err := h.compareRuns(base, again)
		if err != nil {
			return fail(err)
		}
		if !c.Equal {
			again.Verdict, again.Differences = Fail, len(c.Differences)+c.More
			rep.Verdict, rep.Nondeterministic = Nondeterministic, &c
			rep.Summary = fmt.Sprintf("the consumer is nondeterministic: two clean runs of the same events ended in different states (%d place(s)); chaos runs cannot be judged against them", len(c.Differences)+c.More)
			rep.Warnings = append(rep.Warnings, "make the state deterministic, or leave the parts that vary (timestamps, generated ids) out of the comparison with consumer.ignore")
			return rep, nil
		}
	}
	if contract != nil {
		if _, err := h.ContractRun(ctx, rep, base, contract, opts.ContractFields); err != nil {
			return fail(err)
		}
		if opts.ContractFields != nil {
			return h.withContract(rep), nil
		}
	}
	ch, err := h.Run(ctx, RunSpec{Name: "chaos", Chaos: true, Faults: opts.Faults})
	if err != nil {
		return fail(fmt.Errorf("chaos run: %w", err))
	}
	rep.Runs = append(rep.Runs, ch)
	if err := h.Judge(ctx, rep, base, ch); err != nil {
		return fail(err)
	}
	if rep.Verdict == Fail && opts.ShrinkBudget < 0 && rep.ReproduceNear != "" {
		if err := h.checkNear(ctx, rep, base, ch); err != nil {
			return fail(err)
		}
	}
	if rep.Verdict != Fail || opts.ShrinkBudget < 0 {
		return h.withContract(rep), nil
	}
	if err := h.confirmAndShrink(ctx, rep, base, ch); err != nil {
		return fail(err)
	}
	return h.withContract(rep), nil
}

// checkNear replays only the faults near the differences (without
// shrinking nothing else proves them) and keeps ReproduceNear only when
// that run fails too: a printed command must reproduce.
func (h *Harness) checkNear(ctx context.Context, rep *Report, base, ch *RunResult) error {
	seed := ch.Seed
	near, err := h.Run(ctx, RunSpec{Name: "near", Chaos: true, Faults: rep.nearSelection, Seed: &seed})
	if err != nil {
		return fmt.Errorf("replaying the faults near the differences: %w", err)
	}
	rep.Runs = append(rep.Runs, near)
	failed, err := h.judgeRun(base, near)
	if err != nil {
		return err
	}
	if !failed {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the faults near the differences (--faults %s) pass on their own (run %s): replay the whole plan, or shrink (--shrink-budget)", rep.nearSelection, near.ID))
		rep.ReproduceNear = ""
	}
	return nil
}

// maxBaselineErrors bounds the DLQ error headers a baseline failure shows.
const maxBaselineErrors = 3

// checkBaseline fails a baseline run that tests nothing: its consumer
// applied none of the events (the state is empty, or the one it served
// before the first event) or dead-lettered clean events, unless
// expect.baseline says so. Such a consumer passes every chaos run.
func (h *Harness) checkBaseline(base *RunResult) *Failure {
	spec := h.sc.Baseline
	dead, errs := distinctDead(base.DLQ, maxBaselineErrors)
	// Events a downstream stand-in answered terminally belong on the DLQ
	// (the oracle checks they are): they are not clean events rejected.
	for id := range dead {
		if base.terminal[id] {
			delete(dead, id)
		}
	}
	dlqText := ""
	if len(dead) > 0 {
		dlqText = fmt.Sprintf("; it dead-lettered %d of them to %s, first errors: %s", len(dead), base.DLQTopic, strings.Join(errs, "; "))
	}
	if !spec.EmptyOK {
		what := ""
		switch {
		case base.state.empty:
			what = fmt.Sprintf("the baseline state is empty (%s)", base.state.text)
		case base.InitialRead:
			c, err := compareStored(base.initial, base.state, h.sc.Consumer.Ignore)
			if err != nil {
				return &Failure{Reason: "baseline", Message: "cannot compare the baseline state with the state before the first event: " + err.Error()}
			}
			if c.Equal {
				what = "the baseline state equals the state the consumer served before the first event"
			}
		}
		if what != "" {
			return &Failure{Reason: "baseline", Message: fmt.Sprintf("%s: the consumer applied none of the %d events%s; a consumer that applies nothing passes every chaos run (if the events leave the state empty, say so with expect.baseline: {empty: ok})",
				what, base.Events, dlqText)}
		}
	}
	if len(dead) != spec.DLQ {
		where := "expect.baseline.dlq is not set"
		if spec.Line > 0 {
			where = fmt.Sprintf("expect.baseline.dlq (%s:%d) says %d", h.sc.File, spec.Line, spec.DLQ)
		}
		msg := fmt.Sprintf("the consumer dead-lettered %d distinct clean event(s) of %d in the baseline run, where %s", len(dead), base.Events, where)
		if len(errs) > 0 {
			msg += "; first errors: " + strings.Join(errs, "; ")
		}
		return &Failure{Reason: "baseline", Message: msg}
	}
	return nil
}

// IsEmptyState reports a state that holds nothing: null, {} or [].
func IsEmptyState(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

func (h *Harness) newReport(inv *Inventory) *Report {
	brokers := "embedded"
	if h.embedded == nil {
		brokers = strings.Join(h.brokers, ",")
	}
	rep := &Report{
		Scenario:    h.sc.File,
		Seed:        h.seed,
		Faults:      h.opts.Faults.String(),
		Chaos:       h.sc.Chaos.String(),
		Events:      inv,
		Brokers:     brokers,
		Partitions:  h.partitions,
		Mode:        h.sc.Kafka.Mode.String(),
		Compression: h.compression(),
	}
	if h.opts.Keep || h.opts.WorkDir != "" {
		rep.Workdir = h.root
	}
	return rep
}

// Judge compares the chaos run with the baseline and fills the verdict,
// the differences, the faults near them and the reproduce lines.
func (h *Harness) Judge(ctx context.Context, rep *Report, base, ch *RunResult) error {
	if rep.Workdir == "" && (h.opts.Keep || h.opts.WorkDir != "") {
		rep.Workdir = h.root
	}
	rep.Seed, rep.Faults = ch.Seed, ch.faults.String()
	rep.Reproduce = h.reproduce(ch.Seed, ch.faults)
	if _, err := h.judgeRun(base, ch); err != nil {
		return err
	}
	if ch.Planned != nil && h.sc.Chaos.Reorder != nil && ch.Planned[chaos.Reorder] == 0 {
		r := h.sc.Chaos.Reorder
		if r.Scope == chaos.ScopeGlobal {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("no reorder fault could be planned: fewer than 2 events; raise chaos.reorder.window (%s)",
				h.sc.Where("/chaos/reorder/window")))
		} else {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("no reorder fault could be planned: no two events of the same %s within %d events of the stream (%s)",
				r.Scope, chaos.ReorderLookahead(*r), h.sc.Where("/chaos/reorder")))
		}
	}
	if ch.Planned != nil && h.sc.Chaos.Skew != nil && h.sc.Chaos.Skew.Rate > 0 && ch.Planned[chaos.Skew] == 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("no skew fault could be planned: no event has another version that its type's compatibility mode says consumers accept and that its data is valid under (%s)",
			h.sc.Where("/chaos/skew")))
	}
	var keys []string
	if ch.Failure != nil {
		rep.Verdict = Fail
		rep.Summary = "the consumer failed the chaos run: " + ch.Failure.Message
		keys = ch.findingKeys()
	} else {
		c, err := h.compareRuns(base, ch)
		if err != nil {
			return err
		}
		rep.Comparison = &c
		for _, p := range c.UnusedIgnore {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("consumer.ignore %s matched nothing in either state", p))
		}
		if c.Equal {
			rep.Verdict = Pass
			n := len(h.sc.Expect)
			if h.sc.DLQ != nil {
				n++
			}
			rep.Summary = "the chaos state equals the baseline state"
			if n > 0 {
				rep.Summary += fmt.Sprintf(" and %d expectation(s) hold", n)
			}
			applied := 0
			for _, v := range ch.Applied {
				applied += v
			}
			if applied == 0 {
				rep.Warnings = append(rep.Warnings, "no fault was applied: the chaos run was a second clean run")
			}
			return nil
		}
		rep.Verdict = Fail
		n := len(c.Differences) + c.More
		rep.Summary = fmt.Sprintf("the chaos state differs from the baseline state in %d place(s)", n)
		keys = c.Near
	}
	if len(keys) == 0 && ch.Failure == nil {
		return nil
	}
	near, idx, err := h.nearFaults(ctx, ch, keys)
	if err != nil {
		return err
	}
	rep.NearFaults = near
	seen := map[string]bool{}
	for _, f := range near {
		if f.Key != "" && !seen[f.Key] {
			seen[f.Key] = true
			rep.NearKeys = append(rep.NearKeys, f.Key)
		}
	}
	if len(idx) > 0 && ch.Failure == nil {
		rep.nearSelection = chaos.Only(idx...)
		rep.ReproduceNear = h.reproduce(ch.Seed, rep.nearSelection)
	}
	return nil
}

// nearFaults returns the applied faults whose key or event id appears
// near the differences, and every applied crash (a crash has no key, and
// a failure may need it: without it the faults near the differences may
// replay and pass); with no keys (a failed run), the first applied faults.
// It returns the first maxNearFaults of them to show, and the indexes of
// all of them to replay: the fault that matters may come after the first
// maxNearFaults of its key.
func (h *Harness) nearFaults(ctx context.Context, ch *RunResult, keys []string) ([]chaos.Fault, []int, error) {
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	match := func(f chaos.Fault) bool {
		return len(want) == 0 || f.Kind == chaos.Crash || f.Kind == chaos.Rebalance || f.Kind == chaos.Outage || want[f.Key] || want[f.ID]
	}
	var out []chaos.Fault
	var idx []int
	add := func(f chaos.Fault) bool {
		if len(out) < maxNearFaults {
			out = append(out, f)
		}
		idx = append(idx, f.Index)
		// Without keys every applied fault matches: the first are enough.
		return len(want) > 0 || len(out) < maxNearFaults
	}
	if !ch.FaultsTruncated {
		for _, f := range ch.Faults {
			if match(f) && !add(f) {
				break
			}
		}
		return out, idx, nil
	}
	errStop := errors.New("enough")
	_, err := h.listFaults(ctx, ch.Seed, ch.faults, func(f chaos.Fault, applied bool) error {
		if applied && match(f) && !add(f) {
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, nil, err
	}
	return out, idx, nil
}

// ListFaults plans the scenario's faults over its events without Kafka and
// calls fn with each (applied: selected by sel). It returns the plan's
// statistics.
func (h *Harness) ListFaults(ctx context.Context, sel chaos.Selection, fn func(f chaos.Fault, applied bool) error) (chaos.Stats, error) {
	return h.listFaults(ctx, h.seed, sel, fn)
}

func (h *Harness) listFaults(ctx context.Context, seed uint64, sel chaos.Selection, fn func(f chaos.Fault, applied bool) error) (chaos.Stats, error) {
	src, err := h.openSource()
	if err != nil {
		return chaos.Stats{}, err
	}
	defer src.close()
	var fnErr error
	stream, err := chaos.NewStream(h.sc.Chaos, seed, sel, func(chaos.Delivery[struct{}]) error { return fnErr })
	if err != nil {
		return chaos.Stats{}, err
	}
	stream.Observe(func(f chaos.Fault, applied bool) {
		if fnErr == nil {
			f.ID, f.Key = strings.Clone(f.ID), strings.Clone(f.Key) // see fastRecord
			fnErr = fn(f, applied)
		}
	})
	next := func() (rawEvent, bool, error) { return src.next() }
	work := func(r rawEvent) converted { return h.convert(ctx, r, "") }
	emit := func(c converted) error {
		if c.err != nil {
			return c.err
		}
		if err := stream.Push(c.meta, struct{}{}); err != nil {
			return err
		}
		return fnErr
	}
	err = pipeline.Ordered(ctx, 0, 128, next, work, emit)
	if err == nil {
		err = stream.Close()
	}
	if err == nil {
		err = fnErr
	}
	return stream.Stats(), err
}

// reproduce renders the command line that replays the chaos run with the
// given faults, against the same brokers with the same client flags (a
// consumer may fail only with one codec, and crash faults strike
// differently on a real cluster), never with the SASL password (the
// command reads EVTOOL_SASL_PASSWORD).
func (h *Harness) reproduce(seed uint64, sel chaos.Selection) string {
	return ReproduceCommand(h.opts.Command, seed, sel, h.opts.Brokers, h.opts.Client)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
