package replay

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/internal/pipeline"
	"github.com/evtool/evtool/internal/supervise"
)

// RunSpec says what one run does.
type RunSpec struct {
	// Name is EVTOOL_RUN and the suffix of the run's topic, group and
	// work directory: baseline, chaos, ...
	Name string
	// Chaos applies the scenario's fault plan (with Faults selected);
	// otherwise the events are produced clean, in input order.
	Chaos  bool
	Faults chaos.Selection
	// Seed, when set, replaces the harness's seed for this run (to try
	// several plans against one baseline).
	Seed *uint64
	// Initial reads the consumer's state before the first event is
	// produced (RunResult.Initial), to tell a consumer that applied
	// nothing.
	Initial bool
	// mutation, when set, mutates fields of the events' data (a contract
	// run: see contract.go).
	mutation *fieldMutation
}

// RunResult is what one run did and saw.
type RunResult struct {
	// Name is EVTOOL_RUN; ID names the run's topic, group and work
	// directory (chaos, chaos-2, ... for repeated names).
	Name    string `json:"name"`
	ID      string `json:"id"`
	Topic   string `json:"topic"`
	Group   string `json:"group"`
	Workdir string `json:"workdir"`
	// Events counts input events produced; Records the records (events
	// plus copies).
	Events  int64 `json:"events"`
	Records int64 `json:"records"`
	// Seed is the seed of the fault plan and Selected the faults selected
	// ("all", or a list as for --faults) (chaos runs only).
	Seed     uint64 `json:"seed,omitempty"`
	Selected string `json:"selected,omitempty"`
	// Planned and Applied count the faults of the plan by kind (chaos
	// runs only).
	Planned map[chaos.Kind]int `json:"planned,omitempty"`
	Applied map[chaos.Kind]int `json:"applied,omitempty"`
	// Faults lists the applied faults, up to MaxRecordedFaults
	// (FaultsTruncated says when there were more).
	Faults          []chaos.Fault `json:"faults,omitempty"`
	FaultsTruncated bool          `json:"faultsTruncated,omitempty"`
	// MaxHeld is the most events the fault plan held at once.
	MaxHeld int `json:"maxHeld,omitempty"`
	// Kills lists the crash faults applied: when, the committed offsets
	// at that moment, the restart.
	Kills []Kill `json:"kills,omitempty"`
	// Instances is consumer.instances; Rebalances the rebalance faults
	// applied; Generations the group's settled generations and
	// StaleCommits the commits the broker refused as stale (embedded
	// broker); Protocol the group protocol its members spoke.
	Instances    int           `json:"instances,omitempty"`
	Rebalances   []Rebalance   `json:"rebalances,omitempty"`
	Generations  []Generation  `json:"generations,omitempty"`
	StaleCommits []StaleCommit `json:"staleCommits,omitempty"`
	// Rewinds are the accepted commits that moved the group's committed
	// offsets back (embedded broker; the first 50).
	Rewinds  []Rewind      `json:"rewinds,omitempty"`
	Protocol GroupProtocol `json:"protocol,omitzero"`

	ProduceTime Duration `json:"produceTime"`
	SettleTime  Duration `json:"settleTime"`
	// ConsumeTime is how long after the consumer started its group first
	// had everything committed.
	ConsumeTime Duration `json:"consumeTime"`
	TotalTime   Duration `json:"totalTime"`

	Settled bool           `json:"settled"`
	Lag     []PartitionLag `json:"lag,omitempty"`
	// Exit is how the consumer ended ("exit status 0", "signal: killed").
	Exit string `json:"exit,omitempty"`
	// Killed says what the harness had to kill or abandon beyond the
	// stop (SIGTERM) it asks for: a consumer that ignored SIGTERM, what
	// was left of its process group after it exited, a descendant that
	// left the group holding its output, the same of the state command,
	// and processes with the run's EVTOOL_WORKDIR still running after the
	// stop (Linux).
	Killed  []string       `json:"killed,omitempty"`
	Failure *Failure       `json:"failure,omitempty"`
	Expect  []ExpectResult `json:"expect,omitempty"`
	// DLQTopic and DLQ are the run's dead-letter topic (expect.dlq) and
	// what the consumer wrote to it.
	DLQTopic string      `json:"dlqTopic,omitempty"`
	DLQ      []DLQRecord `json:"dlq,omitempty"`
	// Downstream is what each downstream stand-in saw and the oracle
	// found in it.
	Downstream []DownstreamResult `json:"downstream,omitempty"`
	// Verdict is the run's: pass or fail (for a chaos or shrinking run,
	// against the baseline).
	Verdict Verdict `json:"verdict"`
	// Differences counts the places where the state differs from the
	// baseline (chaos and shrinking runs).
	Differences int `json:"differences,omitempty"`

	// InitialRead says whether the consumer served a state before the
	// first event (RunSpec.Initial); InitialWait is how long producing
	// waited for it.
	InitialRead bool     `json:"-"`
	InitialWait Duration `json:"-"`
	// initialEnd says what ended the wait for an initial state not read
	// ("joined": the grace after the consumer joined its group).
	initialEnd string

	// state is the consumer's final state (nil on failure) and initial
	// the one it served before the first event, kept on disk (see
	// storedState).
	state, initial *storedState

	faults chaos.Selection
	// down holds the run's stand-ins; terminal the event ids and effect
	// keys they answered terminally.
	down     *downstreamRun
	terminal map[string]bool
	// poison holds the run's poison faults by poison id.
	poison poisonIDs
	// topicID is the id of Topic.
	topicID [16]byte
	// firstCommit is when the group first had records committed, and
	// consumption the time from then until everything was committed.
	firstCommit time.Time
	consumption time.Duration
}

