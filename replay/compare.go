package replay

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/internal/jsonpos"
)

// Difference is one place where the chaos state differs from the baseline.
type Difference struct {
	Pointer string `json:"pointer"`
	// Baseline and Chaos are the values (compact JSON); "" when the value
	// is absent on that side.
	Baseline string `json:"baseline,omitempty"`
	Chaos    string `json:"chaos,omitempty"`
}

func (d Difference) String() string {
	show := func(s string) string {
		if s == "" {
			return "(absent)"
		}
		return s
	}
	return fmt.Sprintf("%s: baseline %s, chaos %s", displayPointer(d.Pointer), show(d.Baseline), show(d.Chaos))
}

func displayPointer(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

// Comparison is the outcome of comparing two states.
type Comparison struct {
	Equal bool `json:"equal"`
	// Diff is go-cmp's report (-baseline +chaos), cut at maxDiffLines.
	Diff        string       `json:"diff,omitempty"`
	Differences []Difference `json:"differences,omitempty"`
	// More counts differences beyond those listed.
	More int `json:"more,omitempty"`
	// Near holds the strings found around the differences (path segments
	// and the string members of the objects along the path): candidate
	// entity keys and event ids for locating the faults involved.
	Near []string `json:"-"`
	// UnusedIgnore lists ignore pointers that matched nothing in either
	// state (probably a typo).
	UnusedIgnore []string `json:"unusedIgnore,omitempty"`
}

const (
	maxDifferences = 200
	maxDiffLines   = 400
)

// Compare compares a chaos state with the baseline after removing the
// ignored pointers from both. States are decoded JSON (numbers as
// json.Number or float64); numbers compare by value.
func Compare(baseline, chaos any, ignore []string) Comparison {
	used := make([]bool, len(ignore))
	b := normalize(baseline, ignore, used)
	c := normalize(chaos, ignore, used)
	var cmpRes Comparison
	for i, u := range used {
		if !u {
			cmpRes.UnusedIgnore = append(cmpRes.UnusedIgnore, ignore[i])
		}
	}
	if cmp.Equal(b, c) {
		cmpRes.Equal = true
		return cmpRes
	}
	var r diffReporter
	cmp.Equal(b, c, cmp.Reporter(&r))
	cmpRes.Differences = r.diffs
	cmpRes.More = r.more
	diff := cmp.Diff(b, c)
	if lines := strings.Split(diff, "\n"); len(lines) > maxDiffLines {
		diff = strings.Join(lines[:maxDiffLines], "\n") + fmt.Sprintf("\n... (%d more lines)", len(lines)-maxDiffLines)
	}
	cmpRes.Diff = diff
	near := map[string]bool{}
	for _, d := range r.paths {
		collectNear(b, d, near)
		collectNear(c, d, near)
	}
	for s := range near {
		cmpRes.Near = append(cmpRes.Near, s)
	}
	sort.Strings(cmpRes.Near)
	return cmpRes
}

// normalize copies v without the ignored pointers ("*" matches every
// member or element), numbers as float64 (or json.Number beyond 2^53, to
// compare exactly). Every pointer names what it names in v as decoded
// (the stored comparison's way): what one pointer matched is marked
// pruned and dropped after all of them, so /l/0 and /l/1 remove the
// first two elements, not the first and the third. Shorter pointers go
// first: a pointer inside a part another leaves out matches nothing,
// whatever their order (the stored comparison never walks into it).
func normalize(v any, ignore []string, used []bool) any {
	v = numbers(v)
	toks := make([][]string, len(ignore))
	order := make([]int, len(ignore))
	for i, p := range ignore {
		toks[i], order[i] = jsonpos.Split(p), i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(toks[order[a]]) < len(toks[order[b]]) })
	for _, i := range order {
		var hit bool
		v, hit = prune(v, toks[i])
		if hit {
			used[i] = true
		}
	}
	if len(ignore) > 0 {
		v = dropPruned(v)
	}
	return v
}

// pruned marks a member or element an ignore pointer matched.
type pruned struct{}

// dropPruned removes the members and elements marked pruned.
func dropPruned(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if _, ok := e.(pruned); ok {
				delete(x, k)
			} else {
				x[k] = dropPruned(e)
			}
		}
	case []any:
		out := x[:0]
		for _, e := range x {
			if _, ok := e.(pruned); !ok {
				out = append(out, dropPruned(e))
			}
		}
		return out
	}
	return v
}

func numbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = numbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = numbers(e)
		}
		return out
	case json.Number:
		return numberValue(x)
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	return v
}

