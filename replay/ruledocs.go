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
	}
}
