package replay

import (
	"fmt"
	"sort"
	"strings"

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
	// the scenario has stand-ins).
	events []downstream.Event
}

// startDownstreams starts the scenario's stand-ins for a run; a chaos run's
// plans get its selected outages now and its downstream faults as the
// stream plans them (addFault).
func (h *Harness) startDownstreams(res *RunResult, spec RunSpec) (*downstreamRun, error) {
	if len(h.sc.Downstream) == 0 {
		return nil, nil
	}
	d := &downstreamRun{plans: map[string]*downstream.Plan{}, env: map[string]string{}}
	for _, s := range h.sc.Downstream {
		plan := downstream.NewPlan()
		st, err := downstream.Start(s.Config, plan)
		if err != nil {
			d.close()
			return nil, err
		}
		d.stands = append(d.stands, st)
		d.plans[s.Config.Name] = plan
		d.env[s.Env] = st.URL()
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
func (d *downstreamRun) addEvent(topic string, e chaos.Event) {
	if d == nil {
		return
	}
	d.events = append(d.events, downstream.Event{ID: strings.Clone(e.ID), Key: strings.Clone(e.Key), Topic: topic,
		Partition: e.Partition, Offset: -1, Index: e.Index, Order: int64(len(d.events)), Line: e.Line})
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
// fail a run the consumer did not fail already. The first baseline's
// effects are the effects every later run must have.
func (h *Harness) judgeDownstreams(res *RunResult, d *downstreamRun, dlqRead bool, first bool) {
	if d == nil {
		return
	}
	d.close()
	dead := map[string]bool{}
	for _, r := range res.DLQ {
		dead[r.ID] = true
	}
	h.mu.Lock()
	expected := h.baselineEffects
	h.mu.Unlock()
	effects := map[string][]string{}
	res.terminal = map[string]bool{}
	var all []downstream.Finding
	for i, s := range h.sc.Downstream {
		log := d.stands[i].Log()
		in := downstream.Input{Log: log, Idempotent: s.Config.Idempotency != nil, Limits: s.Config.Limits, Expect: s.Expect,
			Events: d.events, DLQ: dead, DLQKnown: dlqRead}
		if !first {
			in.Expected = expected[s.Config.Name]
		}
		findings, sum := downstream.Judge(in)
		res.Downstream = append(res.Downstream, DownstreamResult{Name: s.Config.Name, Summary: sum, Findings: findings})
		all = append(all, findings...)
		seen := map[string]bool{}
		for _, e := range log.Entries {
			if e.Effect && !seen[e.EffectKey] {
				seen[e.EffectKey] = true
				effects[s.Config.Name] = append(effects[s.Config.Name], e.EffectKey)
			}
			if e.Outcome == downstream.Terminated {
				res.terminal[e.EventID] = true
				res.terminal[e.EffectKey] = true
			}
		}
	}
	if first {
		for _, v := range effects {
			sort.Strings(v)
		}
		h.mu.Lock()
		h.baselineEffects = effects
		h.mu.Unlock()
	}
	if len(all) == 0 || (res.Failure != nil && res.Failure.Reason != "expect") {
		return
	}
	var parts []string
	for i, f := range all {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(all)-3))
			break
		}
		parts = append(parts, f.String())
	}
	msg := fmt.Sprintf("%d downstream finding(s): %s", len(all), strings.Join(parts, "; "))
	if res.Failure != nil {
		res.Failure.Message += "; " + msg
		return
	}
	res.Failure = &Failure{Reason: "downstream", Message: msg}
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
