package protocompat

import (
	"fmt"
	"testing"

	"github.com/evtool/evtool/compat/engine"
	pb "github.com/evtool/evtool/format/protobuf"
)

// fieldTypes are the declarations a field can take in the brute-force
// pairs (proto3 and proto2 spellings).
var fieldTypes = []string{
	"int32", "int64", "uint32", "uint64", "sint32", "sint64", "bool",
	"fixed32", "sfixed32", "fixed64", "sfixed64", "float", "double",
	"string", "bytes", "E", "N", "repeated int32", "repeated int64", "repeated string",
	"map<string, int32>", "repeated Entry", "optional int32",
}

func bruteSchema(syntax, typ string, extra string) string {
	label := ""
	if syntax == "proto2" && !hasLabel(typ) {
		label = "optional "
	}
	return fmt.Sprintf(`syntax = %q;
package t;
message M {
  %s%s f = 1;
  %sstring keep = 2;
  %s
}
enum E { E0 = 0; E1 = 1; E2 = 2; }
message N { %sint64 v = 1; %sstring s = 2; }
message Entry { %sstring key = 1; %sint32 value = 2; }
`, syntax, label, typ, opt(syntax), extra, opt(syntax), opt(syntax), opt(syntax), opt(syntax))
}

func hasLabel(t string) bool {
	return len(t) > 9 && (t[:9] == "repeated " || t[:9] == "optional ") || len(t) > 4 && t[:4] == "map<"
}

func opt(syntax string) string {
	if syntax == "proto2" {
		return "optional "
	}
	return ""
}

// bruteDiffers samples n writer messages, encodes them, decodes them with
// the reader and reports the first difference in meaning.
func bruteDiffers(writer, reader *pb.Schema, dir engine.Direction, json bool, n int) *witness {
	t := trial{reader: reader.Message, lostIsChange: dir == engine.Backward}
	s := pb.Sampler{Seed: 42}
	for i := 0; i <= n; i++ {
		if ws := t.run(s.Sample(writer.Message, i), json); len(ws) > 0 {
			return ws[0]
		}
	}
	return nil
}

// TestBruteForceNeverCompatibleWhenDifferent: over every pair of field
// types (both directions, both profiles, proto3 and proto2), when sampled
// writer messages read differently, the rules alone (no sampled search)
// must already give a break, and every break must carry a counterexample.
func TestBruteForceNeverCompatibleWhenDifferent(t *testing.T) {
	if testing.Short() {
		t.Skip("brute force")
	}
	pairs, differing, falseAlarms := 0, 0, 0
	for _, syntax := range []string{"proto3", "proto2"} {
		for _, a := range fieldTypes {
			for _, b := range fieldTypes {
				if syntax == "proto2" && (a == "optional int32" || b == "optional int32") {
					continue
				}
				old := load(t, "old.proto", bruteSchema(syntax, a, ""))
				new := load(t, "new.proto", bruteSchema(syntax, b, ""))
				for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
					for _, prof := range []Profile{ProfileWire, ProfileWireJSON} {
						pairs++
						writer, reader := old, new
						if dir == engine.Forward {
							writer, reader = new, old
						}
						diff := bruteDiffers(writer, reader, dir, prof == ProfileWireJSON, 40)
						fs := Compare(old, new, dir, engine.Options{Profile: prof, Samples: -1})
						if diff != nil {
							differing++
							if Compatible(fs) {
								t.Errorf("%s %s → %s %s %s: rules say compatible, but %s\n%s", syntax, a, b, dir, prof, diff.summary(), diff.raw())
							}
						} else if !Compatible(fs) {
							falseAlarms++
							t.Logf("no sampled difference for %s %s → %s %s %s: %s", syntax, a, b, dir, prof, rulesOf(fs))
						}
						if !checkWitnessed(t, fs) {
							t.Logf("  in %s %s → %s %s %s", syntax, a, b, dir, prof)
						}
					}
				}
			}
		}
	}
	t.Logf("%d pair-directions, %d with a sampled difference, %d breaks the sampled search did not reproduce", pairs, differing, falseAlarms)
}

// The safety net on its own: with no rule findings, sampled messages that
// read differently give proto-witness-changed breaks (one per place), and
// identical schemas give none.
func TestBruteForceSafetyNet(t *testing.T) {
	old := load(t, "old.proto", p3(`message M { int64 a = 1; string s = 2; repeated int32 r = 3; }`))
	new := load(t, "new.proto", p3(`message M { int32 a = 1; bytes s = 2; int32 r = 3; }`))
	tr := trial{reader: new.Message, lostIsChange: true}
	var fs []*finding
	for i := 0; i <= 8; i++ {
		fs = bruteForce(fs, tr.run(pb.Sampler{}.Sample(old.Message, i), true))
	}
	if len(fs) == 0 {
		t.Fatal("no proto-witness-changed for a pair whose encodings differ")
	}
	for _, f := range fs {
		if f.rule != RuleWitnessChanged || f.witness == nil {
			t.Errorf("finding %s without witness", f.rule)
		}
	}
	same := trial{reader: old.Message, lostIsChange: true}
	fs = nil
	for i := 0; i <= 8; i++ {
		fs = bruteForce(fs, same.run(pb.Sampler{}.Sample(old.Message, i), true))
	}
	if len(fs) != 0 {
		t.Errorf("identical schemas: %d findings", len(fs))
	}
}