// initialStateWait bounds reading the state before the first event;
// initialStateGrace is how long after the consumer has joined its group
// the harness still waits for that state (a consumer that is in its group
// but serves nothing serves its state only once it has consumed).
const (
	initialStateWait  = 5 * time.Second
	initialStateGrace = 500 * time.Millisecond
)

// statesDirName is the directory of the work root that holds the runs'
// states: <run id>.json and <run id>-initial.json (the state before the
// first event), and with ".canon" appended their canonical forms. Not in
// a run's own directory, which is the consumer's (EVTOOL_WORKDIR).
const statesDirName = ".evtool-states"

// statePath is the file of a run's state.
func (h *Harness) statePath(id, suffix string) (string, error) {
	d := filepath.Join(h.root, statesDirName)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", err
	}
	return filepath.Join(d, id+suffix+".json"), nil
}

// keepsFiles reports whether the work directory outlives the replay.
func (h *Harness) keepsFiles() bool { return h.opts.Keep || h.opts.WorkDir != "" }

// compareRuns compares a run's state with the baseline's. A state equal
// to the baseline's is not kept on disk past its comparison (a replay
// makes dozens of runs — baselines, chaos, shrinking, contract runs — and
// each canonical file is as large as the state); the comparison is kept
// instead, for the callers that ask again.
func (h *Harness) compareRuns(base, r *RunResult) (Comparison, error) {
	if r.state != nil && r.state.equal == base.state && base.state != nil {
		return r.state.equalCmp, nil
	}
	c, err := compareStored(base.state, r.state, h.sc.Consumer.Ignore)
	if err == nil && c.Equal && r != base && r.state != base.state && r.state != nil && !h.keepsFiles() {
		r.state.equal, r.state.equalCmp = base.state, c
		_ = os.Remove(r.state.canon)
	}
	return c, err
}

// MaxRecordedFaults bounds RunResult.Faults.
const MaxRecordedFaults = 10000

// Failure says how a consumer failed a run (exit code 1).
type Failure struct {
	// Reason is exited, not-settled, committed-beyond-end, rewound (a
	// member committed a partition it no longer owned, below its new
	// owner's commit; on a real cluster, polled: a partition that had
	// moved went back), restart, expect or
	// baseline (a baseline run that tests nothing: see checkBaseline).
	Reason  string         `json:"reason"`
	Message string         `json:"message"`
	Lag     []PartitionLag `json:"lag,omitempty"`
	// Output is the last lines of the consumer's stderr (stdout when
	// stderr is empty).
	Output []string `json:"output,omitempty"`
}

