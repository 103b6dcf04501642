// Package dlq reads dead-letter records: which header convention they
// follow (evtool's, Spring Kafka's, Kafka Connect's, Kafka Streams'), where
// they came from, the error that sent them there and how often they have
// been redriven; and it inspects and redrives dead-letter topics.
package dlq

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Convention names a family of dead-letter headers.
type Convention string

// The conventions Decode recognises; ConventionNone is a record that
// carries none of their headers.
const (
	ConventionEvtool  Convention = "evtool"
	ConventionSpring  Convention = "spring"
	ConventionConnect Convention = "connect"
	ConventionStreams Convention = "streams"
	ConventionNone    Convention = "none"
)

// IntEncoding says how a convention writes integers in headers.
type IntEncoding int

const (
	// IntDecimal is UTF-8 decimal text ("42"), as Kafka Connect, Kafka
	// Streams and evtool write it.
	IntDecimal IntEncoding = iota
	// IntBinary is big-endian binary: 4 bytes for a partition (int32),
	// 8 for an offset or a timestamp (int64), as Spring Kafka's
	// DeadLetterPublishingRecoverer writes it. Tools that write Spring's
	// header names from other languages often write decimal text, so a
	// value of ASCII digits is read as decimal.
	IntBinary
)

// HeaderSet is one convention's header names. Names are matched exactly,
// as Kafka's Java clients do; when a header repeats, the last one counts
// (Headers.lastHeader).
type HeaderSet struct {
	Convention Convention
	// Prefix starts every header of the convention: redrive drops them,
	// and the ones starting with a prefix of AlsoDrop (bookkeeping of the
	// convention's retries, not dead-letter headers Decode reads).
	Prefix   string
	AlsoDrop []string
	// Topic, Partition and Offset name where the record was consumed
	// from; Timestamp its original timestamp (milliseconds since the
	// epoch, "" when the convention has none).
	Topic, Partition, Offset, Timestamp string
	// ErrorClass and ErrorMessage name the error; the first present in
	// each list counts (Spring writes key-deserialisation errors under
	// names of their own).
	ErrorClass, ErrorMessage []string
	// ClassInMessage says the class header holds Java's Throwable
	// toString(), "class: message" (Kafka Streams).
	ClassInMessage bool
	Ints           IntEncoding
	// SourceMayBeNone says an empty topic and a partition or offset of
	// -1 mean the record was consumed from nowhere (no origin), not a
	// malformed header: Kafka Streams writes them for a record a
	// punctuator produced.
	SourceMayBeNone bool
}

// Conventions returns the header conventions in the order Decode tries
// them: a record that carries headers of several counts as the first.
func Conventions() []HeaderSet {
	return []HeaderSet{
		{
			// What evtool's example consumer writes.
			Convention: ConventionEvtool, Prefix: "dlq.",
			Topic: "dlq.source.topic", Partition: "dlq.source.partition", Offset: "dlq.source.offset", Timestamp: "dlq.source.timestamp",
			ErrorClass: []string{"dlq.error.kind"}, ErrorMessage: []string{"dlq.error"},
			Ints: IntDecimal,
		},
		{
			// Spring Kafka's KafkaHeaders.DLT_*.
			// RetryTopicHeaders' retry_topic-attempts, -backoff-timestamp
			// and -original-timestamp count a record's retries and their
			// deadline: a redriven record starts afresh.
			Convention: ConventionSpring, Prefix: "kafka_dlt-", AlsoDrop: []string{"retry_topic-"},
			Topic: "kafka_dlt-original-topic", Partition: "kafka_dlt-original-partition", Offset: "kafka_dlt-original-offset", Timestamp: "kafka_dlt-original-timestamp",
			ErrorClass:   []string{"kafka_dlt-exception-fqcn", "kafka_dlt-key-exception-fqcn"},
			ErrorMessage: []string{"kafka_dlt-exception-message", "kafka_dlt-key-exception-message"},
			Ints:         IntBinary,
		},
		{
			// Kafka Connect's DeadLetterQueueReporter.
			Convention: ConventionConnect, Prefix: "__connect.errors.",
			Topic: "__connect.errors.topic", Partition: "__connect.errors.partition", Offset: "__connect.errors.offset",
			ErrorClass: []string{"__connect.errors.exception.class.name"}, ErrorMessage: []string{"__connect.errors.exception.message"},
			Ints: IntDecimal,
		},
		{
			// Kafka Streams' dead-letter queue (KIP-1034).
			Convention: ConventionStreams, Prefix: "__streams.errors.",
			Topic: "__streams.errors.topic", Partition: "__streams.errors.partition", Offset: "__streams.errors.offset",
			ErrorClass: []string{"__streams.errors.exception"}, ErrorMessage: []string{"__streams.errors.message"},
			ClassInMessage: true, Ints: IntDecimal, SourceMayBeNone: true,
		},
	}
}

