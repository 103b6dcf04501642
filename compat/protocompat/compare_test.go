package protocompat

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/compat/engine"
	pb "github.com/evtool/evtool/format/protobuf"
	"github.com/evtool/evtool/report"
)

func load(t testing.TB, name, src string) *pb.Schema {
	t.Helper()
	s, err := pb.Load(fstest.MapFS{name: {Data: []byte(src)}}, name, "")
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return s
}

func p3(body string) string { return "syntax = \"proto3\";\npackage t;\n" + body }
func p2(body string) string { return "syntax = \"proto2\";\npackage t;\n" + body }

func rulesOf(fs []report.Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Severity == report.SeverityError && !slices.Contains(out, f.Rule) {
			out = append(out, f.Rule)
		}
	}
	sort.Strings(out)
	return out
}

// checkWitnessed fails when an error finding has no counterexample.
func checkWitnessed(t *testing.T, fs []report.Finding) bool {
	t.Helper()
	ok := true
	for _, f := range fs {
		if f.Severity != report.SeverityError {
			continue
		}
		if len(f.Counterexample) == 0 {
			t.Errorf("%s at %s has no counterexample: %s", f.Rule, f.Pointer, f.Message)
			ok = false
			continue
		}
		var w struct {
			Writer json.RawMessage
			Hex    string
		}
		if err := json.Unmarshal(f.Counterexample, &w); err != nil || len(w.Writer) == 0 {
			t.Errorf("%s: counterexample %s lacks the writer message", f.Rule, f.Counterexample)
			ok = false
		}
	}
	return ok
}

// ruleCase is one schema pair, direction and profile with the rules it
// must break.
type ruleCase struct {
	name     string
	old, new string
	dir      engine.Direction
	profile  Profile
	want     []string
}