// PartitionLag is a partition's end offset, the group's committed offset
// (-1: none) and the difference.
type PartitionLag struct {
	Partition int32 `json:"partition"`
	End       int64 `json:"end"`
	Committed int64 `json:"committed"`
	Lag       int64 `json:"lag"`
}

// Duration marshals as milliseconds.
type Duration time.Duration

// MarshalJSON renders milliseconds.
func (d Duration) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf("%d", time.Duration(d).Milliseconds())), nil
}

func (d Duration) String() string { return roundDuration(time.Duration(d)).String() }

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	default:
		return d.Round(time.Millisecond)
	}
}

func (h *Harness) phase(run, p string) {
	if h.opts.Progress != nil {
		h.opts.Progress.Phase(run, p)
	}
}

// Run runs the consumer once: fresh topic, group and work directory; the
// events produced clean or through the fault plan; settle; state; stop. A
// consumer that fails the run is reported in RunResult.Failure; the error
// is for everything else (Kafka, a state that is not JSON, a command that
// cannot start), and is an exit code 2.
func (h *Harness) Run(ctx context.Context, spec RunSpec) (*RunResult, error) {
	if h.inv == nil {
		return nil, errors.New("replay: Run before Validate")
	}
	if h.cl == nil {
		return nil, errors.New("replay: Run before Connect")
	}
	// Built before the run's clock starts.
	if err := h.build(ctx); err != nil {
		return nil, err
	}
	start := time.Now()
	res := h.newRun(spec)
	id := res.ID
	root, err := h.workRoot()
	if err != nil {
		return nil, err
	}
	// A run's id is new within the harness, and the root is the
	// harness's own: Mkdir, never a removal of something that exists.
	res.Workdir = filepath.Join(root, id)
	if err := os.Mkdir(res.Workdir, 0o755); err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	h.phase(spec.Name, "starting")
	if res.topicID, err = h.createTopic(ctx, res.Topic); err != nil {
		return nil, err
	}
	var dlq *dlqRun
	defer func() { h.cleanup(res, dlq) }()
	if res.down, err = h.startDownstreams(res, spec); err != nil {
		return nil, err
	}
	defer res.down.close()

	instances := max(h.sc.Consumer.Instances, 1)
	res.Instances = instances
	pspec, env, expand, dlqTopic := h.consumerProcess(res, addr, spec.Name, id, 0, instances)
	res.DLQTopic = dlqTopic
	// Instance 0 serves the state at addr; the others (and those a join
	// fault starts) get addresses of their own.
	instanceSpec := func(i int) supervise.Spec {
		if i == 0 {
			return pspec
		}
		a, err := freeAddr()
		if err != nil {
			a = "127.0.0.1:0"
		}
		ps, _, _, _ := h.consumerProcess(res, a, spec.Name, id, i, instances)
		return ps
	}
	if dlq, err = h.prepareDLQ(ctx, dlqTopic); err != nil {
		return nil, err
	}
	var crashes, rebalances []chaos.Fault
	if spec.Chaos {
		for _, f := range chaos.GroupPlan(h.sc.Chaos, res.Seed) {
			if !spec.Faults.Has(f.Index) {
				continue
			}
			if f.Kind == chaos.Crash {
				crashes = append(crashes, f)
			} else {
				rebalances = append(rebalances, f)
			}
		}
	}
	gw := h.watchGroup(ctx, res)
	cons, err := startConsumer(h.spawner(), instances, instanceSpec)
	if err != nil {
		gw.stop()
		return nil, fmt.Errorf("consumer.run (%s): %w", h.sc.Where("/consumer/run"), err)
	}
	if gw != nil {
		gw.cons = cons
	}
	cr := h.startCrasher(ctx, res, cons, crashes)
	if cr != nil {
		cr.note = gw.note
	}
	rb := h.startRebalancer(ctx, res, cons, gw, rebalances)
	stopped := false
	var stateKilled []string
	stop := func() {
		if !stopped {
			stopped = true
			cr.stop()
			rb.stop()
			gw.stop()
			h.phase(spec.Name, "stopping")
			res.Exit = cons.stop(h.opts.StopGrace)
			res.Killed = append(cons.notes(), stateKilled...)
			// What left the process groups (setsid) still has the
			// run's EVTOOL_WORKDIR: found where the platform tells.
			if pids := killLeftovers(res.Workdir); len(pids) > 0 {
				res.Killed = append(res.Killed, fmt.Sprintf("processes %v with the run's EVTOOL_WORKDIR had left the process groups of the consumer and the state command (setsid?) and still ran after the stop: they were killed (SIGKILL)", pids))
			}
			h.noteKilled(id, res.Killed)
		}
	}
	defer stop()
	h.logf("%s: started %s (pid %d) on topic %s, group %s", id, strings.Join(pspec.Argv, " "), cons.current().Pid(), res.Topic, res.Group)
	if spec.Initial {
		if err := h.readInitialState(ctx, res, cons, env, expand, &stateKilled); err != nil {
			return nil, err
		}
	}

	if instances > 1 && !h.waitMembers(ctx, cons, res.Group, instances, h.sc.Consumer.SettleTimeout) {
		h.logf("%s: the group did not have its %d instances as members within %s; producing anyway", id, instances, h.sc.Consumer.SettleTimeout)
	}
	h.phase(spec.Name, "producing")
	t0 := time.Now()
	if err := h.produce(ctx, res, spec); err != nil {
		return nil, err
	}
	res.ProduceTime = Duration(time.Since(t0))
	h.logf("%s: produced %d events as %d records in %s", id, res.Events, res.Records, res.ProduceTime)

	h.phase(spec.Name, "settling")
	t1 := time.Now()
	fail, err := h.settle(ctx, res, cons, cr, rb, gw)
	res.SettleTime = Duration(time.Since(t1))
	if err != nil {
		return nil, err
	}
	finish := func() (*RunResult, error) {
		res.Verdict = Pass
		if res.Failure != nil {
			res.Verdict = Fail
		}
		h.phase(spec.Name, "done")
		res.TotalTime = Duration(time.Since(start))
		return res, nil
	}
	if fail != nil {
		res.Failure = fail
		stop()
		h.judgeDownstreams(res, res.down, false, spec.Chaos)
		return finish()
	}
	res.Settled = true
	if !spec.Chaos && res.ConsumeTime > 0 {
		h.mu.Lock()
		h.cleanConsume = res.consumption
		h.mu.Unlock()
	}
	h.logf("%s: settled in %s", id, res.SettleTime)

	h.phase(spec.Name, "reading state")
	statePath, err := h.statePath(id, "")
	if err != nil {
		return nil, err
	}
	state, finalKilled, err := readStateFile(ctx, h.spawner(), h.sc.Consumer.State, h.sc.Consumer.Dir, env, expand, statePath, h.sc.Consumer.Ignore, h.sc.Consumer.stateTimeout(res.Records))
	stateKilled = append(stateKilled, finalKilled...)
	if err != nil {
		if exited, how := cons.exited(); exited {
			res.Failure = &Failure{Reason: "exited", Message: fmt.Sprintf("the consumer exited (%s) before its state could be read: %v", how, err), Output: cons.stderr()}
			return finish()
		}
		return nil, err
	}
	res.state = state
	stop()
	if res.Expect, err = evaluateStored(spec.Name, state, h.sc.Expect); err != nil {
		return nil, fmt.Errorf("reading the state %s: %w", state.raw, err)
	}
	if !h.keepsFiles() {
		// Only its canonical form is compared from now on.
		_ = os.Remove(state.raw)
	}
	// The DLQ of every clean run is read: a clean event dead-lettered
	// there is a consumer that rejects valid events (see checkBaseline).
	dlqRead := h.sc.DLQ != nil || !spec.Chaos || res.down != nil
	if dlqRead {
		dead, err := h.readDeadLetters(ctx, dlq, res.poison)
		if err != nil {
			return nil, err
		}
		res.DLQ = dlqRecords(dead)
		if spec.Initial {
			h.baselineDead, _ = distinctDead(res.DLQ, 0)
		}
		if h.sc.DLQ != nil {
			res.Expect = append(res.Expect, h.checkDeadLetters(ctx, res, dead, res.poison))
		}
	}
	var failed []string
	for _, e := range res.Expect {
		if !e.OK {
			failed = append(failed, e.String())
		}
	}
	if len(failed) > 0 {
		res.Failure = &Failure{Reason: "expect", Message: "expectations failed: " + strings.Join(failed, "; ")}
	}
	h.judgeDownstreams(res, res.down, dlqRead, spec.Chaos)
	return finish()
}

