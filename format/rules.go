package format

// Rule ids of a catalog's JSON Schema files: format/jsonschema emits them
// when it reads and compiles the root, and documents them (its
// RuleDocs). They are here because the catalog falls back on
// RuleSchemaCompile for a format without a FileCompiler; they are older
// than the seam, hence not named after the format as schema-avro and
// schema-proto are.
const (
	// RuleSchemaJSON: a JSON file of the root is not JSON.
	RuleSchemaJSON = "schema-json"
	// RuleSchemaInvalid: a version is not a valid schema of its draft.
	RuleSchemaInvalid = "schema-invalid"
	// RuleSchemaRef: a $ref does not resolve inside the root.
	RuleSchemaRef = "schema-ref"
	// RuleSchemaCompile: a version does not compile for another reason.
	RuleSchemaCompile = "schema-compile"
	// RuleDuplicateID: two files of the root declare one $id.
	RuleDuplicateID = "schema-duplicate-id"
)
