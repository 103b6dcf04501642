package envelope

import "github.com/evtool/evtool/report"

// RuleDocs documents every rule id this package emits: what a finding of
// the rule means and what to do about it. The rule table (package rules)
// collects it into docs/rules.md and SARIF; a test there fails when code
// emits an id no RuleDocs names.
func RuleDocs() []report.RuleDoc {
	return []report.RuleDoc{
		{ID: RuleInput, Summary: "the input could not be read", Detail: "The events file or stream is unreadable at this point (a line that is not JSON, a read error); the message names the line and column. The rest of the input is still checked."},
		{ID: RuleJSONSyntax, Summary: "an event is not valid JSON", Detail: "The event does not parse as JSON; the message names the line and column."},
		{ID: RuleJSONUTF8, Summary: "an event is not valid UTF-8", Detail: "JSON text is UTF-8; the message names the offending byte and its offset. The event cannot be read."},
		{ID: RuleJSONDuplicateKey, Summary: "an event has a duplicate member name", Detail: "A JSON object has the same member name twice; readers disagree on which one wins, so evtool refuses it."},
		{ID: RuleJSONDepth, Summary: "an event nests too deeply", Detail: "The event nests objects and arrays beyond the limit evtool reads, which protects every reader from stack exhaustion."},
		{ID: RuleNotObject, Summary: "an event is not a JSON object", Detail: "A CloudEvent in the JSON format is an object of attributes."},
		{ID: RuleRequired, Summary: "a required CloudEvents attribute is missing", Detail: "specversion, id, source and type are required by the CloudEvents specification."},
		{ID: RuleSpecVersion, Summary: "specversion is not 1.0", Detail: "evtool reads CloudEvents 1.0 only."},
		{ID: RuleSource, Summary: "source is not a URI-reference", Detail: "The source attribute must be a non-empty URI-reference."},
		{ID: RuleSubject, Summary: "subject is not a non-empty string", Detail: "The subject attribute, when present, is a non-empty string."},
		{ID: RuleTime, Summary: "time is not an RFC 3339 timestamp", Detail: "The time attribute, when present, is an RFC 3339 date-time."},
		{ID: RuleDataSchema, Summary: "dataschema is not a URI", Detail: "The dataschema attribute, when present, is an absolute URI."},
		{ID: RuleDataContentType, Summary: "datacontenttype is not a media type", Detail: "The datacontenttype attribute, when present, is an RFC 2046 media type."},
		{ID: RuleDataExclusive, Summary: "an event has both data and data_base64", Detail: "The JSON format allows one of data and data_base64, never both."},
		{ID: RuleDataBase64, Summary: "the data_base64 member is not Base64", Detail: "The data_base64 member is not a string of standard Base64 (RFC 4648, with padding), so the binary data cannot be read."},
		{ID: RuleDataType, Summary: "the data does not fit its datacontenttype", Detail: "The data member's JSON type does not fit the declared content type (e.g. a JSON object with a non-JSON type); a warning."},
		{ID: RuleAttributeName, Summary: "an attribute name is not lower-case letters and digits", Detail: "CloudEvents attribute names are a-z and 0-9 only."},
		{ID: RuleAttributeNameLength, Summary: "an attribute name is longer than 20 characters", Detail: "The specification recommends names of at most 20 characters; some transports truncate longer ones. A warning."},
		{ID: RuleAttributeType, Summary: "an attribute has the wrong JSON type", Detail: "Context attributes are strings (or the extension types the specification allows); the message names the attribute."},
		{ID: RuleAttributeUTF8, Summary: "an attribute is not valid UTF-8", Detail: "An attribute value holds bytes that are not UTF-8 (a header of a binary-mode record, typically); the message names the byte and its offset."},
		{ID: RuleReservedName, Summary: "an extension uses a reserved name", Detail: "data, data_base64 and the context attribute names cannot be extensions."},
		{ID: RuleExtensionValue, Summary: "an extension value is not a CloudEvents type", Detail: "Extension values are strings, booleans, integers, binary, URIs, URI-references or timestamps."},
		{ID: RuleDuplicateAttribute, Summary: "an attribute appears twice", Detail: "Two members or headers carry the same attribute; readers disagree on which one wins."},
		{ID: RuleControlCharacter, Summary: "an attribute contains a control character", Detail: "Control characters, noncharacters and unpaired surrogates are refused in attributes: they corrupt logs and headers."},
		{ID: RuleSDK, Summary: "the CloudEvents SDK rejects the event", Detail: "sdk-go's own validation refuses the event; the message is the SDK's."},
		{ID: RuleUnknownType, Summary: "the event's type is not in the catalog", Detail: "The type attribute names no type directory of the catalog."},
		{ID: RuleUnknownVersion, Summary: "the dataschema names a version the type does not have", Detail: "The dataschema's version number is not one of the type's versions."},
		{ID: RuleDataSchemaMissing, Summary: "the event has no dataschema", Detail: "Without dataschema evtool cannot tell which version the data follows; it checks against the latest and says so."},
		{ID: RuleDataSchemaTemplate, Summary: "the dataschema does not match the catalog's template", Detail: "The catalog's `dataschema` template in evtool.yaml maps type and version to a URL; this one does not match it."},
		{ID: RuleDataSchemaType, Summary: "the dataschema names another type", Detail: "The dataschema's URL is for a different type than the type attribute."},
		{ID: RuleSourceMismatch, Summary: "source does not match the type's source pattern", Detail: "The type's event.yaml restricts the source attribute with a pattern that this event's source does not match."},
		{ID: RuleDataNotJSON, Summary: "the data is not JSON", Detail: "The content type is JSON but the data does not parse as JSON."},
		{ID: RuleDataEncoding, Summary: "the datacontenttype is no encoding of the type's format", Detail: "An Avro type's data is application/avro (binary, in data_base64) or JSON (Avro's JSON encoding); a Protobuf type's is application/protobuf or JSON (the JSON mapping)."},
		{ID: RuleDataInvalid, Summary: "the data does not validate against its schema", Detail: "Each failure is reported with its JSON pointer into the data."},
		{ID: RuleSchemaIDUnknown, Summary: "framed data names a schema id the catalog does not hold", Detail: "The Avro or Protobuf data is Confluent-framed with a schema id that is not among the catalog's registry ids (evtool.ids.json beside evtool.yaml); a Confluent deserializer cannot read it. Pull the ids from the registry, or produce with an id the catalog knows."},
		{ID: RuleSchemaIDMismatch, Summary: "framed data names another version's schema id", Detail: "The data is Confluent-framed with the registry id of another type or version than the one its dataschema names; a consumer would decode it with the wrong schema."},
		{ID: RuleProduce, Summary: "an event could not be made into a record", Detail: "produce could not put the event on the wire: its data does not encode in the type's format and framing, or it has no value at the type's partitionkey to key the record with. The message says which; produce then sends nothing."},
	}
}

// Rule ids of reading an events file and of putting events on the wire
// (validate, replay and produce emit them).
const (
	// RuleInput: the input stream itself is unreadable at this point.
	RuleInput = "input"
	// RuleProduce: an event that cannot be made into a record.
	RuleProduce = "produce"
)
