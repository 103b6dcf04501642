package rt

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/google/uuid"
)

// EventOption sets an attribute of an event built by a New...Event
// function; options run after the defaults and before validation.
type EventOption func(*event.Event) error

// WithID sets the event's id (default: a random UUID).
func WithID(id string) EventOption {
	return func(e *event.Event) error { e.SetID(id); return nil }
}

// WithTime sets the event's time (default: the current time, UTC).
func WithTime(t time.Time) EventOption {
	return func(e *event.Event) error { e.SetTime(t); return nil }
}

// WithSubject sets the event's subject.
func WithSubject(subject string) EventOption {
	return func(e *event.Event) error { e.SetSubject(subject); return nil }
}

// WithExtension sets an extension attribute (an invalid name or value makes
// the New...Event function fail).
func WithExtension(name string, value any) EventOption {
	return func(e *event.Event) error { e.SetExtension(name, value); return nil }
}

// evtNewEvent builds and validates an event around data, which the caller
// has validated.
func evtNewEvent(typ, dataschema, source string, data []byte, opts []EventOption) (event.Event, error) {
	e := event.New()
	e.SetID(uuid.NewString())
	e.SetSource(source)
	e.SetType(typ)
	e.SetTime(time.Now().UTC())
	e.SetDataSchema(dataschema)
	// The data is JSON: kept as it is, it is written as "data": {...}
	// (SetData with []byte would make it "data_base64").
	e.SetDataContentType(event.ApplicationJSON)
	e.DataEncoded, e.DataBase64 = data, false
	for _, o := range opts {
		if err := o(&e); err != nil {
			return event.Event{}, fmt.Errorf("%s: %w", typ, err)
		}
	}
	if err := e.Validate(); err != nil {
		return event.Event{}, fmt.Errorf("%s: %w", typ, err)
	}
	return e, nil
}

// evtEventData returns the data of an event of type typ, checking that it
// is there and JSON.
func evtEventData(e event.Event, typ string) ([]byte, error) {
	if e.Type() != typ {
		return nil, fmt.Errorf("event %q has type %q, not %s", e.ID(), e.Type(), typ)
	}
	if ct := e.DataContentType(); ct != "" && !evtIsJSONType(ct) {
		return nil, fmt.Errorf("event %q (%s): datacontenttype %q is not JSON", e.ID(), typ, ct)
	}
	data := e.Data()
	if len(data) == 0 {
		return nil, fmt.Errorf("event %q (%s) has no data", e.ID(), typ)
	}
	return data, nil
}

func evtIsJSONType(ct string) bool {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	ct = strings.ToLower(strings.TrimSpace(ct))
	return ct == "application/json" || ct == "text/json" || strings.HasSuffix(ct, "+json")
}

func evtDataErr(e event.Event, typ string, version int, err error) error {
	return fmt.Errorf("event %q (%s v%d): invalid data: %w", e.ID(), typ, version, err)
}

func evtUnknownDataSchema(e event.Event, typ string) error {
	return fmt.Errorf("event %q (%s): unknown dataschema %q: not a version this code was generated for (regenerate with evtool gen go?)", e.ID(), typ, e.DataSchema())
}

func evtSourceErr(typ, source, pattern string) error {
	return fmt.Errorf("%s: source %q does not match the catalog's pattern %q", typ, source, pattern)
}

// ErrUnknownType is wrapped by Decode's error for an event type the
// generated code does not know.
var ErrUnknownType = errors.New("unknown event type")

func evtUnknownType(e event.Event) error {
	return fmt.Errorf("event %q: %w %q", e.ID(), ErrUnknownType, e.Type())
}

func evtEncodeErr(typ string, version int, err error) error {
	return fmt.Errorf("%s v%d: invalid data: %w", typ, version, err)
}
