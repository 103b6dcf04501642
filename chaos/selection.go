package chaos

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Selection is the subset of a plan's faults that a run applies. The zero
// value selects every fault.
type Selection struct {
	only map[int]struct{} // nil: all
}

// All selects every fault.
func All() Selection { return Selection{} }

// Only selects the faults with the given indexes (none when empty).
func Only(indexes ...int) Selection {
	s := Selection{only: make(map[int]struct{}, len(indexes))}
	for _, i := range indexes {
		s.only[i] = struct{}{}
	}
	return s
}

// ParseSelection parses a list of fault indexes and ranges, as printed by
// String: "3,7,10-12". An empty string selects no fault.
func ParseSelection(text string) (Selection, error) {
	s := Only()
	text = strings.TrimSpace(text)
	if text == "" {
		return s, nil
	}
	for _, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil || a < 0 {
			return Selection{}, fmt.Errorf("fault list %q: %q is not a fault index (want e.g. 3,7,10-12)", text, part)
		}
		b := a
		if isRange {
			b, err = strconv.Atoi(strings.TrimSpace(hi))
			if err != nil || b < a {
				return Selection{}, fmt.Errorf("fault list %q: %q is not a range of fault indexes (want low-high)", text, part)
			}
		}
		if b-a > 10_000_000 {
			return Selection{}, fmt.Errorf("fault list %q: range %q is too large", text, part)
		}
		for i := a; i <= b; i++ {
			s.only[i] = struct{}{}
		}
	}
	return s, nil
}

// IsAll reports whether every fault is selected.
func (s Selection) IsAll() bool { return s.only == nil }

// Has reports whether fault i is selected.
func (s Selection) Has(i int) bool {
	if s.only == nil {
		return true
	}
	_, ok := s.only[i]
	return ok
}

// Indexes returns the selected indexes in order (nil for All).
func (s Selection) Indexes() []int {
	if s.only == nil {
		return nil
	}
	out := make([]int, 0, len(s.only))
	for i := range s.only {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}

// String renders the selection for --faults, with runs of consecutive
// indexes as ranges ("3,7,10-12"); "all" for All.
func (s Selection) String() string {
	if s.only == nil {
		return "all"
	}
	idx := s.Indexes()
	var parts []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, strconv.Itoa(idx[i]))
		case j == i+1:
			parts = append(parts, strconv.Itoa(idx[i]), strconv.Itoa(idx[j]))
		default:
			parts = append(parts, fmt.Sprintf("%d-%d", idx[i], idx[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
