package avrocompat

import (
	"testing"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/internal/fuzzcost"
)

// FuzzCompare: any two loadable schemas compare without panicking, the
// walk ends on recursive types, a break the writer can produce data for
// carries a counterexample, and loading and comparing stay within
// fuzzcost.Default() for the size of the two schemas.
func FuzzCompare(f *testing.F) {
	for _, tt := range ruleTests {
		f.Add(tt.old, tt.new)
	}
	for _, tt := range costCases {
		f.Add(tt.old, tt.new)
	}
	f.Fuzz(func(t *testing.T, oldText, newText string) {
		fuzzcost.Default().Check(t, len(oldText)+len(newText), func() { compareBoth(t, oldText, newText) })
	})
}

func compareBoth(t *testing.T, oldText, newText string) {
	old, err := avro.Parse("v1.avsc", []byte(oldText))
	if err != nil {
		return
	}
	new, err := avro.Parse("v2.avsc", []byte(newText))
	if err != nil {
		return
	}
	for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
		for _, f := range Compare(old, new, dir, engine.Options{Samples: 8}) {
			if f.Rule == "" || f.Message == "" {
				t.Fatalf("finding without rule or message: %+v", f)
			}
		}
	}
}
