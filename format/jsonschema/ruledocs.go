package jsonschema

import (
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/report"
)

var _ format.RuleDocumenter = Provider{}

// RuleDocs documents the rule ids reading and compiling the root emit
// (root.go): a version file's, then those across the root's files.
func (Provider) RuleDocs() (version, root []report.RuleDoc) {
	return []report.RuleDoc{
			{ID: RuleSchemaJSON, Summary: "a schema file is not valid JSON", Detail: "The file does not parse as JSON (or is not UTF-8, or has duplicate member names); the message names the line and column."},
			{ID: RuleSchemaInvalid, Summary: "a schema is not a valid JSON Schema", Detail: "The document fails its meta-schema (draft 2020-12 unless `$schema` says otherwise); the message gives the JSON pointer of the offending keyword."},
			{ID: RuleSchemaCompile, Summary: "a schema does not compile", Detail: "The schema is valid JSON but the validator cannot compile it: a `$ref` that does not resolve, a pattern that is not a regular expression, ... The message names the pointer."},
		}, []report.RuleDoc{
			{ID: RuleSchemaRef, Summary: "a `$ref` leaves the catalog or cannot be resolved", Detail: "References resolve inside the catalog only: nothing outside the catalog root is read and nothing reaches the network."},
			{ID: RuleDuplicateID, Summary: "two schema files declare the same `$id`", Detail: "Each `$id` names one document; two files with one `$id` make references ambiguous."},
		}
}
