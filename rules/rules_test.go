package rules

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/compat"
)

var update = flag.Bool("update", false, "rewrite docs/rules.md")

const rulesDoc = "../docs/rules.md"

// TestEveryEmittedRuleDocumented: every rule id the code can emit has an
// entry in the rule table and a section in docs/rules.md, the anchor
// SARIF's helpUri points at. A new id without a RuleDocs entry fails here.
func TestEveryEmittedRuleDocumented(t *testing.T) {
	emitted, err := Emitted("..")
	if err != nil {
		t.Fatal(err)
	}
	// The scanner must see every way the code builds findings; if it
	// found none of these, it would pass for the wrong reason.
	for _, id := range []string{"id-reused", "schema-id-mismatch", "registry-schema-type", "catalog-config", "input",
		"not-an-event", "partition-key", "record-invalid", "avro-unexplained-break", "base-catalog"} {
		if _, ok := emitted[id]; !ok {
			t.Errorf("the scan did not find rule id %s", id)
		}
	}
	// Strings the scan takes for rule ids that never reach a finding.
	notEmitted := map[string]string{
		"avro-invalid-datum": "compat/avrocompat's resolver labels a datum outside the writer's union; witness search matches the label against findings and never reports it",
	}
	documented := map[string]bool{}
	for _, d := range All() {
		documented[d.ID] = true
	}
	doc, err := os.ReadFile(rulesDoc)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for id := range emitted {
			if !yield(id) {
				return
			}
		}
	}) {
		if notEmitted[id] != "" {
			continue
		}
		if !documented[id] {
			t.Errorf("%s: rule id %q is in no RuleDocs of the rule table", emitted[id], id)
		}
		if !strings.Contains(string(doc), "\n### "+id+"\n") {
			t.Errorf("%s: rule id %q has no section in docs/rules.md", emitted[id], id)
		}
	}
	// And the other way: a documented check rule that no code emits is a
	// stale entry.
	for _, d := range Check() {
		if _, ok := emitted[d.ID]; !ok {
			t.Errorf("rule %s is documented but no code emits it", d.ID)
		}
	}
}

// TestCheckRules: each check rule is documented once, with a summary and
// a detail, and no check rule reuses a compatibility rule's id.
func TestCheckRules(t *testing.T) {
	compatIDs := map[string]bool{}
	for _, d := range compat.RuleDocs() {
		compatIDs[d.ID] = true
	}
	seen := map[string]bool{}
	for _, d := range Check() {
		if seen[d.ID] || compatIDs[d.ID] {
			t.Errorf("rule %s documented twice", d.ID)
		}
		seen[d.ID] = true
		if d.ID == "" || d.Summary == "" || d.Detail == "" {
			t.Errorf("rule %+v lacks an id, a summary or a detail", d)
		}
	}
}

// TestRulesDocUpToDate fails when docs/rules.md differs from the rule
// table (regenerate: go run ./compat/cmd/ruledoc > docs/rules.md, or go
// test ./rules -run TestRulesDocUpToDate -update).
func TestRulesDocUpToDate(t *testing.T) {
	want := Markdown()
	if *update {
		if err := os.WriteFile(rulesDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(rulesDoc)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("docs/rules.md is stale: regenerate it with go run ./compat/cmd/ruledoc > docs/rules.md")
	}
}

// TestEmittedFindsEachPlace: each place a finding gets its rule is seen,
// and strings elsewhere are not taken for rule ids.
func TestEmittedFindsEachPlace(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		// lib, when set, is the package example.com/lib beside src.
		lib  string
		want []string
	}{
		{name: "const", src: `const (RuleA = "a-const"; other = "not-a-rule"); const RuleB, RuleC = "b-const", "c-const"`, want: []string{"a-const", "b-const", "c-const"}},
		{name: "field", src: `var _ = report.Finding{Rule: "a-field", Message: "not-a-rule"}; var _ = x{rule: "b-field"}`, want: []string{"a-field", "b-field"}},
		{name: "slice element", src: `var _ = []report.Finding{{Rule: "an-element"}}`, want: []string{"an-element"}},
		{name: "assignment", src: `func f() { rule := "a-var"; f.Rule = "b-field"; name := "not-a-rule"; _ = name }`, want: []string{"a-var", "b-field"}},
		{name: "function", src: `func fail(msg, rule string) {}; func g() { fail("not-a-rule", "a-param"); x.fail("nor-this", "b-param") }`, want: []string{"a-param", "b-param"}},
		{name: "function literal", src: `func g() { add := func(rule string, n int) {}; add("a-lit", 1); other("not-a-rule") }`, want: []string{"a-lit"}},
		{name: "literal of another function", src: `func g() { add := func(rule string) {}; add("a-lit") }; func h() { add := func(msg string) {}; add("not-a-rule") }`, want: []string{"a-lit"}},
		{name: "literal shadows a function", src: `func add(rule string) {}; func h() { add := func(msg string) {}; add("not-a-rule") }; func i() { add("a-func") }`, want: []string{"a-func"}},
		{name: "imported function", src: `import "example.com/lib"; func g() { lib.Findings(err, "a-param"); other.Findings(err, "not-a-rule"); Findings(err, "nor-this") }`,
			lib: `func Findings(err error, rule string) {}`, want: []string{"a-param"}},
		{name: "returned", src: `func (P) LintRule() string { return "a-ret" }; func rule() string { if x { return "b-ret" }; f := func() string { return "not-a-rule" }; return f() }; func (P) Name() string { return "nor-this" }; func ByRule() []string { return nil }; func hasRule() bool { return "x" == "nor-that" }`,
			want: []string{"a-ret", "b-ret"}},
		{name: "variable", src: `func g() { var rule = "a-var"; var name = "not-a-rule"; _ = name }`, want: []string{"a-var"}},
		{name: "computed", src: `func g() { f := report.Finding{Rule: k.ID(dir)}; _ = f }`, want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", "package x\n"+tc.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			files, pkgs := []*ast.File{f}, map[*ast.File]string{f: "example.com/x"}
			if tc.lib != "" {
				lib, err := parser.ParseFile(fset, "lib.go", "package lib\n"+tc.lib, 0)
				if err != nil {
					t.Fatal(err)
				}
				files, pkgs[lib] = append(files, lib), "example.com/lib"
			}
			var got []string
			for id := range emittedIn(fset, files, func(f *ast.File) string { return pkgs[f] }) {
				got = append(got, id)
			}
			slices.Sort(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}
}
