package replay

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/downstream"
)

// DownstreamResult is what one stand-in saw in a run, as the oracle judged
// it.
type DownstreamResult struct {
	Name     string               `json:"name"`
	Summary  downstream.Summary   `json:"summary"`
	Findings []downstream.Finding `json:"findings,omitempty"`
}

// downstreamRun holds a run's stand-ins.
type downstreamRun struct {
	stands []*downstream.StandIn
	plans  map[string]*downstream.Plan
	env    map[string]string
	// events are the run's input events, for the oracle (kept only when
	// the scenario has stand-ins), compactly. mu guards them: the
	// producer's callbacks set offsets while the plan appends.
	mu     sync.Mutex
	events *downstream.EventTable
}

// startDownstreams starts the scenario's stand-ins for a run; a chaos run's
// plans get its selected outages now and its downstream faults as the
// stream plans them (addFault).
func (h *Harness) startDownstreams(res *RunResult, spec RunSpec) (*downstreamRun, error) {
	if len(h.sc.Downstream) == 0 {
		return nil, nil
	}
	stands, plans, err := StartStandIns(h.sc.Downstream)
	if err != nil {
		return nil, err
	}
	d := &downstreamRun{stands: stands, plans: plans, env: map[string]string{}, events: downstream.NewEventTable(res.Topic)}
	for i, s := range h.sc.Downstream {
		d.env[s.Env] = stands[i].URL()
	}
	if spec.Chaos {
		for _, f := range chaos.OutagePlan(h.sc.Chaos, res.Seed) {
			if spec.Faults.Has(f.Index) {
				d.plans[f.Downstream].Add(f, h.inv.Events)
			}
		}
	}
	return d, nil
}

// StartStandIns starts a stand-in per spec (in its order), each with a
// plan of its own, empty: the caller adds the run's faults.
func StartStandIns(specs []DownstreamSpec) ([]*downstream.StandIn, map[string]*downstream.Plan, error) {
	var stands []*downstream.StandIn
	plans := map[string]*downstream.Plan{}
	for _, s := range specs {
		plan := downstream.NewPlan()
		st, err := downstream.Start(s.Config, plan)
		if err != nil {
			for _, x := range stands {
				x.Close()
			}
			return nil, nil, err
		}
		stands = append(stands, st)
		plans[s.Config.Name] = plan
	}
	return stands, plans, nil
}

// addFault hands an applied downstream fault to its stand-in's plan.
func (d *downstreamRun) addFault(f chaos.Fault) {
	if d == nil || f.Kind != chaos.Downstream {
		return
	}
	if p := d.plans[f.Downstream]; p != nil {
		p.Add(f, 0)
	}
}

