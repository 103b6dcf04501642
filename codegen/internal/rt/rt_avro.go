package rt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/twmb/avro"
)

// evtAvroType holds the schemas of every version of one Avro event type
// and the resolved writer-to-reader schemas, built on first use.
type evtAvroType struct {
	name     string
	schemas  []*avro.Schema
	resolved [][]evtAvroResolved // [reader-1][writer-1]
}

type evtAvroResolved struct {
	once   sync.Once
	schema *avro.Schema
	err    error
}

// newEvtAvroType parses the versions' schema texts, which the generator
// checked: a failure here means the generated file was edited.
func newEvtAvroType(name string, texts ...string) *evtAvroType {
	t := &evtAvroType{name: name, resolved: make([][]evtAvroResolved, len(texts))}
	for i, text := range texts {
		t.schemas = append(t.schemas, avro.MustParse(text))
		t.resolved[i] = make([]evtAvroResolved, len(texts))
	}
	return t
}

func (t *evtAvroType) schema(version int) (*avro.Schema, error) {
	if version < 1 || version > len(t.schemas) {
		return nil, fmt.Errorf("%s: no version %d (this code knows versions 1 to %d; regenerate with evtool gen go?)", t.name, version, len(t.schemas))
	}
	return t.schemas[version-1], nil
}

// reader returns the schema that reads data written with version writer
// into version reader's layout: Avro's schema resolution.
func (t *evtAvroType) reader(writer, reader int) (*avro.Schema, error) {
	if _, err := t.schema(writer); err != nil {
		return nil, err
	}
	if _, err := t.schema(reader); err != nil {
		return nil, err
	}
	if writer == reader {
		return t.schemas[reader-1], nil
	}
	r := &t.resolved[reader-1][writer-1]
	r.once.Do(func() {
		r.schema, r.err = avro.Resolve(t.schemas[writer-1], t.schemas[reader-1])
		if r.err != nil {
			r.err = fmt.Errorf("%s: version %d cannot read data written with version %d: %w", t.name, reader, writer, r.err)
		}
	})
	return r.schema, r.err
}

// decode reads exactly one binary datum written with version writer, in
// version reader's layout, unions tagged with their branch names.
func (t *evtAvroType) decode(data []byte, writer, reader int) (any, error) {
	var d any
	if err := t.decodeInto(data, writer, reader, &d, avro.TaggedUnions()); err != nil {
		return nil, err
	}
	return d, nil
}

// decodeInto reads exactly one binary datum written with version writer
// into dst in version reader's layout: a generic value, or the reader's
// generated struct, which the library fills by reflection when no union
// of the schema needs a sum type.
func (t *evtAvroType) decodeInto(data []byte, writer, reader int, dst any, opts ...avro.Opt) error {
	s, err := t.reader(writer, reader)
	if err != nil {
		return err
	}
	rest, err := s.Decode(data, dst, opts...)
	if err != nil {
		return fmt.Errorf("%s v%d: %w", t.name, writer, err)
	}
	if len(rest) > 0 {
		return fmt.Errorf("%s v%d: %d bytes after the datum", t.name, writer, len(rest))
	}
	return nil
}

// decodeAuto takes a Confluent header (magic byte 0, 4-byte schema id)
// when there is one and the rest decodes, as evtool validate does; the
// writer version comes from the event, not from the id.
func (t *evtAvroType) decodeAuto(data []byte, writer, reader int) (any, error) {
	if len(data) >= 5 && data[0] == 0 {
		if d, err := t.decode(data[5:], writer, reader); err == nil {
			return d, nil
		}
	}
	return t.decode(data, writer, reader)
}

// evtAvroDecodeAutoInto is decodeAuto into a new struct T, which the
// library fills: each attempt gets its own T, since a failed framed
// attempt may have filled part of one.
func evtAvroDecodeAutoInto[T any](t *evtAvroType, data []byte, writer, reader int) (*T, error) {
	if len(data) >= 5 && data[0] == 0 {
		v := new(T)
		if err := t.decodeInto(data[5:], writer, reader, v); err == nil {
			return v, nil
		}
	}
	v := new(T)
	if err := t.decodeInto(data, writer, reader, v); err != nil {
		return nil, err
	}
	return v, nil
}

// framedWriter reads the Confluent header of data and the version its
// schema id stands for.
func (t *evtAvroType) framedWriter(data []byte, versionOf func(id uint32) (int, bool)) (writer int, id uint32, err error) {
	if len(data) < 5 || data[0] != 0 {
		return 0, 0, fmt.Errorf("%s: not in the Confluent wire format (magic byte 0 and a 4-byte schema id)", t.name)
	}
	id = binary.BigEndian.Uint32(data[1:5])
	writer, ok := versionOf(id)
	if !ok {
		return 0, id, fmt.Errorf("%s: schema id %d is not a known version", t.name, id)
	}
	return writer, id, nil
}