// readInitialState reads the state the consumer serves before the first
// event, best effort: a consumer that serves its state only once it has
// consumed something, or exits, is not judged by it, and not waited for
// beyond initialStateGrace once it has joined its group.
// What the harness had to kill around the state command is added to killed.
func (h *Harness) readInitialState(ctx context.Context, res *RunResult, cons *consumer, env []string, expand func(string) string, killed *[]string) error {
	bound := initialStateWait
	if h.initialWait > 0 {
		bound = h.initialWait
	}
	ictx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	type read struct {
		state  *storedState
		killed []string
		err    error
	}
	done := make(chan read, 1)
	start := time.Now()
	path, err := h.statePath(res.ID, "-initial")
	if err != nil {
		return err
	}
	go func() {
		st, killed, err := readStateFile(ictx, h.spawner(), h.sc.Consumer.State, h.sc.Consumer.Dir, env, expand, path, h.sc.Consumer.Ignore, bound)
		done <- read{st, killed, err}
	}()
	var joined time.Time
	for {
		select {
		case r := <-done:
			*killed = append(*killed, r.killed...)
			if r.err == nil {
				res.initial, res.InitialRead = r.state, true
			}
			res.InitialWait = Duration(time.Since(start))
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
			if exited, _ := cons.exited(); exited {
				res.initialEnd = "exited"
				cancel()
			}
			if joined.IsZero() {
				if h.groupJoined(ictx, res.Group) {
					joined = time.Now()
				}
			} else if time.Since(joined) > initialStateGrace && res.initialEnd == "" {
				res.initialEnd = "joined"
				cancel()
			}
		}
	}
}

