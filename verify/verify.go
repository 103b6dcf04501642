package verify

import (
	"context"
	"strconv"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/replay"
)

// Report is the outcome of a verification.
type Report struct {
	Scenario string `json:"scenario"`
	File     string `json:"file"`
	Seed     uint64 `json:"seed"`
	// Pass is true when the clean run and the chaos run have no class
	// member and every expectation holds.
	Pass bool `json:"pass"`
	// Plan is the fault plan (all of it; Chaos.Applied says what struck).
	Plan  []Fault    `json:"plan"`
	Clean *RunResult `json:"clean"`
	Chaos *RunResult `json:"chaos,omitempty"`
	// Reproduce reruns the failing run.
	Reproduce string        `json:"reproduce,omitempty"`
	Shrink    *ShrinkReport `json:"shrink,omitempty"`
}

// ShrinkReport is the smallest failing set of faults found.
type ShrinkReport struct {
	Faults    []Fault    `json:"faults"`
	Tests     int        `json:"tests"`
	Minimal   bool       `json:"minimal"`
	Reproduce string     `json:"reproduce"`
	Result    *RunResult `json:"result,omitempty"`
}

// Run verifies the producer: a clean run with one instance and no faults
// (a producer that fails there is reported at once), then the chaos run with the selected
// faults; a failing chaos run is shrunk to a minimal set of the faults
// that struck.
func (h *Harness) Run(ctx context.Context) (*Report, error) {
	if err := h.checkCluster(); err != nil {
		return nil, err
	}
	rep := &Report{Scenario: h.sc.String(), File: h.sc.File, Seed: h.seed, Plan: h.plan}
	clean, err := h.run(ctx, "clean", chaos.Only(), 1)
	if err != nil {
		return nil, err
	}
	rep.Clean = clean
	if clean.Verdict.Facts == 0 {
		// Every record would be a phantom and nothing could be lost: the
		// state (or the workload) tests nothing.
		clean.Expect = append(clean.Expect, "the clean run reported no committed facts: producer.state tests nothing")
	}
	if clean.Failed() {
		rep.Reproduce = h.reproduce(chaos.Only())
		return rep, nil
	}
	ch, err := h.run(ctx, "chaos", h.opts.Faults, h.sc.Chaos.Relays)
	if err != nil {
		return nil, err
	}
	rep.Chaos = ch
	if !ch.Failed() {
		rep.Pass = true
		return rep, nil
	}
	rep.Reproduce = h.reproduce(h.opts.Faults)
	if h.opts.ShrinkBudget <= 0 || len(ch.Applied) == 0 {
		return rep, nil
	}
	var last *RunResult
	n := 0
	res, err := chaos.Shrink(ctx, ch.Applied, nil, h.opts.ShrinkBudget, func(ctx context.Context, subset []int) (bool, error) {
		n++
		r, err := h.run(ctx, "shrink"+strconv.Itoa(n), chaos.Only(subset...), h.sc.Chaos.Relays)
		if err != nil {
			return false, err
		}
		if r.Failed() {
			last = r
		}
		return r.Failed(), nil
	})
	if err != nil {
		return nil, err
	}
	sr := &ShrinkReport{Tests: res.Tests, Minimal: res.Minimal, Reproduce: h.reproduce(chaos.Only(res.Faults...))}
	for _, i := range res.Faults {
		sr.Faults = append(sr.Faults, h.plan[i])
	}
	if last != nil && selText(chaos.Only(res.Faults...)) == last.Faults {
		sr.Result = last
	}
	rep.Shrink = sr
	return rep, nil
}

func (h *Harness) reproduce(sel chaos.Selection) string {
	return replay.ReproduceCommand(h.opts.Command, h.seed, sel, h.opts.Brokers, h.opts.Client)
}
