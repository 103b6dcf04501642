package catalog

import "github.com/evtool/evtool/report"

// RuleDocs documents every rule id this package emits: what a finding of
// the rule means and what to do about it. The rule table (package rules)
// collects it into docs/rules.md and SARIF; a test there fails when code
// emits an id no RuleDocs names.
func RuleDocs() []report.RuleDoc {
	return []report.RuleDoc{
		{ID: RuleConfig, Summary: "evtool.yaml is unreadable or invalid", Detail: "The catalog's configuration file does not parse or has a key or value evtool does not know. The message names the line and key; fix it, lint reads nothing else until it is right."},
		{ID: RuleTypeName, Summary: "a type directory's name is not a valid CloudEvents type", Detail: "Each directory under the schemas directory is an event type, named as the type attribute is spelled (reverse DNS, e.g. com.example.order.placed). Hidden directories and symlinks are reported, never read silently."},
		{ID: RuleNoVersions, Summary: "an event type has no schema versions", Detail: "A type directory needs v1.json, v2.json, ... (or v1.avsc, v1.proto, ...): the type is not usable without one."},
		{ID: RuleVersionName, Summary: "a file in a type directory is not named vN.json, vN.avsc or vN.proto", Detail: "Schema versions are v1.json, v2.json, ... (v1.avsc for Avro, v1.proto for Protobuf); other files (except event.yaml and the examples directory) are reported so that a typo does not hide a version."},
		{ID: RuleFormatMixed, Summary: "versions of one type are in different formats", Detail: "All versions of a type are JSON Schema (.json), Avro (.avsc) or Protobuf (.proto): one format, because consumers read every version with one decoder. The message names both files."},
		{ID: RuleVersionGap, Summary: "the version numbers of a type have a gap", Detail: "Versions are numbered from 1 without gaps, so that `latest` and compatibility walks are well defined."},
		{ID: RuleEventMeta, Summary: "event.yaml is unreadable or invalid", Detail: "The type's metadata file does not parse or has a key or value evtool does not know (topic, partitionkey, source, owner, description, deprecated, ...). The message names the line and key."},
		{ID: RuleDeprecated, Summary: "a deprecated version is used", Detail: "The type's event.yaml marks this version deprecated: producers should move to a newer version."},
		{ID: RuleSchemaJSON, Summary: "a schema file is not valid JSON", Detail: "The file does not parse as JSON (or is not UTF-8, or has duplicate member names); the message names the line and column."},
		{ID: RuleSchemaInvalid, Summary: "a schema is not a valid JSON Schema", Detail: "The document fails its meta-schema (draft 2020-12 unless `$schema` says otherwise); the message gives the JSON pointer of the offending keyword."},
		{ID: RuleSchemaCompile, Summary: "a schema does not compile", Detail: "The schema is valid JSON but the validator cannot compile it: a `$ref` that does not resolve, a pattern that is not a regular expression, ... The message names the pointer."},
		{ID: RuleSchemaAvro, Summary: "an Avro schema does not load", Detail: "The .avsc file does not parse or fails lint: a default that is not a value of its field's type (for a union, of the first branch it matches, Avro 1.12), a duplicate or invalid name, a logical type on the wrong base type, a named type no shared file defines. The message names the line and JSON pointer."},
		{ID: RuleSchemaProto, Summary: "a Protobuf schema does not compile", Detail: "The .proto file does not parse or link (protocompile): a syntax error, an unknown type, an import that is not in the catalog, or an event.yaml `message` the file does not define. The message names the line and column."},
		{ID: RuleSchemaRef, Summary: "a `$ref` leaves the catalog or cannot be resolved", Detail: "References resolve inside the catalog only: nothing outside the catalog root is read and nothing reaches the network."},
		{ID: RuleDuplicateID, Summary: "two schema files declare the same `$id`", Detail: "Each `$id` names one document; two files with one `$id` make references ambiguous."},
		{ID: RuleExampleJSON, Summary: "an example file is not valid JSON", Detail: "Files under a type's examples directory are JSON documents named after the version they illustrate (v1.json, v1-*.json); the message names the line and column."},
		{ID: RuleExampleInvalid, Summary: "an example does not validate against its version's schema", Detail: "An example is documentation that must stay true: it is validated against the version it names and every failure is reported with its JSON pointer."},
		{ID: RuleExampleOrphan, Summary: "an example names a version that does not exist", Detail: "An example file's name starts with the version it illustrates; no such version exists in the type."},
	}
}
