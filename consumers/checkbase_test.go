package consumers_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/bench/consumers/gen"
	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/consumers"
	"github.com/evtool/evtool/report"
)

// TestCheckBaseTypeByType: Check with a base loaded deferred, each type
// compiled by Options.Prepare and released after its pairs, gives the
// verdicts of a base compiled whole, with never more than the type in
// hand compiled on the base.
func TestCheckBaseTypeByType(t *testing.T) {
	headDir, baseDir := t.TempDir(), t.TempDir()
	shape := gen.Shape{Types: 8, Versions: 3, Consumers: 4, ReadersPerType: 2, Seed: 1}
	for _, d := range []string{headDir, baseDir} {
		if err := gen.Write(d, shape); err != nil {
			t.Fatal(err)
		}
	}
	// A published version edited in place: pairs with it as published.
	edited := filepath.Join(headDir, "schemas", "com.example.bench.t000", "v1.json")
	text, err := os.ReadFile(edited)
	if err != nil {
		t.Fatal(err)
	}
	text = regexp.MustCompile(`"maxLength": [0-9]+`).ReplaceAll(text, []byte(`"maxLength": 3`))
	if err := os.WriteFile(edited, text, 0o644); err != nil {
		t.Fatal(err)
	}
	head, err := catalog.Load(headDir)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := consumers.Load(headDir)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := catalog.Load(baseDir)
	if err != nil {
		t.Fatal(err)
	}
	want := verdictsOf(consumers.NewChecker(head, consumers.Options{Samples: 2, Seed: 1, Base: whole}).Check(cs))

	base, err := catalog.LoadDeferred(baseDir)
	if err != nil {
		t.Fatal(err)
	}
	compiled := func() (n int) {
		for _, bt := range base.Types {
			if bt.Versions[0].Compiled != nil {
				n++
			}
		}
		return n
	}
	prepared := 0
	prepare := func(typ string) func() {
		if n := compiled(); n > 0 {
			t.Errorf("preparing %s: %d base types still compiled", typ, n)
		}
		prepared++
		bt := base.Lookup(typ)
		base.CompileType(bt)
		return func() { base.ReleaseType(bt) }
	}
	got := verdictsOf(consumers.NewChecker(head, consumers.Options{Samples: 2, Seed: 1, Base: base, Prepare: prepare}).Check(cs))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts differ (-base compiled whole +type by type):\n%s", diff)
	}
	if prepared == 0 || compiled() != 0 {
		t.Errorf("%d types prepared, %d base types compiled after the check", prepared, compiled())
	}
	published := 0
	for _, v := range want {
		if v.Published {
			published++
		}
	}
	if published == 0 {
		t.Error("no pair with a version as published: the edit did not take")
	}
}

type verdictOf struct {
	Consumer, Type       string
	Reader, Writer       int
	Published, Projected bool
	Findings             []report.Finding
}

func verdictsOf(vs []*consumers.Verdict) []verdictOf {
	out := make([]verdictOf, len(vs))
	for i, v := range vs {
		out[i] = verdictOf{v.Consumer.Name, v.Type, v.Reader, v.Writer, v.Published, v.Projected, v.Findings}
	}
	return out
}

// TestCheckStopsBetweenTypes: a Check whose Options.Context ends (a
// signal) while a type is compared stops that type's comparisons early,
// does not count it, and starts no other: it says it was interrupted and
// how many types it compared. It ran to the end, so a SIGTERM left
// consumers check running and printing a report.
func TestCheckStopsBetweenTypes(t *testing.T) {
	dir := t.TempDir()
	if err := gen.Write(dir, gen.Shape{Types: 6, Versions: 2, Consumers: 3, ReadersPerType: 2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	head, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := consumers.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prepared := 0
	k := consumers.NewChecker(head, consumers.Options{Samples: 1, Seed: 1, Context: ctx, Prepare: func(string) func() {
		prepared++
		cancel() // the signal comes while the first type is compared
		return func() {}
	}})
	k.Check(cs)
	done, total := k.TypesChecked()
	if !k.Interrupted() || done != 0 || prepared != 1 || total < 2 {
		t.Errorf("interrupted %v, %d of %d types checked, %d prepared; want interrupted in the first type", k.Interrupted(), done, total, prepared)
	}
	// Not interrupted: every type.
	k = consumers.NewChecker(head, consumers.Options{Samples: 1, Seed: 1, Context: context.Background()})
	k.Check(cs)
	if done, total := k.TypesChecked(); k.Interrupted() || done != total || total < 2 {
		t.Errorf("uninterrupted: interrupted %v, %d of %d types checked", k.Interrupted(), done, total)
	}
}
