package jsoncompat

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/report"
)

// manyPatterns is an object of n patternProperties (each a string of at
// most maxLen, or, when mixed, every other one an integer) and an
// additionalProperties schema. The patterns are of a shape: "prefixed"
// anchored to their own literal at the start (^f3_[a-z]+$), "suffixed"
// at the end (^[a-z]+_3$), "free" not anchored ([a-z]_3_).
func manyPatterns(n, maxLen int, shape string, mixed bool) string {
	pats := map[string]any{}
	for i := range n {
		p := map[string]string{"prefixed": "^f%d_[a-z]+$", "suffixed": "^[a-z]+_%d$", "free": "[a-z]_%d_"}[shape]
		p = fmt.Sprintf(p, i)
		var s any = map[string]any{"type": "string", "maxLength": maxLen}
		if mixed && i%2 == 0 {
			s = map[string]any{"type": "integer"}
		}
		pats[p] = s
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "patternProperties": pats,
		"properties": map[string]any{"id": map[string]any{"type": "string"}}, "additionalProperties": map[string]any{"type": "integer"}})
	return string(b)
}

// rulesOnly runs the rules of one direction and returns the checker (its
// search counters) with the findings.
func rulesOnly(t *testing.T, old, new string, dir engine.Direction, searchBudget int) (*checker, []*Finding) {
	t.Helper()
	o, n := compileDoc(t, "old.json", old), compileDoc(t, "new.json", new)
	w, r := o, n
	if dir == engine.Forward {
		w, r = n, o
	}
	c := newChecker(dir, true, 0)
	if searchBudget > 0 {
		c.searchBudget = searchBudget
	}
	return c, c.subOne(w.Schema, r.Schema, nil)
}

// TestPatternPairsBounded: sixty patternProperties on each side, anchored
// to their own literals at the start or at the end (pairs that took tens
// of seconds: one search per pair of patterns and one per pattern against
// all the others, each over an alternation of sixty), are decided with
// few automaton steps: patterns anchored to different literals are told
// apart without a search, and are left out of the others' reject sets.
func TestPatternPairsBounded(t *testing.T) {
	for _, shape := range []string{"prefixed", "suffixed"} {
		for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
			patternPairsBounded(t, shape, dir)
		}
	}
}

func patternPairsBounded(t *testing.T, shape string, dir engine.Direction) {
	old, new := manyPatterns(60, 10, shape, false), manyPatterns(60, 5, shape, false)
	{
		c, fs := rulesOnly(t, old, new, dir, 0)
		if c.searchWork > 1_000_000 || c.searchExhausted {
			t.Errorf("%s %s: the searches visited %d automaton instructions (exhausted: %v), want under 1,000,000", shape, dir, c.searchWork, c.searchExhausted)
		}
		errs := 0
		for _, f := range fs {
			if f.Severity == report.SeverityError {
				errs++
			}
		}
		// BACKWARD: every narrowed maxLength is a break, one per pattern;
		// FORWARD: none.
		want := 60
		if dir == engine.Forward {
			want = 0
		}
		if errs != want {
			t.Errorf("%s %s: %d errors, want %d: %v", shape, dir, errs, want, fs)
		}
	}
}

// TestPatternSearchBudget: patterns not anchored to literals must be
// searched; the comparison's searches stop at its budget (each search
// stops once what is left is spent), the comparison says it was not
// exhaustive, and a break stays a break.
func TestPatternSearchBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: searches up to the budget")
	}
	old, new := manyPatterns(40, 10, "free", true), manyPatterns(40, 5, "free", true)
	const budget = 2_000_000
	c, fs := rulesOnly(t, old, new, engine.Backward, budget)
	// One search overshoots by at most one step of its automata.
	if !c.searchExhausted || c.searchWork > budget+100_000 {
		t.Errorf("searches visited %d (exhausted: %v), want the budget %d spent and no more", c.searchWork, c.searchExhausted, budget)
	}
	if c.searchWork > budget {
		// Past the budget no search runs.
		before := c.searchWork
		if _, dec := c.findString(strQuery{want: strAccept{pats: []string{"[a-z]_1_", "[a-z]_10_"}, hi: -1}}); dec != decideUnknown || c.searchWork != before {
			t.Errorf("a search past the budget: %v, visited %d more", dec, c.searchWork-before)
		}
	}
	if Compatible(derefs(fs)) {
		t.Errorf("a narrowed maxLength under an exhausted budget is compatible: %v", fs)
	}
	// Compare says so, with a budget of as many steps (Options.Budget
	// scales both).
	o, n := compileDoc(t, "old.json", old), compileDoc(t, "new.json", new)
	full := Compare(o, n, engine.Backward, engine.Options{Seed: 1, Samples: 4, Budget: budget / (maxComparisonSearchWork / defaultBudget)})
	said := false
	for _, f := range full {
		said = said || f.Kind == KindIncomplete && strings.Contains(f.Message, "patterns are too many to compare exhaustively")
	}
	if !said || Compatible(full) {
		t.Errorf("Compare: want a break and the comparison saying it was not exhaustive: %v", full)
	}
}

