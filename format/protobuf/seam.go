package protobuf

import (
	"encoding/json"
	"fmt"
	"mime"

	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonstrict"
)

// Schema is a format.Schema; values are messages in the canonical JSON
// mapping, decoded as JSON.
var _ format.Schema = (*Schema)(nil)

// ContentTypeBinary is the content type of the Protobuf binary encoding.
const ContentTypeBinary = format.ContentTypeProtobuf

// Kind is format.Protobuf.
func (s *Schema) Kind() format.Kind { return format.Protobuf }

// ContentTypes are the binary encoding (the default) and the JSON mapping.
func (s *Schema) ContentTypes() []string {
	return []string{ContentTypeBinary, format.ContentTypeJSON}
}

// DefaultContentType is application/protobuf.
func (s *Schema) DefaultContentType() string { return ContentTypeBinary }

// DecodeValue reads a message (binary, plain or Confluent-framed as in
// Validate, or the JSON mapping) and returns its JSON mapping, decoded.
func (s *Schema) DecodeValue(data []byte, contentType string) (any, error) {
	m, err := s.decode(data, contentType)
	if err != nil {
		return nil, err
	}
	return value(m)
}

func (s *Schema) decode(data []byte, contentType string) (*dynamicpb.Message, error) {
	mt, _, err := mime.ParseMediaType(contentType)
	switch {
	case err == nil && isBinaryType(mt):
		if len(data) > 0 && data[0] == 0 {
			_, m, err := s.DecodeFramed(data)
			return m, err
		}
		return s.DecodeBinary(data)
	case format.IsJSON(contentType):
		return s.DecodeJSON(data)
	}
	return nil, fmt.Errorf("%w: %q", ErrContentType, contentType)
}

// EncodeValue writes a value given in the JSON mapping as binary or as the
// JSON mapping.
func (s *Schema) EncodeValue(v any, contentType string) ([]byte, error) {
	m, err := s.message(v)
	if err != nil {
		return nil, err
	}
	mt, _, err := mime.ParseMediaType(contentType)
	switch {
	case err == nil && isBinaryType(mt):
		return EncodeBinary(m)
	case format.IsJSON(contentType):
		return EncodeJSON(m)
	}
	return nil, fmt.Errorf("%w: %q", ErrContentType, contentType)
}

// FrameValue is the Confluent-framed binary encoding of v, with the
// message indexes of the event's message.
func (s *Schema) FrameValue(id uint32, v any) ([]byte, error) {
	m, err := s.message(v)
	if err != nil {
		return nil, err
	}
	return s.EncodeFramed(int(id), m)
}

// UnframeValue reads a Confluent-framed record of the event's message.
func (s *Schema) UnframeValue(data []byte) (any, uint32, error) {
	f, m, err := s.DecodeFramed(data)
	if err != nil {
		return nil, 0, err
	}
	v, err := value(m)
	return v, uint32(f.ID), err
}

// SampleValue returns a sampled message in the JSON mapping: seed picks
// both the random stream and the sample's index. Index 0 (every field
// unset) is left out: it is no message of a proto2 type with required
// fields. A sample the JSON mapping cannot carry (a proto2 string that is
// not UTF-8) is passed over for the next index.
func (s *Schema) SampleValue(seed uint64) (any, error) {
	var err error
	for i := range sampleCycle {
		var v any
		if v, err = value(Sampler{Seed: seed}.Sample(s.Message, 1+int((seed+uint64(i))%sampleCycle))); err == nil {
			return v, nil
		}
	}
	return nil, err
}

// sampleCycle is how many sample indexes SampleValue walks through.
const sampleCycle = 16

func value(m *dynamicpb.Message) (any, error) {
	b, err := EncodeJSON(m)
	if err != nil {
		return nil, err
	}
	return jsonstrict.Decode(b)
}

func (s *Schema) message(v any) (*dynamicpb.Message, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return s.DecodeJSON(b)
}