// decodeFramed reads a Confluent-framed datum whose schema id versionOf
// maps to a version of the type.
func (t *evtAvroType) decodeFramed(data []byte, versionOf func(id uint32) (int, bool), reader int) (any, uint32, error) {
	writer, id, err := t.framedWriter(data, versionOf)
	if err != nil {
		return nil, id, err
	}
	d, err := t.decode(data[5:], writer, reader)
	return d, id, err
}

// readJSON reads a datum in Avro's JSON encoding with version writer's
// schema, unions tagged.
func (t *evtAvroType) readJSON(data []byte, writer int) (*avro.Schema, any, error) {
	ws, err := t.schema(writer)
	if err != nil {
		return nil, nil, err
	}
	var d any
	if err := ws.DecodeJSON(data, &d, avro.TaggedUnions()); err != nil {
		return nil, nil, fmt.Errorf("%s v%d: %w", t.name, writer, err)
	}
	return ws, d, nil
}

// decodeJSON reads a datum in Avro's JSON encoding written with version
// writer and resolves it to version reader: the JSON is read with the
// writer's schema and re-encoded, so resolution is the binary one.
func (t *evtAvroType) decodeJSON(data []byte, writer, reader int) (any, error) {
	ws, d, err := t.readJSON(data, writer)
	if err != nil || writer == reader {
		return d, err
	}
	bin, err := ws.Encode(d)
	if err != nil {
		return nil, fmt.Errorf("%s v%d: %w", t.name, writer, err)
	}
	return t.decode(bin, writer, reader)
}

// decodeJSONInto is decodeJSON for another writer than the reader, into
// the reader's struct dst, which the library fills from the re-encoded
// datum.
func (t *evtAvroType) decodeJSONInto(data []byte, writer, reader int, dst any) error {
	ws, d, err := t.readJSON(data, writer)
	if err != nil {
		return err
	}
	bin, err := ws.Encode(d)
	if err != nil {
		return fmt.Errorf("%s v%d: %w", t.name, writer, err)
	}
	return t.decodeInto(bin, writer, reader, dst)
}

// The fast paths below serve versions without union sum types: the
// library fills the struct T by reflection, without the generic value and
// the converters in between. When that fails, the generic path decides
// (its value or its error, v nil, d the generic value for the caller's
// converter), so every answer and error is the generic path's; it costs a
// second decode only for data that does not decode.

// evtAvroDecodeFast decodes an event's data, binary (framing as
// decodeAuto) or Avro's JSON encoding, written with version writer into
// version reader's struct T. JSON data of the reader's own version needs
// no resolution and goes straight to the generic value: converting it is
// cheaper than encoding it again.
func evtAvroDecodeFast[T any](t *evtAvroType, data []byte, writer, reader int, isJSON bool) (v *T, d any, err error) {
	switch {
	case !isJSON:
		if v, err = evtAvroDecodeAutoInto[T](t, data, writer, reader); err == nil {
			return v, nil, nil
		}
		d, err = t.decodeAuto(data, writer, reader)
	case writer != reader:
		v = new(T)
		if err = t.decodeJSONInto(data, writer, reader, v); err == nil {
			return v, nil, nil
		}
		fallthrough
	default:
		d, err = t.decodeJSON(data, writer, reader)
	}
	return nil, d, err
}

// evtAvroDecodeFramedFast is decodeFramed into version reader's struct T.
func evtAvroDecodeFramedFast[T any](t *evtAvroType, data []byte, versionOf func(id uint32) (int, bool), reader int) (v *T, d any, err error) {
	writer, _, err := t.framedWriter(data, versionOf)
	if err != nil {
		return nil, nil, err
	}
	v = new(T)
	if err := t.decodeInto(data[5:], writer, reader, v); err == nil {
		return v, nil, nil
	}
	d, err = t.decode(data[5:], writer, reader)
	return nil, d, err
}

// encodeFast writes the struct v points to, of a version without union
// sum types, by the library's reflective encoder; ok is false when that
// refuses v, and the caller's generic path (the converters, then encode)
// gives its answer.
func (t *evtAvroType) encodeFast(version int, v any) (b []byte, ok bool) {
	s, err := t.schema(version)
	if err != nil {
		return nil, false
	}
	b, err = s.Encode(v)
	return b, err == nil
}

