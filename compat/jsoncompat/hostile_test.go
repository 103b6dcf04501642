package jsoncompat

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/report"
)

// Hostile pairs: small schemas whose naive comparison costs exponential or
// quadratic work (issue 18). Each is generated here rather than committed;
// `go test ./compat -run TestWriteHostile -hostile-out DIR` writes them as
// catalogs (DIR/<case>/schemas/...) and plain files (DIR/<case>/{old,new}.json)
// for the CLI figures in BENCHMARKS.md.

var hostileOut = flag.String("hostile-out", "", "write the hostile pairs under this directory")

type hostilePair struct {
	name     string
	old, new map[string]any
}

const draft = "https://json-schema.org/draft/2020-12/schema"

// doublingRefs: level i has two properties that both $ref level i-1, so a
// document has 2^levels paths to the string at the bottom, whose maxLength
// the new version lowers.
func doublingRefs(levels int) hostilePair { return doublingRefsWith(levels, nil) }

// doublingRefsWith adds keywords next to each $ref.
func doublingRefsWith(levels int, extra map[string]any) hostilePair {
	gen := func(maxLen int) map[string]any {
		defs := map[string]any{"l0": map[string]any{"type": "string", "maxLength": maxLen}}
		for i := 1; i <= levels; i++ {
			prev := map[string]any{"$ref": fmt.Sprintf("#/$defs/l%d", i-1)}
			for k, v := range extra {
				prev[k] = v
			}
			defs[fmt.Sprintf("l%d", i)] = map[string]any{"type": "object",
				"properties": map[string]any{"a": prev, "b": prev}}
		}
		return map[string]any{"$schema": draft, "$ref": fmt.Sprintf("#/$defs/l%d", levels), "$defs": defs}
	}
	return hostilePair{"doubling", gen(10), gen(5)}
}

// refChain: each level $refs the previous one, descending one property
// deeper; the new version lowers the bottom's maxLength.
func refChain(n int) hostilePair {
	gen := func(maxLen int) map[string]any {
		defs := map[string]any{"c0": map[string]any{"type": "string", "maxLength": maxLen}}
		for i := 1; i <= n; i++ {
			defs[fmt.Sprintf("c%d", i)] = map[string]any{"$ref": fmt.Sprintf("#/$defs/c%d", i-1)}
		}
		return map[string]any{"$schema": draft, "$ref": fmt.Sprintf("#/$defs/c%d", n), "$defs": defs}
	}
	return hostilePair{"refchain", gen(10), gen(5)}
}

// allOfChain: each level holds the previous one in an allOf, with a
// keyword of its own when typed (so no level is hollow).
func allOfChain(n int, typed bool) hostilePair {
	gen := func(maxLen int) map[string]any {
		defs := map[string]any{"c0": map[string]any{"type": "string", "maxLength": maxLen}}
		for i := 1; i <= n; i++ {
			m := map[string]any{"allOf": []any{map[string]any{"$ref": fmt.Sprintf("#/$defs/c%d", i-1)}}}
			if typed {
				m["type"] = "string"
			}
			defs[fmt.Sprintf("c%d", i)] = m
		}
		return map[string]any{"$schema": draft, "$ref": fmt.Sprintf("#/$defs/c%d", n), "$defs": defs}
	}
	return hostilePair{"allofchain", gen(10), gen(5)}
}

// bigEnum: an enum of n strings; the new version drops one.
func bigEnum(n int) hostilePair {
	vals := make([]any, n)
	for i := range vals {
		vals[i] = fmt.Sprintf("v%06d", i)
	}
	nv := append(append([]any(nil), vals[:n/2]...), vals[n/2+1:]...)
	return hostilePair{"enum",
		map[string]any{"$schema": draft, "type": "string", "enum": vals},
		map[string]any{"$schema": draft, "type": "string", "enum": nv}}
}

