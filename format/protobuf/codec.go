package protobuf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/twmb/franz-go/pkg/sr"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/evtool/evtool/format"
)

// Frame is the Confluent wire-format header of a Protobuf record: magic
// byte 0, the 4-byte big-endian schema id, then the message-index path of
// the record's message in its file ([0] for the first top-level message).
type Frame struct {
	ID    int
	Index []int
}

// maxIndexDepth bounds the message-index array of a frame: deeper than any
// file nests messages, and it keeps a hostile varint from allocating.
const maxIndexDepth = 64

// Unframe splits a Confluent-framed record into its header and payload.
func Unframe(b []byte) (Frame, []byte, error) {
	var h sr.ConfluentHeader
	id, rest, err := h.DecodeID(b)
	if err != nil {
		return Frame{}, nil, fmt.Errorf("not a Confluent-framed record (magic byte 0 and a 4-byte schema id): %w", err)
	}
	idx, rest, err := h.DecodeIndex(rest, maxIndexDepth)
	switch {
	case errors.Is(err, sr.ErrNotRegistered):
		// franz-go's word for a count over the bound.
		return Frame{}, nil, fmt.Errorf("bad message-index array after schema id %d: more than %d indexes", id, maxIndexDepth)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return Frame{}, nil, fmt.Errorf("bad message-index array after schema id %d: the record ends inside it", id)
	case err != nil:
		return Frame{}, nil, fmt.Errorf("bad message-index array after schema id %d: %w", id, err)
	}
	return Frame{ID: id, Index: idx}, rest, nil
}

// AppendFrame appends the framed payload to b.
func AppendFrame(b []byte, f Frame, payload []byte) []byte {
	var h sr.ConfluentHeader
	idx := f.Index
	if len(idx) == 0 {
		idx = []int{0}
	}
	b, _ = h.AppendEncode(b, f.ID, idx) // never fails
	return append(b, payload...)
}

// MessageIndex is the path of md among the messages of its file, as the
// Confluent frame writes it.
func MessageIndex(md protoreflect.MessageDescriptor) []int {
	var rev []int
	for d := protoreflect.Descriptor(md); ; d = d.Parent() {
		m, ok := d.(protoreflect.MessageDescriptor)
		if !ok {
			break
		}
		rev = append(rev, m.Index())
	}
	out := make([]int, len(rev))
	for i, v := range rev {
		out[len(rev)-1-i] = v
	}
	return out
}

// MessageAt resolves a message-index path in fd.
func MessageAt(fd protoreflect.FileDescriptor, index []int) (protoreflect.MessageDescriptor, error) {
	if len(index) == 0 {
		index = []int{0}
	}
	ms := fd.Messages()
	var md protoreflect.MessageDescriptor
	for i, ix := range index {
		if ix < 0 || ix >= ms.Len() {
			return nil, fmt.Errorf("message index %v: no message %d at depth %d of %s", index, ix, i, fd.Path())
		}
		md = ms.Get(ix)
		ms = md.Messages()
	}
	return md, nil
}

// New returns an empty message of the event's type.
func (s *Schema) New() *dynamicpb.Message { return dynamicpb.NewMessage(s.Message) }

// DecodeBinary parses the Protobuf binary encoding of the event's message.
// Required fields (proto2) must be present.
func (s *Schema) DecodeBinary(b []byte) (*dynamicpb.Message, error) {
	return decodeBinary(s.Message, b)
}

func decodeBinary(md protoreflect.MessageDescriptor, b []byte) (*dynamicpb.Message, error) {
	m := dynamicpb.NewMessage(md)
	if err := (proto.UnmarshalOptions{RecursionLimit: recursionLimit}).Unmarshal(b, m); err != nil {
		return nil, err
	}
	return m, nil
}

// recursionLimit bounds nesting while decoding untrusted bytes.
const recursionLimit = 100

// DecodeFramed parses a Confluent-framed record. The message index must
// name the event's message: a record of another message of the same file
// is an error.
func (s *Schema) DecodeFramed(b []byte) (Frame, *dynamicpb.Message, error) {
	f, payload, err := Unframe(b)
	if err != nil {
		return f, nil, err
	}
	md, err := MessageAt(s.Desc, f.Index)
	if err != nil {
		return f, nil, err
	}
	if md.FullName() != s.Message.FullName() {
		return f, nil, fmt.Errorf("message index %v names %s, not the event's %s", f.Index, md.FullName(), s.Message.FullName())
	}
	m, err := s.DecodeBinary(payload)
	return f, m, err
}

// DecodeJSON parses the canonical JSON mapping of the event's message.
// Unknown field names are errors, as the mapping's parsers do by default.
func (s *Schema) DecodeJSON(b []byte) (*dynamicpb.Message, error) {
	m := s.New()
	if err := (protojson.UnmarshalOptions{RecursionLimit: recursionLimit}).Unmarshal(b, m); err != nil {
		return nil, err
	}
	return m, nil
}

// EncodeBinary is the deterministic binary encoding of m.
func EncodeBinary(m proto.Message) ([]byte, error) {
	return proto.MarshalOptions{Deterministic: true}.Marshal(m)
}

// EncodeJSON is the canonical JSON mapping of m, on one line and without
// spaces: protojson varies its whitespace on purpose from build to build,
// and digests, golden files and error columns need stable bytes.
func EncodeJSON(m proto.Message) ([]byte, error) {
	b, err := protojson.MarshalOptions{}.Marshal(m)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// EncodeFramed is the Confluent-framed binary encoding of m under schema id.
func (s *Schema) EncodeFramed(id int, m proto.Message) ([]byte, error) {
	b, err := EncodeBinary(m)
	if err != nil {
		return nil, err
	}
	return AppendFrame(nil, Frame{ID: id, Index: MessageIndex(s.Message)}, b), nil
}

// ErrContentType is returned by Validate for a content type that is
// neither Protobuf binary nor JSON.
// It is format.ErrContentType.
var ErrContentType = format.ErrContentType

// Validate checks data as the event's message. Binary content types
// (application/protobuf, application/x-protobuf,
// application/vnd.google.protobuf) accept plain or Confluent-framed
// records: a leading 0 byte can never start a Protobuf message (field
// number 0 is invalid), so it always means a frame. application/json (and
// +json types, or no content type) is the JSON mapping.
func (s *Schema) Validate(data []byte, contentType string) error {
	_, err := s.decode(data, contentType)
	return err
}

func isBinaryType(mt string) bool {
	switch mt {
	case "application/protobuf", "application/x-protobuf", "application/vnd.google.protobuf", "application/octet-stream":
		return true
	}
	return false
}