func ruleCases() []ruleCase {
	return []ruleCase{
		{"identical", p3(`message M { string a = 1; }`), p3(`message M { string a = 1; }`), engine.Backward, "", nil},
		{"field added", p3(`message M { string a = 1; }`), p3(`message M { string a = 1; int32 b = 2; }`), engine.Backward, "", nil},
		{"field added forward", p3(`message M { string a = 1; }`), p3(`message M { string a = 1; int32 b = 2; }`), engine.Forward, "", nil},
		{"removed unreserved", p3(`message M { string a = 1; int32 b = 2; }`), p3(`message M { string a = 1; }`), engine.Backward, "", []string{RuleFieldRemovedUnreserved}},
		{"removed reserved", p3(`message M { string a = 1; int32 b = 2; }`), p3(`message M { string a = 1; reserved 2; }`), engine.Backward, "", nil},
		{"int64 to int32", p3(`message M { int64 a = 1; }`), p3(`message M { int32 a = 1; }`), engine.Backward, "", []string{RuleIntegerChanged}},
		{"int32 to int64", p3(`message M { int32 a = 1; }`), p3(`message M { int64 a = 1; }`), engine.Backward, "", nil},
		{"int32 to uint32", p3(`message M { int32 a = 1; }`), p3(`message M { uint32 a = 1; }`), engine.Backward, "", []string{RuleIntegerChanged}},
		{"int32 to bool", p3(`message M { int32 a = 1; }`), p3(`message M { bool a = 1; }`), engine.Backward, ProfileWire, []string{RuleIntegerChanged}},
		{"bool to int32 wire", p3(`message M { bool a = 1; }`), p3(`message M { int32 a = 1; }`), engine.Backward, ProfileWire, nil},
		{"bool to int32 json", p3(`message M { bool a = 1; }`), p3(`message M { int32 a = 1; }`), engine.Backward, "", []string{RuleJSONTypeChanged}},
		{"sint64 to sint32", p3(`message M { sint64 a = 1; }`), p3(`message M { sint32 a = 1; }`), engine.Backward, "", []string{RuleZigzagNarrowed}},
		{"sint32 to sint64", p3(`message M { sint32 a = 1; }`), p3(`message M { sint64 a = 1; }`), engine.Backward, "", nil},
		{"int32 to sint32", p3(`message M { int32 a = 1; }`), p3(`message M { sint32 a = 1; }`), engine.Backward, "", []string{RuleWireTypeChanged}},
		{"fixed32 to sfixed32", p3(`message M { fixed32 a = 1; }`), p3(`message M { sfixed32 a = 1; }`), engine.Backward, "", []string{RuleFixedChanged}},
		{"string to bytes wire", p3(`message M { string a = 1; }`), p3(`message M { bytes a = 1; }`), engine.Backward, ProfileWire, nil},
		{"string to bytes json", p3(`message M { string a = 1; }`), p3(`message M { bytes a = 1; }`), engine.Backward, "", []string{RuleJSONTypeChanged}},
		{"bytes to string", p3(`message M { bytes a = 1; }`), p3(`message M { string a = 1; }`), engine.Backward, ProfileWire, []string{RuleBytesToString}},
		{"enum to int32 wire", p3(`enum E { E0 = 0; E1 = 1; } message M { E a = 1; }`), p3(`message M { int32 a = 1; }`), engine.Backward, ProfileWire, nil},
		{"enum to int32 json", p3(`enum E { E0 = 0; E1 = 1; } message M { E a = 1; }`), p3(`message M { int32 a = 1; }`), engine.Backward, "", []string{RuleJSONTypeChanged}},
		{"int32 to closed enum", p2(`message M { optional int32 a = 1; }`), p2(`enum E { E0 = 0; E1 = 1; } message M { optional E a = 1; }`), engine.Backward, ProfileWire, []string{RuleClosedEnum}},
		{"enum value removed open wire", p3(`enum E { E0 = 0; E1 = 1; } message M { E a = 1; }`), p3(`enum E { E0 = 0; } message M { E a = 1; }`), engine.Backward, ProfileWire, nil},
		{"enum value removed open json", p3(`enum E { E0 = 0; E1 = 1; } message M { E a = 1; }`), p3(`enum E { E0 = 0; } message M { E a = 1; }`), engine.Backward, "", []string{RuleEnumValueMissing}},
		{"enum value removed closed", p2(`enum E { E0 = 0; E1 = 1; } message M { optional E a = 1; }`), p2(`enum E { E0 = 0; } message M { optional E a = 1; }`), engine.Backward, ProfileWire, []string{RuleEnumValueMissing}},
		{"enum value renamed", p3(`enum E { E0 = 0; E1 = 1; } message M { E a = 1; }`), p3(`enum E { E0 = 0; E_ONE = 1; } message M { E a = 1; }`), engine.Backward, "", []string{RuleJSONEnumNameChanged}},
		{"repeated to singular", p3(`message M { repeated int32 a = 1; }`), p3(`message M { int32 a = 1; }`), engine.Backward, "", []string{RuleRepeatedToSingular}},
		{"singular to repeated wire", p3(`message M { int32 a = 1; }`), p3(`message M { repeated int32 a = 1; }`), engine.Backward, ProfileWire, nil},
		{"singular to repeated json", p3(`message M { int32 a = 1; }`), p3(`message M { repeated int32 a = 1; }`), engine.Backward, "", []string{RuleJSONSingularToRepeated}},
		{"map to entries wire", p3(`message M { map<string, int32> a = 1; }`), p3(`message M { message E { string key = 1; int32 value = 2; } repeated E a = 1; }`), engine.Backward, ProfileWire, nil},
		{"map to entries json", p3(`message M { map<string, int32> a = 1; }`), p3(`message M { message E { string key = 1; int32 value = 2; } repeated E a = 1; }`), engine.Backward, "", []string{RuleJSONMapChanged}},
		{"oneof merged", p3(`message M { int32 a = 1; int32 b = 2; }`), p3(`message M { oneof o { int32 a = 1; int32 b = 2; } }`), engine.Backward, "", []string{RuleOneofMerged}},
		{"oneof single moved in", p3(`message M { int32 a = 1; int32 b = 2; }`), p3(`message M { oneof o { int32 a = 1; } int32 b = 2; }`), engine.Backward, "", nil},
		{"oneof split", p3(`message M { oneof o { int32 a = 1; int32 b = 2; } }`), p3(`message M { int32 a = 1; int32 b = 2; }`), engine.Backward, "", nil},
		{"required added", p2(`message M { optional int32 a = 1; }`), p2(`message M { optional int32 a = 1; required int32 b = 2; }`), engine.Backward, "", []string{RuleRequiredAdded}},
		{"required to optional", p2(`message M { required int32 a = 1; }`), p2(`message M { optional int32 a = 1; }`), engine.Backward, "", nil},
		{"default changed", p2(`message M { optional int32 a = 1 [default = 5]; }`), p2(`message M { optional int32 a = 1 [default = 6]; }`), engine.Backward, "", []string{RuleDefaultChanged}},
		{"renamed json", p3(`message M { int32 user_id = 1; }`), p3(`message M { int32 account_id = 1; }`), engine.Backward, "", []string{RuleJSONNameChanged}},
		{"renamed wire", p3(`message M { int32 user_id = 1; }`), p3(`message M { int32 account_id = 1; }`), engine.Backward, ProfileWire, nil},
		{"renamed json_name kept", p3(`message M { int32 user_id = 1; }`), p3(`message M { int32 account_id = 1 [json_name = "userId"]; }`), engine.Backward, "", nil},
		{"nested int narrowed", p3(`message M { N n = 1; } message N { int64 v = 1; }`), p3(`message M { N n = 1; } message N { int32 v = 1; }`), engine.Backward, "", []string{RuleIntegerChanged}},
		{"message to bytes", p3(`message M { N n = 1; } message N { int64 v = 1; }`), p3(`message M { bytes n = 1; }`), engine.Backward, ProfileWire, []string{RuleMessageKindChanged}},
		{"recursive", p3(`message M { M child = 1; int64 v = 2; }`), p3(`message M { M child = 1; int32 v = 2; }`), engine.Backward, "", []string{RuleIntegerChanged}},
		{"group to message", p2(`message M { optional group G = 1 { optional int32 v = 2; } }`), p2(`message M { optional N g = 1; } message N { optional int32 v = 2; }`), engine.Backward, ProfileWire, []string{RuleWireTypeChanged}},
		{"extension narrowed", p2(`message M { extensions 100 to 200; } extend M { optional int64 x = 100; }`), p2(`message M { extensions 100 to 200; } extend M { optional int32 x = 100; }`), engine.Backward, "", []string{RuleIntegerChanged}},
		{"extension removed", p2(`message M { extensions 100 to 200; } extend M { optional int64 x = 100; }`), p2(`message M { extensions 100 to 200; }`), engine.Backward, "", []string{RuleFieldRemovedUnreserved}},
		{"extension default changed", p2(`message M { extensions 100 to 200; } extend M { optional int32 x = 100 [default = 1]; }`), p2(`message M { extensions 100 to 200; } extend M { optional int32 x = 100 [default = 2]; }`), engine.Backward, "", []string{RuleDefaultChanged}},
		{"extension renamed json", p2(`message M { extensions 100 to 200; } extend M { optional int32 x = 100; }`), p2(`message M { extensions 100 to 200; } extend M { optional int32 y = 100; }`), engine.Backward, "", []string{RuleJSONNameChanged}},
		{"extension added forward", p2(`message M { extensions 100 to 200; }`), p2(`message M { extensions 100 to 200; } extend M { optional int32 y = 100; }`), engine.Forward, "", nil},
		{"packed to unpacked", p3(`message M { repeated int32 a = 1; }`), p3(`message M { repeated int32 a = 1 [packed = false]; }`), engine.Backward, "", nil},
		{"editions expanded encoding", "edition = \"2023\";\npackage t;\nmessage M { repeated int64 a = 1; }", "edition = \"2023\";\npackage t;\nmessage M { repeated int64 a = 1 [features.repeated_field_encoding = EXPANDED]; }", engine.Backward, "", nil},
		{"editions delimited message", "edition = \"2023\";\npackage t;\nmessage M { N n = 1; } message N { int32 v = 1; }", "edition = \"2023\";\npackage t;\nmessage M { N n = 1 [features.message_encoding = DELIMITED]; } message N { int32 v = 1; }", engine.Backward, ProfileWire, []string{RuleWireTypeChanged}},
		// proto2 strings are not checked for UTF-8, proto3 strings are: a
		// proto2 writer's "\xff" fails a proto3 reader's parse.
		{"proto2 string to proto3 string", p2(`message M { optional string a = 1; }`), p3(`message M { string a = 1; }`), engine.Backward, ProfileWire, []string{RuleStringUTF8Validated}},
		{"proto3 string to proto2 string", p3(`message M { string a = 1; }`), p2(`message M { optional string a = 1; }`), engine.Backward, ProfileWire, nil},
		{"editions utf8 none to verify", "edition = \"2023\";\npackage t;\nmessage M { string a = 1 [features.utf8_validation = NONE]; }", "edition = \"2023\";\npackage t;\nmessage M { string a = 1; }", engine.Backward, ProfileWire, []string{RuleStringUTF8Validated}},
		{"proto2 map string value to proto3", p2(`message M { map<string, string> a = 1; }`), p3(`message M { map<string, string> a = 1; }`), engine.Backward, ProfileWire, []string{RuleStringUTF8Validated}},
		// The JSON mapping writes an aliased number's first name, and a
		// reader parses every name it declares.
		{"enum with aliases unchanged", p3(`enum E { option allow_alias = true; A = 0; B = 1; C = 1; } message M { E a = 1; }`), p3(`enum E { option allow_alias = true; A = 0; B = 1; C = 1; } message M { E a = 1; }`), engine.Backward, "", nil},
		{"enum alias added in reader", p3(`enum E { A = 0; B = 1; } message M { E a = 1; }`), p3(`enum E { option allow_alias = true; A = 0; B_NEW = 1; B = 1; } message M { E a = 1; }`), engine.Backward, "", nil},
		{"enum alias kept, first name removed", p3(`enum E { option allow_alias = true; A = 0; B = 1; C = 1; } message M { E a = 1; }`), p3(`enum E { A = 0; C = 1; } message M { E a = 1; }`), engine.Backward, "", []string{RuleJSONEnumNameChanged}},
		// Wrappers write the bare value: Int32Value's 5 parses as Int64Value.
		{"int32 wrapper to int64 wrapper", p3(`import "google/protobuf/wrappers.proto"; message M { google.protobuf.Int32Value a = 1; }`), p3(`import "google/protobuf/wrappers.proto"; message M { google.protobuf.Int64Value a = 1; }`), engine.Backward, "", nil},
		{"int64 wrapper to int32 wrapper", p3(`import "google/protobuf/wrappers.proto"; message M { google.protobuf.Int64Value a = 1; }`), p3(`import "google/protobuf/wrappers.proto"; message M { google.protobuf.Int32Value a = 1; }`), engine.Backward, "", []string{RuleIntegerChanged}},
		{"bool wrapper to int32 wrapper", p3(`import "google/protobuf/wrappers.proto"; message M { google.protobuf.BoolValue a = 1; }`), p3(`import "google/protobuf/wrappers.proto"; message M { google.protobuf.Int32Value a = 1; }`), engine.Backward, "", []string{RuleJSONTypeChanged}},
		{"int32 wrapper to same-shaped message", p3(`import "google/protobuf/wrappers.proto"; message M { google.protobuf.Int32Value a = 1; }`), p3(`message M { W a = 1; } message W { int32 value = 1; }`), engine.Backward, "", []string{RuleJSONWellKnownChanged}},
		// A proto3 writer's open enum field holds undeclared numbers; a
		// closed reader enum moves them to unknown fields.
		{"open enum to closed enum", p3(`enum E { A = 0; B = 1; } message M { E a = 1; }`), p2(`enum E { A = 0; B = 1; } message M { optional E a = 1; }`), engine.Backward, ProfileWire, []string{RuleClosedEnum}},
		{"closed enum to open enum", p2(`enum E { A = 0; B = 1; } message M { optional E a = 1; }`), p3(`enum E { A = 0; B = 1; } message M { E a = 1; }`), engine.Backward, ProfileWire, nil},
		{"open enum to uint32", p3(`enum E { A = 0; B = 1; } message M { E a = 1; }`), p3(`message M { uint32 a = 1; }`), engine.Backward, ProfileWire, []string{RuleIntegerChanged}},
		{"open enum to int64", p3(`enum E { A = 0; B = 1; } message M { E a = 1; }`), p3(`message M { int64 a = 1; }`), engine.Backward, ProfileWire, nil},
		{"closed enum to uint32", p2(`enum E { A = 0; B = 1; } message M { optional E a = 1; }`), p2(`message M { optional uint32 a = 1; }`), engine.Backward, ProfileWire, nil},
		// A closed enum of 0 and 1 reads as bool without loss.
		{"closed enum of 0 and 1 to bool", p2(`enum E { A = 0; B = 1; } message M { optional E a = 1; }`), p2(`message M { optional bool a = 1; }`), engine.Backward, ProfileWire, nil},
		{"closed enum of 0 to 2 to bool", p2(`enum E { A = 0; B = 1; C = 2; } message M { optional E a = 1; }`), p2(`message M { optional bool a = 1; }`), engine.Backward, ProfileWire, []string{RuleIntegerChanged}},
		// Empty's JSON form is {}, an object of its (no) fields.
		{"empty to own empty message", p3(`import "google/protobuf/empty.proto"; message M { google.protobuf.Empty a = 1; }`), p3(`message M { N a = 1; } message N {}`), engine.Backward, "", nil},
		// A removed field's JSON key is another reader field's name: the
		// JSON mapping fills that field (here failing on the type).
		{"removed field's json key taken by another field", p3(`message M { int32 a = 1; }`), p3(`message M { reserved 1; string a = 2; }`), engine.Backward, "", []string{RuleFieldNumberChanged}},
		// The same name at another number: code reads x and gets the
		// default, in every profile and direction.
		{"removed field's json key taken, same type", p3(`message M { int32 x = 5; }`), p3(`message M { reserved 5; int32 x = 3; }`), engine.Backward, "", []string{RuleFieldNumberChanged}},
		{"removed field's json key taken, wire", p3(`message M { int32 x = 5; }`), p3(`message M { reserved 5; int32 x = 3; }`), engine.Backward, ProfileWire, []string{RuleFieldNumberChanged}},
		{"added field's json key is an old field's forward", p3(`message M { int32 x = 3; }`), p3(`message M { reserved 3; int32 x = 5; }`), engine.Forward, "", []string{RuleFieldNumberChanged}},
		// protojson's error names a map key by kind only; the key's own
		// finding explains it (no extra proto-witness-changed).
		{"map bool key to int32 key json", p3(`message M { map<bool, string> a = 1; }`), p3(`message M { map<int32, string> a = 1; }`), engine.Backward, "", []string{RuleJSONTypeChanged}},
		// A closed enum map value keeps undeclared numbers in dynamicpb;
		// generated code moves the entry to unknown fields.
		{"map value to closed enum", p2(`message M { map<string, int32> a = 1; }`), p2(`enum E { A = 0; B = 1; } message M { map<string, E> a = 1; }`), engine.Backward, ProfileWire, []string{RuleClosedEnum}},
		{"map value narrowed", p3(`message M { map<string, int64> a = 1; }`), p3(`message M { map<string, int32> a = 1; }`), engine.Backward, ProfileWire, []string{RuleIntegerChanged}},
		{"map value enum renamed", p3(`enum E { A = 0; B = 1; } message M { map<string, E> a = 1; }`), p3(`enum E { A = 0; C = 1; } message M { map<string, E> a = 1; }`), engine.Backward, "", []string{RuleJSONEnumNameChanged}},
		{"deep nested narrowed", p3(`message M { N n = 1; } message N { O o = 1; } message O { repeated P p = 1; } message P { int64 v = 1; }`), p3(`message M { N n = 1; } message N { O o = 1; } message O { repeated P p = 1; } message P { int32 v = 1; }`), engine.Backward, "", []string{RuleIntegerChanged}},
		{"timestamp to same-shaped message", p3(`import "google/protobuf/timestamp.proto"; message M { google.protobuf.Timestamp at = 1; }`), p3(`message M { T at = 1; } message T { int64 seconds = 1; int32 nanos = 2; }`), engine.Backward, "", []string{RuleJSONWellKnownChanged}},
	}
}

