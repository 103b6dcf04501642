package protobuf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/twmb/franz-go/pkg/sr"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
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
	case errors.Is(err, sr.ErrBadHeader):
		// franz-go's word for a negative count.
		return Frame{}, nil, fmt.Errorf("bad message-index array after schema id %d: a negative index count (Confluent's indexes are zigzag varints)", id)
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
	f, payload, err := s.Unframe(b)
	if err != nil {
		return f, nil, err
	}
	m, err := s.DecodeBinary(payload)
	return f, m, err
}

// Unframe splits a Confluent-framed record of the event's message into
// its header and payload. The message indexes are zigzag varints, as
// Confluent's Java serializer writes them. confluent-kafka-python 1.7
// writes them as unsigned varints instead (the same bytes for the first
// message of a file, [0]); such a frame is accepted when it is
// unambiguous: read as zigzag it names no message of the file, and read
// as unsigned it names the event's. When both readings name a message,
// the record is refused with both.
func (s *Schema) Unframe(b []byte) (Frame, []byte, error) {
	f, payload, err := Unframe(b)
	var zigzag protoreflect.MessageDescriptor
	if err == nil {
		zigzag, err = MessageAt(s.Desc, f.Index)
		if err == nil && zigzag.FullName() == s.Message.FullName() {
			return f, payload, nil
		}
		if err == nil {
			err = fmt.Errorf("message index %v names %s, not the event's %s", f.Index, zigzag.FullName(), s.Message.FullName())
		}
	}
	uf, upayload, uerr := unframeUnsigned(b)
	if uerr != nil {
		return f, nil, err
	}
	if md, merr := MessageAt(s.Desc, uf.Index); merr != nil || md.FullName() != s.Message.FullName() {
		return f, nil, err
	}
	if zigzag != nil {
		return f, nil, fmt.Errorf("ambiguous message index: read as zigzag varints (Confluent's encoding) it is %v, naming %s; read as unsigned varints (confluent-kafka-python 1.7's) it is %v, naming the event's %s", f.Index, zigzag.FullName(), uf.Index, s.Message.FullName())
	}
	return uf, upayload, nil
}

// unframeUnsigned reads a frame whose message indexes are unsigned
// varints, as confluent-kafka-python 1.7 writes them.
func unframeUnsigned(b []byte) (Frame, []byte, error) {
	var h sr.ConfluentHeader
	id, rest, err := h.DecodeID(b)
	if err != nil {
		return Frame{}, nil, err
	}
	next := func() (int, error) {
		v, n := protowire.ConsumeVarint(rest)
		if n < 0 || v > maxIndexValue {
			return 0, errors.New("bad message-index varint")
		}
		rest = rest[n:]
		return int(v), nil
	}
	count, err := next()
	if err != nil || count > maxIndexDepth {
		return Frame{}, nil, errors.New("bad message-index array")
	}
	if count == 0 {
		return Frame{ID: id, Index: []int{0}}, rest, nil
	}
	idx := make([]int, count)
	for i := range idx {
		if idx[i], err = next(); err != nil {
			return Frame{}, nil, err
		}
	}
	return Frame{ID: id, Index: idx}, rest, nil
}

// maxIndexValue bounds one message index: no file has more messages.
const maxIndexValue = 1 << 31

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
//
// Binary data is the event's message as its version declares it: a field
// whose wire type is not its declared type's, or a field number the
// message does not declare, is an error. The decoder keeps both as
// unknown fields without complaint (which a reader of another version
// needs), so a string written where an int64 is declared validated.
func (s *Schema) Validate(data []byte, contentType string) error {
	m, err := s.decode(data, contentType)
	if err != nil {
		return err
	}
	return undeclaredFields(m.ProtoReflect(), "", 0)
}

// undeclaredFields reports the first unknown field of m or of a message
// inside it, by its path of field names.
func undeclaredFields(m protoreflect.Message, path string, depth int) error {
	if depth > recursionLimit {
		return nil // the decoder refused deeper nesting already
	}
	md := m.Descriptor()
	for b := m.GetUnknown(); len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%s: unreadable unknown field: %w", where(md, path), protowire.ParseError(n))
		}
		if md.ExtensionRanges().Has(num) {
			b = b[n:]
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return fmt.Errorf("%s: unreadable extension field %d: %w", where(md, path), num, protowire.ParseError(n))
			}
			b = b[n:]
			continue
		}
		if fd := md.Fields().ByNumber(num); fd != nil {
			return fmt.Errorf("%s: field %s = %d is written with wire type %s, which is not that of its declared type %s", where(md, path), fd.Name(), num, wireTypeName(typ), kindName(fd))
		}
		return fmt.Errorf("%s: field number %d is not declared in %s (data of another schema?)", where(md, path), num, md.FullName())
	}
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.IsMap() && fd.MapValue().Message() == nil || !fd.IsMap() && fd.Message() == nil {
			return true // no message inside
		}
		p := joinPath(path, string(fd.Name()))
		switch {
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				err = undeclaredFields(mv.Message(), fmt.Sprintf("%s[%v]", p, k.Interface()), depth+1)
				return err == nil
			})
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len() && err == nil; i++ {
				err = undeclaredFields(l.Get(i).Message(), fmt.Sprintf("%s[%d]", p, i), depth+1)
			}
		default:
			err = undeclaredFields(v.Message(), p, depth+1)
		}
		return err == nil
	})
	return err
}

func where(md protoreflect.MessageDescriptor, path string) string {
	if path == "" {
		return string(md.FullName())
	}
	return path
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func kindName(fd protoreflect.FieldDescriptor) string {
	if fd.IsList() {
		return "repeated " + fd.Kind().String()
	}
	return fd.Kind().String()
}

func wireTypeName(t protowire.Type) string {
	switch t {
	case protowire.VarintType:
		return "varint"
	case protowire.Fixed32Type:
		return "fixed32"
	case protowire.Fixed64Type:
		return "fixed64"
	case protowire.BytesType:
		return "length-delimited"
	case protowire.StartGroupType, protowire.EndGroupType:
		return "group"
	}
	return fmt.Sprintf("%d", t)
}

func isBinaryType(mt string) bool {
	switch mt {
	case "application/protobuf", "application/x-protobuf", "application/vnd.google.protobuf", "application/octet-stream":
		return true
	}
	return false
}
