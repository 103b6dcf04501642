package chaos

import (
	"context"
	"slices"
)

// ShrinkResult is the outcome of Shrink.
type ShrinkResult struct {
	// Faults is the smallest failing set of fault indexes found, sorted.
	Faults []int
	// Tests counts the runs made (cached subsets are not run again).
	Tests int
	// Minimal reports that Faults is 1-minimal: removing any one fault
	// makes the failure go away. It is false when the budget ran out
	// first.
	Minimal bool
}

// Shrink searches for a 1-minimal subset of faults that still fails with
// Zeller's delta debugging (ddmin), running at most budget tests. faults
// is a failing set; fails runs a subset and reports whether it still fails
// (an error stops the search). hints are subsets worth trying first, in
// order (the faults near the differences, say): the first one that fails
// replaces the set before ddmin starts. fails is never called with the
// whole set or with an empty set.
func Shrink(ctx context.Context, faults []int, hints [][]int, budget int, fails func(ctx context.Context, subset []int) (bool, error)) (ShrinkResult, error) {
	cur := sortedCopy(faults)
	res := ShrinkResult{Faults: cur}
	cache := map[string]bool{key(cur): true}
	test := func(sub []int) (bool, bool, error) { // failed, ran
		k := key(sub)
		if v, ok := cache[k]; ok {
			return v, true, nil
		}
		if res.Tests >= budget {
			return false, false, nil
		}
		if err := ctx.Err(); err != nil {
			return false, false, err
		}
		res.Tests++
		f, err := fails(ctx, sub)
		if err != nil {
			return false, false, err
		}
		cache[k] = f
		return f, true, nil
	}
	for _, h := range hints {
		h = sortedCopy(h)
		if len(h) == 0 || len(h) >= len(cur) || !subset(h, cur) {
			continue
		}
		f, ran, err := test(h)
		if err != nil {
			return res, err
		}
		if !ran {
			return res, nil
		}
		if f {
			cur = h
			res.Faults = cur
			break
		}
	}
	if len(cur) <= 1 {
		res.Minimal = true
		return res, nil
	}
	n := 2
	for len(cur) >= 2 {
		n = min(n, len(cur))
		chunks := split(cur, n)
		reduced := false
		// Try each chunk, then each complement.
		for _, c := range chunks {
			f, ran, err := test(c)
			if err != nil {
				return res, err
			}
			if !ran {
				return res, nil
			}
			if f {
				cur, n, reduced = c, 2, true
				break
			}
		}
		if !reduced && n > 2 {
			for i := range chunks {
				comp := complement(cur, chunks[i])
				f, ran, err := test(comp)
				if err != nil {
					return res, err
				}
				if !ran {
					return res, nil
				}
				if f {
					cur, n, reduced = comp, max(n-1, 2), true
					break
				}
			}
		}
		res.Faults = cur
		if reduced {
			continue
		}
		if n >= len(cur) {
			break
		}
		n = min(2*n, len(cur))
	}
	// Either one fault is left, or n == len(cur) and every complement
	// (cur minus one fault) passed: 1-minimal.
	res.Faults = cur
	res.Minimal = true
	return res, nil
}

func sortedCopy(s []int) []int {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

func key(s []int) string { return Only(s...).String() }

func subset(a, b []int) bool {
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			return false
		}
	}
	return true
}

// split cuts s into n chunks of nearly equal size, in order.
func split(s []int, n int) [][]int {
	out := make([][]int, 0, n)
	start := 0
	for i := range n {
		end := start + (len(s)-start)/(n-i)
		out = append(out, s[start:end])
		start = end
	}
	return out
}

func complement(s, c []int) []int {
	out := make([]int, 0, len(s)-len(c))
	for _, x := range s {
		if _, ok := slices.BinarySearch(c, x); !ok {
			out = append(out, x)
		}
	}
	return out
}
