package avro

import (
	"encoding/json"
	"fmt"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonstrict"
)

// Schema is a format.Schema; values are datums in Avro's JSON encoding
// (unions tagged), decoded as JSON.
var _ format.Schema = (*Schema)(nil)

// Kind is format.Avro.
func (s *Schema) Kind() format.Kind { return format.Avro }

// ContentTypes are the Avro binary encoding (the default) and Avro's JSON
// encoding.
func (s *Schema) ContentTypes() []string { return []string{ContentTypeBinary, ContentTypeJSON} }

// DefaultContentType is application/avro.
func (s *Schema) DefaultContentType() string { return ContentTypeBinary }

// DecodeValue reads a datum (binary for application/avro, Confluent framing
// optional as in Validate; Avro's JSON encoding for JSON types) and returns
// it in the JSON encoding, decoded.
func (s *Schema) DecodeValue(data []byte, contentType string) (any, error) {
	var datum any
	var err error
	switch {
	case isBinary(contentType):
		datum, _, _, err = s.DecodeBinary(data, FramingAuto)
	case format.IsJSON(contentType):
		datum, err = s.DecodeJSON(data)
	default:
		return nil, contentTypeError(contentType)
	}
	if err != nil {
		return nil, err
	}
	return s.value(datum)
}

// EncodeValue writes a value given in Avro's JSON encoding (untagged unions
// accepted) as binary or as the JSON encoding with tagged unions.
func (s *Schema) EncodeValue(value any, contentType string) ([]byte, error) {
	datum, err := s.datum(value)
	if err != nil {
		return nil, err
	}
	switch {
	case isBinary(contentType):
		return s.Encode(datum)
	case format.IsJSON(contentType):
		return s.EncodeJSON(datum)
	}
	return nil, contentTypeError(contentType)
}

// FrameValue is the Confluent-framed binary encoding of value.
func (s *Schema) FrameValue(id uint32, value any) ([]byte, error) {
	b, err := s.EncodeValue(value, ContentTypeBinary)
	if err != nil {
		return nil, err
	}
	return Frame(id, b), nil
}

// UnframeValue reads a Confluent-framed binary datum.
func (s *Schema) UnframeValue(data []byte) (any, uint32, error) {
	datum, id, _, err := s.DecodeBinary(data, FramingConfluent)
	if err != nil {
		return nil, 0, err
	}
	v, err := s.value(datum)
	return v, id, err
}

// SampleValue is Sample in the JSON encoding.
func (s *Schema) SampleValue(seed uint64) (any, error) {
	datum, err := s.Sample(seed)
	if err != nil {
		return nil, err
	}
	return s.value(datum)
}

// value turns a datum into its JSON encoding's decoded value. Its maps
// are Go maps again, so the library's order of their members will do.
func (s *Schema) value(datum any) (any, error) {
	b, err := s.encodeJSONAnyOrder(datum)
	if err != nil {
		return nil, err
	}
	return jsonstrict.Decode(b)
}

// datum reads a value in the JSON encoding into a datum.
func (s *Schema) datum(value any) (any, error) {
	b, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	return s.DecodeJSON(b)
}

func isBinary(contentType string) bool {
	switch mediaType(contentType) {
	case ContentTypeBinary, "avro/binary", "application/vnd.apache.avro+binary":
		return true
	}
	return false
}

func contentTypeError(contentType string) error {
	return fmt.Errorf("%w: %q is not an Avro encoding (want %s or %s)", format.ErrContentType, contentType, ContentTypeBinary, ContentTypeJSON)
}
