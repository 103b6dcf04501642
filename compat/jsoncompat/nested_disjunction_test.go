package jsoncompat

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/report"
)

// nestedUnion is a union whose last branch is itself a union, one branch
// of which is {d: null, b: <bType>}: the other branches are told apart
// by a required property (a, c, e). kw is oneOf or anyOf; depth nests
// the inner union that many times (1: the branch is the union).
func nestedUnion(kw, bType string, depth int) string {
	inner := fmt.Sprintf(`{"required":["d"],"properties":{"d":{"type":"null"},"b":{"type":%q}}}`, bType)
	for i := 0; i < depth; i++ {
		inner = fmt.Sprintf(`{%q:[{"required":["e%d"],"properties":{"e%d":{"type":"boolean"}}},%s]}`, kw, i, i, inner)
	}
	return fmt.Sprintf(`{"type":"object",%q:[
		{"required":["a"],"properties":{"a":{"type":"string"}}},
		{"required":["c"],"properties":{"c":{"type":"string"}}},
		%s]}`, kw, inner)
}

// underProps puts a schema at /p/q/r of an object.
func underProps(s string) string {
	for _, name := range []string{"r", "q", "p"} {
		s = fmt.Sprintf(`{"type":"object","required":[%q],"properties":{%q:%s}}`, name, name, s)
	}
	return s
}

// TestNestedUnionBranchChange: a property's type changed in a branch of a
// union nested in another union is reported through the branch at the
// writer's own place, so that the finding says which property changed
// and carries a counterexample with it. The closest branch used to be
// the first one with as few errors ("closest is branch 0: requires a"),
// which named a discriminator the writer never sends and no property a
// consumer reads.
func TestNestedUnionBranchChange(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new string
		rule     string // BACKWARD's; FORWARD's is the widened one
		at       string // where the type changed, in the data
	}{
		{"oneOf in oneOf", nestedUnion("oneOf", "integer", 1), nestedUnion("oneOf", "string", 1), "one-of-narrowed", "/b"},
		{"anyOf in anyOf", nestedUnion("anyOf", "integer", 1), nestedUnion("anyOf", "string", 1), "any-of-narrowed", "/b"},
		{"oneOf three deep", nestedUnion("oneOf", "integer", 3), nestedUnion("oneOf", "string", 3), "one-of-narrowed", "/b"},
		{"oneOf under /p/q/r", underProps(nestedUnion("oneOf", "integer", 1)), underProps(nestedUnion("oneOf", "string", 1)), "one-of-narrowed", "/p/q/r/b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := compileDoc(t, "old.json", tc.old)
			nw := compileDoc(t, "new.json", tc.new)
			for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
				for _, prof := range []string{"lenient", "strict"} {
					fs := Compare(old, nw, dir, engine.Options{Profile: profileOf(prof), Seed: 1})
					rule := tc.rule
					if dir == engine.Forward {
						rule = strings.Replace(rule, "narrowed", "widened", 1)
					}
					var got *Finding
					for i := range fs {
						if fs[i].Rule == rule && fs[i].Severity == report.SeverityError {
							got = &fs[i]
						}
					}
					if got == nil {
						t.Fatalf("%s %s: no %s error in %v", dir, prof, rule, fs)
					}
					if !strings.Contains(got.Message, "type does not at "+tc.at) {
						t.Errorf("%s %s: the finding does not name the changed property %s: %s", dir, prof, tc.at, got.Message)
					}
					if !got.HasCounterexample {
						t.Errorf("%s %s: no counterexample: %s", dir, prof, got.Message)
						continue
					}
					// The counterexample has the writer's type where the
					// type changed, under d: null.
					doc, _ := json.Marshal(got.Counterexample)
					var v any = got.Counterexample
					toks := strings.Split(strings.TrimPrefix(tc.at, "/"), "/")
					for i, tok := range toks {
						m, ok := v.(map[string]any)
						if !ok {
							t.Fatalf("%s %s: counterexample %s has no object at /%s", dir, prof, doc, strings.Join(toks[:i], "/"))
						}
						if i == len(toks)-1 {
							if d, ok := m["d"]; !ok || d != nil {
								t.Errorf("%s %s: counterexample %s is not in the {d: null} branch", dir, prof, doc)
							}
						}
						v = m[tok]
					}
					_, isString := v.(string)
					_, isNumber := v.(json.Number)
					if wantString := dir == engine.Forward; wantString != isString || !wantString && !isNumber {
						t.Errorf("%s %s: counterexample %s: %s is %T, want the writer's type", dir, prof, doc, tc.at, v)
					}
				}
			}
		})
	}
}

// TestNestedUnionWidened: b widened from integer to number in the nested
// branch is compatible BACKWARD (every old event matches the new union)
// and a break FORWARD at /b.
func TestNestedUnionWidened(t *testing.T) {
	for _, kw := range []string{"oneOf", "anyOf"} {
		old := compileDoc(t, "old.json", nestedUnion(kw, "integer", 2))
		nw := compileDoc(t, "new.json", nestedUnion(kw, "number", 2))
		if fs := Compare(old, nw, engine.Backward, engine.Options{Seed: 1}); !Compatible(fs) {
			t.Errorf("%s backward: %v", kw, fs)
		}
		fs := Compare(old, nw, engine.Forward, engine.Options{Seed: 1})
		if Compatible(fs) || !strings.Contains(fs[0].Message, "at /b") || !fs[0].HasCounterexample {
			t.Errorf("%s forward: want a break at /b with a counterexample: %v", kw, fs)
		}
	}
}

// TestOneOfOverlapOfPatterns: a writer's string branch that also matches
// another branch of the reader's oneOf, both told by patterns (^a and
// x$: "ax"), is a break the rules prove with the string search. It was a
// warning left to witness search ("witness search decides"), which drew
// no such string from a catalog's few samples: the gate passed a writer
// whose events the reader rejects.
func TestOneOfOverlapOfPatterns(t *testing.T) {
	const (
		old = `{"oneOf":[{"type":"string","pattern":"^a"},{"oneOf":[{"type":"string","pattern":"x$"},{"type":"string","pattern":"^b"}]}]}`
		new = `{"oneOf":[{"type":"string","pattern":"x$"},{"type":"string","pattern":"^b"}]}`
		// No string both starts with a and ends with x.
		disjointOld = `{"oneOf":[{"type":"string","pattern":"^a"},{"oneOf":[{"type":"string","pattern":"^x"},{"type":"string","pattern":"^b"}]}]}`
		disjointNew = `{"oneOf":[{"type":"string","pattern":"^x"},{"type":"string","pattern":"^b"}]}`
	)
	for _, tc := range []struct {
		name, old, new string
		breaks         bool
	}{
		{"overlap", old, new, true},
		{"disjoint", disjointOld, disjointNew, false},
	} {
		o, n := compileDoc(t, "old.json", tc.old), compileDoc(t, "new.json", tc.new)
		fs := Compare(o, n, engine.Forward, engine.Options{Profile: ProfileStrict})
		if Compatible(fs) == tc.breaks {
			t.Errorf("%s: compatible %v, want %v: %v", tc.name, Compatible(fs), !tc.breaks, fs)
		}
		for _, f := range fs {
			if tc.breaks && f.Kind == KindOneOfOverlap && f.Severity == report.SeverityError && !strings.Contains(f.Message, "also match branch 0") {
				t.Errorf("%s: %s", tc.name, f.Message)
			}
		}
	}
}
