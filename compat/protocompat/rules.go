// Package protocompat decides whether Protobuf data written with one schema
// keeps its meaning when read with another, per reader/writer direction,
// for two profiles: wire (the binary encoding) and wire-json (the binary
// encoding and the canonical JSON mapping).
//
// Rules walk the two message descriptors together, matching fields by
// number, and emit report.Findings with a stable rule id. Every break is
// then proved by real encoding with dynamicpb: a writer message is encoded
// (binary, and in wire-json also the JSON mapping), decoded with the reader
// descriptor, and the meaning compared field by field; the message, its
// bytes and what the reader made of them are the counterexample. Sampled
// writer messages are checked the same way, and a difference no rule
// explains becomes a proto-witness-changed break: the verdict is never
// "compatible" when an encoding shows otherwise.
package protocompat

import (
	"fmt"
	"strings"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/report"
)

// Profile chooses what must keep its meaning: a name format/protobuf
// declares (CompatProfiles), as engine.Options carries it.
type Profile = string

// The engine's profiles (format/protobuf declares them to the catalog,
// CompatProfiles).
const (
	// ProfileWire: binary data only.
	ProfileWire = "wire"
	// ProfileWireJSON: binary data and the canonical JSON mapping (the
	// default: consumers in other languages read the JSON mapping too).
	ProfileWireJSON = "wire-json"
)

// ParseProfile accepts "", "wire" and "wire-json".
func ParseProfile(s string) (Profile, bool) {
	switch s {
	case "", ProfileWireJSON:
		return ProfileWireJSON, true
	case ProfileWire:
		return ProfileWire, true
	}
	return "", false
}

// Rule ids. They are stable: evtool.yaml ignore entries name them.
const (
	RuleFieldRemovedUnreserved = "proto-field-removed-unreserved"
	RuleFieldNumberChanged     = "proto-field-number-changed"
	RuleEnumNumberChanged      = "proto-enum-value-number-changed"
	RuleWireTypeChanged        = "proto-field-wire-type-changed"
	RuleIntegerChanged         = "proto-field-integer-changed"
	RuleZigzagNarrowed         = "proto-field-sint-narrowed"
	RuleFixedChanged           = "proto-field-fixed-changed"
	RuleBytesToString          = "proto-field-bytes-to-string"
	RuleStringUTF8Validated    = "proto-field-string-utf8-validated"
	RuleMessageKindChanged     = "proto-field-message-kind-changed"
	RuleClosedEnum             = "proto-field-closed-enum"
	RuleEnumValueMissing       = "proto-enum-value-missing"
	RuleRepeatedToSingular     = "proto-field-repeated-to-singular"
	RuleEntriesToMap           = "proto-field-entries-to-map"
	RuleOneofMerged            = "proto-oneof-fields-merged"
	RuleRequiredAdded          = "proto-required-added"
	RuleDefaultChanged         = "proto-default-changed"
	RuleJSONNameChanged        = "proto-json-name-changed"
	RuleJSONEnumNameChanged    = "proto-json-enum-name-changed"
	RuleJSONTypeChanged        = "proto-json-type-changed"
	RuleJSONSingularToRepeated = "proto-json-singular-to-repeated"
	RuleJSONMapChanged         = "proto-json-map-changed"
	RuleJSONWellKnownChanged   = "proto-json-well-known-type-changed"
	RuleWitnessChanged         = "proto-witness-changed"
)

// rule documents one rule: what it means, which profile it belongs to,
// and the nearest rule of buf breaking and change type of Confluent's
// Protobuf compatibility checker (engine.Rule's fields, in table order).
type rule struct {
	ID       string
	Profile  Profile
	Severity report.Severity
	Summary  string
	// Buf is the nearest `buf breaking` rule id; Confluent the nearest
	// change type of Confluent Schema Registry's Protobuf diff (its verdict
	// in parentheses).
	Buf, Confluent string
	// Differs says where evtool's verdict differs from both.
	Differs string
}

// Rules lists every rule in documentation order.
func Rules() []engine.Rule {
	rules := ruleTable()
	out := make([]engine.Rule, len(rules))
	for i, r := range rules {
		out[i] = engine.Rule{ID: r.ID, Profile: r.Profile, Severity: r.Severity, Summary: r.Summary, Nearest: r.nearest(), Differs: r.Differs}
	}
	return out
}

