package replay

import (
	"encoding/json"
	"fmt"

	"github.com/google/go-cmp/cmp"
)

// ExpectResult is the outcome of one expectation on one run's state.
type ExpectResult struct {
	Run string `json:"run"`
	// Kind is "state" (expect.state, the default) or "dlq" (expect.dlq).
	Kind    string `json:"kind,omitempty"`
	Pointer string `json:"pointer"`
	Line    int    `json:"line,omitempty"`
	// What names the assertion ("equals 50", "count 50", "exists").
	What string `json:"what"`
	OK   bool   `json:"ok"`
	// Got describes what the state holds when the expectation fails.
	Got string `json:"got,omitempty"`
}

func (r ExpectResult) String() string {
	s := fmt.Sprintf("%s %s", displayPointer(r.Pointer), r.What)
	if r.Kind == "dlq" {
		s = r.What
	}
	if !r.OK {
		s += ": got " + r.Got
	}
	return s
}

// Evaluate checks every expectation against a state.
func Evaluate(run string, state any, exps []Expectation) []ExpectResult {
	norm := numbers(state)
	out, _ := evaluate(run, exps, func(e Expectation) (any, bool, error) {
		v, found := lookup(norm, e.Pointer)
		return v, found, nil
	})
	return out
}

// evaluateStored checks every expectation against a stored state, reading
// from its file only the value each pointer names (the count of its
// members when only a count is expected).
func evaluateStored(run string, st *storedState, exps []Expectation) ([]ExpectResult, error) {
	return evaluate(run, exps, func(e Expectation) (any, bool, error) {
		needValue := e.HasEquals || (e.Exists != nil && !*e.Exists)
		return lookupStored(st.raw, e.Pointer, !needValue)
	})
}

// evaluate checks the expectations against the values at returns for
// their pointers.
func evaluate(run string, exps []Expectation, at func(Expectation) (any, bool, error)) ([]ExpectResult, error) {
	var out []ExpectResult
	for _, e := range exps {
		v, found, err := at(e)
		if err != nil {
			return nil, err
		}
		res := func(what string, ok bool, got string) {
			if ok {
				got = ""
			}
			out = append(out, ExpectResult{Run: run, Pointer: e.Pointer, Line: e.Line, What: what, OK: ok, Got: got})
		}
		if e.Exists != nil {
			if *e.Exists {
				res("exists", found, "absent")
			} else {
				res("is absent", !found, "present: "+jsonText(v))
			}
		}
		if e.Count != nil {
			what := fmt.Sprintf("has %d elements", *e.Count)
			switch x := v.(type) {
			case []any:
				res(what, len(x) == *e.Count, fmt.Sprintf("%d", len(x)))
			case map[string]any:
				res(what, len(x) == *e.Count, fmt.Sprintf("%d", len(x)))
			default:
				got := "absent"
				if found {
					got = "not an array or object: " + jsonText(v)
				}
				res(what, false, got)
			}
		}
		if e.HasEquals {
			want := numbers(e.Equals)
			what := "equals " + jsonText(e.Equals)
			switch {
			case !found:
				res(what, false, "absent")
			default:
				res(what, cmp.Equal(want, v), jsonText(v))
			}
		}
	}
	return out, nil
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
