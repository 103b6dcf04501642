package envelope

import (
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/cloudevents/sdk-go/v2/binding/format"
	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/cloudevents/sdk-go/v2/types"

	"github.com/evtool/evtool/report"
)

// MediaTypeCloudEventsJSON is the media type of the structured JSON format.
const MediaTypeCloudEventsJSON = "application/cloudevents+json"

// JSONFormat is the CloudEvents JSON event format as evtool reads and
// writes it; it implements sdk-go's format.Format for use with the binding
// package (binding.UseFormatForEvent, StructuredWriter). It differs from sdk-go's format.JSON in two ways:
// Unmarshal applies the envelope rules of DecodeJSON and fails on any error
// finding, and Marshal writes data of every JSON media type, including
// */*+json, as a JSON value (sdk-go writes */*+json data as a string, which
// is not what the JSON format specifies) and keeps the time's UTC offset.
type JSONFormat struct{}

var _ format.Format = JSONFormat{}

// MediaType returns application/cloudevents+json.
func (JSONFormat) MediaType() string { return MediaTypeCloudEventsJSON }

// Marshal is MarshalJSON.
func (JSONFormat) Marshal(e *event.Event) ([]byte, error) { return MarshalJSON(e) }

// Unmarshal decodes with DecodeJSON and fails on any error finding.
func (JSONFormat) Unmarshal(b []byte, e *event.Event) error {
	d, fs := DecodeJSON(b)
	if err := findingsError(fs); err != nil {
		return err
	}
	*e = d.Event
	return nil
}

// findingsError joins the error findings into one error, or returns nil.
func findingsError(fs []report.Finding) error {
	var errs []error
	for _, f := range fs {
		if f.Severity == report.SeverityError {
			if f.Pointer != "" {
				errs = append(errs, fmt.Errorf("%s: %s [%s]", f.Pointer, f.Message, f.Rule))
			} else {
				errs = append(errs, fmt.Errorf("%s [%s]", f.Message, f.Rule))
			}
		}
	}
	return errors.Join(errs...)
}

// MarshalJSON writes e in the CloudEvents JSON format: attributes in spec
// order, then data (a JSON value for JSON media types, a string for other
// text, data_base64 for binary data), then extensions sorted by name, so
// that the output is deterministic.
func MarshalJSON(e *event.Event) ([]byte, error) {
	if e.Context == nil {
		return nil, errors.New("event has no context")
	}
	ec := e.Context.AsV1()
	b := make([]byte, 0, 256+len(e.DataEncoded))
	b = append(b, `{"specversion":"1.0","id":`...)
	b = appendJSONString(b, ec.ID)
	b = append(b, `,"source":`...)
	b = appendJSONString(b, ec.Source.String())
	b = append(b, `,"type":`...)
	b = appendJSONString(b, ec.Type)
	mt := ""
	if ec.DataContentType != nil {
		b = append(b, `,"datacontenttype":`...)
		b = appendJSONString(b, *ec.DataContentType)
		m, err := parseMediaType(*ec.DataContentType)
		if err != nil {
			return nil, fmt.Errorf("datacontenttype %q: %v", *ec.DataContentType, err)
		}
		mt = m
	}
	if ec.DataSchema != nil {
		b = append(b, `,"dataschema":`...)
		b = appendJSONString(b, ec.DataSchema.String())
	}
	if ec.Subject != nil {
		b = append(b, `,"subject":`...)
		b = appendJSONString(b, *ec.Subject)
	}
	if ec.Time != nil && !ec.Time.IsZero() {
		b = append(b, `,"time":`...)
		b = appendJSONString(b, ec.Time.Format(time.RFC3339Nano))
	}
	if data := e.DataEncoded; data != nil || e.DataBase64 {
		switch {
		case e.DataBase64:
			// Empty binary data ("data_base64":"") is data, not its absence.
			b = append(b, `,"data_base64":"`...)
			b = base64.StdEncoding.AppendEncode(b, data)
			b = append(b, '"')
		case isJSONMediaType(mt):
			if _, _, jerr := parseJSON(data, "data"); jerr != nil {
				return nil, fmt.Errorf("data is not valid JSON, as its content type %q requires: %s", mt, jerr.msg)
			}
			b = append(b, `,"data":`...)
			b = append(b, data...)
		case utf8.Valid(data):
			b = append(b, `,"data":`...)
			b = appendJSONString(b, string(data))
		default:
			b = append(b, `,"data_base64":"`...)
			b = base64.StdEncoding.AppendEncode(b, data)
			b = append(b, '"')
		}
	}
	names := make([]string, 0, len(ec.Extensions))
	for k := range ec.Extensions {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		b = append(b, ',')
		b = appendJSONString(b, k)
		b = append(b, ':')
		switch v := ec.Extensions[k].(type) {
		case string:
			b = appendJSONString(b, v)
		case bool:
			b = strconv.AppendBool(b, v)
		case int32:
			b = strconv.AppendInt(b, int64(v), 10)
		default:
			s, err := types.Format(v)
			if err != nil {
				return nil, fmt.Errorf("extension %q: %v", k, err)
			}
			b = appendJSONString(b, s)
		}
	}
	return append(b, '}'), nil
}

// appendJSONString appends s as a JSON string. Non-ASCII text is written as
// is; invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
