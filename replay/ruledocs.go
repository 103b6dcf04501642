package replay

import "github.com/evtool/evtool/report"

// RulePartitionKey: an event replay cannot key, because its data has no
// usable value at the type's partitionkey.
const RulePartitionKey = "partition-key"

// RuleDocs documents every rule id this package emits (see
// catalog.RuleDocs for how the rule table uses it).
func RuleDocs() []report.RuleDoc {
	return []report.RuleDoc{
		{ID: RulePartitionKey, Summary: "an event has no partition key", Detail: "replay keys each record with the value at the type's partitionkey; this event's data has no string, number or bool there, so it cannot be produced. The message names the pointer."},
		{ID: RuleUndeclaredRead, Summary: "a consumer reads a field its contract does not list", Detail: "A contract run (consumer.contract in a replay scenario) mutated every field of the events' data that the consumer's contract (consumers/<name>.yaml) does not list, and the consumer's final state differed from the baseline's: its code reads a field its contract omits. The finding names the fields (narrowed by delta debugging within --shrink-budget), shows the state diff, and prints the command that replays the run mutating only them (--contract-field). Add the fields to the contract, or stop reading them; evtool consumers infer prints the fields the code reads."},
	}
}