// RedriveCountHeader counts how often evtool redrove a record: decimal,
// absent meaning 0.
const RedriveCountHeader = "evtool-redrive-count"

// Origin is where a dead-lettered record was consumed from.
type Origin struct {
	Topic     string
	Partition int32
	Offset    int64
	// Timestamp is the original record's, zero when the headers do not
	// carry it.
	Timestamp time.Time
}

func (o Origin) String() string { return fmt.Sprintf("%s/%d@%d", o.Topic, o.Partition, o.Offset) }

// Letter is what a dead-letter record's headers say.
type Letter struct {
	Convention Convention
	// Origin is nil when the headers do not name a topic, a partition
	// and an offset.
	Origin *Origin
	// OriginTopic is the original topic when the headers name only that.
	OriginTopic string
	ErrorClass  string
	Error       string
	// RedriveCount is the evtool-redrive-count header (0 when absent).
	RedriveCount int
}

// HeaderError is a dead-letter header that cannot be read.
type HeaderError struct {
	Topic     string
	Partition int32
	Offset    int64
	Header    string
	Msg       string
}

func (e *HeaderError) Error() string {
	return fmt.Sprintf("%s/%d@%d: header %s: %s", e.Topic, e.Partition, e.Offset, e.Header, e.Msg)
}

// Decode reads the dead-letter headers of a record. It fails, naming the
// record and the header, when a header of the record's convention is
// malformed: an integer that is neither decimal nor of the convention's
// binary width, a negative partition or offset, a topic name Kafka would
// refuse, an unreadable redrive count.
func Decode(r *kgo.Record) (Letter, error) {
	l := Letter{Convention: ConventionNone}
	fail := func(header, format string, args ...any) (Letter, error) {
		return Letter{}, &HeaderError{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Header: header, Msg: fmt.Sprintf(format, args...)}
	}
	if v, ok := last(r.Headers, RedriveCountHeader); ok {
		n, err := strconv.ParseUint(strings.TrimSpace(string(v)), 10, 31)
		if err != nil {
			return fail(RedriveCountHeader, "%s: want a decimal count", quote(v))
		}
		l.RedriveCount = int(n)
	}
	set, ok := detect(r.Headers)
	if !ok {
		l.Error = anyError(r.Headers)
		return l, nil
	}
	l.Convention = set.Convention
	for _, name := range set.ErrorClass {
		if v, ok := last(r.Headers, name); ok && len(v) > 0 {
			l.ErrorClass = text(v)
			break
		}
	}
	for _, name := range set.ErrorMessage {
		if v, ok := last(r.Headers, name); ok && len(v) > 0 {
			l.Error = text(v)
			break
		}
	}
	if set.ClassInMessage && l.ErrorClass != "" {
		// Throwable.toString(): "class: message", or the class alone.
		if class, msg, ok := strings.Cut(l.ErrorClass, ": "); ok {
			l.ErrorClass = class
			if l.Error == "" {
				l.Error = msg
			}
		}
	}
	var o Origin
	topic, hasTopic := last(r.Headers, set.Topic)
	pv, hasPartition := last(r.Headers, set.Partition)
	ov, hasOffset := last(r.Headers, set.Offset)
	if set.SourceMayBeNone {
		hasTopic = hasTopic && len(topic) > 0
		hasPartition = hasPartition && string(pv) != "-1"
		hasOffset = hasOffset && string(ov) != "-1"
	}
	if hasTopic {
		if err := checkTopicName(topic); err != nil {
			return fail(set.Topic, "%s", err)
		}
		o.Topic = string(topic)
		l.OriginTopic = o.Topic
	}
	if hasPartition {
		p, err := decodeInt(pv, set.Ints, 4)
		if err != nil {
			return fail(set.Partition, "%s", err)
		}
		if p < 0 || p > 1<<31-1 {
			return fail(set.Partition, "%d is not a partition", p)
		}
		o.Partition = int32(p)
	}
	if hasOffset {
		off, err := decodeInt(ov, set.Ints, 8)
		if err != nil {
			return fail(set.Offset, "%s", err)
		}
		if off < 0 {
			return fail(set.Offset, "%d is not an offset", off)
		}
		o.Offset = off
	}
	if set.Timestamp != "" {
		if tv, ok := last(r.Headers, set.Timestamp); ok {
			ms, err := decodeInt(tv, set.Ints, 8)
			if err != nil {
				return fail(set.Timestamp, "%s", err)
			}
			if ms >= 0 { // Java's NO_TIMESTAMP is -1
				o.Timestamp = time.UnixMilli(ms).UTC()
			}
		}
	}
	if hasTopic && hasPartition && hasOffset {
		l.Origin = &o
	}
	return l, nil
}

