package envelope

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/cloudevents/sdk-go/v2/binding"
	"github.com/cloudevents/sdk-go/v2/binding/format"
	"github.com/cloudevents/sdk-go/v2/binding/spec"
	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/cloudevents/sdk-go/v2/types"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/report"
)

// This file is the CloudEvents Kafka Protocol Binding v1.0.2 over franz-go
// records, built on sdk-go's binding interfaces (sdk-go has no franz-go
// binding of its own).

// Mode is the content mode of a CloudEvent in a Kafka record.
type Mode int

const (
	// ModeBinary puts attributes in ce_ headers, datacontenttype in the
	// content-type header and the data alone in the record value.
	ModeBinary Mode = iota
	// ModeStructured puts the whole event, in the JSON format, in the
	// record value, with content-type application/cloudevents+json.
	ModeStructured
)

// ParseMode parses "binary" or "structured".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "binary":
		return ModeBinary, nil
	case "structured":
		return ModeStructured, nil
	}
	return 0, fmt.Errorf("unknown content mode %q: use binary or structured", s)
}

func (m Mode) String() string {
	switch m {
	case ModeBinary:
		return "binary"
	case ModeStructured:
		return "structured"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

const (
	headerPrefix      = "ce_"
	headerContentType = "content-type"
)

// ErrNotCloudEvent is returned (wrapped) for a record that carries no
// CloudEvent: no content-type header and no ce_ headers.
var ErrNotCloudEvent = errors.New("record is not a CloudEvent")

// Message is a binding.Message over a franz-go record, in binary or
// structured mode. Header names are matched case-insensitively. It reports
// only what the record says: it never adds Kafka metadata (offset,
// partition, key) as extensions.
type Message struct {
	record   *kgo.Record
	encoding binding.Encoding
	// contentType is the content-type header, when hasContentType.
	contentType    string
	hasContentType bool
	ctHeader       string
	// attrs are the ce_ headers in record order: attribute name
	// (lower-case, prefix removed) and value.
	attrs []headerAttr
}

type headerAttr struct {
	name   string // attribute name
	header string // header key as in the record
	value  string
}

var (
	_ binding.Message               = (*Message)(nil)
	_ binding.MessageMetadataReader = (*Message)(nil)
)

// NewMessage reads the record's headers and decides its content mode. It
// fails when the record is not a CloudEvent (ErrNotCloudEvent), when two
// headers map to one attribute (ce_id and CE_ID, or two content-type), and
// for a structured format other than application/cloudevents+json.
func NewMessage(r *kgo.Record) (*Message, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: nil record", ErrNotCloudEvent)
	}
	m := &Message{record: r}
	var where map[string]string // attribute name -> header key
	claim := func(name, key string) error {
		if where == nil {
			where = make(map[string]string)
		}
		if prev, ok := where[name]; ok {
			return fmt.Errorf("record has two headers for attribute %q: %q and %q; keep one", name, prev, key)
		}
		where[name] = key
		return nil
	}
	// setContentType records a content-type or ce_datacontenttype header.
	// The CloudEvents JavaScript SDK's binary mode writes both with one
	// value: that pair is one attribute, and the binding's content-type
	// header is the one kept. Two different values stay an error.
	setContentType := func(key, value string) error {
		if m.hasContentType && !strings.EqualFold(m.ctHeader, key) &&
			(strings.EqualFold(m.ctHeader, headerContentType) || strings.EqualFold(key, headerContentType)) {
			if !sameMediaType(m.contentType, value) {
				return fmt.Errorf("record has two headers for attribute %q with different values: %s %q and %s %q; keep one",
					"datacontenttype", m.ctHeader, m.contentType, key, value)
			}
			if strings.EqualFold(key, headerContentType) {
				m.contentType, m.ctHeader = value, key
			}
			return nil
		}
		if err := claim("datacontenttype", key); err != nil {
			return err
		}
		m.contentType, m.hasContentType, m.ctHeader = value, true, key
		return nil
	}
	for _, h := range r.Headers {
		lower := strings.ToLower(h.Key)
		switch {
		case lower == headerContentType:
			if err := setContentType(h.Key, string(h.Value)); err != nil {
				return nil, err
			}
		case strings.HasPrefix(lower, headerPrefix):
			name := lower[len(headerPrefix):]
			if name == "datacontenttype" {
				// Not how the binding carries it, but unambiguous.
				if err := setContentType(h.Key, string(h.Value)); err != nil {
					return nil, err
				}
				continue
			}
			if err := claim(name, h.Key); err != nil {
				return nil, err
			}
			m.attrs = append(m.attrs, headerAttr{name: name, header: h.Key, value: string(h.Value)})
		}
	}
	// Only the binding's content-type header says structured mode: a
	// ce_datacontenttype header is the data's type in a binary record.
	if m.hasContentType && strings.EqualFold(m.ctHeader, headerContentType) {
		mt := strings.ToLower(strings.TrimSpace(m.contentType))
		if i := strings.IndexByte(mt, ';'); i >= 0 {
			mt = strings.TrimSpace(mt[:i])
		}
		if strings.HasPrefix(mt, format.Prefix) {
			switch mt {
			case MediaTypeCloudEventsJSON:
				m.encoding = binding.EncodingStructured
				return m, nil
			case event.ApplicationCloudEventsBatchJSON:
				return nil, fmt.Errorf("content-type %q: the Kafka binding has no batch mode; send one event per record", m.contentType)
			default:
				return nil, fmt.Errorf("content-type %q: unsupported event format; evtool reads %s", m.contentType, MediaTypeCloudEventsJSON)
			}
		}
	}
	if !m.hasContentType && len(m.attrs) == 0 {
		return nil, fmt.Errorf("%w: it has no content-type header and no ce_ headers", ErrNotCloudEvent)
	}
	m.encoding = binding.EncodingBinary
	return m, nil
}

// sameMediaType reports whether two content types are the same: the
// type/subtype compared case-insensitively, the parameters as written.
func sameMediaType(a, b string) bool {
	split := func(s string) (string, string) {
		mt, params, _ := strings.Cut(s, ";")
		return strings.TrimSpace(mt), strings.TrimSpace(params)
	}
	amt, ap := split(a)
	bmt, bp := split(b)
	return strings.EqualFold(amt, bmt) && ap == bp
}

// Record returns the record the message reads.
func (m *Message) Record() *kgo.Record { return m.record }

// ReadEncoding returns binding.EncodingBinary or binding.EncodingStructured.
func (m *Message) ReadEncoding() binding.Encoding { return m.encoding }

// ReadStructured hands the record value to w in the JSON format.
func (m *Message) ReadStructured(ctx context.Context, w binding.StructuredWriter) error {
	if m.encoding != binding.EncodingStructured {
		return binding.ErrNotStructured
	}
	return w.SetStructuredEvent(ctx, JSONFormat{}, bytes.NewReader(m.record.Value))
}

// ReadBinary hands the attributes (header values, as strings) and the
// record value to w.
func (m *Message) ReadBinary(ctx context.Context, w binding.BinaryWriter) error {
	if m.encoding != binding.EncodingBinary {
		return binding.ErrNotBinary
	}
	for _, h := range m.attrs {
		var err error
		if a := spec.V1.Attribute(h.name); a != nil {
			err = w.SetAttribute(a, h.value)
		} else {
			err = w.SetExtension(h.name, h.value)
		}
		if err != nil {
			return fmt.Errorf("header %s: %w", h.header, err)
		}
	}
	if m.hasContentType {
		if err := w.SetAttribute(spec.V1.AttributeFromKind(spec.DataContentType), m.contentType); err != nil {
			return fmt.Errorf("header %s: %w", m.ctHeader, err)
		}
	}
	if len(m.record.Value) > 0 {
		return w.SetData(bytes.NewReader(m.record.Value))
	}
	return nil
}

// GetAttribute returns a binary-mode attribute's header value (a string),
// or nil when absent.
func (m *Message) GetAttribute(k spec.Kind) (spec.Attribute, any) {
	a := spec.V1.AttributeFromKind(k)
	if a == nil || m.encoding != binding.EncodingBinary {
		return a, nil
	}
	if k == spec.DataContentType {
		if m.hasContentType {
			return a, m.contentType
		}
		return a, nil
	}
	for _, h := range m.attrs {
		if h.name == a.Name() {
			return a, h.value
		}
	}
	return a, nil
}

// GetExtension returns a binary-mode extension's header value, or nil.
func (m *Message) GetExtension(name string) any {
	if m.encoding != binding.EncodingBinary {
		return nil
	}
	name = strings.ToLower(name)
	for _, h := range m.attrs {
		if h.name == name && spec.V1.Attribute(name) == nil {
			return h.value
		}
	}
	return nil
}

// Finish does nothing: committing offsets is the consumer's business.
func (m *Message) Finish(error) error { return nil }

// FromRecord decodes the CloudEvent in a record and checks it with the same
// rules as DecodeJSON (CheckAttributes, then sdk-go's Validate). The error
// is for records that cannot be read as a CloudEvent at all (see
// NewMessage); rule violations are findings, and Decoded is nil only when
// a structured value is not usable JSON. Findings about a header name it.
func FromRecord(r *kgo.Record) (*Decoded, []report.Finding, error) {
	m, err := NewMessage(r)
	if err != nil {
		return nil, nil, err
	}
	return m.decode()
}

// decode is FromRecord on a message already read from its record's
// headers.
func (m *Message) decode() (*Decoded, []report.Finding, error) {
	var c collector
	var err error
	switch m.encoding {
	case binding.EncodingStructured:
		err = m.ReadStructured(context.Background(), &c)
	default:
		err = m.ReadBinary(context.Background(), &c)
	}
	if err != nil {
		return nil, nil, err
	}
	if m.encoding == binding.EncodingStructured {
		return c.decoded, c.findings, nil
	}
	d, fs := decodeBinary(c.attrs, c.data)
	if len(fs) > 0 {
		headers := make(map[string]string, len(m.attrs)+1)
		for _, h := range m.attrs {
			headers["/"+jsonpos.Escape(h.name)] = h.header
		}
		if m.hasContentType {
			headers["/datacontenttype"] = m.ctHeader
		}
		for i := range fs {
			if h, ok := headers[fs[i].Pointer]; ok {
				fs[i].Message += fmt.Sprintf(" (header %s)", h)
			} else if fs[i].Pointer == "/data" {
				fs[i].Message += " (record value)"
			}
		}
	}
	return d, fs, nil
}

// decodeBinary checks binary-mode attributes and decodes the data.
func decodeBinary(attrs []Attr, data []byte) (*Decoded, []report.Finding) {
	var c checked
	fs := checkAttributes(attrs, &c, nil)
	d := &Decoded{DataSchema: c.dataschemaText}
	if len(data) > 0 {
		d.HasData, d.RawData = true, data
		if !c.bad["datacontenttype"] && isJSONMediaType(c.mediaType) {
			d.unframeJSON()
			fs = d.decodeDataBytes(fs, "/data")
		}
	}
	d.Event = buildEvent(&c, d.RawData, false)
	fs = sdkFindings(&d.Event, &c, fs)
	return d, fs
}

// collector is the binding writer FromRecord reads a Message into: it keeps
// attribute values as the record had them, so that the envelope rules see
// the input rather than sdk-go's conversion of it.
type collector struct {
	attrs    []Attr
	data     []byte
	decoded  *Decoded
	findings []report.Finding
}

var (
	_ binding.StructuredWriter = (*collector)(nil)
	_ binding.BinaryWriter     = (*collector)(nil)
)

func (c *collector) SetStructuredEvent(_ context.Context, f format.Format, r io.Reader) error {
	if f.MediaType() != MediaTypeCloudEventsJSON {
		return fmt.Errorf("unsupported event format %q", f.MediaType())
	}
	b, err := readAll(r)
	if err != nil {
		return err
	}
	c.decoded, c.findings = DecodeJSON(b)
	return nil
}

func (c *collector) Start(context.Context) error { return nil }
func (c *collector) End(context.Context) error   { return nil }

func (c *collector) SetAttribute(a spec.Attribute, v any) error {
	c.attrs = append(c.attrs, Attr{Name: a.Name(), Value: v})
	return nil
}

func (c *collector) SetExtension(name string, v any) error {
	c.attrs = append(c.attrs, Attr{Name: name, Value: v})
	return nil
}

func (c *collector) SetData(r io.Reader) error {
	b, err := readAll(r)
	c.data = b
	return err
}

// readAll reads r to the end, in one allocation of the right size for a
// bytes.Reader (the Message hands out the record value that way).
func readAll(r io.Reader) ([]byte, error) {
	if br, ok := r.(*bytes.Reader); ok && br.Len() > 0 {
		b := make([]byte, br.Len())
		_, err := io.ReadFull(br, b)
		return b, err
	}
	return io.ReadAll(r)
}

// RecordOption configures ToRecord.
type RecordOption func(*recordConfig)

type recordConfig struct {
	key     keySource
	pointer string
}

type keySource int

const (
	keyNone keySource = iota
	keyPartitionKey
	keySubject
	keyPointer
)

// WithKeyFromPartitionKey sets the record key to the event's partitionkey
// extension (CloudEvents Partitioning extension); ToRecord fails if the
// event has none.
func WithKeyFromPartitionKey() RecordOption {
	return func(c *recordConfig) { c.key = keyPartitionKey }
}

// WithKeyFromSubject sets the record key to the event's subject attribute;
// ToRecord fails if the event has none.
func WithKeyFromSubject() RecordOption {
	return func(c *recordConfig) { c.key = keySubject }
}

// WithKeyFromData sets the record key to the scalar at a JSON pointer into
// the event's JSON data (e.g. /orderId): a string as is, a number as its
// JSON text, a boolean as true or false. ToRecord fails, naming the
// pointer, if the value is missing, null, an object or an array.
func WithKeyFromData(pointer string) RecordOption {
	return func(c *recordConfig) { c.key, c.pointer = keyPointer, pointer }
}

// ToRecord encodes e as a Kafka record in the given mode, through sdk-go's
// binding.Write with a writer that fills the record. The record has no
// topic and, unless an option asks for one, no key: keys decide
// partitioning, so choosing one is the caller's business. e must be a
// CloudEvents 1.0 event that passes sdk-go's Validate. Header values are
// the canonical string forms of the attribute values (time in RFC 3339
// with its original offset); extension headers follow the attribute
// headers, sorted by name, so equal events give equal records.
func ToRecord(ctx context.Context, e *event.Event, mode Mode, opts ...RecordOption) (*kgo.Record, error) {
	if e == nil || e.Context == nil {
		return nil, errors.New("no event")
	}
	if v := e.SpecVersion(); v != event.CloudEventsVersionV1 {
		return nil, fmt.Errorf("event has specversion %q: evtool writes CloudEvents 1.0 only", v)
	}
	if err := e.Validate(); err != nil {
		return nil, fmt.Errorf("event is not valid: %w", err)
	}
	var cfg recordConfig
	for _, o := range opts {
		o(&cfg)
	}
	rec := &kgo.Record{}
	w := &recordWriter{rec: rec}
	ctx = binding.UseFormatForEvent(ctx, JSONFormat{})
	switch mode {
	case ModeBinary:
		ctx = binding.WithForceBinary(ctx)
	case ModeStructured:
		ctx = binding.WithForceStructured(ctx)
	default:
		return nil, fmt.Errorf("unknown content mode %v", mode)
	}
	if _, err := binding.Write(ctx, binding.ToMessage(e), w, w); err != nil {
		return nil, err
	}
	key, err := recordKey(e, &cfg)
	if err != nil {
		return nil, err
	}
	rec.Key = key
	return rec, nil
}

func recordKey(e *event.Event, cfg *recordConfig) ([]byte, error) {
	switch cfg.key {
	case keyPartitionKey:
		v, ok := e.Extensions()["partitionkey"]
		if !ok {
			return nil, errors.New("record key: the event has no partitionkey extension")
		}
		s, err := types.Format(v)
		if err != nil {
			return nil, fmt.Errorf("record key: partitionkey: %v", err)
		}
		return []byte(s), nil
	case keySubject:
		s := e.Subject()
		if s == "" {
			return nil, errors.New("record key: the event has no subject")
		}
		return []byte(s), nil
	case keyPointer:
		return keyFromData(e, cfg.pointer)
	}
	return nil, nil
}

func keyFromData(e *event.Event, pointer string) ([]byte, error) {
	fail := func(format string, args ...any) ([]byte, error) {
		return nil, fmt.Errorf("record key pointer %q: %s", pointer, fmt.Sprintf(format, args...))
	}
	if pointer != "" && !strings.HasPrefix(pointer, "/") {
		return fail("a JSON pointer starts with '/' (e.g. /orderId)")
	}
	mt := ""
	if ct := e.DataContentType(); ct != "" {
		var err error
		if mt, err = parseMediaType(ct); err != nil {
			return fail("datacontenttype %q: %v", ct, err)
		}
	}
	if !isJSONMediaType(mt) {
		return fail("the event data is %s, not JSON", mt)
	}
	if len(e.DataEncoded) == 0 {
		return fail("the event has no data")
	}
	v, _, jerr := parseJSON(e.DataEncoded, "data")
	if jerr != nil {
		return fail("the event data is not valid JSON: %s", jerr.msg)
	}
	v, err := resolvePointer(v, pointer)
	if err != nil {
		return fail("%v", err)
	}
	switch v := v.(type) {
	case string:
		return []byte(v), nil
	case json.Number:
		return []byte(v), nil
	case bool:
		if v {
			return []byte("true"), nil
		}
		return []byte("false"), nil
	}
	return fail("the value is %s; a key must be a string, number or boolean", jsonKind(v))
}

// resolvePointer evaluates an RFC 6901 JSON pointer on a decoded value.
func resolvePointer(v any, pointer string) (any, error) {
	if pointer == "" {
		return v, nil
	}
	at := ""
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		at += "/" + jsonpos.Escape(tok)
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[tok]
			if !ok {
				return nil, fmt.Errorf("not found in the event data (no member %s)", at)
			}
			v = next
		case []any:
			i, ok := arrayIndex(tok)
			if !ok || i >= len(x) {
				return nil, fmt.Errorf("not found in the event data (no element %s)", at)
			}
			v = x[i]
		default:
			return nil, fmt.Errorf("not found in the event data (%s is inside %s)", at, jsonKind(v))
		}
	}
	return v, nil
}

