package dlq

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/report"
)

// Entry is one dead-letter record as inspect and redrive show it.
type Entry struct {
	Partition int32     `json:"partition"`
	Offset    int64     `json:"offset"`
	Timestamp time.Time `json:"timestamp"`
	// The original topic, partition and offset, null when the headers do
	// not say.
	OriginalTopic     *string `json:"originalTopic"`
	OriginalPartition *int32  `json:"originalPartition"`
	OriginalOffset    *int64  `json:"originalOffset"`
	Error             string  `json:"error"`
	ErrorClass        string  `json:"errorClass"`
	// The CloudEvent the record carries: null for a value that is not
	// one; Version null without a catalog or a dataschema it knows.
	ID           *string    `json:"id"`
	Type         *string    `json:"type"`
	Version      *int       `json:"version"`
	RedriveCount int        `json:"redriveCount"`
	Convention   Convention `json:"convention"`
	// Problem says why the record's dead-letter headers cannot be read
	// (its other fields are then what could be read).
	Problem string `json:"problem,omitempty"`

	record *kgo.Record
	letter Letter
	// event is the decoded CloudEvent, nil when there is none; eventErr
	// why the record is not one.
	event    *envelope.Decoded
	eventErr error
}

// NewEntry reads a dead-letter record: its headers (Decode) and the
// CloudEvent in its value or headers. cat, when not nil, resolves the
// event's dataschema to a version.
func NewEntry(r *kgo.Record, cat *catalog.Catalog) Entry {
	e := Entry{Partition: r.Partition, Offset: r.Offset, Timestamp: r.Timestamp.UTC(), record: r, Convention: ConventionNone}
	l, err := Decode(r)
	if err != nil {
		e.Problem = err.Error()
		var he *HeaderError
		if errors.As(err, &he) {
			e.Problem = fmt.Sprintf("header %s: %s", he.Header, he.Msg)
		}
	} else {
		e.letter = l
		e.Convention, e.Error, e.ErrorClass, e.RedriveCount = l.Convention, l.Error, l.ErrorClass, l.RedriveCount
		if l.OriginTopic != "" {
			t := l.OriginTopic
			e.OriginalTopic = &t
		}
		if o := l.Origin; o != nil {
			p, off := o.Partition, o.Offset
			e.OriginalPartition, e.OriginalOffset = &p, &off
		}
	}
	e.event, _, e.eventErr = readEvent(r)
	if d := e.event; d != nil {
		if id := d.Event.ID(); id != "" {
			e.ID = &id
		}
		if typ := d.Event.Type(); typ != "" {
			e.Type = &typ
		}
		if cat != nil && d.DataSchema != "" {
			if typ, n, err := cat.Template.Parse(d.DataSchema); err == nil && e.Type != nil && typ == *e.Type {
				e.Version = &n
			}
		}
	}
	return e
}

// Record returns the record the entry reads.
func (e Entry) Record() *kgo.Record { return e.record }

// Origin returns where the record was consumed from, nil when its headers
// do not say.
func (e Entry) Origin() *Origin { return e.letter.Origin }

// readEvent decodes the CloudEvent of a record: binary or structured mode
// by the Kafka binding, or a structured event in a value without a
// content-type header (as a JSON converter writes it).
func readEvent(r *kgo.Record) (*envelope.Decoded, []report.Finding, error) {
	d, fs, err := envelope.FromRecord(r)
	if errors.Is(err, envelope.ErrNotCloudEvent) && looksStructured(r.Value) {
		d, fs = envelope.DecodeJSON(r.Value)
		if d == nil {
			return nil, fs, err
		}
		return d, fs, nil
	}
	return d, fs, err
}

func looksStructured(v []byte) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '{' && bytes.Contains(v, []byte(`"specversion"`))
}

// validateEntry checks the entry's event as evtool validate checks one:
// the CloudEvents rules, then the catalog. It returns the failing
// findings (none: valid).
func validateEntry(v *envelope.Validator, e Entry) []report.Finding {
	r := e.record
	var fs []report.Finding
	if e.eventErr != nil || e.event == nil {
		msg := "the record carries no CloudEvent"
		if e.eventErr != nil {
			msg = e.eventErr.Error()
		}
		return []report.Finding{{Rule: RuleNotAnEvent, Severity: report.SeverityError, Message: msg}}
	}
	if !hasCloudEventHeaders(r) {
		_, _, fs = v.Validate(r.Value)
	} else {
		d, envFs, _ := envelope.FromRecord(r)
		fs = envFs
		if d != nil {
			_, more := v.Check(d)
			fs = append(fs, more...)
		}
	}
	var failing []report.Finding
	for _, f := range fs {
		if f.Failing() {
			failing = append(failing, f)
		}
	}
	return failing
}

// hasCloudEventHeaders reports whether the Kafka binding reads the record
// (a content-type or a ce_ header), rather than a bare structured value.
func hasCloudEventHeaders(r *kgo.Record) bool {
	_, err := envelope.NewMessage(r)
	return !errors.Is(err, envelope.ErrNotCloudEvent)
}