// movedCases are the names kept while their numbers move (issue 23):
// each breaks in both directions and both profiles.
func movedCases() []ruleCase {
	both := func(name, old, new string, wire, wireJSON []string) []ruleCase {
		var out []ruleCase
		for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
			out = append(out, ruleCase{name + " " + string(dir) + " wire", old, new, dir, ProfileWire, wire},
				ruleCase{name + " " + string(dir) + " wire-json", old, new, dir, ProfileWireJSON, wireJSON})
		}
		return out
	}
	var out []ruleCase
	for _, cs := range [][]ruleCase{
		both("field renumbered", p3(`message M { string test_string = 1; }`), p3(`message M { string test_string = 2; }`),
			[]string{RuleFieldNumberChanged, RuleFieldRemovedUnreserved}, []string{RuleFieldNumberChanged, RuleFieldRemovedUnreserved}),
		both("fields swapped", p3(`message M { string first = 1; string last = 2; }`), p3(`message M { string last = 1; string first = 2; }`),
			[]string{RuleFieldNumberChanged}, []string{RuleFieldNumberChanged}),
		both("fields swapped, other types", p3(`message M { int64 count = 1; string label = 2; }`), p3(`message M { string label = 1; int64 count = 2; }`),
			[]string{RuleFieldNumberChanged, RuleWireTypeChanged}, []string{RuleFieldNumberChanged, RuleWireTypeChanged}),
		both("nested fields swapped", p3(`message M { P person = 1; } message P { string first = 1; string last = 2; }`), p3(`message M { P person = 1; } message P { string last = 1; string first = 2; }`),
			[]string{RuleFieldNumberChanged}, []string{RuleFieldNumberChanged}),
		both("enum values swapped", p3(`enum Color { C0 = 0; RED = 1; BLUE = 2; } message M { Color color = 1; }`), p3(`enum Color { C0 = 0; RED = 2; BLUE = 1; } message M { Color color = 1; }`),
			[]string{RuleEnumNumberChanged}, []string{RuleEnumNumberChanged}),
		both("repeated enum values swapped", p3(`enum Color { C0 = 0; RED = 1; BLUE = 2; } message M { repeated Color colors = 1; }`), p3(`enum Color { C0 = 0; RED = 2; BLUE = 1; } message M { repeated Color colors = 1; }`),
			[]string{RuleEnumNumberChanged}, []string{RuleEnumNumberChanged}),
		both("map enum values swapped", p3(`enum Color { C0 = 0; RED = 1; BLUE = 2; } message M { map<string, Color> colors = 1; }`), p3(`enum Color { C0 = 0; RED = 2; BLUE = 1; } message M { map<string, Color> colors = 1; }`),
			[]string{RuleEnumNumberChanged}, []string{RuleEnumNumberChanged}),
		both("closed enum values swapped", p2(`enum Color { C0 = 0; RED = 1; BLUE = 2; } message M { optional Color color = 1; }`), p2(`enum Color { C0 = 0; RED = 2; BLUE = 1; } message M { optional Color color = 1; }`),
			[]string{RuleEnumNumberChanged}, []string{RuleEnumNumberChanged}),
		both("enum value renumbered", p3(`enum Color { C0 = 0; RED = 1; } message M { Color color = 1; }`), p3(`enum Color { C0 = 0; RED = 3; } message M { Color color = 1; }`),
			[]string{RuleEnumNumberChanged}, []string{RuleEnumValueMissing, RuleEnumNumberChanged}),
		both("field removed unreserved", p3(`message M { string a = 1; int32 b = 2; }`), p3(`message M { string a = 1; }`),
			[]string{RuleFieldRemovedUnreserved}, []string{RuleFieldRemovedUnreserved}),
		both("field removed reserved", p3(`message M { string a = 1; int32 b = 2; }`), p3(`message M { string a = 1; reserved 2; }`), nil, nil),
		both("nested field removed unreserved", p3(`message M { N n = 1; } message N { string a = 1; int32 b = 2; }`), p3(`message M { N n = 1; } message N { string a = 1; }`),
			[]string{RuleFieldRemovedUnreserved}, []string{RuleFieldRemovedUnreserved}),
		both("extension removed", p2(`message M { extensions 100 to 200; } extend M { optional int64 x = 100; }`), p2(`message M { extensions 100 to 200; }`),
			[]string{RuleFieldRemovedUnreserved}, []string{RuleFieldRemovedUnreserved}),
		both("renamed, number kept", p3(`message M { string first = 1; }`), p3(`message M { string given = 1; }`), nil, []string{RuleJSONNameChanged}),
		// An alias the writer shares with another name: code that writes C
		// writes 1, which the reader reads as B.
		// FORWARD, the writer's C = 2 is not a number of the reader's
		// enum too (as "enum value renumbered").
		both("enum alias renumbered", p3(`enum E { option allow_alias = true; Z = 0; B = 1; C = 1; } message M { E e = 1; }`), p3(`enum E { Z = 0; B = 1; C = 2; } message M { E e = 1; }`),
			[]string{RuleEnumNumberChanged}, []string{RuleEnumNumberChanged})[:3],
		both("enum alias renumbered", p3(`enum E { option allow_alias = true; Z = 0; B = 1; C = 1; } message M { E e = 1; }`), p3(`enum E { Z = 0; B = 1; C = 2; } message M { E e = 1; }`),
			nil, []string{RuleEnumValueMissing, RuleEnumNumberChanged})[3:],
	} {
		out = append(out, cs...)
	}
	return out
}

