package catalog

import "github.com/evtool/evtool/report"

// RuleDocs documents the rule ids this package emits about the catalog's
// configuration, types and versions: what a finding of the rule means and
// what to do about it. The rule table (package rules) collects it into
// docs/rules.md and SARIF, then the schema files' rules (each format's
// provider documents its own, format.RuleDocumenter), then ExampleRuleDocs;
// a test there fails when code emits an id no table names.
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
	}
}

// ExampleRuleDocs documents the rule ids of the examples lint validates
// against their versions, which it does once the schemas compile.
func ExampleRuleDocs() []report.RuleDoc {
	return []report.RuleDoc{
		{ID: RuleExampleJSON, Summary: "an example file is not valid JSON", Detail: "Files under a type's examples directory are JSON documents named after the version they illustrate (v1.json, v1-*.json); the message names the line and column."},
		{ID: RuleExampleInvalid, Summary: "an example does not validate against its version's schema", Detail: "An example is documentation that must stay true: it is validated against the version it names and every failure is reported with its JSON pointer."},
		{ID: RuleExampleOrphan, Summary: "an example names a version that does not exist", Detail: "An example file's name starts with the version it illustrates; no such version exists in the type."},
	}
}