// Tools named in engine.Rule.Nearest.
const (
	toolBuf       = "buf"
	toolConfluent = "Confluent"
)

// nearest is the rule's Buf and Confluent as engine.Rule.Nearest.
func (r rule) nearest() []engine.Nearest {
	var out []engine.Nearest
	if r.Buf != "" {
		out = append(out, engine.Nearest{Tool: toolBuf, ID: r.Buf})
	}
	if r.Confluent != "" {
		out = append(out, engine.Nearest{Tool: toolConfluent, ID: r.Confluent})
	}
	return out
}

// RulesSection is the Protobuf engine's section of docs/rules.md
// (engine.Engine.Section): its rules by profile, with the nearest buf
// rule and Confluent change type; it lists no gate rules.
func RulesSection([]engine.Rule) string {
	return engine.Section("Protobuf compatibility rules",
		"Findings of Protobuf types (compat/protocompat). `compat.profile` chooses `wire` (binary data keeps its meaning) "+
			"or `wire-json` (the default: wire, and the canonical JSON mapping too); a wire rule applies under both. Every break "+
			"carries a counterexample found by encoding with dynamicpb: the writer message in the JSON mapping, its bytes in hex, "+
			"and what the reader made of it. The last two columns name the nearest `buf breaking` rule and Confluent Schema "+
			"Registry's Protobuf change type (with its verdict).",
		"| rule | profile | severity | meaning | buf | Confluent |\n|---|---|---|---|---|---|\n", Rules(),
		func(r engine.Rule) string {
			return fmt.Sprintf("| [`%s`](#%s) | %s | %s | %s | %s | %s |\n", r.ID, r.ID, r.Profile, r.Severity, engine.Cell(r.Summary), code(r.NearestOf(toolBuf)), engine.Cell(r.NearestOf(toolConfluent)))
		},
		func(r engine.Rule) string {
			var b strings.Builder
			fmt.Fprintf(&b, "\n### %s\n\n%s (profile %s).", r.ID, engine.UpperFirst(r.Summary), r.Profile)
			if len(r.Nearest) > 0 {
				fmt.Fprintf(&b, " Nearest buf rule: %s; Confluent: %s.", orNone(code(r.NearestOf(toolBuf))), orNone(r.NearestOf(toolConfluent)))
			}
			if r.Differs != "" {
				fmt.Fprintf(&b, " Where evtool differs: %s", r.Differs)
			}
			return b.String() + "\n"
		})
}

func code(s string) string {
	if s == "" || s == "-" {
		return s
	}
	return "`" + s + "`"
}

func orNone(s string) string {
	if s == "" || s == "-" {
		return "none"
	}
	return s
}