func TestCompareRules(t *testing.T) {
	for _, tc := range append(ruleCases(), movedCases()...) {
		t.Run(tc.name, func(t *testing.T) {
			old, new := load(t, "old.proto", tc.old), load(t, "new.proto", tc.new)
			fs := Compare(old, new, tc.dir, engine.Options{Profile: tc.profile})
			if got := rulesOf(fs); !slices.Equal(got, tc.want) {
				for _, f := range fs {
					t.Logf("%s %s %s: %s", f.Rule, f.Location(), f.Pointer, f.Message)
				}
				t.Fatalf("rules = %v, want %v", got, tc.want)
			}
			checkWitnessed(t, fs)
			if testing.Verbose() && len(fs) > 0 {
				t.Logf("%s: %s\n%s", fs[0].Rule, fs[0].Message, fs[0].Counterexample)
			}
		})
	}
}

func TestFindingPointers(t *testing.T) {
	old := load(t, "v1.proto", p3("message M {\n  int64 amount = 1;\n}\n"))
	new := load(t, "v2.proto", p3("message M {\n  int32 amount = 1;\n}\n"))
	fs := Compare(old, new, engine.Backward, engine.Options{})
	if len(fs) == 0 {
		t.Fatal("no findings")
	}
	f := fs[0]
	if f.Location() != "v2.proto:4:3" || f.OldPointer != "v1.proto:4:3#t.M.amount" || f.Pointer != "/amount" {
		t.Errorf("location %q old %q pointer %q", f.Location(), f.OldPointer, f.Pointer)
	}
	if !strings.Contains(f.Message, `written "1099511627776", read "0"`) {
		t.Errorf("message does not show 2^40 read as int32: %s", f.Message)
	}
}

