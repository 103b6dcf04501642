// Package envelope reads and checks CloudEvents envelopes: the JSON format
// (structured mode), streams of events for evtool validate (one event, a
// JSON batch array or JSONL), and the Kafka protocol binding over franz-go
// records in binary and structured mode.
//
// sdk-go's event.Validate is the last check, not the only one: it accepts
// upper-case extension names, floats as integers, any specversion it knows,
// times and URIs that RFC 3339 and RFC 3986 reject, and JSON with duplicate
// keys or invalid UTF-8 (through encoding/json). The rules here implement
// CloudEvents 1.0.2 as written; each has a stable rule id (the Rule*
// constants) and reports a JSON pointer to the attribute it concerns.
//
// Decisions the specification leaves open:
//   - A JSON null attribute or extension means absent (JSON format 1.0.2,
//     type system mapping); a null "data" means no data.
//   - Duplicate member names anywhere in an event are errors; the last value
//     is used, as encoding/json would, so other rules still run.
//   - Integers are whole numbers in int32 range whatever their spelling
//     (3, 3.0 and 3e0 are all 3); 3.5 is rejected, not truncated.
//   - A time with a lower-case t or z, or a leap second, is valid RFC 3339.
//   - Data is JSON when datacontenttype is absent, application/json or any
//     */*+json type.
package envelope