func (t *evtAvroType) encode(version int, d any) ([]byte, error) {
	s, err := t.schema(version)
	if err != nil {
		return nil, err
	}
	b, err := s.Encode(d)
	if err != nil {
		return nil, fmt.Errorf("%s v%d: %w", t.name, version, err)
	}
	return b, nil
}

func (t *evtAvroType) encodeJSON(version int, d any) ([]byte, error) {
	s, err := t.schema(version)
	if err != nil {
		return nil, err
	}
	b, err := s.EncodeJSON(d, avro.TaggedUnions())
	if err != nil {
		return nil, fmt.Errorf("%s v%d: %w", t.name, version, err)
	}
	return b, nil
}

// evtAvroFrame prefixes datum with the Confluent header for schema id.
func evtAvroFrame(id uint32, datum []byte) []byte {
	out := make([]byte, 5, 5+len(datum))
	binary.BigEndian.PutUint32(out[1:], id)
	return append(out, datum...)
}

// evtAvroEventData returns the data of an event of type typ with the
// version its dataschema names (the latest when it has none) and whether
// the data is Avro's JSON encoding rather than the binary one.
func evtAvroEventData(e event.Event, typ string, dataschemas []string) (data []byte, version int, isJSON bool, err error) {
	if e.Type() != typ {
		return nil, 0, false, fmt.Errorf("event %q has type %q, not %s", e.ID(), e.Type(), typ)
	}
	ct := e.DataContentType()
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	ct = strings.ToLower(strings.TrimSpace(ct))
	switch {
	case ct == "application/avro":
	case ct == "" || evtIsJSONType(ct):
		isJSON = true
	default:
		return nil, 0, false, fmt.Errorf("event %q (%s): datacontenttype %q is neither application/avro nor JSON", e.ID(), typ, e.DataContentType())
	}
	data = e.Data()
	if len(data) == 0 {
		return nil, 0, false, fmt.Errorf("event %q (%s) has no data", e.ID(), typ)
	}
	ds := e.DataSchema()
	if ds == "" {
		return data, len(dataschemas), isJSON, nil
	}
	for i, s := range dataschemas {
		if s == ds {
			return data, i + 1, isJSON, nil
		}
	}
	return nil, 0, false, evtUnknownDataSchema(e, typ)
}

// evtNewAvroEvent builds and validates an event around an Avro binary
// datum: datacontenttype application/avro, written as data_base64 in the
// structured format.
func evtNewAvroEvent(typ, dataschema, source string, data []byte, opts []EventOption) (event.Event, error) {
	e, err := evtNewEvent(typ, dataschema, source, data, opts)
	if err != nil {
		return event.Event{}, err
	}
	e.SetDataContentType("application/avro")
	e.DataBase64 = true
	return e, nil
}

// The converters between decoded Avro values (records as map[string]any,
// unions tagged {"branch": value}) and generated Go types. Their errors
// start with the JSON pointer below the value they were given ("/items/3"
// prepended on the way up) or with ": " at the value itself, so that no
// path is built unless something fails.

func avroTypeErr(got any, want string) error {
	return fmt.Errorf(": got %T, want %s", got, want)
}

// avroDataErr renders a converter's error for version of typ.
func avroDataErr(typ string, version int, err error) error {
	if msg := err.Error(); strings.HasPrefix(msg, "/") {
		return fmt.Errorf("%s v%d: invalid data at %w", typ, version, err)
	}
	return fmt.Errorf("%s v%d: invalid data%w", typ, version, err)
}

func avroAs[T any](d any) (T, error) {
	v, ok := d.(T)
	if !ok {
		var zero T
		return zero, avroTypeErr(d, fmt.Sprintf("%T", zero))
	}
	return v, nil
}

func avroTo[T any](v T) (any, error) { return v, nil }

func avroNullFrom(d any) (struct{}, error) {
	if d != nil {
		return struct{}{}, avroTypeErr(d, "null")
	}
	return struct{}{}, nil
}

func avroNullTo(struct{}) (any, error) { return nil, nil }

func avroSliceFrom[T any](elem func(any) (T, error)) func(any) ([]T, error) {
	return func(d any) ([]T, error) {
		xs, ok := d.([]any)
		if !ok {
			return nil, avroTypeErr(d, "array")
		}
		out := make([]T, len(xs))
		for i, x := range xs {
			v, err := elem(x)
			if err != nil {
				return nil, fmt.Errorf("/%d%w", i, err)
			}
			out[i] = v
		}
		return out, nil
	}
}

