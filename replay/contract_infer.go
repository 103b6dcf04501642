package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"
)

// DefaultInferRuns bounds the mutation runs of Infer.
const DefaultInferRuns = 200

// Inference is what Infer found: the fields of the events whose mutation
// changes the consumer's state.
type Inference struct {
	// Fields are the fields of the events considered (n), Read those whose
	// mutation changed the state (k), sorted.
	Fields []Field `json:"fields"`
	Read   []Field `json:"read"`
	// Unresolved holds fields the run budget ran out on: at least one of
	// them changes the state. They are not in Read.
	Unresolved []Field `json:"unresolved,omitempty"`
	// Versions are, per type, the versions of the events in which every
	// field of Read (and Unresolved) of that type was seen: a contract's
	// fields resolve in every version it lists. When no version has them
	// all, every version the events carry.
	Versions map[string][]int `json:"versions"`
	// Runs counts the mutation runs, Baselines the clean runs.
	Runs      int      `json:"runs"`
	Baselines int      `json:"baselines"`
	Duration  Duration `json:"duration"`
}

// Infer finds the fields of the scenario's events (of type typ, or every
// type when typ is "") that the consumer's state depends on, by group
// testing: it mutates a set of fields in every event (as a contract run
// does) and compares the state with the baseline's; a set that changes it
// is split in halves until one field is left, and the search starts again
// on every field not found yet until mutating all of them changes
// nothing; a half that does not change the state is cleared and not
// tested again. That is at most k·(⌈log2 n⌉+1)+2 runs for k fields read
// of n, and fewer when many are read; the result passes a contract run
// by construction: its last run mutated every other field. maxRuns bounds the mutation runs (0:
// DefaultInferRuns).
func Infer(ctx context.Context, sc *Scenario, opts Options, typ string, maxRuns int) (*Inference, error) {
	start := time.Now()
	if maxRuns <= 0 {
		maxRuns = DefaultInferRuns
	}
	h, err := NewHarness(sc, opts)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	if typ != "" && h.cat.Lookup(typ) == nil {
		return nil, fmt.Errorf("--type %s: the catalog (%s) has no such type", typ, sc.Catalog)
	}
	if _, err := h.Validate(ctx); err != nil {
		return nil, err
	}
	if err := h.Connect(ctx); err != nil {
		return nil, err
	}
	inf := &Inference{}
	defer func() { inf.Duration = Duration(time.Since(start)) }()
	rep := h.newReport(h.inv)
	base, err := h.cleanBaseline(ctx, rep)
	inf.Baselines = len(rep.Runs)
	if err != nil {
		return nil, err
	}
	fields, versions, err := h.dataFields(ctx, func(f Field) bool { return typ == "" || f.Type == typ })
	if err != nil {
		return nil, fmt.Errorf("reading the events' fields: %w", err)
	}
	inf.Fields = fields
	test := func(sub []int) (bool, error) {
		fs := make([]Field, len(sub))
		for i, j := range sub {
			fs[i] = fields[j]
		}
		h.logf("infer: mutating %d field(s)", len(fs))
		_, _, differs, err := h.mutationRun(ctx, rep, base, "infer", fs)
		return differs, err
	}
	read, unresolved, runs, err := splitSearch(len(fields), maxRuns, test)
	inf.Runs = runs
	if err != nil {
		return inf, err
	}
	for _, i := range read {
		inf.Read = append(inf.Read, fields[i])
	}
	for _, i := range unresolved {
		inf.Unresolved = append(inf.Unresolved, fields[i])
	}
	sortFields(inf.Read)
	inf.Versions = contractVersions(fields, versions, append(append([]Field(nil), inf.Read...), inf.Unresolved...))
	return inf, nil
}

// contractVersions picks the versions a contract lists per type (see
// Inference.Versions).
func contractVersions(fields []Field, seenIn map[Field][]int, read []Field) map[string][]int {
	all := map[string][]int{}
	for _, f := range fields {
		for _, v := range seenIn[f] {
			if !slices.Contains(all[f.Type], v) {
				all[f.Type] = append(all[f.Type], v)
			}
		}
	}
	out := map[string][]int{}
	for t, vs := range all {
		slices.Sort(vs)
		var keep []int
		for _, v := range vs {
			ok := true
			for _, f := range read {
				if f.Type == t && !slices.Contains(seenIn[f], v) {
					ok = false
					break
				}
			}
			if ok {
				keep = append(keep, v)
			}
		}
		if keep == nil {
			keep = vs
		}
		out[t] = keep
	}
	return out
}