// longPattern: patterns with large counted repetitions.
func longPattern(n int) hostilePair {
	return hostilePair{"pattern",
		map[string]any{"$schema": draft, "type": "string", "pattern": fmt.Sprintf("[a-z]{%d}[0-9]{%d}\\p{L}{%d}", n, n, n)},
		map[string]any{"$schema": draft, "type": "string", "pattern": fmt.Sprintf("[a-z]{%d}", n-1)}}
}

// manyRequired: n required integer properties whose maximum the new version
// lowers: n findings, and every counterexample carries all n properties.
func manyRequired(n int) hostilePair {
	gen := func(max int) map[string]any {
		props := map[string]any{}
		var req []any
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("p%04d", i)
			props[name] = map[string]any{"type": "integer", "minimum": 0, "maximum": max}
			req = append(req, name)
		}
		return map[string]any{"$schema": draft, "type": "object", "properties": props, "required": req}
	}
	return hostilePair{"required", gen(100), gen(50)}
}

func hostilePairs() []hostilePair {
	return []hostilePair{doublingRefs(40), refChain(5000), bigEnum(100_000), longPattern(1000), manyRequired(2000)}
}

func TestWriteHostile(t *testing.T) {
	if *hostileOut == "" {
		t.Skip("-hostile-out not set")
	}
	for _, p := range hostilePairs() {
		dir := filepath.Join(*hostileOut, p.name)
		typ := filepath.Join(dir, "schemas", "com.example.hostile")
		if err := os.MkdirAll(typ, 0o755); err != nil {
			t.Fatal(err)
		}
		write := func(path string, v any) {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(filepath.Join(dir, "old.json"), p.old)
		write(filepath.Join(dir, "new.json"), p.new)
		write(filepath.Join(typ, "v1.json"), p.old)
		write(filepath.Join(typ, "v2.json"), p.new)
		if err := os.WriteFile(filepath.Join(dir, "evtool.yaml"), []byte("version: 1\ncompat:\n  mode: FULL_TRANSITIVE\n  profile: lenient\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func compileHostile(t testing.TB, p hostilePair) (*Side, *Side) {
	t.Helper()
	o, err := compileValue(p.name+"/old.json", p.old)
	if err != nil {
		t.Fatal(err)
	}
	n, err := compileValue(p.name+"/new.json", p.new)
	if err != nil {
		t.Fatal(err)
	}
	return NewSide(o, nil), NewSide(n, nil)
}

// TestHostileDoublingRefs: 2^levels instance paths reach one changed
// keyword. The walk and its findings are bounded by the schema: one
// finding (with one example path), a few steps per level.
func TestHostileDoublingRefs(t *testing.T) {
	const levels = 20
	for _, tc := range []struct {
		name  string
		extra map[string]any
	}{
		{"pure $ref", nil},
		{"$ref with annotations", map[string]any{"description": "d", "title": "t"}},
		{"$ref with a constraint", map[string]any{"minLength": 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, n := compileHostile(t, doublingRefsWith(levels, tc.extra))
			c := newChecker(engine.Backward, true, 0)
			raw := c.subOne(o.Schema, n.Schema, nil)
			if len(raw) > 2 {
				t.Errorf("rules built %d findings, want at most one per question (2)", len(raw))
			}
			fs := dedupe(raw)
			if len(fs) != 1 || fs[0].Kind != KindMaxLength {
				t.Fatalf("rules: %d findings, want 1 max-length finding", len(fs))
			}
			if c.steps > 4*levels {
				t.Errorf("rules took %d steps for %d levels, want at most %d", c.steps, levels, 4*levels)
			}
			if got := len(fs[0].InstancePath); got != 2*levels {
				t.Errorf("instance path %q, want one example path %d levels deep", fs[0].InstancePath, levels)
			}
			all := Compare(o, n, engine.Backward, engine.Options{})
			if Compatible(all) || countErrors(ptrs(all)) != 1 {
				t.Errorf("Compare: %d findings, want exactly one error: %v", len(all), all)
			}
			if fw := Compare(o, n, engine.Forward, engine.Options{}); !Compatible(fw) {
				t.Errorf("FORWARD (a looser maxLength reads the old documents) should be compatible: %v", fw)
			}
		})
	}
}

// TestHostileRefChain: a chain of pure $refs on each side. Structural
// equality is asked once per level, not once per pair of levels; witness
// search, whose validator is quadratic in the depth, is skipped with a
// warning naming the limit, and the rules still find the break.
func TestHostileRefChain(t *testing.T) {
	const n = 2000
	for _, tc := range []struct {
		pair hostilePair
		// pairs bounds the pairs structural equality compares.
		pairs int
	}{
		{refChain(n), 4 * n},
		{allOfChain(n, false), 4 * n},
		// Alike levels: the pairs grow with n·maxEqualTries, and
		// maxEqualWork caps them.
		{allOfChain(n, true), maxEqualWork},
	} {
		o, nw := compileHostile(t, tc.pair)
		c := newChecker(engine.Backward, true, 0)
		fs := c.subOne(o.Schema, nw.Schema, nil)
		if len(fs) != 1 || fs[0].Kind != KindMaxLength {
			t.Fatalf("%s: rules: %v, want one max-length finding", tc.pair.name, fs)
		}
		if c.eq.work > tc.pairs {
			t.Errorf("%s: structural equality compared %d pairs for a chain of %d, want at most %d", tc.pair.name, c.eq.work, n, tc.pairs)
		}
		if c.steps > 10 {
			t.Errorf("%s: %d rule steps, want a few", tc.pair.name, c.steps)
		}
	}
	o, nw := compileHostile(t, refChain(n))
	all := Compare(o, nw, engine.Backward, engine.Options{})
	if Compatible(all) {
		t.Errorf("Compare: compatible, want the max-length break: %v", all)
	}
	skipped := false
	for _, f := range all {
		if f.Kind == KindIncomplete && strings.Contains(f.Message, fmt.Sprintf("the limit is %d", maxWitnessDepth)) {
			skipped = true
		}
	}
	if !skipped {
		t.Errorf("no warning that witness search was skipped at depth %d: %v", maxWitnessDepth, all)
	}
	// Below the limit witness search runs and confirms the break.
	o, nw = compileHostile(t, refChain(50))
	for _, f := range Compare(o, nw, engine.Backward, engine.Options{}) {
		if f.Severity == report.SeverityError && !f.HasCounterexample {
			t.Errorf("chain of 50: %s has no counterexample", f.Rule)
		}
	}
}

// TestHostileEnum: an enum of 100,000 values with one removed. Enum values
// are compared by hash: the validator's linear enum scan is never run per
// value.
func TestHostileEnum(t *testing.T) {
	const n = 100_000
	o, nw := compileHostile(t, bigEnum(n))
	c := newChecker(engine.Backward, true, 0)
	fs := c.subOne(o.Schema, nw.Schema, nil)
	if len(fs) != 1 || fs[0].Kind != KindEnumValue || !strings.HasSuffix(fs[0].OldLocation, fmt.Sprintf("/enum/%d", n/2)) {
		t.Fatalf("rules: %v, want one enum-value-removed finding at /enum/%d", fs, n/2)
	}
	if c.enumScanned > 4*n {
		t.Errorf("the validator scanned %d enum values, want at most %d", c.enumScanned, 4*n)
	}
	if fw := c.eq.equal(o.Schema, nw.Schema); fw {
		t.Error("enums of different sizes compare equal")
	}
	all := Compare(o, nw, engine.Backward, engine.Options{})
	if Compatible(all) {
		t.Fatalf("Compare: compatible, want the removed value: %v", all)
	}
	if fw := Compare(o, nw, engine.Forward, engine.Options{}); !Compatible(fw) {
		t.Errorf("FORWARD (the new enum is a subset) should be compatible: %v", fw)
	}
}

// TestHostileEnumAllRejected: every value of a large enum is rejected; the
// findings stop at maxValueFindings and one more counts the rest.
func TestHostileEnumAllRejected(t *testing.T) {
	p := bigEnum(5000)
	p.new = map[string]any{"$schema": draft, "type": "integer"}
	o, nw := compileHostile(t, p)
	fs := Compare(o, nw, engine.Backward, engine.Options{Samples: -1})
	if len(fs) != maxValueFindings+1 {
		t.Fatalf("%d findings, want %d", len(fs), maxValueFindings+1)
	}
	last := fs[len(fs)-1]
	for _, f := range fs {
		if strings.HasSuffix(f.OldLocation, "/enum") {
			last = f
		}
	}
	want := fmt.Sprintf("%d more values of the old schema are rejected by the new schema; only the first %d are listed", 5000-maxValueFindings, maxValueFindings)
	if last.Severity != report.SeverityError || !strings.Contains(last.Message, want) {
		t.Errorf("summary finding %q (%s), want an error saying %q", last.Message, last.Severity, want)
	}
}

// TestHostilePattern: unanchored patterns with counted repetitions keep
// thousands of automaton threads alive; the search counts its work in
// threads and gives up (undecided, never "compatible") within the budget.
func TestHostilePattern(t *testing.T) {
	p := longPattern(1000)
	old, nw := p.old["pattern"].(string), p.new["pattern"].(string)
	_, dec, stepped := searchString(strQuery{want: strAccept{pats: []string{old}, hi: -1}, reject: &strAccept{pats: []string{nw}, hi: -1}})
	if dec == decideNo {
		t.Fatal("the search says every string of the old pattern matches the new one")
	}
	if stepped > maxSearchWork+100_000 {
		t.Errorf("the search stepped %d threads, want at most about %d", stepped, maxSearchWork)
	}
	// Every old string holds 1000 letters in a row, so the new search
	// pattern matches it: BACKWARD may be undecided (a warning) but must
	// not be a clean pass nor a false break. FORWARD is a break.
	o, n := compileHostile(t, p)
	if fs := Compare(o, n, engine.Backward, engine.Options{}); len(fs) == 0 || !Compatible(fs) {
		t.Errorf("BACKWARD: %v, want an undecided warning", fs)
	}
	if fs := Compare(o, n, engine.Forward, engine.Options{}); Compatible(fs) {
		t.Errorf("FORWARD: compatible, want a break: %v", fs)
	}
}

// TestHostileManyRequired: n required properties with a changed bound.
// Each break is reported, but only maxCounterexamples carry a whole
// document, and a warning names the cap.
func TestHostileManyRequired(t *testing.T) {
	const n = 300
	o, nw := compileHostile(t, manyRequired(n))
	fs := Compare(o, nw, engine.Backward, engine.Options{})
	errs, withDoc, size := 0, 0, 0
	capped := false
	for _, f := range fs {
		if f.Severity == report.SeverityError {
			errs++
		}
		if f.HasCounterexample {
			withDoc++
			size += len(compactJSON(f.Counterexample))
		}
		if f.Kind == KindIncomplete && strings.Contains(f.Message, fmt.Sprintf("the first %d findings", maxCounterexamples)) {
			capped = true
		}
	}
	if errs != n {
		t.Errorf("%d errors, want one per property (%d)", errs, n)
	}
	if withDoc > maxCounterexamples {
		t.Errorf("%d counterexamples, want at most %d", withDoc, maxCounterexamples)
	}
	if size > maxCounterexamples*n*20 {
		t.Errorf("counterexamples total %d bytes, want at most %d", size, maxCounterexamples*n*20)
	}
	if !capped {
		t.Error("no warning naming the counterexample cap")
	}
}

func ptrs(fs []Finding) []*Finding {
	out := make([]*Finding, len(fs))
	for i := range fs {
		out[i] = &fs[i]
	}
	return out
}
