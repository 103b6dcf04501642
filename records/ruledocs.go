package records

import "github.com/evtool/evtool/report"

// RuleDocs documents every rule id this package emits (see
// catalog.RuleDocs for how the rule table uses it).
func RuleDocs() []report.RuleDoc {
	return []report.RuleDoc{
		{ID: RuleNotCloudEvent, Summary: "a record carries no CloudEvent", Detail: "The record is neither a structured-mode CloudEvent (a JSON value with a CloudEvents content type) nor a binary-mode one (ce_ headers); validate --topic and verify report it and read on."},
		{ID: RuleRecordInvalid, Summary: "a record could not be read as a CloudEvent", Detail: "The record's headers or value could not be turned into an event (for example two headers for one attribute with different values); the message says why."},
		{ID: RulePartitionKey, Summary: "the record key is not the event's partition key", Detail: "The type's event.yaml names a partitionkey (an attribute or a pointer into the data); the record's key differs from that value, or the event has no value there. Records of one entity then land on different partitions and lose their order."},
		{ID: RuleIDReused, Summary: "an id is used again for a different event", Detail: "Two records have the same source and id but differ in type, subject or data. Consumers that deduplicate by source and id drop the second event; give each event its own id."},
		{ID: RuleIDRepeated, Summary: "an event arrived more than once", Detail: "The same event (same source, id, type, subject and data) is on the topic several times; a warning with the count, since at-least-once delivery allows it and consumers must deduplicate."},
		{ID: RuleKeyPartitions, Summary: "one key is on several partitions", Detail: "Records with the same key are on more than one partition of a topic, so their relative order is lost; a warning naming the first record on each partition."},
		{ID: RuleSequenceBackwards, Summary: "a key's sequence went backwards", Detail: "The type's event.yaml names a sequence pointer into the data; on one partition, a record of the key carries a smaller sequence than an earlier one. Consumers applying events in order see stale state."},
	}
}