// splitSearch finds the items of 0..n-1 that make test true (adaptive
// group testing by binary splitting): test the items neither found nor
// cleared yet; when true, halve the set, keeping a half that tests true
// (or the other one, when it does not: the half tested is cleared), down
// to one item; repeat. test is assumed monotone (a set holding a positive
// item tests true): when the items cleared in separate tests were never
// tested together with the rest, a last test of everything not found
// checks that, and when it fails the search goes on without clearing. It
// stops after maxRuns tests, returning the set it was narrowing as
// unresolved.
func splitSearch(n, maxRuns int, test func([]int) (bool, error)) (found, unresolved []int, runs int, err error) {
	state := make([]byte, n) // 0 unknown, 'f' found, 'c' cleared
	clearing := true
	for {
		var pool, rest []int
		for i := 0; i < n; i++ {
			if state[i] == 0 {
				pool = append(pool, i)
			}
			if state[i] != 'f' {
				rest = append(rest, i)
			}
		}
		if len(pool) < len(rest) || len(pool) == 0 {
			// Some items were cleared apart from the rest: test what the
			// result leaves out, all at once.
			if len(rest) == 0 {
				return found, nil, runs, nil
			}
			if len(pool) == 0 {
				if runs >= maxRuns {
					return found, rest, runs, nil
				}
				runs++
				pos, err := test(rest)
				if err != nil || !pos {
					return found, nil, runs, err
				}
				// Not monotone: search again, clearing nothing.
				clearing = false
				for _, i := range rest {
					state[i] = 0
				}
				pool = rest
			}
		}
		if runs >= maxRuns {
			return found, pool, runs, nil
		}
		runs++
		pos, err := test(pool)
		if err != nil {
			return found, nil, runs, err
		}
		if !pos {
			if len(pool) == len(rest) {
				return found, nil, runs, nil // everything not found, at once
			}
			for _, i := range pool {
				state[i] = 'c'
			}
			continue
		}
		if len(pool) <= 2*len(found) {
			// Dense (Hwang's rule, with the items found so far for the
			// ones left): one test per item costs less than halving.
			for _, i := range pool {
				if runs >= maxRuns {
					return found, pool, runs, nil
				}
				runs++
				pos, err := test([]int{i})
				if err != nil {
					return found, nil, runs, err
				}
				switch {
				case pos:
					state[i] = 'f'
					found = append(found, i)
				case clearing:
					state[i] = 'c'
				}
			}
			sort.Ints(found)
			continue
		}
		cur := pool
		for len(cur) > 1 {
			if runs >= maxRuns {
				return found, cur, runs, nil
			}
			a, b := cur[:len(cur)/2], cur[len(cur)/2:]
			runs++
			pos, err := test(a)
			if err != nil {
				return found, nil, runs, err
			}
			if pos {
				cur = a
				continue
			}
			if clearing {
				for _, i := range a {
					state[i] = 'c'
				}
			}
			cur = b
		}
		state[cur[0]] = 'f'
		found = append(found, cur[0])
		sort.Ints(found)
	}
}

// cleanBaseline runs the baseline (twice unless opts.Baselines is 1) and
// fails unless the consumer passed it and ended in the same state both
// times: mutation runs are judged against it.
func (h *Harness) cleanBaseline(ctx context.Context, rep *Report) (*RunResult, error) {
	base, err := h.Run(ctx, RunSpec{Name: "baseline", Initial: true})
	if err != nil {
		return nil, fmt.Errorf("baseline run: %w", err)
	}
	rep.Runs = append(rep.Runs, base)
	if base.Failure == nil || base.Failure.Reason == "expect" {
		if f := h.checkBaseline(base); f != nil {
			base.Failure = f
		}
	}
	if base.Failure != nil {
		return nil, errors.New("the consumer failed the baseline run (no faults): " + base.Failure.Message)
	}
	if h.opts.Baselines == 1 {
		return base, nil
	}
	again, err := h.Run(ctx, RunSpec{Name: "baseline"})
	if err != nil {
		return nil, fmt.Errorf("second baseline run: %w", err)
	}
	rep.Runs = append(rep.Runs, again)
	if again.Failure != nil {
		return nil, errors.New("the consumer failed the second clean run (no faults): " + again.Failure.Message)
	}
	c, err := h.compareRuns(base, again)
	if err != nil {
		return nil, err
	}
	if !c.Equal {
		return nil, fmt.Errorf("the consumer is nondeterministic: two clean runs of the same events ended in different states (%d place(s)); make the state deterministic, or leave the parts that vary out with consumer.ignore", len(c.Differences)+c.More)
	}
	return base, nil
}