// A pair with several breaks: each counterexample shows its own field,
// not another break of the same pair.
func TestWitnessShowsItsOwnField(t *testing.T) {
	old, new := benchPair(&testing.B{})
	for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
		for _, f := range Compare(old, new, dir, engine.Options{}) {
			var w struct {
				ReaderError string
				Changes     []struct{ Path string }
			}
			if err := json.Unmarshal(f.Counterexample, &w); err != nil {
				t.Fatal(err)
			}
			leaf := f.Pointer[strings.LastIndex(f.Pointer, "/")+1:]
			if w.ReaderError != "" {
				continue
			}
			if len(w.Changes) == 0 || !strings.HasSuffix(strings.TrimRight(w.Changes[0].Path, "[0123456789]"), leaf) {
				t.Errorf("%s %s at %s: counterexample shows %+v", dir, f.Rule, f.Pointer, w.Changes)
			}
		}
	}
}

// A field the reader requires and the writer may leave out is one break;
// the counterexamples of the pair's other breaks set it, so that they show
// their own field and not the reader's "required field not set".
func TestWitnessSetsFieldsTheReaderRequires(t *testing.T) {
	reader := load(t, "old.proto", p2("message M {\n  required string id = 1;\n  optional int32 n = 2 [default = 5];\n}\n"))
	writer := load(t, "new.proto", p2("message M {\n  optional string id = 1;\n  optional int32 n = 2 [default = 7];\n}\n"))
	for _, f := range Compare(reader, writer, engine.Forward, engine.Options{}) {
		if f.Rule == "proto-required-added" {
			continue
		}
		if strings.Contains(string(f.Counterexample), "required field") {
			t.Errorf("%s at %s: counterexample shows the required-field break: %s", f.Rule, f.Pointer, f.Counterexample)
		}
	}
}