// detect returns the first convention with a header on the record.
func detect(hs []kgo.RecordHeader) (HeaderSet, bool) {
	for _, set := range Conventions() {
		for _, h := range hs {
			if strings.HasPrefix(h.Key, set.Prefix) {
				return set, true
			}
		}
	}
	return HeaderSet{}, false
}

// anyError is, for a record of no convention, the first non-empty header
// whose name says error, exception or reason (a home-grown dead-letter
// producer's "error", say).
func anyError(hs []kgo.RecordHeader) string {
	for _, h := range hs {
		k := strings.ToLower(h.Key)
		if len(h.Value) > 0 && (strings.Contains(k, "error") || strings.Contains(k, "exception") || strings.Contains(k, "reason")) {
			return text(h.Value)
		}
	}
	return ""
}

// IsDLQHeader reports whether a header belongs to a dead-letter
// convention or is the redrive count: what redrive does not send back.
func IsDLQHeader(key string) bool {
	if key == RedriveCountHeader {
		return true
	}
	for _, set := range Conventions() {
		if strings.HasPrefix(key, set.Prefix) {
			return true
		}
		for _, p := range set.AlsoDrop {
			if strings.HasPrefix(key, p) {
				return true
			}
		}
	}
	return false
}

func last(hs []kgo.RecordHeader, key string) ([]byte, bool) {
	for i := len(hs) - 1; i >= 0; i-- {
		if hs[i].Key == key {
			return hs[i].Value, true
		}
	}
	return nil, false
}

// decodeInt reads an integer header: decimal text (never negative), or,
// for IntBinary, big-endian binary of width bytes (which can be).
func decodeInt(v []byte, enc IntEncoding, width int) (int64, error) {
	if len(v) == 0 {
		return 0, fmt.Errorf("empty value: want a decimal number")
	}
	if isDigits(v) {
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: out of range", quote(v))
		}
		return n, nil
	}
	want := "a decimal number"
	if enc == IntBinary {
		want = fmt.Sprintf("a decimal number or a big-endian int%d (%d bytes)", width*8, width)
		if len(v) == width {
			var n int64
			if width == 4 {
				n = int64(int32(binary.BigEndian.Uint32(v)))
			} else {
				n = int64(binary.BigEndian.Uint64(v))
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("%s (%d bytes): want %s", quote(v), len(v), want)
}

func isDigits(v []byte) bool {
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// checkTopicName applies Kafka's rules for topic names: 1 to 249 of
// [a-zA-Z0-9._-], not "." or "..".
func checkTopicName(v []byte) error {
	switch {
	case len(v) == 0:
		return fmt.Errorf("empty topic name")
	case len(v) > 249:
		return fmt.Errorf("topic name of %d bytes: Kafka allows 249", len(v))
	case string(v) == "." || string(v) == "..":
		return fmt.Errorf("%s is not a topic name", quote(v))
	}
	for _, c := range v {
		if !(c == '.' || c == '_' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return fmt.Errorf("%s is not a topic name: Kafka allows only a-z, A-Z, 0-9, '.', '_' and '-'", quote(v))
		}
	}
	return nil
}

// quote shows a header value in an error: as text when it is printable
// UTF-8, else as hex.
func quote(v []byte) string {
	if len(v) > 64 {
		return quote(v[:64]) + "…"
	}
	if utf8.Valid(v) {
		printable := true
		for _, r := range string(v) {
			if r < 0x20 || r == 0x7f {
				printable = false
				break
			}
		}
		if printable {
			return strconv.Quote(string(v))
		}
	}
	return fmt.Sprintf("0x%x", v)
}

// text is a header value as display text: valid UTF-8, at most 1000
// bytes (a stack trace in an error message can be long).
func text(v []byte) string {
	s := strings.ToValidUTF8(string(v), "\uFFFD")
	const max = 1000
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
