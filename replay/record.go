package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/envelope"
)

// This file is the producer's fast path: it turns an event in the JSON
// format, already validated, into its Kafka record in one scan of the text,
// without building the sdk-go model, for the common case (string
// attributes without escapes, JSON data). The record is the one
// envelope.ToRecord makes from the decoded event: same key, same value,
// same headers (compared as sets: the order of extension headers aside).
// Anything else (data_base64, non-JSON data, non-string extensions,
// escapes, a time or URI that sdk-go would spell differently) takes the
// slow path, envelope.DecodeJSON and envelope.ToRecord.

var errSlow = errors.New("slow path")

// member is one top-level member of an event: its name and the bytes of
// its value.
type member struct {
	name  []byte
	value []byte
}

// fastRecord builds the record (nil rec when only meta is wanted) and the
// plan metadata of a validated event, or returns errSlow.
func (h *Harness) fastRecord(raw []byte, topic string, wantRecord bool) (*kgo.Record, chaos.Event, error) {
	var m chaos.Event
	var members [16]member
	ms, err := topMembers(raw, members[:0])
	if err != nil {
		return nil, m, errSlow
	}
	binary := wantRecord && h.sc.Kafka.Mode == envelope.ModeBinary
	var data, id, typ, subject, ct, ds []byte
	hasCT := false
	// The record and its headers in one allocation.
	var rb *recordBuf
	var headers []kgo.RecordHeader
	if wantRecord {
		rb = new(recordBuf)
		if binary {
			headers = rb.headers[:0]
		}
	}
	nExt := 0
	for _, mb := range ms {
		v := mb.value
		if len(v) == 4 && string(v) == "null" {
			continue // null means absent
		}
		switch string(mb.name) {
		case "data":
			data = v
			continue
		case "data_base64":
			return nil, m, errSlow
		}
		s, ok := plainString(v)
		if !ok {
			return nil, m, errSlow
		}
		key := ""
		switch string(mb.name) {
		case "specversion":
			key = "ce_specversion"
		case "id":
			id, key = s, "ce_id"
		case "type":
			typ, key = s, "ce_type"
		case "subject":
			subject, key = s, "ce_subject"
		case "datacontenttype":
			ct, hasCT, key = s, true, "content-type"
		case "time":
			if !canonicalTime(s) {
				return nil, m, errSlow
			}
			key = "ce_time"
		case "source":
			if !canonicalURI(s) {
				return nil, m, errSlow
			}
			key = "ce_source"
		case "dataschema":
			if !canonicalURI(s) {
				return nil, m, errSlow
			}
			ds, key = s, "ce_dataschema"
		default:
			nExt++
			if binary {
				key = "ce_" + string(mb.name)
			}
		}
		if binary {
			headers = append(headers, kgo.RecordHeader{Key: key, Value: s})
		}
	}
	if hasCT && !isJSONType(string(ct)) {
		return nil, m, errSlow
	}
	t := h.types[string(typ)]
	if t == nil || binaryData(t.Format) {
		return nil, m, errSlow // Avro and Protobuf data is re-encoded
	}
	if wantRecord && h.cat.FramesJSON(t) {
		return nil, m, errSlow // JSON data Confluent-framed under its registry id
	}
	// ID and Key alias the event's text, which nothing writes to: no
	// copies per event. Whoever keeps them longer than the event clones
	// them (strings.Clone), or the strings keep the whole text alive.
	m.ID, m.Type = unsafeString(id), t.Name
	var key []byte
	ks := h.keys[t.Name]
	switch {
	case ks.subject:
		if len(subject) == 0 {
			return nil, m, errSlow
		}
		key = subject
	case ks.pointer != "":
		k, err := dataKey(data, ks.tokens)
		if err != nil {
			return nil, m, errSlow
		}
		key = k
	}
	m.Key = unsafeString(key)
	if len(key) > 0 {
		m.Partition = chaos.PartitionOf(key, h.partitions)
	} else {
		m.Partition = chaos.PartitionOf(id, h.partitions)
	}
	if h.sc.Chaos.Skew != nil {
		m.Version, m.SkewTo = h.mut.SkewTargets(t.Name, string(ds), data)
	}
	if !wantRecord {
		return nil, m, nil
	}
	rec := &rb.rec
	rec.Topic, rec.Partition = topic, m.Partition
	if len(key) > 0 {
		rec.Key = key
	}
	if !binary {
		rec.Value = raw
		rec.Headers = []kgo.RecordHeader{{Key: "content-type", Value: structuredCT}}
		return rec, m, nil
	}
	if nExt > 1 {
		// Extensions go last, sorted by name, as ToRecord writes them.
		sort.SliceStable(headers, func(i, j int) bool {
			ei, ej := isExtHeader(headers[i].Key), isExtHeader(headers[j].Key)
			if ei != ej {
				return !ei
			}
			return ei && headers[i].Key < headers[j].Key
		})
	}
	rec.Headers = headers
	if len(data) > 0 {
		rec.Value = data
	}
	return rec, m, nil
}