// prune removes the value at the pointer tokens; it reports whether
// anything matched.
func prune(v any, toks []string) (any, bool) {
	if len(toks) == 0 {
		return v, false // the root itself is never ignored
	}
	tok, rest := toks[0], toks[1:]
	switch x := v.(type) {
	case map[string]any:
		hit := false
		for k, e := range x {
			if tok != "*" && tok != k {
				continue
			}
			if len(rest) == 0 {
				x[k] = pruned{}
				hit = true
				continue
			}
			var h bool
			x[k], h = prune(e, rest)
			hit = hit || h
		}
		return x, hit
	case []any:
		if tok == "*" {
			hit := false
			if len(rest) == 0 {
				for i := range x {
					x[i] = pruned{}
				}
				return x, len(x) > 0
			}
			for i := range x {
				var h bool
				x[i], h = prune(x[i], rest)
				hit = hit || h
			}
			return x, hit
		}
		// Only an index as the state spells it matches (not 01 or +1).
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(x) || strconv.Itoa(i) != tok {
			return x, false
		}
		if len(rest) == 0 {
			x[i] = pruned{}
			return x, true
		}
		var h bool
		x[i], h = prune(x[i], rest)
		return x, h
	}
	return v, false
}

// diffReporter collects the differing paths of a cmp.Equal.
type diffReporter struct {
	path  cmp.Path
	diffs []Difference
	paths [][]string
	more  int
}

func (r *diffReporter) PushStep(ps cmp.PathStep) { r.path = append(r.path, ps) }
func (r *diffReporter) PopStep()                 { r.path = r.path[:len(r.path)-1] }

func (r *diffReporter) Report(rs cmp.Result) {
	if rs.Equal() {
		return
	}
	toks := pathTokens(r.path)
	if len(r.paths) < 10*maxDifferences {
		r.paths = append(r.paths, toks)
	}
	if len(r.diffs) >= maxDifferences {
		r.more++
		return
	}
	vx, vy := r.path.Last().Values()
	r.diffs = append(r.diffs, Difference{Pointer: jsonpos.Join(toks...), Baseline: compact(vx), Chaos: compact(vy)})
}

func pathTokens(p cmp.Path) []string {
	var toks []string
	for _, s := range p {
		switch s := s.(type) {
		case cmp.MapIndex:
			toks = append(toks, fmt.Sprint(s.Key().Interface()))
		case cmp.SliceIndex:
			ix, iy := s.SplitKeys()
			if ix < 0 {
				ix = iy
			}
			toks = append(toks, strconv.Itoa(ix))
		}
	}
	return toks
}

func compact(v reflect.Value) string {
	if !v.IsValid() {
		return ""
	}
	var x any
	if v.CanInterface() {
		x = v.Interface()
	}
	b, err := json.Marshal(x)
	if err != nil {
		return fmt.Sprint(x)
	}
	s := string(b)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// collectNear adds the strings around a path: its non-numeric tokens, the
// string members of every object on the way, and the leaf if a string.
func collectNear(v any, toks []string, near map[string]bool) {
	addMembers := func(v any) {
		if m, ok := v.(map[string]any); ok {
			for _, e := range m {
				if s, ok := e.(string); ok && s != "" && len(s) <= 200 {
					near[s] = true
				}
			}
		}
	}
	addMembers(v)
	for _, t := range toks {
		if _, err := strconv.Atoi(t); err != nil {
			near[t] = true
		}
		switch x := v.(type) {
		case map[string]any:
			v = x[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return
			}
			v = x[i]
		default:
			return
		}
		addMembers(v)
		if s, ok := v.(string); ok {
			near[s] = true
		}
	}
}

// numberValue is how states compare a number: by value as a float64, or,
// for an integer beyond 2^53 (which a float64 would round), as its exact
// decimal literal, however it was spelled (9007199254740993, 1e16 and
// 10000000000000000.0 are integers; -0 is 0).
func numberValue(x json.Number) any {
	if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
		return integerValue(big.NewInt(i))
	}
	f, err := x.Float64()
	if err != nil || math.IsInf(f, 0) {
		return x
	}
	if f == 0 {
		return float64(0)
	}
	// Only a literal of bounded length is read exactly: big.Rat's cost
	// grows with the exponent it spells out.
	if math.Abs(f) >= 1<<53 && math.Abs(f) < 1e30 && len(x) <= 64 {
		if r, ok := new(big.Rat).SetString(string(x)); ok && r.IsInt() {
			return integerValue(r.Num())
		}
	}
	return f
}

// integerValue is an integer as numberValue has it: a float64 up to 2^53,
// its decimal literal beyond.
func integerValue(n *big.Int) any {
	if n.IsInt64() && n.Int64() <= 1<<53 && n.Int64() >= -(1<<53) {
		return float64(n.Int64())
	}
	return json.Number(n.String())
}
