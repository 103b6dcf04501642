package replay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/pipeline"
	"github.com/evtool/evtool/report"
)

// rawEvent is one event of the input, as JSON text.
type rawEvent struct {
	Raw    []byte
	Line   int // 0 for generated events
	Column int
	Err    error
	// oneLine: a top-level value alone on its line (JSONL).
	oneLine bool
}

// source streams the scenario's events: the same sequence every time it is
// opened (a file, or a seeded generator).
type source interface {
	next() (rawEvent, bool, error) // false at the end
	close() error
	// name is the events' origin for messages ("events.jsonl", "generated").
	name() string
}

type fileSource struct {
	f       *os.File
	r       *envelope.Reader
	display string
}

func openFile(path string) (*fileSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read events: %w", err)
	}
	return &fileSource{f: f, r: envelope.NewReader(f, 0), display: path}, nil
}

func (s *fileSource) next() (rawEvent, bool, error) {
	it, err := s.r.Next()
	if errors.Is(err, io.EOF) {
		return rawEvent{}, false, nil
	}
	if errors.Is(err, envelope.ErrNoEvents) {
		return rawEvent{}, false, fmt.Errorf("%s: no events", s.display)
	}
	if err != nil {
		var ie *envelope.InputError
		if errors.As(err, &ie) {
			return rawEvent{}, false, fmt.Errorf("%s:%d: %s", s.display, ie.Line, ie.Msg)
		}
		return rawEvent{}, false, fmt.Errorf("%s: %w", s.display, err)
	}
	return rawEvent{Raw: it.Raw, Line: it.Line, Column: it.Column, Err: it.Err,
		oneLine: it.Index < 0 && bytes.IndexByte(it.Raw, '\n') < 0}, true, nil
}

// lineSource reads a file the validation pass found to be plain JSONL
// (one event per line, nothing else), a line at a time: much cheaper than
// the general Reader, which the producer would otherwise run again. Each
// event is copied out of the read buffer into a small allocation of its
// own (large blocks shared by many events cost more: fresh pages fault in
// on every read).
type lineSource struct {
	f       *os.File
	r       *bufio.Reader
	line    int
	display string
}

func openLines(path string) (*lineSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read events: %w", err)
	}
	return &lineSource{f: f, r: bufio.NewReaderSize(f, 256<<10), display: path}, nil
}

func (s *lineSource) next() (rawEvent, bool, error) {
	for {
		b, err := s.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: collect it.
			long := append([]byte(nil), b...)
			for errors.Is(err, bufio.ErrBufferFull) {
				b, err = s.r.ReadSlice('\n')
				long = append(long, b...)
			}
			b = long
		}
		if len(b) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				return rawEvent{}, false, nil
			}
			return rawEvent{}, false, fmt.Errorf("%s: %w", s.display, err)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return rawEvent{}, false, fmt.Errorf("%s: %w", s.display, err)
		}
		s.line++
		if s.line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		start := 0
		for start < len(b) && (b[start] == ' ' || b[start] == '\t') {
			start++
		}
		raw := bytes.TrimRight(b[start:], " \t\r\n")
		if len(raw) == 0 {
			if err != nil {
				return rawEvent{}, false, nil
			}
			continue
		}
		return rawEvent{Raw: append([]byte(nil), raw...), Line: s.line, Column: start + 1, oneLine: true}, true, nil
	}
}

func (s *lineSource) close() error { return s.f.Close() }
func (s *lineSource) name() string { return s.display }

func (s *fileSource) close() error { return s.f.Close() }
func (s *fileSource) name() string { return s.display }

// openSource opens the scenario's events.
func (h *Harness) openSource() (source, error) {
	if h.sc.Events.Generate != nil {
		return newGenerator(h.cat, h.sc.Events.Generate)
	}
	if h.inv != nil && h.inv.jsonl {
		return openLines(h.sc.Events.File)
	}
	return openFile(h.sc.Events.File)
}

// keySpec says how a type's record key is found.
type keySpec struct {
	pointer string   // JSON pointer into data
	tokens  []string // its reference tokens
	subject bool
}

func keyOf(t *catalog.EventType) keySpec {
	switch pk := t.Meta.PartitionKey; {
	case pk == "subject":
		return keySpec{subject: true}
	case strings.HasPrefix(pk, "/"):
		return keySpec{pointer: pk, tokens: jsonpos.Split(pk)}
	}
	return keySpec{}
}

