package envelope

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/report"
)

// This file puts the data of Avro and Protobuf events on the wire: the
// binary encoding in a binary-mode record value or in data_base64,
// Confluent-framed under the version's registry id, and reads frames back.

// Rule ids of the Confluent frame checks.
const (
	// RuleSchemaIDUnknown: framed data whose schema id the catalog's
	// registry ids do not hold; a Confluent deserializer cannot read it.
	RuleSchemaIDUnknown = "schema-id-unknown"
	// RuleSchemaIDMismatch: framed data whose schema id is another
	// version than the one its dataschema names.
	RuleSchemaIDMismatch = "schema-id-mismatch"
)

// DataFrame splits the binary data of an event of schema s, of a type
// with the given kafka.framing, into its payload and, when it is
// Confluent-framed, the schema id. Data is never framed under
// FramingNone: an Avro datum may itself start with a zero byte and its
// bytes from the sixth on read as a datum too. Otherwise Protobuf data is
// framed when it starts with the magic byte (no message starts with a zero
// tag), and Avro data when it starts with a header and the rest is one
// datum of s.
func DataFrame(s format.Schema, framing catalog.Framing, data []byte) (payload []byte, id uint32, framed bool) {
	if framing == catalog.FramingNone {
		return data, 0, false
	}
	return formats.Of(s).Unframe(s, data)
}

// ValidateData checks that data is one datum of s in content type ct, for
// a type with the given kafka.framing. Under FramingNone binary data is
// read as it is, never as a frame, so bytes left after the datum are an
// error; otherwise a Confluent frame is accepted (Validate).
func ValidateData(s format.Schema, framing catalog.Framing, data []byte, ct string) error {
	if framing == catalog.FramingNone && !format.IsJSON(ct) {
		// Validate with no data refuses a content type that is no
		// encoding of s as it would with data.
		if err := s.Validate(nil, ct); errors.Is(err, format.ErrContentType) {
			return err
		}
		if ok, err := formats.Of(s).CheckUnframed(s, data); ok {
			return err
		}
	}
	return s.Validate(data, ct)
}

// unframeJSON takes a Confluent frame off JSON data in RawData, as
// Confluent's JSON Schema serializers write it, keeping its schema id.
func (d *Decoded) unframeJSON() {
	if len(d.RawData) == 0 || d.RawData[0] != 0 {
		return
	}
	if id, payload, err := format.Unframe(d.RawData); err == nil {
		d.RawData, d.JSONFramed, d.JSONFrameID = payload, true, id
	}
}

// FrameData writes a payload of schema s (the binary encoding) in the
// Confluent wire format under id: for Protobuf with the message indexes
// of the event's message.
func FrameData(s format.Schema, id uint32, payload []byte) []byte {
	return formats.Of(s).Frame(s, id, payload)
}

// BinaryData returns the data of an event of version ver in the binary
// encoding of its format: data in the JSON form (Avro's JSON encoding, the
// Protobuf JSON mapping) is encoded, binary data (validated beforehand)
// is taken as it is, without its frame; the
// result is framed under id when id is not zero, and unframed otherwise.
func BinaryData(ver *catalog.Version, framing catalog.Framing, data []byte, contentType string) ([]byte, error) {
	return binaryData(ver, framing, data, contentType, 0)
}

func binaryData(ver *catalog.Version, framing catalog.Framing, data []byte, contentType string, id uint32) ([]byte, error) {
	s := ver.Compiled
	if s == nil {
		return nil, fmt.Errorf("%s v%d did not compile", ver.Type, ver.Number)
	}
	var payload []byte
	if contentType == "" || format.IsJSON(contentType) {
		v, err := s.DecodeValue(data, format.ContentTypeJSON)
		if err != nil {
			return nil, fmt.Errorf("%s v%d: %w", ver.Type, ver.Number, err)
		}
		if payload, err = s.EncodeValue(v, s.DefaultContentType()); err != nil {
			return nil, fmt.Errorf("%s v%d: %w", ver.Type, ver.Number, err)
		}
	} else {
		// Binary data was validated with the event (Validator.Check);
		// reading it again for every record would double the cost.
		payload, _, _ = DataFrame(s, framing, data)
	}
	if id != 0 {
		return FrameData(s, id, payload), nil
	}
	return payload, nil
}