func arrayIndex(tok string) (int, bool) {
	if tok == "" || len(tok) > 9 || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return 0, false
		}
		n = n*10 + int(tok[i]-'0')
	}
	return n, true
}

// recordWriter fills a record; it is the StructuredWriter and BinaryWriter
// ToRecord hands to binding.Write.
type recordWriter struct {
	rec *kgo.Record
	ext []kgo.RecordHeader
}

var (
	_ binding.StructuredWriter = (*recordWriter)(nil)
	_ binding.BinaryWriter     = (*recordWriter)(nil)
)

func (w *recordWriter) SetStructuredEvent(_ context.Context, f format.Format, r io.Reader) error {
	b, err := readAll(r)
	if err != nil {
		return err
	}
	w.rec.Value = b
	w.rec.Headers = append(w.rec.Headers, kgo.RecordHeader{Key: headerContentType, Value: []byte(f.MediaType())})
	return nil
}

func (w *recordWriter) Start(context.Context) error { return nil }

func (w *recordWriter) End(context.Context) error {
	sort.Slice(w.ext, func(i, j int) bool { return w.ext[i].Key < w.ext[j].Key })
	w.rec.Headers = append(w.rec.Headers, w.ext...)
	w.ext = nil
	return nil
}

func (w *recordWriter) SetAttribute(a spec.Attribute, v any) error {
	s, err := headerValue(v)
	if err != nil {
		return fmt.Errorf("attribute %s: %w", a.Name(), err)
	}
	key := headerPrefix + a.Name()
	if a.Kind() == spec.DataContentType {
		key = headerContentType
	}
	w.rec.Headers = append(w.rec.Headers, kgo.RecordHeader{Key: key, Value: []byte(s)})
	return nil
}

func (w *recordWriter) SetExtension(name string, v any) error {
	s, err := headerValue(v)
	if err != nil {
		return fmt.Errorf("extension %s: %w", name, err)
	}
	w.ext = append(w.ext, kgo.RecordHeader{Key: headerPrefix + name, Value: []byte(s)})
	return nil
}

func (w *recordWriter) SetData(r io.Reader) error {
	b, err := readAll(r)
	w.rec.Value = b
	return err
}

// headerValue formats an attribute value for a header. Times keep their
// UTC offset (sdk-go's types.Format would convert them to UTC).
func headerValue(v any) (string, error) {
	switch v := v.(type) {
	case time.Time:
		return v.Format(time.RFC3339Nano), nil
	case types.Timestamp:
		return v.Time.Format(time.RFC3339Nano), nil
	case *types.Timestamp:
		return v.Time.Format(time.RFC3339Nano), nil
	}
	return types.Format(v)
}