// eventKey returns the record key of a decoded event under its type's
// partition key ("" with ok for types without one).
func eventKey(d *envelope.Decoded, ks keySpec) (string, error) {
	switch {
	case ks.subject:
		s := d.Event.Subject()
		if s == "" {
			return "", errors.New("the event has no subject, which is its type's partition key")
		}
		return s, nil
	case ks.pointer != "":
		if d.Data == nil {
			return "", fmt.Errorf("the event has no JSON data to take the partition key %s from", ks.pointer)
		}
		v, ok := lookup(d.Data, ks.pointer)
		if !ok {
			return "", fmt.Errorf("the data has no %s, the partition key of %s", ks.pointer, d.Event.Type())
		}
		switch v := v.(type) {
		case string:
			return v, nil
		case json.Number:
			return v.String(), nil
		case bool:
			if v {
				return "true", nil
			}
			return "false", nil
		}
		return "", fmt.Errorf("the partition key %s is %s; a key must be a string, number or boolean", ks.pointer, kindOf(v))
	}
	return "", nil
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

// converted is an input event ready for the fault plan and the producer.
type converted struct {
	meta chaos.Event
	rec  *kgo.Record // nil when only meta was asked for
	err  error
}

// convert turns an event (already validated) into its plan metadata and,
// when topic is set, its Kafka record: through the fast path when it
// applies (see record.go), else envelope.DecodeJSON and ToRecord.
func (h *Harness) convert(ctx context.Context, raw rawEvent, topic string) converted {
	if raw.Err != nil {
		return converted{err: raw.Err}
	}
	if rec, m, err := h.fastRecord(raw.Raw, topic, topic != ""); err == nil {
		m.Line = raw.Line
		return converted{meta: m, rec: rec}
	}
	return h.slowRecord(ctx, raw, topic)
}

func firstMessage(fs []report.Finding) string {
	for _, f := range fs {
		if f.Severity == report.SeverityError {
			return f.Message
		}
	}
	return "unreadable"
}

// Inventory summarises the validated events.
type Inventory struct {
	Source string           `json:"source"`
	Events int64            `json:"events"`
	Types  map[string]int64 `json:"types"`
	// Topic is the base topic name of the runs.
	Topic string `json:"topic"`

	// jsonl: the file is plain JSONL (see lineSource).
	jsonl bool
}

// InvalidEventsError reports events that fail the catalog; nothing was
// produced.
type InvalidEventsError struct {
	Source   string
	Findings []report.Finding // the first ones, located
	Invalid  int64            // events with errors
}

func (e *InvalidEventsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d event(s) in %s fail the catalog; nothing was produced:", e.Invalid, e.Source)
	for _, f := range e.Findings {
		b.WriteString("\n  ")
		if loc := f.Location(); loc != "" {
			b.WriteString(loc + ": ")
		} else if f.Subject != "" {
			b.WriteString(f.Subject + ": ")
		}
		fmt.Fprintf(&b, "[%s]", f.Rule)
		if f.Pointer != "" {
			fmt.Fprintf(&b, " at %s", f.Pointer)
		}
		b.WriteString(": " + f.Message)
	}
	if shown := countEvents(e.Findings); int64(shown) < e.Invalid {
		fmt.Fprintf(&b, "\n  (and %d more invalid event(s); run `evtool validate` on the events to see them all)", e.Invalid-int64(shown))
	}
	return b.String()
}

func countEvents(fs []report.Finding) int {
	seen := map[string]bool{}
	for _, f := range fs {
		seen[fmt.Sprintf("%s:%d:%s", f.File, f.Line, f.Subject)] = true
	}
	return len(seen)
}

const maxShownInvalid = 10

// Validate checks every event against the catalog (envelope rules, type,
// version, data schema, partition key, topic) before anything is produced,
// streaming the input on all cores.
func (h *Harness) Validate(ctx context.Context) (*Inventory, error) {
	src, err := h.openSource()
	if err != nil {
		return nil, err
	}
	defer src.close()
	if h.mut.idsErr != nil {
		return nil, h.mut.idsErr
	}
	v := &envelope.Validator{Catalog: h.cat, IDs: h.mut.ids}
	inv := &Inventory{Source: src.name(), Types: map[string]int64{}}
	_, isFile := src.(*fileSource)
	jsonl, lastLine := isFile, 0
	bad := &InvalidEventsError{Source: src.name()}
	topics := map[string]bool{}
	type result struct {
		raw      rawEvent
		index    int64
		typ      string
		findings []report.Finding
	}
	var index int64
	next := func() (result, bool, error) {
		r, ok, err := src.next()
		index++
		return result{raw: r, index: index - 1}, ok, err
	}
	work := func(r result) result {
		if r.raw.Err != nil {
			msg := r.raw.Err.Error()
			var ie *envelope.InputError
			if errors.As(r.raw.Err, &ie) {
				msg = ie.Msg
			}
			r.findings = []report.Finding{{Rule: envelope.RuleInput, Severity: report.SeverityError, Message: msg}}
			return r
		}
		d, ver, fs := v.Validate(r.raw.Raw)
		var errs []report.Finding
		for _, f := range fs {
			if f.Severity == report.SeverityError {
				errs = append(errs, f)
			}
		}
		if d != nil && len(errs) == 0 {
			r.typ = d.Event.Type()
			if t := h.cat.Lookup(r.typ); t != nil {
				if _, err := formatValue(d, ver, h.cat.Framing(t), keyOf(t)); err != nil {
					errs = append(errs, report.Finding{Rule: envelope.RuleDataInvalid, Severity: report.SeverityError, Pointer: "/data", Message: err.Error()})
				} else if _, err := eventKey(d, keyOf(t)); err != nil {
					errs = append(errs, report.Finding{Rule: RulePartitionKey, Severity: report.SeverityError, Pointer: "/data" + keyOf(t).pointer, Message: err.Error()})
				}
			}
		}
		if r.raw.Line > 0 {
			it := envelope.Item{Line: r.raw.Line, Column: r.raw.Column}
			for i := range errs {
				errs[i] = it.Locate(errs[i])
			}
		}
		r.findings = errs
		return r
	}
	emit := func(r result) error {
		if !r.raw.oneLine || r.raw.Line <= lastLine {
			jsonl = false
		}
		lastLine = r.raw.Line
		if len(r.findings) > 0 {
			bad.Invalid++
			if len(bad.Findings) < maxShownInvalid {
				for _, f := range r.findings {
					if r.raw.Line > 0 {
						f.File = src.name()
					} else {
						f.Subject = fmt.Sprintf("generated event %d", r.index)
					}
					bad.Findings = append(bad.Findings, f)
				}
			}
			return nil
		}
		inv.Events++
		inv.Types[r.typ]++
		if t := h.cat.Lookup(r.typ); t != nil {
			topics[t.Meta.Topic] = true
		}
		return nil
	}
	if err := pipeline.Ordered(ctx, 0, 0, next, work, emit); err != nil {
		return nil, err
	}
	if bad.Invalid > 0 {
		return nil, bad
	}
	if inv.Events == 0 {
		return nil, fmt.Errorf("%s: no events", src.name())
	}
	inv.jsonl = jsonl
	inv.Topic = h.sc.Kafka.Topic
	if inv.Topic == "" {
		var names []string
		for t := range topics {
			if t != "" {
				names = append(names, t)
			}
		}
		switch len(names) {
		case 0:
			return nil, fmt.Errorf("no topic: the events' types name none in event.yaml; set kafka.topic in %s", h.sc.File)
		case 1:
			inv.Topic = names[0]
		default:
			return nil, fmt.Errorf("the events' types name several topics (%s); a replay uses one: set kafka.topic in %s", strings.Join(sortedStrings(names), ", "), h.sc.File)
		}
	}
	h.inv = inv
	return inv, nil
}

// ForEachEvent streams the scenario's events, decoded, with their plan
// metadata (index, line, id, type, key, partition), in input order. It
// does not validate them (see Validate).
func (h *Harness) ForEachEvent(ctx context.Context, fn func(d *envelope.Decoded, m chaos.Event) error) error {
	src, err := h.openSource()
	if err != nil {
		return err
	}
	defer src.close()
	var index int64
	for {
		raw, ok, err := src.next()
		if err != nil || !ok {
			return err
		}
		if raw.Err != nil {
			return fmt.Errorf("%s:%d: %v", src.name(), raw.Line, raw.Err)
		}
		c := h.convert(ctx, raw, "")
		if c.err != nil {
			return c.err
		}
		d, _ := envelope.DecodeJSON(raw.Raw)
		c.meta.Index = index
		c.meta.ID, c.meta.Key = strings.Clone(c.meta.ID), strings.Clone(c.meta.Key) // see fastRecord
		index++
		if err := fn(d, c.meta); err != nil {
			return err
		}
	}
}

// Partitions returns the partition count of the runs' topics.
func (h *Harness) Partitions() int { return h.partitions }