func TestCompareStopsWithContext(t *testing.T) {
	old, new := benchPair(&testing.B{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fs := Compare(old, new, engine.Backward, engine.Options{Context: ctx})
	last := fs[len(fs)-1]
	for _, f := range fs {
		if f.Rule == RuleIncomplete {
			last = f
		}
	}
	if last.Rule != RuleIncomplete || last.Severity != report.SeverityWarning {
		t.Fatalf("a stopped comparison did not say so: %+v", fs)
	}
	if Compatible(fs) {
		t.Error("the rules' breaks were dropped when stopped")
	}
}

// A moved alias is shown by its own name: "written B (1), read B (1)"
// proves nothing to a reader of the report.
func TestEnumAliasWitnessNamesAlias(t *testing.T) {
	old := load(t, "old.proto", p3(`enum E { option allow_alias = true; Z = 0; B = 1; C = 1; } message M { E e = 1; }`))
	new := load(t, "new.proto", p3(`enum E { Z = 0; B = 1; C = 2; } message M { E e = 1; }`))
	fs := Compare(old, new, engine.Backward, engine.Options{Profile: ProfileWire})
	if len(fs) != 1 || !strings.Contains(fs[0].Message, `written "C (1)", read "B (1)"`) {
		t.Fatalf("findings %v", fs)
	}
}

// TestOneofMergedEveryMember: a merge into one oneof is found at every
// member's path (any member can be the one the reader drops, so a consumer
// reading only one of them must be reached), and the findings are about
// the same descriptors, so they share one fingerprint (one approval).
func TestOneofMergedEveryMember(t *testing.T) {
	old := load(t, "old.proto", p3(`message M { int32 a = 1; oneof x { int32 b = 2; } int32 c = 3; }`))
	new := load(t, "new.proto", p3(`message M { oneof o { int32 a = 1; int32 b = 2; int32 c = 3; } }`))
	var ptrs []string
	var sides []string
	for _, f := range Compare(old, new, engine.Backward, engine.Options{}) {
		if f.Rule != RuleOneofMerged {
			continue
		}
		ptrs = append(ptrs, f.Pointer)
		sides = append(sides, f.OldPointer+" "+f.NewPointer)
	}
	if want := []string{"/a", "/b", "/c"}; !slices.Equal(ptrs, want) {
		t.Fatalf("pointers %q, want %q", ptrs, want)
	}
	for _, s := range sides[1:] {
		if s != sides[0] {
			t.Errorf("sides differ: %q vs %q (they name the merge, not the member)", s, sides[0])
		}
	}
}

// TestOneofMergedMessageGroups: the message lists what the writer can set
// together, a writer oneof as one choice among its members (iban and bic
// exclude each other already).
func TestOneofMergedMessageGroups(t *testing.T) {
	old := load(t, "old.proto", p3(`message M { string card = 1; oneof pay { string iban = 2; string bic = 3; } }`))
	new := load(t, "new.proto", p3(`message M { oneof all { string card = 1; string iban = 2; string bic = 3; } }`))
	n := 0
	for _, f := range Compare(old, new, engine.Backward, engine.Options{}) {
		if f.Rule != RuleOneofMerged {
			continue
		}
		n++
		if want := "the writer can set card and one of iban, bic (its oneof pay) together; the reader's oneof all keeps only the last"; !strings.HasPrefix(f.Message, want) {
			t.Fatalf("message %q, want %q", f.Message, want)
		}
	}
	if n != 3 {
		t.Fatalf("%d findings, want one per member", n)
	}
}
