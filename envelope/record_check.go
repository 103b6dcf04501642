package envelope

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cloudevents/sdk-go/v2/binding"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/report"
)

// CheckRecord decodes the CloudEvent in a record (binary or structured, see
// FromRecord) and runs the same catalog checks as Validate does for an
// event read from a file, the Confluent frame of Avro and Protobuf data
// included (an unknown schema id is a finding). Every finding's Record
// names the record's topic, partition and offset. The error is for a
// record that is no CloudEvent at all; Decoded is nil when the record could
// not be decoded.
func (v *Validator) CheckRecord(r *kgo.Record) (*Decoded, *catalog.Version, []report.Finding, error) {
	var (
		d  *Decoded
		fs []report.Finding
	)
	// The headers are read once, whichever the mode.
	m, err := NewMessage(r)
	switch {
	case err != nil:
	case m.encoding == binding.EncodingStructured:
		// FromRecord's path, minus the copy of the value and with the
		// validator's cache of URIs: what Validate does for a file's event.
		d, fs = decodeJSON(r.Value, &v.lookups().uris)
	default:
		d, fs, err = m.decode()
	}
	var ver *catalog.Version
	if err == nil && d != nil {
		var more []report.Finding
		ver, more = v.check(d, scopeOf(fs))
		fs = append(fs, more...)
	}
	at := &report.RecordLocation{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset}
	for i := range fs {
		fs[i].Record = at
	}
	return d, ver, fs, err
}

// SetFormatData sets Data to the JSON form of the data of an event of
// ver, an Avro or Protobuf version (Avro's JSON encoding, the Protobuf
// JSON mapping), so that JSON pointers (a partitionkey, a sequence) reach
// into it as into JSON data. Binary data is read once, as framing (the
// type's kafka.framing) says. It does nothing for a JSON Schema version or
// an event without data, and leaves Data as it was when the data does not
// decode.
func (d *Decoded) SetFormatData(ver *catalog.Version, framing catalog.Framing) error {
	if !d.HasData || ver == nil || ver.Compiled == nil || !binaryFormat(ver.Format) {
		return nil
	}
	ct := d.Event.DataContentType()
	if ct == "" {
		ct = format.ContentTypeJSON
	}
	v, err := formatDataValue(ver.Compiled, framing, d.RawData, ct)
	if err != nil {
		return fmt.Errorf("%s v%d: %v", ver.Type, ver.Number, err)
	}
	d.Data = v
	return nil
}

// formatDataValue is the JSON form of data of schema s in content type ct.
// Avro binary data loses its frame here, once: DecodeValue would guess
// again, and take a datum that starts like a frame (or any datum under
// FramingNone) for framed.
func formatDataValue(s format.Schema, framing catalog.Framing, data []byte, ct string) (any, error) {
	v, err := dataValue(s, framing, data, ct)
	if err != nil {
		return nil, err
	}
	return formats.Of(s).PointerForm(s, v), nil
}

// DataJSON is the data of an event of ver in its JSON form (JSON data as
// it is; Avro data in Avro's JSON encoding, Protobuf data in its JSON
// mapping, read from the binary encoding, framed as framing says): what
// consume prints, and what produce reads back.
func (d *Decoded) DataJSON(ver *catalog.Version, framing catalog.Framing) ([]byte, error) {
	ct := d.Event.DataContentType()
	if ct == "" || format.IsJSON(ct) || ver == nil || ver.Compiled == nil {
		return d.RawData, nil
	}
	v, err := dataValue(ver.Compiled, framing, d.RawData, ct)
	if err != nil {
		return nil, fmt.Errorf("%s v%d: %v", ver.Type, ver.Number, err)
	}
	b, err := ver.Compiled.EncodeValue(v, format.ContentTypeJSON)
	if err != nil {
		return nil, fmt.Errorf("%s v%d: %v", ver.Type, ver.Number, err)
	}
	return b, nil
}

// dataValue is the value of data of schema s in content type ct, read as
// the format reads it.
func dataValue(s format.Schema, framing catalog.Framing, data []byte, ct string) (any, error) {
	return formats.Of(s).DecodeData(s, data, ct, framing == catalog.FramingNone)
}

// DataValue returns the value a JSON pointer names in the event's data
// (nil, false when the data is not JSON or has no such member).
func (d *Decoded) DataValue(pointer string) (any, bool) {
	if d == nil || d.Data == nil {
		return nil, false
	}
	v, err := resolvePointer(d.Data, pointer)
	return v, err == nil
}

// PartitionKeyValue is the value an event.yaml partitionkey (a JSON
// pointer into data, or "subject") names in the event, as the record key
// must spell it. ok is false when the event has no such value.
func (d *Decoded) PartitionKeyValue(partitionKey string) (string, bool) {
	if partitionKey == "subject" {
		s := d.Event.Subject()
		return s, s != ""
	}
	if !strings.HasPrefix(partitionKey, "/") {
		return "", false
	}
	v, ok := d.DataValue(partitionKey)
	if !ok {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		return fmt.Sprint(v), true
	}
	return "", false
}