// ruleTable is the rule table, built on each call: a package-level slice
// could be changed by any caller.
func ruleTable() []rule {
	return []rule{
		{RuleFieldRemovedUnreserved, ProfileWire, report.SeverityError,
			"a field the older schema has is gone from the newer one and its number is not reserved",
			"FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED", "FIELD_REMOVED (compatible)",
			"Confluent and Karapace accept the removal; a later field that reuses the number would read old data (BACKWARD) or be read as the removed field by older readers (FORWARD). Both directions: in FORWARD the older reader reads the field's default from every newer message."},
		{RuleFieldNumberChanged, ProfileWire, report.SeverityError,
			"a field kept its name and moved to another number (renumbered, or two fields swapped numbers): binary data written to the name is read under another field, or lost",
			"FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED (renumbered) / FIELD_SAME_NAME (swapped, WIRE_JSON only)", "FIELD_REMOVED + FIELD_ADDED / FIELD_NAME_CHANGED (compatible)",
			"Confluent and Karapace match fields by number and accept both; buf's WIRE category accepts a swap (same types). Every consumer's code reads fields by name: written first: \"Ann\", read last: \"Ann\". An error in every profile and direction."},
		{RuleEnumNumberChanged, ProfileWire, report.SeverityError,
			"an enum value kept its name and moved to another number (renumbered, or two values swapped numbers): binary data written as one value reads as another",
			"ENUM_VALUE_SAME_NAME (swapped, WIRE_JSON only) / ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED (renumbered)", "ENUM_CONST_CHANGED (compatible)",
			"Confluent and Karapace accept a swap, and so does buf's WIRE category: RED written is read as BLUE. An error in every profile and direction."},
		{RuleWireTypeChanged, ProfileWire, report.SeverityError,
			"the field's wire type changed (varint, zigzag, fixed32, fixed64, length-delimited, group)",
			"FIELD_WIRE_COMPATIBLE_TYPE", "FIELD_SCALAR_KIND_CHANGED (incompatible)", ""},
		{RuleIntegerChanged, ProfileWire, report.SeverityError,
			"a varint field changed to a type that reads some written values differently (int64 → int32 truncates 2^40, -1 as uint64, 2 as bool)",
			"FIELD_WIRE_COMPATIBLE_TYPE", "FIELD_SCALAR_KIND_CHANGED (compatible for int32/int64/uint32/uint64/bool)",
			"buf and Confluent treat int32, int64, uint32, uint64 and bool as one group; evtool breaks every change that loses values, and accepts widening (int32 → int64, uint32 → uint64, bool → int)."},
		{RuleZigzagNarrowed, ProfileWire, report.SeverityError,
			"sint64 → sint32 truncates values beyond 32 bits",
			"FIELD_WIRE_COMPATIBLE_TYPE", "FIELD_SCALAR_KIND_CHANGED (compatible)", "Both anchors accept sint64 → sint32; evtool accepts only sint32 → sint64."},
		{RuleFixedChanged, ProfileWire, report.SeverityError,
			"a fixed-width field changed type (fixed32 ↔ sfixed32 ↔ float, fixed64 ↔ sfixed64 ↔ double): the same bits read as another number",
			"FIELD_WIRE_COMPATIBLE_TYPE", "FIELD_SCALAR_KIND_CHANGED (compatible for fixed32/sfixed32, fixed64/sfixed64)",
			"Both anchors accept fixed32 ↔ sfixed32; values at or above 2^31 change sign."},
		{RuleBytesToString, ProfileWire, report.SeverityError,
			"bytes → string: bytes that are not UTF-8 fail to parse (proto3) or read as invalid text",
			"FIELD_WIRE_COMPATIBLE_TYPE", "FIELD_SCALAR_KIND_CHANGED (compatible)", "Both anchors accept bytes → string."},
		{RuleStringUTF8Validated, ProfileWire, report.SeverityError,
			"a string the writer does not check for UTF-8 (proto2, editions utf8_validation = NONE) is checked by the reader (proto3, VERIFY): a string that is not UTF-8 fails to parse",
			"FIELD_SAME_UTF8_VALIDATION / FILE_SAME_SYNTAX", "(not checked: compatible)", "Confluent does not compare UTF-8 validation; proto2 → proto3 with the same field types is accepted."},
		{RuleMessageKindChanged, ProfileWire, report.SeverityError,
			"a message field became a scalar, string or bytes field or the reverse",
			"FIELD_WIRE_COMPATIBLE_TYPE", "FIELD_KIND_CHANGED (incompatible)", ""},
		{RuleClosedEnum, ProfileWire, report.SeverityError,
			"the reader's enum is closed (proto2) and the writer can write numbers it lacks: they move to unknown fields",
			"FIELD_WIRE_COMPATIBLE_TYPE", "FIELD_SCALAR_KIND_CHANGED (compatible for int ↔ enum)",
			"Both anchors accept int32 → enum; a closed enum drops every number it does not declare."},
		{RuleEnumValueMissing, ProfileWireJSON, report.SeverityError,
			"the writer's enum has a value number the reader's enum lacks (wire break when the reader's enum is closed)",
			"ENUM_VALUE_NO_DELETE", "ENUM_CONST_REMOVED (compatible)",
			"Confluent accepts the removal. In FORWARD (a value added) evtool breaks too: an older reader cannot name the new value, and its JSON parser rejects or drops the name."},
		{RuleRepeatedToSingular, ProfileWire, report.SeverityError,
			"a repeated field became singular: the reader keeps only the last element (or merges messages)",
			"FIELD_WIRE_COMPATIBLE_CARDINALITY", "FIELD_NUMERIC_LABEL_CHANGED (incompatible for numbers, compatible for string/bytes/messages)",
			"Confluent accepts repeated → optional for strings, bytes and messages; all but the last element are lost."},
		{RuleEntriesToMap, ProfileWire, report.SeverityError,
			"a repeated entry message became a map: entries with the same key collapse to the last",
			"FIELD_WIRE_COMPATIBLE_CARDINALITY", "(compatible)", "Both anchors treat map and repeated entry as the same wire form; duplicate keys are lost."},
		{RuleOneofMerged, ProfileWire, report.SeverityError,
			"fields the writer can set together are members of one oneof in the reader: only the last survives; found at each member's path, the findings sharing one fingerprint",
			"FIELD_SAME_ONEOF", "MULTIPLE_FIELDS_MOVED_TO_ONEOF / FIELD_MOVED_TO_EXISTING_ONEOF (incompatible)",
			"buf breaks any move into or out of a oneof; evtool accepts moving one field into a new oneof and moving fields out of one."},
		{RuleRequiredAdded, ProfileWire, report.SeverityError,
			"the reader requires a field (proto2 required) the writer may omit: parsing fails",
			"FIELD_SAME_LABEL / MESSAGE_SAME_REQUIRED_FIELDS", "REQUIRED_FIELD_ADDED (incompatible)", ""},
		{RuleDefaultChanged, ProfileWire, report.SeverityError,
			"the field's default differs (proto2 default, or proto3's zero against a proto2 default): an unset field reads another value",
			"FIELD_SAME_DEFAULT", "(not checked: compatible)", "Confluent does not compare defaults."},
		{RuleJSONNameChanged, ProfileWireJSON, report.SeverityError,
			"the field's JSON name changed (rename or json_name): the reader does not accept the writer's JSON key",
			"FIELD_SAME_JSON_NAME / FIELD_SAME_NAME", "FIELD_NAME_CHANGED (compatible)",
			"Confluent accepts renames; buf WIRE_JSON flags the rename even when the reader still accepts the key (json_name kept)."},
		{RuleJSONEnumNameChanged, ProfileWireJSON, report.SeverityError,
			"an enum value kept its number but changed its name: the JSON mapping writes names",
			"ENUM_VALUE_SAME_NAME", "ENUM_CONST_CHANGED (compatible)", "Confluent accepts the rename."},
		{RuleJSONTypeChanged, ProfileWireJSON, report.SeverityError,
			"a wire-compatible type change the JSON mapping does not survive (enum ↔ int, bool ↔ int, string ↔ bytes)",
			"FIELD_WIRE_JSON_COMPATIBLE_TYPE", "FIELD_SCALAR_KIND_CHANGED (compatible)", "Confluent ignores the JSON mapping."},
		{RuleJSONSingularToRepeated, ProfileWireJSON, report.SeverityError,
			"a singular field became repeated: the binary reads as one element, the JSON value is not an array",
			"FIELD_WIRE_JSON_COMPATIBLE_CARDINALITY", "FIELD_STRING_OR_BYTES_LABEL_CHANGED (compatible)", "Confluent ignores the JSON mapping."},
		{RuleJSONMapChanged, ProfileWireJSON, report.SeverityError,
			"a map became a repeated entry message or the reverse: same bytes, but a JSON object against an array",
			"FIELD_WIRE_JSON_COMPATIBLE_CARDINALITY", "(compatible)", "Confluent ignores the JSON mapping."},
		{RuleJSONWellKnownChanged, ProfileWireJSON, report.SeverityError,
			"a well-known type with its own JSON form (Timestamp, Duration, wrappers, Struct, Any, FieldMask) was swapped for another message of the same fields",
			"FIELD_SAME_TYPE", "FIELD_NAMED_TYPE_CHANGED (incompatible)", ""},
		{RuleWitnessChanged, ProfileWire, report.SeverityError,
			"an encoded writer message read differently and no rule above explains it",
			"—", "—", "A safety net: the counterexample is the proof."},
		{RuleIncomplete, ProfileWire, report.SeverityWarning,
			"the comparison did not check everything: it was cancelled, its witness search ran out of budget, or samples were cut to a nesting depth; the breaks found are still reported and the message says what was left",
			"—", "—", ""},
	}
}

func lookupRule(id string) rule {
	for _, r := range ruleTable() {
		if r.ID == id {
			return r
		}
	}
	panic("unknown rule " + id)
}
