package compat

import (
	"context"
	"testing"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/catalog/catalogtest"
	"github.com/evtool/evtool/report"
)

// TestCheckCatalogStopsWhenContextDone: CheckCatalog starts no type once
// CheckOptions.Context is done and says how many it checked; without a
// context, or with one never done, every type is checked.
func TestCheckCatalogStopsWhenContextDone(t *testing.T) {
	dir := t.TempDir()
	if err := catalogtest.Generate(dir, catalogtest.GenOptions{Types: 12, Versions: 2, Mix: catalogtest.MixAll, Shared: 2}); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.LoadDeferred(dir)
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel0 := context.WithCancel(context.Background())
	cancel0()
	for _, tc := range []struct {
		name string
		// ctx and, when cancelAfter > 0, a cancel called as the
		// cancelAfter-th type is checked.
		ctx         func() (context.Context, context.CancelFunc)
		cancelAfter int
		checked     int
	}{
		{"no context", func() (context.Context, context.CancelFunc) { return nil, func() {} }, 0, 12},
		{"never done", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, 0, 12},
		{"done before", func() (context.Context, context.CancelFunc) { return cancelled, func() {} }, 0, 0},
		// One worker: the type it receives after the cancel is not
		// started.
		{"done during the 5th", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, 5, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := tc.ctx()
			defer cancel()
			n := 0
			opts := CheckOptions{Seed: 1, Parallel: 1, Samples: -1, SamplesSet: true, Context: ctx,
				TypeChecked: func(_ *catalog.EventType, fs []report.Finding) []report.Finding {
					if n++; n == tc.cancelAfter {
						cancel()
					}
					return fs
				}}
			res := CheckCatalog(cat, nil, opts)
			if res.TypesChecked != tc.checked || res.Interrupted != (tc.checked < 12) {
				t.Fatalf("TypesChecked %d, Interrupted %v; want %d, %v", res.TypesChecked, res.Interrupted, tc.checked, tc.checked < 12)
			}
		})
	}
}
