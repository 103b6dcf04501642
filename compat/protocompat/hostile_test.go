package protocompat

import (
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/compat/engine"
	pb "github.com/evtool/evtool/format/protobuf"
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

// TestWellKnownFieldFindingInCatalogFile: a break inside a well-known
// type (Int64Value's value read as Int32Value's) is placed at the
// catalog's field holding it, not in the bundled wrappers.proto, which is
// no file of the catalog (it printed as new/google/protobuf/wrappers.proto
// with no line).
func TestWellKnownFieldFindingInCatalogFile(t *testing.T) {
	imp := "import \"google/protobuf/wrappers.proto\";\n"
	old := load(t, "old.proto", p3(imp+"message M {\n  google.protobuf.Int64Value t = 1;\n}\n"))
	new := load(t, "new.proto", p3(imp+"message M {\n  google.protobuf.Int32Value t = 1;\n}\n"))
	// BACKWARD: new reads old; FORWARD with the arguments swapped: the
	// same writer and reader, the finding on the second argument's side.
	for _, tc := range []struct {
		dir      engine.Direction
		a, b     *pb.Schema
		wantFile string
	}{{engine.Backward, old, new, "new.proto"}, {engine.Forward, new, old, "old.proto"}} {
		fs := Compare(tc.a, tc.b, tc.dir, engine.Options{Profile: ProfileWire})
		if len(fs) == 0 {
			t.Fatalf("%s: no finding", tc.dir)
		}
		for _, f := range fs {
			if f.File != tc.wantFile || f.Line != 5 {
				t.Errorf("%s: %s at %s, want %s:5", tc.dir, f.Rule, f.Location(), tc.wantFile)
			}
		}
	}
}

// TestMapEntryFindingHasLine: a map's key and value fields are
// synthesized (no source location): a break at /m/key was printed as
// "v2.proto: error" with no line. It is placed at the map field.
func TestMapEntryFindingHasLine(t *testing.T) {
	old := load(t, "old.proto", p3("message M {\n  string id = 1;\n  map<int32, string> m = 2;\n}\n"))
	new := load(t, "new.proto", p3("message M {\n  string id = 1;\n  map<uint32, string> m = 2;\n}\n"))
	fs := Compare(old, new, engine.Backward, engine.Options{Profile: ProfileWire})
	if len(fs) == 0 {
		t.Fatal("no finding")
	}
	for _, f := range fs {
		if f.File != "new.proto" || f.Line != 5 {
			t.Errorf("%s %s at %s, want new.proto:5", f.Rule, f.Pointer, f.Location())
		}
	}
}

// TestMapToRepeatedMessageSaysWhich: the message of proto-json-map-changed
// names each side as it is; a repeated entry message becoming a map read
// "t.E became repeated map<string, int32>".
func TestMapToRepeatedMessageSaysWhich(t *testing.T) {
	mapped := load(t, "m.proto", p3("message M { map<string, int32> m = 1; }\nmessage E { string key = 1; int32 value = 2; }\n"))
	listed := load(t, "l.proto", p3("message M { repeated E m = 1; }\nmessage E { string key = 1; int32 value = 2; }\n"))
	for _, tc := range []struct {
		old, new *pb.Schema
		want     string
	}{
		{mapped, listed, "map<string, int32> became repeated t.E:"},
		{listed, mapped, "repeated t.E became map<string, int32>:"},
	} {
		found := false
		for _, f := range Compare(tc.old, tc.new, engine.Backward, engine.Options{Profile: ProfileWireJSON}) {
			if f.Rule == RuleJSONMapChanged {
				found = true
				if !strings.Contains(f.Message, tc.want) {
					t.Errorf("message %q, want %q", f.Message, tc.want)
				}
			}
		}
		if !found {
			t.Errorf("%s: no %s", tc.want, RuleJSONMapChanged)
		}
	}
}
