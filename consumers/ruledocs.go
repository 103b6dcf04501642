package consumers

import "github.com/evtool/evtool/report"

// RuleDocs documents every rule id this package emits (see
// catalog.RuleDocs for how the rule table uses it).
func RuleDocs() []report.RuleDoc {
	return []report.RuleDoc{
		{ID: RuleContract, Summary: "a consumer contract file is malformed", Detail: "A consumers/<name>.yaml is not valid YAML, has a key evtool does not know, a type name that is not an event type name, a version that is not a positive number or a field that is not a JSON pointer. The message names the file, line and JSON pointer; lint and every command that reads contracts exit 2."},
		{ID: RuleType, Summary: "a consumer contract reads a type the catalog does not have", Detail: "A contract (consumers/<name>.yaml) lists under `reads` an event type that is no type directory of the catalog. The message names the contract's file and line; fix the type's name or remove the entry."},
		{ID: RuleVersion, Summary: "a consumer contract reads a version the type does not have", Detail: "A contract's `versions` names a version number the type has no schema file for. The message names the contract's file and line."},
		{ID: RuleField, Summary: "a consumer contract's field does not resolve in a version it reads", Detail: "Every pointer under `fields` must name a place of the data's JSON form (Avro and Protobuf through their JSON mapping) in every version the contract lists: a pointer that resolves in none of them reads nothing. The message names the pointer, the version and the contract's line."},
		{ID: RuleAffected, Summary: "the consumers a type's compatibility findings reach", Detail: "An info line of compat check, one per type with findings: the consumers whose contracts read the paths the findings are at (or a parent or child path). Without contracts it is absent."},
		{ID: RuleBreaks, Summary: "a consumer cannot read a version producers may write, in the fields it reads", Detail: "consumers check compared, for a consumer and a version it reads, every version producers may write, projected on the contract's fields, with the same engines as compat check: a break in those fields, with a counterexample restricted to them. Exit 1: deploying the producer change breaks this consumer."},
		{ID: RuleReads, Summary: "a consumer reads a type with every version producers may write", Detail: "An info line of consumers check: the consumer's versions of the type read every version producers may write, in the fields its contract lists."},
	}
}
