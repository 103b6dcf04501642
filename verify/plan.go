package verify

import (
	"fmt"
	"math/rand/v2"
	"sort"
)

// The fault kinds.
const (
	KindCrash        = "crash"
	KindProduceError = "produce-error"
	KindRollback     = "rollback"
)

// Fault is one planned fault. Crash and produce-error faults are armed when
// the harness sends workload request Step (for a command workload: at the
// Step-th produce request) and strike the next produce request; a rollback
// marks request Step with X-Evtool-Fail-After-Write: 1.
type Fault struct {
	Index int    `json:"index"`
	Kind  string `json:"kind"`
	// Phase is the crash phase (before-append, after-append) or the
	// produce error kind (retriable, disconnect, lost-ack).
	Phase string `json:"phase,omitempty"`
	Step  int    `json:"step"`
	// Line is the request's line in the requests file (0 for a command
	// workload).
	Line int `json:"line,omitempty"`
}

// String describes the fault for listings and reports.
func (f Fault) String() string {
	where := fmt.Sprintf("request %d", f.Step+1)
	if f.Line > 0 {
		where += fmt.Sprintf(" (line %d)", f.Line)
	} else if f.Kind != KindRollback {
		where = fmt.Sprintf("produce request %d", f.Step+1)
	}
	switch f.Kind {
	case KindCrash:
		if f.Line > 0 {
			return fmt.Sprintf("#%d crash %s: SIGKILL at the first produce request from %s", f.Index, f.Phase, where)
		}
		return fmt.Sprintf("#%d crash %s: SIGKILL at %s", f.Index, f.Phase, where)
	case KindProduceError:
		return fmt.Sprintf("#%d produce error %s at the first produce request from %s", f.Index, f.Phase, where)
	}
	return fmt.Sprintf("#%d rollback: %s asks the producer to fail after writing", f.Index, where)
}

// Plan draws the faults of a scenario from seed: the same seed, the same
// plan. Faults are ordered by step; their indexes are what --faults names.
func Plan(sc *Scenario, seed uint64) []Fault {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	steps := sc.Steps()
	if steps == 0 {
		return nil
	}
	line := func(step int) int {
		if step < len(sc.Workload.Requests) {
			return sc.Workload.Requests[step].Line
		}
		return 0
	}
	var out []Fault
	c := sc.Chaos
	// Crashes strike distinct steps; without a phase they alternate,
	// starting before the append.
	n := min(c.Crashes, steps)
	picked := rng.Perm(steps)[:n]
	sort.Ints(picked)
	for i, s := range picked {
		phase := c.CrashAt
		switch phase {
		case Random:
			phase = []string{BeforeAppend, AfterAppend}[rng.IntN(2)]
		case "":
			phase = []string{BeforeAppend, AfterAppend}[i%2]
		}
		out = append(out, Fault{Kind: KindCrash, Phase: phase, Step: s, Line: line(s)})
	}
	for s := 0; s < steps; s++ {
		if c.ProduceErrors > 0 && rng.Float64() < c.ProduceErrors {
			out = append(out, Fault{Kind: KindProduceError, Phase: c.ErrorKinds[rng.IntN(len(c.ErrorKinds))], Step: s, Line: line(s)})
		}
		if c.Rollback > 0 && rng.Float64() < c.Rollback {
			out = append(out, Fault{Kind: KindRollback, Step: s, Line: line(s)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Step < out[j].Step })
	for i := range out {
		out[i].Index = i
	}
	return out
}
