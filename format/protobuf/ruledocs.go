package protobuf

import (
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/report"
)

// RuleSchemaProto: a .proto version or shared file that does not compile
// (parse, link or message selection); lint names it (LintRule).
const RuleSchemaProto = "schema-proto"

var _ format.RuleDocumenter = Provider{}

// RuleDocs documents RuleSchemaProto; Protobuf has no rule across files
// (an import the catalog lacks is the importing version's problem).
func (Provider) RuleDocs() (version, root []report.RuleDoc) {
	return []report.RuleDoc{
		{ID: RuleSchemaProto, Summary: "a Protobuf schema does not compile", Detail: "The .proto file does not parse or link (protocompile): a syntax error, an unknown type, an import that is not in the catalog, or an event.yaml `message` the file does not define. The message names the line and column."},
	}, nil
}