// consumerProcess returns how to start the consumer for a run (the same
// spec restarts it, for crash faults), its environment and the expansion
// of ${VAR} in scenario strings.
func (h *Harness) consumerProcess(res *RunResult, addr, run, id string, inst, instances int) (supervise.Spec, []string, func(string) string, string) {
	instDir := filepath.Join(res.Workdir, "instance-"+strconv.Itoa(inst))
	// A failure here shows when the consumer cannot use it.
	_ = os.MkdirAll(instDir, 0o755)
	runEnv := map[string]string{
		"EVTOOL_BROKERS":      strings.Join(h.brokers, ","),
		"EVTOOL_TOPIC":        res.Topic,
		"EVTOOL_GROUP":        res.Group,
		"EVTOOL_WORKDIR":      res.Workdir,
		"EVTOOL_ADDR":         addr,
		"EVTOOL_RUN":          run,
		"EVTOOL_INSTANCE":     strconv.Itoa(inst),
		"EVTOOL_INSTANCES":    strconv.Itoa(instances),
		"EVTOOL_INSTANCE_DIR": instDir,
	}
	if h.buildDir != "" {
		runEnv["EVTOOL_BUILD"] = h.buildDir
	}
	if instances > 1 || inst > 0 {
		id = fmt.Sprintf("%s.i%d", id, inst)
	}
	expand := func(s string) string { return expandVars(s, runEnv) }
	dlqTopic := expand(DefaultDLQTopic)
	if h.sc.DLQ != nil {
		dlqTopic = expand(h.sc.DLQ.Topic)
	}
	runEnv["EVTOOL_DLQ_TOPIC"] = dlqTopic
	if res.down != nil {
		for k, v := range res.down.env {
			runEnv[k] = v
		}
	}
	env := os.Environ()
	for _, k := range slices.Sorted(maps.Keys(runEnv)) {
		env = append(env, k+"="+runEnv[k])
	}
	env = append(env, h.clientEnv()...)
	for _, e := range h.sc.Consumer.Env {
		env = append(env, e.Name+"="+expand(e.Value))
	}
	argv := make([]string, len(h.sc.Consumer.Run))
	for i, a := range h.sc.Consumer.Run {
		argv[i] = expand(a)
	}
	spec := supervise.Spec{Argv: argv, Dir: h.sc.Consumer.Dir, Env: env, LogDir: filepath.Join(h.root, "logs"), Name: id}
	return spec, env, expand, dlqTopic
}