func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

var structuredCT = []byte(envelope.MediaTypeCloudEventsJSON)

// recordBuf holds a record and room for its headers (more spill over).
// It stays under 512 bytes, the size above which an allocation needs a
// type header (and costs more).
type recordBuf struct {
	rec     kgo.Record
	headers [8]kgo.RecordHeader
}

func isExtHeader(k string) bool {
	switch k {
	case "ce_specversion", "ce_id", "ce_type", "ce_subject", "content-type", "ce_time", "ce_source", "ce_dataschema":
		return false
	}
	return true
}

func isJSONType(ct string) bool {
	mt := strings.ToLower(strings.TrimSpace(ct))
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = strings.TrimSpace(mt[:i])
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// plainString returns the content of a JSON string without escapes.
func plainString(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	s := v[1 : len(v)-1]
	for _, c := range s {
		if c == '\\' || c < 0x20 {
			return nil, false
		}
	}
	return s, true
}

// canonicalTime reports whether sdk-go would write the time back as given
// (RFC 3339 with nanoseconds, trailing zeros dropped, original offset).
func canonicalTime(s []byte) bool {
	t, err := time.Parse(time.RFC3339Nano, string(s))
	if err != nil {
		return false
	}
	var buf [40]byte
	return string(t.AppendFormat(buf[:0], time.RFC3339Nano)) == string(s)
}

// uriCache remembers which URI references survive url.Parse and String
// unchanged: sources and dataschemas repeat, so it is a copy-on-write map
// read without locks (and reset when it grows large).
var (
	uriCache   atomic.Pointer[map[string]bool]
	uriCacheMu sync.Mutex
)

func canonicalURI(b []byte) bool {
	if m := uriCache.Load(); m != nil {
		if ok, hit := (*m)[string(b)]; hit {
			return ok
		}
	}
	s := string(b)
	u, err := url.Parse(s)
	ok := err == nil && u.String() == s
	uriCacheMu.Lock()
	defer uriCacheMu.Unlock()
	next := map[string]bool{}
	if m := uriCache.Load(); m != nil && len(*m) < 1024 {
		for k, v := range *m {
			next[k] = v
		}
	}
	next[s] = ok
	uriCache.Store(&next)
	return ok
}

// topMembers splits a JSON object (a validated event) into its members.
// In a CloudEvent only data can be an object or an array, so when the
// event's last value is one, a member whose value opens a container is
// data and runs to the end: it is taken without scanning it.
func topMembers(b []byte, out []member) ([]member, error) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, errSlow
	}
	tail := -1
	if j := skipWSBack(b, len(b)); j > 0 && b[j-1] == '}' {
		if k := skipWSBack(b, j-1); k > 0 && (b[k-1] == '}' || b[k-1] == ']') {
			tail = k
		}
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return out, nil
	}
	for i < len(b) {
		if b[i] != '"' {
			return nil, errSlow
		}
		end, esc := stringEnd(b, i)
		if end < 0 || esc {
			return nil, errSlow
		}
		name := b[i+1 : end-1]
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, errSlow
		}
		i = skipWS(b, i+1)
		if tail > i && (b[i] == '{' || b[i] == '[') {
			return append(out, member{name: name, value: b[i:tail]}), nil
		}
		vend := skipValue(b, i)
		if vend < 0 {
			return nil, errSlow
		}
		out = append(out, member{name: name, value: b[i:vend]})
		i = skipWS(b, vend)
		if i >= len(b) {
			return nil, errSlow
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return out, nil
		default:
			return nil, errSlow
		}
	}
	return nil, errSlow
}

