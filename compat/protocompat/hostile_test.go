package protocompat

import (
	"slices"
	"testing"

	"github.com/evtool/evtool/compat/engine"
)

// TestRuleExplainsMapValues: a rule about a field of a message is found
// once per message pair, at one path; a sampled message that shows the
// same change inside a map value must be explained by it, not reported
// again as proto-witness-changed ("no rule explains it"), which a
// consumer reading another field of the map values would be named for.
func TestRuleExplainsMapValues(t *testing.T) {
	in := func(q string) string { return "message In { " + q + " q = 1; string s = 2; }\n" }
	cases := []ruleCase{
		{"map value only", p3("message M { map<string, In> m = 1; }\n" + in("int64")), p3("message M { map<string, In> m = 1; }\n" + in("int32")),
			engine.Backward, ProfileWire, []string{RuleIntegerChanged}},
		{"oneof member and map value", p3("message M { string id = 1; oneof pay { In card = 2; string cash = 3; } map<string, In> m = 4; }\n" + in("int64")),
			p3("message M { string id = 1; oneof pay { In card = 2; string cash = 3; } map<string, In> m = 4; }\n" + in("int32")),
			engine.Backward, ProfileWire, []string{RuleIntegerChanged}},
		{"oneof member and map value, wire-json", p3("message M { string id = 1; oneof pay { In card = 2; string cash = 3; } map<string, In> m = 4; }\n" + in("int64")),
			p3("message M { string id = 1; oneof pay { In card = 2; string cash = 3; } map<string, In> m = 4; }\n" + in("int32")),
			engine.Backward, ProfileWireJSON, []string{RuleIntegerChanged}},
		{"singular and map value", p3("message M { In c = 1; map<int32, In> m = 2; }\n" + in("int64")),
			p3("message M { In c = 1; map<int32, In> m = 2; }\n" + in("int32")),
			engine.Backward, ProfileWire, []string{RuleIntegerChanged}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old, new := load(t, "old.proto", tc.old), load(t, "new.proto", tc.new)
			fs := Compare(old, new, tc.dir, engine.Options{Profile: tc.profile, Samples: 48})
			if got := rulesOf(fs); !slices.Equal(got, tc.want) {
				for _, f := range fs {
					t.Logf("%s %s %s: %s", f.Rule, f.Location(), f.Pointer, f.Message)
				}
				t.Fatalf("rules = %v, want %v", got, tc.want)
			}
			checkWitnessed(t, fs)
		})
	}
}