// expandVars expands ${VAR} and $VAR in a scenario string from vars, else
// the environment; $$ is a literal $ (so `sh -c 'sleep 1 & echo $$!'` can
// name the shell's own variables).
func expandVars(s string, vars map[string]string) string {
	return os.Expand(s, func(k string) string {
		if k == "$" {
			return "$"
		}
		if v, ok := vars[k]; ok {
			return v
		}
		return os.Getenv(k)
	})
}

// newRun names a run (topic, group) and, for a chaos run, records its
// seed and fault selection.
func (h *Harness) newRun(spec RunSpec) *RunResult {
	id := h.runID(spec.Name)
	res := &RunResult{Name: spec.Name, ID: id, Topic: h.topicName(id), Group: h.groupName(id), faults: spec.Faults}
	if spec.Chaos {
		res.Seed = h.seed
		if spec.Seed != nil {
			res.Seed = *spec.Seed
		}
		res.Selected = spec.Faults.String()
	}
	return res
}

// Produce is the producing half of Run, without a consumer: it creates the
// run's topic and produces the events into it, clean or through the fault
// plan. For benchmarks and tools; DropRun deletes the topic.
func (h *Harness) Produce(ctx context.Context, spec RunSpec) (*RunResult, error) {
	if h.inv == nil || h.cl == nil {
		return nil, errors.New("replay: Produce before Validate and Connect")
	}
	res := h.newRun(spec)
	if _, err := h.createTopic(ctx, res.Topic); err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := h.produce(ctx, res, spec); err != nil {
		return nil, err
	}
	res.ProduceTime = Duration(time.Since(t0))
	res.TotalTime = res.ProduceTime
	return res, nil
}

// DropRun deletes a run's topic and group (unless Options.Keep).
func (h *Harness) DropRun(res *RunResult) { h.cleanup(res, nil) }

func (h *Harness) createTopic(ctx context.Context, topic string) ([16]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	resp, err := h.adm.CreateTopic(ctx, int32(h.partitions), -1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		return [16]byte{}, fmt.Errorf("cannot create topic %s with %d partitions: %w", topic, h.partitions, err)
	}
	return resp.ID, nil
}