// skipWSBack returns the index after the last non-space byte before end.
func skipWSBack(b []byte, end int) int {
	for end > 0 && (b[end-1] == ' ' || b[end-1] == '\t' || b[end-1] == '\n' || b[end-1] == '\r') {
		end--
	}
	return end
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the string starting at b[i] == '"'
// and whether it has escapes; -1 when unterminated.
func stringEnd(b []byte, i int) (int, bool) {
	j := i + 1
	q := bytes.IndexByte(b[j:], '"')
	if q < 0 {
		return -1, false
	}
	if bytes.IndexByte(b[j:j+q], '\\') < 0 {
		return j + q + 1, false // the common case: no escapes
	}
	for ; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return -1, true
}

// skipValue returns the index after the JSON value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := stringEnd(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := stringEnd(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
}

// findMember returns the value of the member name of a JSON object,
// scanning only as far as it.
func findMember(b []byte, name string) ([]byte, error) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, errSlow
	}
	i = skipWS(b, i+1)
	for i < len(b) && b[i] == '"' {
		end, esc := stringEnd(b, i)
		if end < 0 || esc {
			return nil, errSlow
		}
		key := b[i+1 : end-1]
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, errSlow
		}
		i = skipWS(b, i+1)
		vend := skipValue(b, i)
		if vend < 0 {
			return nil, errSlow
		}
		if string(key) == name {
			return b[i:vend], nil
		}
		i = skipWS(b, vend)
		if i >= len(b) || b[i] != ',' {
			return nil, errSlow
		}
		i = skipWS(b, i+1)
	}
	return nil, errSlow
}

// dataKey finds the scalar at a JSON pointer in JSON data, as
// envelope.WithKeyFromData renders it.
func dataKey(data []byte, tokens []string) ([]byte, error) {
	v := data
	for _, tok := range tokens {
		i := skipWS(v, 0)
		if i >= len(v) {
			return nil, errSlow
		}
		switch v[i] {
		case '{':
			mv, err := findMember(v, tok)
			if err != nil {
				return nil, err
			}
			v = mv
		default:
			return nil, errSlow // arrays and the rest: the slow path
		}
	}
	if s, ok := plainString(v); ok {
		return s, nil
	}
	switch {
	case len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9'):
		var n json.Number
		if err := json.Unmarshal(v, &n); err != nil {
			return nil, errSlow
		}
		return []byte(n.String()), nil
	case string(v) == "true" || string(v) == "false":
		return v, nil
	}
	return nil, errSlow
}

// slowRecord is the reference path: decode, then envelope.ToRecord.
func (h *Harness) slowRecord(ctx context.Context, raw rawEvent, topic string) converted {
	d, fs := envelope.DecodeJSON(raw.Raw)
	if d == nil {
		return converted{err: errorAt(raw, "not a CloudEvent: "+firstMessage(fs))}
	}
	t := h.cat.Lookup(d.Event.Type())
	if t == nil {
		return converted{err: errorAt(raw, strconv.Quote(d.Event.Type())+" is not a type of the catalog")}
	}
	ver := h.mut.version(t.Name, d.Event.DataSchema())
	unframed, err := formatValue(d, ver, h.cat.Framing(t), keyOf(t))
	if err != nil {
		return converted{err: errorAt(raw, err.Error())}
	}
	key, err := eventKey(d, keyOf(t))
	if err != nil {
		return converted{err: errorAt(raw, err.Error())}
	}
	m := chaos.Event{Line: raw.Line, ID: d.Event.ID(), Type: t.Name, Key: key}
	pkey := key
	if pkey == "" {
		pkey = m.ID
	}
	m.Partition = chaos.PartitionOf([]byte(pkey), h.partitions)
	if h.sc.Chaos.Skew != nil {
		m.Version, m.SkewTo = h.mut.EventMeta(&d.Event)
	}
	c := converted{meta: m}
	if topic == "" {
		return c
	}
	// Avro and Protobuf data goes out in its binary encoding, framed as
	// the type's kafka.framing says.
	framing := h.mut.framing(ver)
	if unframed != nil {
		// Reading the key took the frame off: the datum is not read again.
		d.Event.DataEncoded, framing = unframed, catalog.FramingNone
	}
	rec, err := envelope.ToWireRecord(ctx, &d.Event, ver, framing, h.mut.wireID(ver), h.sc.Kafka.Mode)
	if err != nil {
		return converted{err: errorAt(raw, err.Error())}
	}
	if key != "" {
		rec.Key = []byte(key)
	}
	rec.Topic, rec.Partition = topic, m.Partition
	c.rec = rec
	return c
}

func errorAt(raw rawEvent, msg string) error {
	if raw.Line > 0 {
		return errors.New("event at line " + strconv.Itoa(raw.Line) + ": " + msg)
	}
	return errors.New("event: " + msg)
}
