package report

// RuleDoc documents one rule id: a one-line summary and what it means and
// what to do about it. docs/rules.md has a section per rule id, and SARIF
// output gives every rule its summary, description and a link to it.
type RuleDoc struct {
	ID      string
	Summary string
	Detail  string
}

// RulesDocURL is where the rules are documented; a rule id is its anchor.
const RulesDocURL = "https://github.com/evtool/evtool/blob/main/docs/rules.md"

// CheckRules documents the rules of the catalog loader (lint), of event
// validation (validate, replay) and of registry sync (push, pull, diff).
// The compatibility rules are documented by the compat package.
func CheckRules() []RuleDoc {
	return []RuleDoc{
		{"catalog-config", "evtool.yaml is unreadable or invalid", "The catalog's configuration file does not parse or has a key or value evtool does not know. The message names the line and key; fix it, lint reads nothing else until it is right."},
		{"type-name", "a type directory's name is not a valid CloudEvents type", "Each directory under the schemas directory is an event type, named as the type attribute is spelled (reverse DNS, e.g. com.example.order.placed). Hidden directories and symlinks are reported, never read silently."},
		{"type-no-versions", "an event type has no schema versions", "A type directory needs v1.json, v2.json, ... (or v1.avsc, v1.proto, ...): the type is not usable without one."},
		{"version-name", "a file in a type directory is not named vN.json, vN.avsc or vN.proto", "Schema versions are v1.json, v2.json, ... (v1.avsc for Avro, v1.proto for Protobuf); other files (except event.yaml and the examples directory) are reported so that a typo does not hide a version."},
		{"version-format-mixed", "versions of one type are in different formats", "All versions of a type are JSON Schema (.json), Avro (.avsc) or Protobuf (.proto): one format, because consumers read every version with one decoder. The message names both files."},
		{"version-gap", "the version numbers of a type have a gap", "Versions are numbered from 1 without gaps, so that `latest` and compatibility walks are well defined."},
		{"event-meta", "event.yaml is unreadable or invalid", "The type's metadata file does not parse or has a key or value evtool does not know (topic, partitionkey, source, owner, description, deprecated, ...). The message names the line and key."},
		{"deprecated-version", "a deprecated version is used", "The type's event.yaml marks this version deprecated: producers should move to a newer version."},
		{"schema-json", "a schema file is not valid JSON", "The file does not parse as JSON (or is not UTF-8, or has duplicate member names); the message names the line and column."},
		{"schema-invalid", "a schema is not a valid JSON Schema", "The document fails its meta-schema (draft 2020-12 unless `$schema` says otherwise); the message gives the JSON pointer of the offending keyword."},
		{"schema-compile", "a schema does not compile", "The schema is valid JSON but the validator cannot compile it: a `$ref` that does not resolve, a pattern that is not a regular expression, ... The message names the pointer."},
		{"schema-avro", "an Avro schema does not load", "The .avsc file does not parse or fails lint: a default that is not a value of its field's type (for a union, of the first branch it matches, Avro 1.12), a duplicate or invalid name, a logical type on the wrong base type, a named type no shared file defines. The message names the line and JSON pointer."},
		{"schema-proto", "a Protobuf schema does not compile", "The .proto file does not parse or link (protocompile): a syntax error, an unknown type, an import that is not in the catalog, or an event.yaml `message` the file does not define. The message names the line and column."},
		{"schema-ref", "a `$ref` leaves the catalog or cannot be resolved", "References resolve inside the catalog only: nothing outside the catalog root is read and nothing reaches the network."},
		{"schema-duplicate-id", "two schema files declare the same `$id`", "Each `$id` names one document; two files with one `$id` make references ambiguous."},
		{"example-json", "an example file is not valid JSON", "Files under a type's examples directory are JSON documents named after the version they illustrate (v1.json, v1-*.json); the message names the line and column."},
		{"example-invalid", "an example does not validate against its version's schema", "An example is documentation that must stay true: it is validated against the version it names and every failure is reported with its JSON pointer."},
		{"example-orphan", "an example names a version that does not exist", "An example file's name starts with the version it illustrates; no such version exists in the type."},
		{"input", "the input could not be read", "The events file or stream is unreadable at this point (a line that is not JSON, a read error); the message names the line and column. The rest of the input is still checked."},
		{"json-syntax", "an event is not valid JSON", "The event does not parse as JSON; the message names the line and column."},
		{"json-duplicate-key", "an event has a duplicate member name", "A JSON object has the same member name twice; readers disagree on which one wins, so evtool refuses it."},
		{"json-max-depth", "an event nests too deeply", "The event nests objects and arrays beyond the limit evtool reads, which protects every reader from stack exhaustion."},
		{"ce-not-object", "an event is not a JSON object", "A CloudEvent in the JSON format is an object of attributes."},
		{"ce-required-attribute", "a required CloudEvents attribute is missing", "specversion, id, source and type are required by the CloudEvents specification."},
		{"ce-specversion", "specversion is not 1.0", "evtool reads CloudEvents 1.0 only."},
		{"ce-source", "source is not a URI-reference", "The source attribute must be a non-empty URI-reference."},
		{"ce-subject", "subject is not a non-empty string", "The subject attribute, when present, is a non-empty string."},
		{"ce-time", "time is not an RFC 3339 timestamp", "The time attribute, when present, is an RFC 3339 date-time."},
		{"ce-dataschema", "dataschema is not a URI", "The dataschema attribute, when present, is an absolute URI."},
		{"ce-datacontenttype", "datacontenttype is not a media type", "The datacontenttype attribute, when present, is an RFC 2046 media type."},
		{"ce-data-exclusive", "an event has both data and data_base64", "The JSON format allows one of data and data_base64, never both."},
		{"ce-data-type", "the data does not fit its datacontenttype", "The data member's JSON type does not fit the declared content type (e.g. a JSON object with a non-JSON type); a warning."},
		{"ce-attribute-name", "an attribute name is not lower-case letters and digits", "CloudEvents attribute names are a-z and 0-9 only."},
		{"ce-attribute-name-length", "an attribute name is longer than 20 characters", "The specification recommends names of at most 20 characters; some transports truncate longer ones. A warning."},
		{"ce-attribute-type", "an attribute has the wrong JSON type", "Context attributes are strings (or the extension types the specification allows); the message names the attribute."},
		{"ce-extension-name-reserved", "an extension uses a reserved name", "data, data_base64 and the context attribute names cannot be extensions."},
		{"ce-extension-value", "an extension value is not a CloudEvents type", "Extension values are strings, booleans, integers, binary, URIs, URI-references or timestamps."},
		{"ce-duplicate-attribute", "an attribute appears twice", "Two members or headers carry the same attribute; readers disagree on which one wins."},
		{"ce-control-character", "an attribute contains a control character", "Control characters, noncharacters and unpaired surrogates are refused in attributes: they corrupt logs and headers."},
		{"ce-sdk-validate", "the CloudEvents SDK rejects the event", "sdk-go's own validation refuses the event; the message is the SDK's."},
		{"unknown-type", "the event's type is not in the catalog", "The type attribute names no type directory of the catalog."},
		{"unknown-version", "the dataschema names a version the type does not have", "The dataschema's version number is not one of the type's versions."},
		{"dataschema-missing", "the event has no dataschema", "Without dataschema evtool cannot tell which version the data follows; it checks against the latest and says so."},
		{"dataschema-unknown", "the dataschema does not match the catalog's template", "The catalog's `dataschema` template in evtool.yaml maps type and version to a URL; this one does not match it."},
		{"dataschema-type-mismatch", "the dataschema names another type", "The dataschema's URL is for a different type than the type attribute."},
		{"source-mismatch", "source does not match the type's source pattern", "The type's event.yaml restricts the source attribute with a pattern that this event's source does not match."},
		{"data-not-json", "the data is not JSON", "The content type is JSON but the data does not parse as JSON."},
		{"data-encoding", "the datacontenttype is no encoding of the type's format", "An Avro type's data is application/avro (binary, in data_base64) or JSON (Avro's JSON encoding); a Protobuf type's is application/protobuf or JSON (the JSON mapping)."},
		{"data-invalid", "the data does not validate against its schema", "Each failure is reported with its JSON pointer into the data."},
		{"consumer-reads-undeclared", "a consumer reads a field its contract does not list", "A contract run (consumer.contract in a replay scenario) mutated every field of the events' data that the consumer's contract (consumers/<name>.yaml) does not list, and the consumer's final state differed from the baseline's: its code reads a field its contract omits. The finding names the fields (narrowed by delta debugging within --shrink-budget), shows the state diff, and prints the command that replays the run mutating only them (--contract-field). Add the fields to the contract, or stop reading them; evtool consumers infer prints the fields the code reads."},
		{"registry-bundle", "a schema could not be bundled for the registry", "A version and the files it references could not be turned into one document for the Schema Registry."},
		{"registry-compat-level", "the registry's compatibility level differs from the catalog's", "The catalog's compat.mode is the source of truth; push sets the level, diff reports the difference."},
		{"registry-duplicate-version", "the registry holds one schema under two versions", "The subject has the same schema twice, so version numbers no longer line up with the catalog's."},
		{"registry-level-set", "the registry's compatibility level was set", "push set the subject's compatibility level to the catalog's compat.mode."},
		{"registry-register-failed", "the registry refused a schema", "The registry answered an error for a registration; the message gives its code and text."},
		{"registry-registered", "a schema was registered", "push registered a version that the registry did not have."},
		{"registry-schema-type", "a registry schema is not JSON Schema", "The subject holds an Avro or Protobuf schema; evtool manages JSON Schema subjects only."},
		{"registry-subject-extra", "the registry has a subject the catalog does not", "The subject maps to no type of the catalog under the subject strategy."},
		{"registry-subject-missing", "the catalog has a type the registry does not", "No subject exists for this type under the subject strategy: push registers it."},
		{"registry-subject-strategy", "a subject does not fit the subject strategy", "The subject name cannot be mapped to a type with the configured strategy (topic, type or topic-type)."},
		{"registry-schema-unreadable", "a registry schema could not be read", "The registry's schema text is not valid JSON or not a JSON Schema."},
		{"registry-verify", "a registered schema differs from what was sent", "After registering, the registry's copy was read back and differs from the catalog's."},
		{"registry-version-differs", "a registry version differs from the catalog's", "The same version number holds different schemas; published versions must not change."},
		{"registry-version-extra", "the registry has a version the catalog does not", "The subject has more versions than the type; someone registered outside the catalog."},
		{"registry-version-missing", "the catalog has a version the registry does not", "push registers it."},
		{"registry-version-numbers", "registry version numbers do not follow the catalog's", "The registry numbers versions itself; they no longer match vN of the catalog."},
	}
}

// ruleDoc returns the documentation of id from docs, or a generic one that
// points at the rules document.
func ruleDoc(id string, docs []RuleDoc) RuleDoc {
	for _, d := range docs {
		if d.ID == id {
			return d
		}
	}
	for _, d := range CheckRules() {
		if d.ID == id {
			return d
		}
	}
	return RuleDoc{ID: id, Summary: "evtool rule " + id, Detail: "See the rule " + id + " in evtool's rules document."}
}
