package chaos

import (
	"context"
	"hash/fnv"
	"slices"
	"testing"
)

// FuzzShrink checks ddmin on fault sets and failure predicates drawn from
// the input: shrinking never tests the whole or the empty set, returns a
// failing subset of the faults, and when it claims 1-minimal, removing
// any one fault passes. A monotone predicate (fails when every culprit is
// applied) shrinks to exactly the culprits within a generous budget.
func FuzzShrink(f *testing.F) {
	f.Add([]byte{12, 0x81, 0x04, 0}, false)
	f.Add([]byte{30, 0xff, 0x00, 0x10, 3}, true)
	f.Add([]byte{1, 1}, false)
	f.Add([]byte{24, 0x00, 0x00, 0x80, 7, 9, 11}, true)
	f.Fuzz(func(t *testing.T, data []byte, monotone bool) {
		if len(data) < 2 {
			return
		}
		n := 1 + int(data[0])%32
		faults := make([]int, n)
		for i := range faults {
			faults[i] = 3*i + 1 // indexes need not be contiguous
		}
		var culprits []int
		for i, x := range faults {
			if data[1+i/8%(len(data)-1)]&(1<<(i%8)) != 0 {
				culprits = append(culprits, x)
			}
		}
		if len(culprits) == 0 {
			culprits = faults[:1]
		}
		var fails func(context.Context, []int) (bool, error)
		if monotone {
			fails = func(_ context.Context, s []int) (bool, error) {
				for _, c := range culprits {
					if !slices.Contains(s, c) {
						return false, nil
					}
				}
				return true, nil
			}
		} else {
			// Arbitrary, but a function of the subset (as a deterministic
			// consumer's failure is).
			fails = func(_ context.Context, s []int) (bool, error) {
				h := fnv.New32a()
				h.Write(data)
				for _, x := range s {
					h.Write([]byte{byte(x), byte(x >> 8)})
				}
				return h.Sum32()%3 == 0, nil
			}
		}
		checked := func(ctx context.Context, s []int) (bool, error) {
			if len(s) == 0 || len(s) == n {
				t.Fatalf("tested %d of %d faults", len(s), n)
			}
			return fails(ctx, s)
		}
		var hints [][]int
		if len(data) > 2 {
			hints = append(hints, faults[:int(data[2])%n], culprits)
		}
		budget := 1000
		res, err := Shrink(context.Background(), faults, hints, budget, checked)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Faults) == 0 || !subsetOf(res.Faults, faults) || !slices.IsSorted(res.Faults) || res.Tests > budget {
			t.Fatalf("result %+v of %v", res, faults)
		}
		if len(res.Faults) < n {
			if ok, _ := fails(context.Background(), res.Faults); !ok {
				t.Fatalf("shrunk to %v, which passes", res.Faults)
			}
		}
		if res.Minimal && len(res.Faults) > 1 {
			for i := range res.Faults {
				less := slices.Delete(slices.Clone(res.Faults), i, i+1)
				if ok, _ := fails(context.Background(), less); ok && len(less) < n {
					t.Fatalf("claimed 1-minimal, but %v fails too", less)
				}
			}
		}
		if monotone && (!res.Minimal || !slices.Equal(res.Faults, culprits)) {
			t.Fatalf("monotone: shrunk to %v (minimal %v), culprits %v", res.Faults, res.Minimal, culprits)
		}
	})
}

func subsetOf(a, b []int) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