func avroSliceTo[T any](elem func(T) (any, error)) func([]T) (any, error) {
	return func(xs []T) (any, error) {
		out := make([]any, len(xs))
		for i, x := range xs {
			v, err := elem(x)
			if err != nil {
				return nil, fmt.Errorf("/%d%w", i, err)
			}
			out[i] = v
		}
		return out, nil
	}
}

func avroMapFrom[T any](elem func(any) (T, error)) func(any) (map[string]T, error) {
	return func(d any) (map[string]T, error) {
		m, ok := d.(map[string]any)
		if !ok {
			return nil, avroTypeErr(d, "map")
		}
		out := make(map[string]T, len(m))
		for k, x := range m {
			v, err := elem(x)
			if err != nil {
				return nil, avroFieldErr(k, err)
			}
			out[k] = v
		}
		return out, nil
	}
}

func avroMapTo[T any](elem func(T) (any, error)) func(map[string]T) (any, error) {
	return func(m map[string]T) (any, error) {
		out := make(map[string]any, len(m))
		for k, x := range m {
			v, err := elem(x)
			if err != nil {
				return nil, avroFieldErr(k, err)
			}
			out[k] = v
		}
		return out, nil
	}
}

// avroPtrFrom reads a ["null", T] union: nil for null, else the value of
// the branch named branch.
func avroPtrFrom[T any](branch string, elem func(any) (T, error)) func(any) (*T, error) {
	return func(d any) (*T, error) {
		if d == nil {
			return nil, nil
		}
		m, ok := d.(map[string]any)
		x, has := m[branch]
		if !ok || !has || len(m) != 1 {
			return nil, avroTypeErr(d, "null or "+branch)
		}
		v, err := elem(x)
		if err != nil {
			return nil, err
		}
		return &v, nil
	}
}

func avroPtrTo[T any](branch string, elem func(T) (any, error)) func(*T) (any, error) {
	return func(p *T) (any, error) {
		if p == nil {
			return nil, nil
		}
		v, err := elem(*p)
		if err != nil {
			return nil, err
		}
		return map[string]any{branch: v}, nil
	}
}

// avroNilFrom reads a ["null", T] union whose T is a pointer already (a
// decimal): nil stands for null.
func avroNilFrom[T any](branch string, elem func(any) (T, error)) func(any) (T, error) {
	return func(d any) (T, error) {
		var zero T
		if d == nil {
			return zero, nil
		}
		m, ok := d.(map[string]any)
		x, has := m[branch]
		if !ok || !has || len(m) != 1 {
			return zero, avroTypeErr(d, "null or "+branch)
		}
		return elem(x)
	}
}

func avroNilTo[T comparable](branch string, elem func(T) (any, error)) func(T) (any, error) {
	return func(v T) (any, error) {
		var zero T
		if v == zero {
			return nil, nil
		}
		x, err := elem(v)
		if err != nil {
			return nil, err
		}
		return map[string]any{branch: x}, nil
	}
}

// avroOptFrom reads a union with null and several other branches into a
// pointer to its sum type (nil for null).
func avroOptFrom[T any](elem func(any) (T, error)) func(any) (*T, error) {
	return func(d any) (*T, error) {
		if d == nil {
			return nil, nil
		}
		v, err := elem(d)
		if err != nil {
			return nil, err
		}
		return &v, nil
	}
}

func avroOptTo[T any](elem func(T) (any, error)) func(*T) (any, error) {
	return func(p *T) (any, error) {
		if p == nil {
			return nil, nil
		}
		return elem(*p)
	}
}

// avroBranch splits a tagged union value.
func avroBranch(d any, union string) (string, any, error) {
	m, ok := d.(map[string]any)
	if ok && len(m) == 1 {
		for k, v := range m {
			return k, v, nil
		}
	}
	return "", nil, avroTypeErr(d, union)
}

func avroUnionErr(union string, set int) error {
	if set == 0 {
		return fmt.Errorf(": %s: no branch set", union)
	}
	return fmt.Errorf(": %s: %d branches set, want exactly one", union, set)
}

// avroFieldErr prefixes err with a field name or map key as a JSON
// pointer token.
func avroFieldErr(field string, err error) error {
	return fmt.Errorf("/%s%w", strings.NewReplacer("~", "~0", "/", "~1").Replace(field), err)
}

var errAvroNilDecimal = errors.New(": decimal is nil")

// avroDecimalTo refuses a nil decimal, which the schema does not allow.
func avroDecimalTo[T comparable](v T) (any, error) {
	var zero T
	if v == zero {
		return nil, errAvroNilDecimal
	}
	return v, nil
}