// WireEvent returns e with its data in the binary encoding of ver's
// format (binary data read as framing, the type's kafka.framing, says),
// Confluent-framed under id when id is not zero, and the format's
// binary content type: what ToRecord then puts in a binary-mode record
// value, or in data_base64 in structured mode. Events of JSON Schema types
// are returned as they are.
func WireEvent(e *event.Event, ver *catalog.Version, framing catalog.Framing, id uint32) (event.Event, error) {
	if ver == nil || !binaryFormat(ver.Format) {
		return *e, nil
	}
	out := e.Clone()
	b, err := binaryData(ver, framing, e.DataEncoded, e.DataContentType(), id)
	if err != nil {
		return out, err
	}
	out.DataEncoded, out.DataBase64 = b, true
	if err := out.Context.SetDataContentType(ver.Compiled.DefaultContentType()); err != nil {
		return out, err
	}
	return out, nil
}

// WireID is the schema id data of ver is framed under: its registry id
// when the type's framing is confluent and the version has one, else 0.
// JSON Schema data is framed only when kafka.framing says confluent
// explicitly (Catalog.FramesJSON).
func WireID(cat *catalog.Catalog, ids *catalog.SchemaIDs, ver *catalog.Version) uint32 {
	if ver == nil {
		return 0
	}
	t := cat.Lookup(ver.Type)
	if !binaryFormat(ver.Format) {
		if !cat.FramesJSON(t) {
			return 0
		}
	} else if cat.Framing(t) != catalog.FramingConfluent {
		return 0
	}
	id, _ := ids.Of(ver)
	return id
}

// checkFrame checks the schema id of framed data (binary, or JSON read
// from a frame) against the catalog's registry ids (when it has any).
func (v *Validator) checkFrame(d *Decoded, ver *catalog.Version, ct string) []report.Finding {
	if v.IDs.Empty() {
		return nil
	}
	// JSON data lost its frame when it was decoded; binary data validated
	// under ct (any binary type of the format: avro/binary,
	// application/x-protobuf, which other producers write) carries the
	// same frame as evtool's own.
	id, framed := d.JSONFrameID, d.JSONFramed
	if !format.IsJSON(ct) {
		_, id, framed = DataFrame(ver.Compiled, v.Catalog.Framing(v.Catalog.Lookup(ver.Type)), d.RawData)
	}
	if !framed {
		return nil
	}
	ptr := "/data"
	if d.Event.DataBase64 {
		ptr = "/data_base64"
	}
	others := v.IDs.Versions(id)
	switch {
	case !v.IDs.Known(id):
		return []report.Finding{{Rule: RuleSchemaIDUnknown, Severity: report.SeverityError, Pointer: ptr,
			Message: fmt.Sprintf("the data is Confluent-framed with schema id %d, which is not a registry id of the catalog (%s); a Confluent deserializer cannot read it", id, catalog.SchemaIDsFile)}}
	case len(others) > 0 && !slices.ContainsFunc(others, func(o *catalog.Version) bool { return o.Type == ver.Type && o.Number == ver.Number }):
		other := others[0]
		return []report.Finding{{Rule: RuleSchemaIDMismatch, Severity: report.SeverityError, Pointer: ptr,
			Message: fmt.Sprintf("the data is Confluent-framed with schema id %d, which is %s v%d, but the event says %s v%d", id, other.Type, other.Number, ver.Type, ver.Number)}}
	}
	return nil
}

// RecordPosition names where a record is: "topic orders partition 0
// offset 12".
func RecordPosition(r *kgo.Record) string {
	return fmt.Sprintf("topic %s partition %d offset %d", r.Topic, r.Partition, r.Offset)
}

// ToWireRecord is ToRecord for an event of a catalog: the data of an Avro
// or Protobuf type is put in its binary encoding first (WireEvent), framed
// as the type's kafka.framing and the version's registry id say.
func ToWireRecord(ctx context.Context, e *event.Event, ver *catalog.Version, framing catalog.Framing, id uint32, mode Mode, opts ...RecordOption) (*kgo.Record, error) {
	w, err := WireEvent(e, ver, framing, id)
	if err != nil {
		return nil, err
	}
	rec, err := ToRecord(ctx, &w, mode, opts...)
	if err != nil {
		return nil, err
	}
	// JSON data is framed as Confluent's JSON Schema serializers frame
	// it: the whole record value, so binary mode only; in structured mode
	// the data is a JSON value inside the event and stays unframed.
	if id != 0 && ver != nil && mode == ModeBinary && rec.Value != nil && !binaryFormat(ver.Format) {
		rec.Value = format.Frame(id, rec.Value)
	}
	return rec, nil
}

// binaryFormat reports whether data of kind k has a binary encoding (its
// provider is a format.BinaryDataer): JSON Schema's has not, and neither
// has a version of no known kind.
func binaryFormat(k format.Kind) bool {
	p, ok := formats.ForKind(k)
	return ok && format.HasBinaryData(p)
}