// cleanup deletes the run's topic, group and the DLQ topic it created
// (best effort) unless Keep.
func (h *Harness) cleanup(res *RunResult, dlq *dlqRun) {
	if h.opts.Keep {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = h.adm.DeleteGroups(ctx, res.Group)
	topics := []string{res.Topic}
	if dlq != nil && dlq.created {
		topics = append(topics, dlq.topic)
	}
	_, _ = h.adm.DeleteTopics(ctx, topics...)
	h.cl.PurgeTopicsFromClient(topics...)
}

// produce streams the events through the fault plan into the topic.
func (h *Harness) produce(ctx context.Context, res *RunResult, spec RunSpec) error {
	src, err := h.openSource()
	if err != nil {
		return err
	}
	defer src.close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var firstErr atomic.Pointer[error]
	promise := func(r *kgo.Record, err error) {
		if err != nil && firstErr.Load() == nil {
			e := fmt.Errorf("producing to %s: %w", r.Topic, err)
			firstErr.CompareAndSwap(nil, &e)
			cancel()
		}
	}
	cfg := chaos.Config{}
	sel := chaos.All()
	if spec.Chaos {
		cfg, sel = h.sc.Chaos, spec.Faults
	}
	var mutErr error
	stream, err := chaos.NewStream(cfg, res.Seed, sel, func(d chaos.Delivery[*kgo.Record]) error {
		if e := firstErr.Load(); e != nil {
			return *e
		}
		if mutErr != nil {
			return mutErr
		}
		place := -1
		if d.Fault == nil || d.Fault.Kind == chaos.Reorder {
			place = res.down.addEvent(d.Event)
		}
		// Each delivery has a record of its own (Clone below): the
		// client writes into the records it is given.
		if place < 0 {
			h.cl.Produce(ctx, d.Value, promise)
		} else {
			h.cl.Produce(ctx, d.Value, func(r *kgo.Record, err error) {
				promise(r, err)
				if err == nil {
					res.down.setOffset(place, r.Partition, r.Offset)
				}
			})
		}
		res.Records++
		return nil
	})
	if err != nil {
		return err
	}
	stream.Clone(func(r *kgo.Record) *kgo.Record {
		c := *r
		return &c
	})
	stream.Mutate(func(f chaos.Fault, r *kgo.Record) *kgo.Record {
		m, err := h.mutateRecord(ctx, f, r)
		if err != nil {
			if mutErr == nil {
				mutErr = err
			}
			return r
		}
		return m
	})
	if spec.Chaos {
		res.poison = poisonIDs{}
		stream.Observe(func(f chaos.Fault, applied bool) {
			if !applied {
				return
			}
			if f.Kind == chaos.Poison {
				res.poison.add(f)
			}
			res.down.addFault(f)
			if len(res.Faults) < MaxRecordedFaults {
				// The strings of an event alias its text (see
				// fastRecord): copy them, or a fault keeps the text.
				f.ID, f.Key = strings.Clone(f.ID), strings.Clone(f.Key)
				res.Faults = append(res.Faults, f)
			} else {
				res.FaultsTruncated = true
			}
		})
	}
	total := h.inv.Events
	var produced int64
	next := func() (rawEvent, bool, error) { return src.next() }
	work := func(r rawEvent) converted { return h.convert(ctx, spec.mutation.apply(r), res.Topic) }
	emit := func(c converted) error {
		if c.err != nil {
			return c.err
		}
		if err := stream.Push(c.meta, c.rec); err != nil {
			return err
		}
		produced++
		if h.opts.Progress != nil && (produced%512 == 0 || produced == total) {
			h.opts.Progress.Produced(res.Name, produced, total)
		}
		return nil
	}
	err = pipeline.Ordered(ctx, 0, 128, next, work, emit)
	if err == nil {
		err = stream.Close()
	}
	if err == nil {
		err = mutErr
	}
	if err == nil {
		err = h.cl.Flush(ctx)
	}
	if e := firstErr.Load(); e != nil {
		return *e
	}
	if err != nil {
		return err
	}
	st := stream.Stats()
	res.Events = st.Events
	if spec.Chaos {
		res.Planned, res.Applied, res.MaxHeld = st.Planned, st.Applied, st.MaxHeld
	}
	if h.opts.Progress != nil {
		h.opts.Progress.Produced(res.Name, produced, total)
	}
	return nil
}

// settle waits until the group's committed offsets reach the end offsets
// of every partition and stay there for quiet. A consumer that exits, or
// does not settle within the settle timeout, fails the run.
func (h *Harness) settle(ctx context.Context, res *RunResult, cons *consumer, cr *crasher, rb *rebalancer, gw *groupWatch) (*Failure, error) {
	sc := h.sc.Consumer
	ends, err := h.endOffsets(ctx, res.Topic)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(sc.SettleTimeout)
	poll := sc.Quiet / 5
	if poll > 100*time.Millisecond {
		poll = 100 * time.Millisecond
	}
	if poll < 10*time.Millisecond {
		poll = 10 * time.Millisecond
	}
	var since time.Time
	var lag []PartitionLag
	var lastErr error
	for {
		if exited, how := cons.exited(); exited {
			lag, _ = h.lag(ctx, res, ends)
			return &Failure{Reason: "exited", Message: fmt.Sprintf("the consumer exited early (%s) with %d record(s) not committed", how, totalLag(lag)),
				Lag: lag, Output: cons.stderr()}, nil
		}
		if f := cr.failure(); f != nil {
			f.Output = cons.stderr()
			return f, nil
		}
		if rw := gw.foreignRewind(); rw != nil {
			// Committing a partition the member no longer owns, below
			// what its new owner committed: those records are consumed
			// again, and the group's offsets go back and forth.
			lag, _ = h.lag(ctx, res, ends)
			why := " (a commit of a revoked partition)"
			if rw.Polled {
				why = "" // the polled rewind says what it can
			}
			return &Failure{Reason: "rewound", Message: fmt.Sprintf("the group's committed offset of a partition went back: %s%s", rw, why),
				Lag: lag, Output: cons.stderr()}, nil
		}
		l, err := h.lag(ctx, res, ends)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			lastErr = err
		} else {
			lag = l
			if beyondEnd(l) != nil {
				// The end offsets were listed once, when producing
				// ended: a consumer that produces to its own topic (a
				// retry) moves them. Only past the current end is a
				// commit beyond it.
				if ends, err = h.endOffsets(ctx, res.Topic); err != nil {
					return nil, err
				}
				if lag, err = h.lag(ctx, res, ends); err != nil {
					return nil, err
				}
				if f := beyondEnd(lag); f != nil {
					f.Output = cons.stderr()
					return f, nil
				}
				l = lag
			}
			total := totalLag(l)
			if h.opts.Progress != nil {
				h.opts.Progress.Lag(res.Name, total)
			}
			if res.firstCommit.IsZero() && committedTotal(l) > 0 {
				res.firstCommit = time.Now()
			}
			if total == 0 && res.ConsumeTime == 0 {
				res.ConsumeTime = Duration(time.Since(cons.started))
				res.consumption = time.Since(res.firstCommit)
			}
			if total == 0 && cr.finished() && rb.finished() {
				if since.IsZero() {
					since = time.Now()
				}
				// The group settles too: a zombie rejoins only once it
				// has done with its stale batch, a restarted instance
				// once it joined (bounded: a consumer may leave its
				// group when idle).
				if time.Since(since) >= sc.Quiet && (gw.settled(ctx, cons) || time.Since(since) >= groupSettleMax) {
					res.Lag = lag
					return nil, nil
				}
			} else {
				since = time.Time{}
			}
		}
		if time.Now().After(deadline) {
			msg := fmt.Sprintf("the consumer did not settle within %s (consumer.settle_timeout): %d record(s) not committed%s%s%s", sc.SettleTimeout, totalLag(lag), cr.pending(), rb.pending(), gw.rewound())
			if lag == nil && lastErr != nil {
				msg = fmt.Sprintf("the consumer did not settle within %s: cannot read the group's offsets: %v", sc.SettleTimeout, lastErr)
			}
			return &Failure{Reason: "not-settled", Message: msg, Lag: lag, Output: cons.stderr()}, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(poll):
		}
	}
}

