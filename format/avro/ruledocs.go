package avro

import (
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/report"
)

// RuleSchemaAvro: an .avsc version or shared file that does not load
// (parse, lint or name resolution); lint names it (LintRule).
const RuleSchemaAvro = "schema-avro"

var _ format.RuleDocumenter = Provider{}

// RuleDocs documents RuleSchemaAvro; Avro has no rule across files (a
// named type no shared file defines is the version's own problem).
func (Provider) RuleDocs() (version, root []report.RuleDoc) {
	return []report.RuleDoc{
		{ID: RuleSchemaAvro, Summary: "an Avro schema does not load", Detail: "The .avsc file does not parse or fails lint: a default that is not a value of its field's type (for a union, of the first branch it matches, Avro 1.12), a duplicate or invalid name, a logical type on the wrong base type, a named type no shared file defines. The message names the line and JSON pointer."},
	}, nil
}
