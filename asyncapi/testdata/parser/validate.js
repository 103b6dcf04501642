// Validates AsyncAPI documents with @asyncapi/parser and the Avro and
// Protobuf schema parsers that `asyncapi validate` (@asyncapi/cli)
// registers. Prints one JSON object per document:
// {"file": ..., "errors": [{"path": ..., "message": ...}]}; exits 0.
//
//   node validate.js FILE...
//
// The packages come from NODE_PATH (npm install @asyncapi/parser
// @asyncapi/avro-schema-parser @asyncapi/protobuf-schema-parser); nothing
// is fetched.
const fs = require("fs");
const { Parser } = require("@asyncapi/parser");
const { AvroSchemaParser } = require("@asyncapi/avro-schema-parser");
const { ProtoBuffSchemaParser } = require("@asyncapi/protobuf-schema-parser");

async function main() {
  const parser = new Parser();
  parser.registerSchemaParser(AvroSchemaParser());
  parser.registerSchemaParser(ProtoBuffSchemaParser());
  for (const file of process.argv.slice(2)) {
    const { document, diagnostics } = await parser.parse(fs.readFileSync(file, "utf8"), { source: file });
    const errors = diagnostics
      .filter((d) => d.severity === 0) // DiagnosticSeverity.Error
      .map((d) => ({ path: (d.path || []).join("/"), message: d.message }));
    if (!document && errors.length === 0) {
      errors.push({ path: "", message: "no document and no diagnostics" });
    }
    console.log(JSON.stringify({ file, errors }));
  }
}

main().catch((e) => {
  console.log(JSON.stringify({ file: "", errors: [{ path: "", message: String(e && e.stack || e) }] }));
});