func (h *Harness) endOffsets(ctx context.Context, topic string) (map[int32]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	lo, err := h.adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = lo.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("cannot list the end offsets of %s: %w", topic, err)
	}
	ends := map[int32]int64{}
	lo.Each(func(o kadm.ListedOffset) { ends[o.Partition] = o.Offset })
	return ends, nil
}

func (h *Harness) lag(ctx context.Context, res *RunResult, ends map[int32]int64) ([]PartitionLag, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	offs, err := h.adm.FetchOffsets(ctx, res.Group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		offs, err = nil, nil // nothing committed yet
	}
	if err != nil {
		return nil, err
	}
	out := make([]PartitionLag, 0, len(ends))
	for p, end := range ends {
		pl := PartitionLag{Partition: p, End: end, Committed: -1}
		if o, ok := offs.Lookup(res.Topic, p); ok && o.Err == nil {
			pl.Committed = o.At
		}
		c := pl.Committed
		if c < 0 {
			c = 0
		}
		pl.Lag = max(end-c, 0)
		out = append(out, pl)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Partition < out[j].Partition })
	return out, nil
}

// beyondEnd fails a run whose group committed past a partition's end
// offset: the topic's records are all produced before settling, so the
// consumer committed offsets it never read (an offset arithmetic bug that
// a lag of zero would hide).
func beyondEnd(l []PartitionLag) *Failure {
	var parts []string
	for _, p := range l {
		if p.Committed > p.End {
			parts = append(parts, fmt.Sprintf("partition %d committed %d, end offset %d", p.Partition, p.Committed, p.End))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return &Failure{Reason: "committed-beyond-end", Lag: l,
		Message: "the consumer committed offsets beyond the end of the topic (" + strings.Join(parts, "; ") + "): a committed offset is the next record to read, at most the end offset"}
}

func totalLag(l []PartitionLag) int64 {
	var n int64
	for _, p := range l {
		n += p.Lag
	}
	return n
}

// committedTotal is the number of records below the committed offsets.
func committedTotal(l []PartitionLag) int64 {
	var n int64
	for _, p := range l {
		n += max(p.Committed, 0)
	}
	return n
}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