// addEvent records an event as it is produced (its first delivery, in
// delivery order: the order effect-order judges) for the oracle.
// It returns the event's place for setOffset, -1 without stand-ins.
func (d *downstreamRun) addEvent(e chaos.Event) int {
	if d == nil {
		return -1
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.events.Add(e.ID, e.Key, e.Partition, e.Index, e.Line)
}

// setOffset records the offset the event's first delivery was written at,
// so that findings name it as topic/partition@offset.
func (d *downstreamRun) setOffset(i int, partition int32, offset int64) {
	if d == nil || i < 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.events.SetOffset(i, partition, offset)
}

func (d *downstreamRun) close() {
	if d == nil {
		return
	}
	for _, s := range d.stands {
		s.Close()
	}
}

// judgeDownstreams closes the stand-ins and judges their logs: findings
// fail a run the consumer did not fail already. The first clean run's
// effects are the effects every later run must have.
func (h *Harness) judgeDownstreams(res *RunResult, d *downstreamRun, dlqRead bool, chaosRun bool) {
	if d == nil {
		return
	}
	d.close()
	var dead []string
	for _, r := range res.DLQ {
		dead = append(dead, r.ID)
	}
	h.mu.Lock()
	expected, files := h.baselineEffects, h.baselineEffectFiles
	h.mu.Unlock()
	first := !chaosRun && expected == nil && files == nil
	logs := make([]downstream.Log, len(d.stands))
	for i, st := range d.stands {
		logs[i] = st.TakeLog()
	}
	j := judgeDownstreams(h.sc.Downstream, logs, d.events, dead, dlqRead, expected, files)
	res.Downstream, res.terminal = j.Results, j.Terminal
	if first {
		// The baseline's effects (one key per event notified) wait for
		// the later runs on disk; kept in memory only if they cannot be
		// written.
		files, err := h.spillEffects(j.Effects)
		h.mu.Lock()
		if err == nil {
			h.baselineEffectFiles = files
		} else {
			h.baselineEffects = j.Effects
		}
		h.mu.Unlock()
	}
	if j.Message == "" || (res.Failure != nil && res.Failure.Reason != "expect") {
		return
	}
	if res.Failure != nil {
		res.Failure.Message += "; " + j.Message
		return
	}
	res.Failure = &Failure{Reason: "downstream", Message: j.Message}
}

// DownstreamJudgement is what the oracle made of one run's stand-ins.
type DownstreamJudgement struct {
	Results []DownstreamResult
	// Effects are the effect keys each stand-in applied (sorted), the
	// expected effects of later runs when this is the baseline.
	Effects map[string][]string
	// Terminal holds the event ids and effect keys answered terminally.
	Terminal map[string]bool
	// Message sums the findings up ("" for none).
	Message string
}

// JudgeDownstreams runs the oracle over the logs of a run's stand-ins (in
// specs' order): events finds the run's events (by id), dead
// the ids on its DLQ (dlqRead: it was read), expected the baseline's
// effects (nil for the baseline itself). evtool replay and replaytest
// judge with it.
func JudgeDownstreams(specs []DownstreamSpec, logs []downstream.Log, events downstream.EventIndex, dead []string, dlqRead bool, expected map[string][]string) DownstreamJudgement {
	return judgeDownstreams(specs, logs, events, dead, dlqRead, expected, nil)
}

// spillEffects writes each stand-in's effect keys to a file of the work
// directory (downstream.WriteKeys), by stand-in name.
func (h *Harness) spillEffects(effects map[string][]string) (map[string]string, error) {
	files := map[string]string{}
	for i, s := range h.sc.Downstream {
		p := filepath.Join(h.root, fmt.Sprintf("baseline-effects-%d.keys", i))
		if err := downstream.WriteKeys(p, effects[s.Config.Name]); err != nil {
			return nil, err
		}
		files[s.Config.Name] = p
	}
	return files, nil
}

// judgeDownstreams is JudgeDownstreams with expected effects also in
// files (spillEffects), by stand-in name.
func judgeDownstreams(specs []DownstreamSpec, logs []downstream.Log, events downstream.EventIndex, dead []string, dlqRead bool, expected map[string][]string, expectedFiles map[string]string) DownstreamJudgement {
	deadSet := map[string]bool{}
	for _, id := range dead {
		deadSet[id] = true
	}
	j := DownstreamJudgement{Effects: map[string][]string{}, Terminal: map[string]bool{}}
	var all []downstream.Finding
	for i, s := range specs {
		log := logs[i]
		in := downstream.Input{Log: log, Idempotent: s.Config.Idempotency != nil, Limits: s.Config.Limits, Expect: s.Expect,
			Index: events, DLQ: deadSet, DLQKnown: dlqRead, Expected: expected[s.Config.Name], ExpectedFile: expectedFiles[s.Config.Name]}
		findings, sum := downstream.Judge(in)
		j.Results = append(j.Results, DownstreamResult{Name: s.Config.Name, Summary: sum, Findings: findings})
		all = append(all, findings...)
		seen := map[string]bool{}
		// Copies of the keys: the log's share chunks of an arena, which
		// a key kept for the replay would hold whole.
		log.Each(func(e *downstream.Entry) {
			if e.Effect && !seen[e.EffectKey] {
				k := strings.Clone(e.EffectKey)
				seen[k] = true
				j.Effects[s.Config.Name] = append(j.Effects[s.Config.Name], k)
			}
			if e.Outcome == downstream.Terminated {
				j.Terminal[strings.Clone(e.EventID)] = true
				j.Terminal[strings.Clone(e.EffectKey)] = true
			}
		})
		sort.Strings(j.Effects[s.Config.Name])
	}
	if len(all) == 0 {
		return j
	}
	var parts []string
	for i, f := range all {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(all)-3))
			break
		}
		parts = append(parts, f.String())
	}
	j.Message = fmt.Sprintf("%d downstream finding(s): %s", len(all), strings.Join(parts, "; "))
	return j
}

// findingKeys are the event keys and ids the findings of a run name, to
// find the faults near them.
func (r *RunResult) findingKeys() []string {
	var out []string
	for _, d := range r.Downstream {
		for _, f := range d.Findings {
			if f.Event != nil {
				out = append(out, f.Event.ID)
				if f.Event.Key != "" {
					out = append(out, f.Event.Key)
				}
			}
			if f.EffectKey != "" {
				out = append(out, f.EffectKey)
			}
		}
	}
	return out
}
