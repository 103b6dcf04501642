package replay

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/evtool/evtool/chaos"
)

// ShrinkReport is the smallest failing set of faults shrinking found.
type ShrinkReport struct {
	// Budget is the most runs shrinking could make; Runs how many it made.
	Budget int `json:"budget"`
	Runs   int `json:"runs"`
	// From is the number of faults the failing chaos run applied.
	From int `json:"from"`
	// Minimal reports that the set is 1-minimal: without any one of its
	// faults the consumer passes. False when the budget ran out first.
	Minimal bool `json:"minimal"`
	// Faults are the faults of the set, with the events they apply to.
	Faults []chaos.Fault `json:"faults"`
	// Run is the id of the run that failed with exactly these faults, and
	// Failure, Comparison, Expect and Kills what it saw.
	Run        string         `json:"run"`
	Failure    *Failure       `json:"failure,omitempty"`
	Comparison *Comparison    `json:"comparison,omitempty"`
	Expect     []ExpectResult `json:"expect,omitempty"`
	Kills      []Kill         `json:"kills,omitempty"`
	Rebalances []Rebalance    `json:"rebalances,omitempty"`
	// Reproduce replays exactly the minimal set.
	Reproduce string `json:"reproduce"`
	// Error is set when shrinking stopped on an error (the set is the
	// smallest failing one found until then).
	Error string `json:"error,omitempty"`
}

// judgeRun compares a run with the baseline and sets its verdict and
// difference count; it reports whether the run failed.
func (h *Harness) judgeRun(base, r *RunResult) (bool, error) {
	if r.Failure != nil {
		r.Verdict = Fail
		return true, nil
	}
	c, err := h.compareRuns(base, r)
	if err != nil {
		return false, err
	}
	if c.Equal {
		r.Verdict, r.Differences = Pass, 0
		return false, nil
	}
	r.Verdict, r.Differences = Fail, len(c.Differences)+c.More
	return true, nil
}

// appliedIndexes returns the indexes of the faults a run applied.
func (h *Harness) appliedIndexes(ctx context.Context, ch *RunResult) ([]int, map[int]chaos.Fault, error) {
	byIndex := map[int]chaos.Fault{}
	if !ch.FaultsTruncated {
		for _, f := range ch.Faults {
			byIndex[f.Index] = f
		}
	} else {
		for _, f := range chaos.GroupPlan(h.sc.Chaos, ch.Seed) {
			if ch.faults.Has(f.Index) {
				byIndex[f.Index] = f
			}
		}
		if _, err := h.listFaults(ctx, ch.Seed, ch.faults, func(f chaos.Fault, applied bool) error {
			if applied {
				byIndex[f.Index] = f
			}
			return nil
		}); err != nil {
			return nil, nil, err
		}
	}
	idx := make([]int, 0, len(byIndex))
	for i := range byIndex {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	return idx, byIndex, nil
}

// confirmAndShrink reruns a failing chaos run once to confirm it, then
// shrinks its faults to a 1-minimal failing set (ddmin) within the budget.
func (h *Harness) confirmAndShrink(ctx context.Context, rep *Report, base, ch *RunResult) error {
	idx, byIndex, err := h.appliedIndexes(ctx, ch)
	if err != nil {
		return err
	}
	if len(idx) == 0 {
		return nil // failed without a fault: nothing to shrink
	}
	seed := ch.Seed
	again, err := h.Run(ctx, RunSpec{Name: "confirm", Chaos: true, Faults: ch.faults, Seed: &seed})
	if err != nil {
		return fmt.Errorf("confirming the failure: %w", err)
	}
	rep.Runs = append(rep.Runs, again)
	confirmed, err := h.judgeRun(base, again)
	if err != nil {
		return err
	}
	rep.Confirmed = &confirmed
	if !confirmed {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the failure did not happen again on a rerun with the same seed and faults (run %s): it depends on timing (random crash points, a race in the consumer); not shrunk", again.ID))
		return nil
	}
	budget := h.opts.ShrinkBudget
	if budget == 0 {
		budget = DefaultShrinkBudget
	}
	sr := &ShrinkReport{Budget: budget, From: len(idx)}
	rep.Shrink = sr
	failing := map[string]*RunResult{chaos.Only(idx...).String(): ch}
	var hints [][]int
	if len(rep.NearFaults) > 0 {
		var near []int
		for _, f := range rep.NearFaults {
			near = append(near, f.Index)
		}
		hints = append(hints, near)
	}
	// Crash and rebalance faults alone are a cheap, likely hint for
	// failures that only they expose.
	var crashes []int
	for _, i := range idx {
		if k := byIndex[i].Kind; k == chaos.Crash || k == chaos.Rebalance || k == chaos.Outage {
			crashes = append(crashes, i)
		}
	}
	if len(crashes) > 0 {
		hints = append(hints, crashes)
	}
	res, err := chaos.Shrink(ctx, idx, hints, budget, func(ctx context.Context, sub []int) (bool, error) {
		h.logf("shrink: trying %d fault(s): %s", len(sub), chaos.Only(sub...))
		r, err := h.Run(ctx, RunSpec{Name: "shrink", Chaos: true, Faults: chaos.Only(sub...), Seed: &seed})
		if err != nil {
			return false, err
		}
		rep.Runs = append(rep.Runs, r)
		failed, err := h.judgeRun(base, r)
		if err != nil {
			return false, err
		}
		if failed {
			failing[chaos.Only(sub...).String()] = r
		}
		return failed, nil
	})
	sr.Runs, sr.Minimal = res.Tests, res.Minimal
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return err
		}
		sr.Error, sr.Minimal = err.Error(), false
	}
	for _, i := range res.Faults {
		sr.Faults = append(sr.Faults, byIndex[i])
	}
	sel := chaos.Only(res.Faults...)
	sr.Reproduce = h.reproduce(seed, sel)
	rep.Summary += fmt.Sprintf("; shrunk to %d fault(s) (%s)", len(sr.Faults), sr.summary())
	if r := failing[sel.String()]; r != nil {
		sr.Run, sr.Failure, sr.Kills, sr.Rebalances = r.ID, r.Failure, r.Kills, r.Rebalances
		if r.Failure == nil {
			c, err := h.compareRuns(base, r)
			if err != nil {
				return err
			}
			sr.Comparison = &c
		}
		for _, e := range r.Expect {
			if !e.OK {
				sr.Expect = append(sr.Expect, e)
			}
		}
	}
	return nil
}

// summary renders the minimal set's size for the report's summary.
func (s *ShrinkReport) summary() string {
	var kinds []string
	count := map[chaos.Kind]int{}
	for _, f := range s.Faults {
		count[f.Kind]++
	}
	for _, k := range chaos.Kinds {
		if n := count[k]; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
		}
	}
	return strings.Join(kinds, ", ")
}