func derefs(fs []*Finding) []Finding {
	out := make([]Finding, len(fs))
	for i, f := range fs {
		out[i] = *f
	}
	return out
}

// TestDisjointPrefixes: patterns are told apart without a search only
// when anchored to literals that differ, and never when the search finds
// a string both match.
func TestDisjointPrefixes(t *testing.T) {
	for _, tc := range []struct {
		a, b     string
		disjoint bool
	}{
		{"^f1_", "^f2_", true},
		{"^f1", "^f10", false}, // "f10" matches both
		{`\Aab`, "^ac", true},
		{"^a", "b", false},
		{"(?i)^a", "^b", false}, // case folded: no literal kept (the search decides)
		{"(?m)^a", "^b", false}, // ^ of a line: "b\na" matches both
		{"^a|^b", "^c", false},  // an alternation: not one literal (the search decides)
		{"_1$", "_11$", true},
		{"1$", "11$", false},
		{`ab\z`, "cb$", true},
		{"^(f1)_", "^f2", false}, // a group is not read into the literal
		{"^[a-z]+_1$", "^f", false},
		{"^x", "^x", false},
	} {
		m := automata{}
		got := disjointPrefixes(m.compile(tc.a), m.compile(tc.b))
		if got != tc.disjoint {
			t.Errorf("%q, %q: disjoint %v, want %v", tc.a, tc.b, got, tc.disjoint)
		}
		// The automata alone (the first pattern in an alternation, which
		// has no literal) find a common string only when not disjoint.
		q := strQuery{want: strAccept{pats: []string{tc.a + `|\A\z[^\x00-\x{10FFFF}]`, tc.b}, hi: -1}}
		if s, dec := findString(q); dec == decideYes && got {
			t.Errorf("%q, %q: told apart, but %q matches both", tc.a, tc.b, s)
		} else if tc.disjoint && dec != decideNo {
			t.Errorf("%q, %q: the search says %v", tc.a, tc.b, dec)
		}
	}
}

// TestUndecidedSearchWarns: a search left undecided by its own limits
// (three patterns covering one whose automaton has thousands of states:
// a handful of patterns, far below the comparison's budget) is taken as
// the rules take any undecided one, an error that may be a false alarm;
// the comparison says it was not exhaustive, as when the budget is spent.
func TestUndecidedSearchWarns(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: a search to its own limit (seconds of CPU)")
	}
	const (
		old = `{"type":"object","patternProperties":{"^(a|b)*a(a|b){12}$":{"type":"integer"}}}`
		// The same names as old's pattern, split in two, and others.
		new     = `{"type":"object","patternProperties":{"^(a|b)*b(a|b){12}$":{"type":"integer"},"^(a|b)*a(a|b){11}b$":{"type":"integer"},"^(a|b)*a(a|b){11}a$":{"type":"integer"}}}`
		decided = `{"type":"object","patternProperties":{"^(a|b)*a(a|b){2}$":{"type":"integer"}}}`
	)
	for _, tc := range []struct {
		name, old, new string
		warns          bool
	}{
		{"undecided", old, new, true},
		{"decided", decided, decided, false},
	} {
		o, n := compileDoc(t, "old.json", tc.old), compileDoc(t, "new.json", tc.new)
		fs := Compare(o, n, engine.Forward, engine.Options{Seed: 1})
		said := false
		for _, f := range fs {
			said = said || f.Kind == KindIncomplete && strings.Contains(f.Message, "left undecided")
		}
		if said != tc.warns {
			t.Errorf("%s: analysis-incomplete for an undecided search %v, want %v: %v", tc.name, said, tc.warns, fs)
		}
	}
}
