package protocompat

import (
	"github.com/evtool/evtool/internal/fuzzcost"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/compat/engine"
	pb "github.com/evtool/evtool/format/protobuf"
)

// FuzzCompare: any two .proto files that compile compare in both
// directions and profiles without a panic, and decide (no break without
// a rule id).
func FuzzCompare(f *testing.F) {
	f.Add(p3(`message M { int64 a = 1; repeated N n = 2; map<string, N> m = 3; oneof o { string s = 4; bytes b = 5; } } message N { N next = 1; sint64 v = 2; }`),
		p3(`message M { int32 a = 1; N n = 2; repeated N m = 3; string s = 4; bytes b = 5; } message N { N next = 1; sint32 v = 2; }`))
	f.Add(p2(`message M { required int32 a = 1; optional group G = 2 { optional int32 b = 3; } extensions 10 to 20; } extend M { optional int64 x = 10; }`),
		p2(`enum E { E0 = 0; } message M { optional E a = 1 [default = E0]; optional int32 g = 2; extensions 10 to 20; } extend M { repeated int32 x = 10; }`))
	// Self-referencing repeated fields and maps: the witness search's cost
	// grew with the shape (9.5 s for six fields) before it had a budget.
	f.Add(selfReferencing(6, 0), selfReferencing(6, 0))
	f.Add(selfReferencing(8, 0), selfReferencing(7, 1))
	f.Add(selfReferencing(20, 20), selfReferencing(20, 20))
	f.Fuzz(func(t *testing.T, a, b string) {
		fuzzcost.Default().Check(t, len(a)+len(b), func() {
			old, err := pb.Load(fstest.MapFS{"a.proto": {Data: []byte(a)}}, "a.proto", "")
			if err != nil {
				return
			}
			new, err := pb.Load(fstest.MapFS{"b.proto": {Data: []byte(b)}}, "b.proto", "")
			if err != nil {
				return
			}
			for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
				for _, prof := range []Profile{ProfileWire, ProfileWireJSON} {
					for _, f := range Compare(old, new, dir, engine.Options{Profile: prof, Samples: 3}) {
						if f.Rule == "" || f.Message == "" {
							t.Fatalf("finding without rule or message: %+v", f)
						}
					}
				}
			}
		})
	})
}
