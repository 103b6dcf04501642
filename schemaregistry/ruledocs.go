package schemaregistry

import "github.com/evtool/evtool/report"

// RuleDocs documents every rule id this package emits: what a finding of
// the rule means and what to do about it. The rule table (package rules)
// collects it into docs/rules.md and SARIF; a test there fails when code
// emits an id no RuleDocs names.
func RuleDocs() []report.RuleDoc {
	return []report.RuleDoc{
		{ID: RuleBundle, Summary: "a schema could not be bundled for the registry", Detail: "A version and the files it references could not be turned into one document for the Schema Registry."},
		{ID: RuleCompatLevel, Summary: "the registry's compatibility level differs from the catalog's", Detail: "The catalog's compat.mode is the source of truth; push sets the level, diff reports the difference."},
		{ID: RuleDuplicate, Summary: "the registry holds one schema under two versions", Detail: "The subject has the same schema twice, so version numbers no longer line up with the catalog's."},
		{ID: RuleLevelSet, Summary: "the registry's compatibility level was set", Detail: "push set the subject's compatibility level to the catalog's compat.mode."},
		{ID: RuleRegisterFailed, Summary: "the registry refused a schema", Detail: "The registry answered an error for a registration; the message gives its code and text."},
		{ID: RuleRegistered, Summary: "a schema was registered", Detail: "push registered a version that the registry did not have."},
		{ID: RuleSchemaType, Summary: "a registry version is in another format than the catalog's", Detail: "The registry version that lines up with a catalog version holds another schema type (JSON, AVRO or PROTOBUF) than the catalog file (.json, .avsc or .proto). A version's format never changes: restore the file, or put the new format under a new type."},
		{ID: RuleSubjectExtra, Summary: "the registry has a subject the catalog does not", Detail: "The subject maps to no type of the catalog under the subject strategy."},
		{ID: RuleSubjectMissing, Summary: "the catalog has a type the registry does not", Detail: "No subject exists for this type under the subject strategy: push registers it."},
		{ID: RuleSubjectStrategy, Summary: "a subject does not fit the subject strategy", Detail: "The subject name cannot be mapped to a type with the configured strategy (topic, type or topic-type)."},
		{ID: RuleUnreadable, Summary: "a registry schema could not be read", Detail: "The registry's schema text is not valid JSON or not a JSON Schema."},
		{ID: RuleVerify, Summary: "a registered schema differs from what was sent", Detail: "After registering, the registry's copy was read back and differs from the catalog's."},
		{ID: RuleVersionDiffers, Summary: "a registry version differs from the catalog's", Detail: "The same version number holds different schemas; published versions must not change."},
		{ID: RuleVersionExtra, Summary: "the registry has a version the catalog does not", Detail: "The subject has more versions than the type; someone registered outside the catalog."},
		{ID: RuleVersionMissing, Summary: "the catalog has a version the registry does not", Detail: "push registers it."},
		{ID: RuleVersionNumbers, Summary: "registry version numbers do not follow the catalog's", Detail: "The registry numbers versions itself; they no longer match vN of the catalog."},
	}
}
