package envelope

import (
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/cloudevents/sdk-go/v2/types"

	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/report"
)

// Decoded is one event read from JSON (structured mode) or from a Kafka
// record (either mode).
type Decoded struct {
	// Event is the sdk-go model. Only attribute values that passed their
	// rules are set; a finding explains each one left out.
	Event event.Event
	// Data is the data decoded as JSON (objects as map[string]any, numbers
	// as json.Number), ready for schema validation. It is set when the
	// content type is JSON (datacontenttype absent, application/json or
	// */*+json) and the event has data; nil otherwise.
	Data any
	// HasData reports whether the event has data at all. A JSON "data":
	// null counts as no data, as null means absent for attributes.
	HasData bool
	// RawData holds the data bytes as received: the JSON text of the "data"
	// member (for a JSON content type; it aliases the input), the string's
	// content (for other content types), the decoded bytes of data_base64,
	// or the record value in binary mode. Event.DataEncoded is the same
	// slice.
	RawData []byte
	// DataSchema is the dataschema attribute exactly as the event spelled
	// it ("" when absent or rejected); Event.DataSchema() is its parsed
	// and normalised form (a lower-cased scheme, an empty fragment
	// dropped), which the catalog's template must not be matched against.
	DataSchema string
	// JSONFramed is set when JSON data came in the Confluent wire format
	// (magic byte 0 and a 4-byte schema id, as Confluent's JSON Schema
	// serializers write it), JSONFrameID to that id. RawData is the JSON
	// after the frame. No JSON text starts with a zero byte, so a frame is
	// never mistaken for data.
	JSONFramed  bool
	JSONFrameID uint32
}

// DecodeJSON decodes one event in the CloudEvents JSON format (structured
// mode) and checks it against the CloudEvents 1.0.2 rules, then against
// sdk-go's Validate. It parses the input once: attributes individually,
// data once into Data (keeping its raw bytes), and builds the event without
// re-marshalling anything.
//
// The returned findings are rule violations (errors and warnings). Decoded
// is nil only when raw is not usable: not JSON, not UTF-8, nested deeper
// than MaxDepth, or not an object. Findings about the JSON text carry Line
// and Column relative to raw (see Item.Locate).
func DecodeJSON(raw []byte) (*Decoded, []report.Finding) { return decodeJSON(raw, nil) }

// decodeJSON is DecodeJSON with an optional cache of parsed URIs.
func decodeJSON(raw []byte, uris *uriCache) (*Decoded, []report.Finding) {
	var fs []report.Finding
	p := parser{data: raw, src: string(raw), path: make([]pathElem, 0, 8)}
	p.skipWS()
	if p.pos >= len(raw) {
		return nil, []report.Finding{syntaxFinding(raw, &jsonError{rule: RuleJSONSyntax, offset: p.pos, msg: "empty input: want a JSON object"})}
	}
	if raw[p.pos] != '{' {
		start := p.pos
		v := p.value()
		if p.err == nil {
			p.skipWS()
			if p.pos < len(raw) {
				p.unexpected("end of input after the JSON value")
			}
		}
		if p.err != nil {
			return nil, []report.Finding{syntaxFinding(raw, p.err)}
		}
		f := report.Finding{Rule: RuleNotObject, Severity: report.SeverityError,
			Message: fmt.Sprintf("an event must be a JSON object, got %s", jsonKind(v))}
		f.Line, f.Column = lineCol(raw, start)
		return nil, []report.Finding{f}
	}

	var (
		attrs      = make([]Attr, 0, 12)
		index      map[string]int // name -> position in attrs, for many members
		data       any
		dataRaw    []byte
		hasData    bool
		dataIsStr  bool
		dataStr    string
		b64        string
		hasB64     bool
		b64Invalid bool
	)
	p.depth = 1
	p.pos++ // '{'
	p.skipWS()
	if p.pos < len(raw) && raw[p.pos] == '}' {
		p.pos++
	} else {
		seenData, seenB64 := false, false
		for {
			p.skipWS()
			if p.pos >= len(raw) || raw[p.pos] != '"' {
				p.unexpected("a string (object member name)")
				break
			}
			keyAt := p.pos
			k, ok := p.str()
			if !ok {
				break
			}
			p.skipWS()
			if p.pos >= len(raw) || raw[p.pos] != ':' {
				p.unexpected("':' after object member name")
				break
			}
			p.pos++
			p.skipWS()
			valAt := p.pos

			dup := false
			switch k {
			case "data":
				dup, seenData = seenData, true
				p.base = "data"
				v := p.value()
				if p.err != nil {
					break
				}
				data, hasData, dataRaw = v, v != nil, raw[valAt:p.pos]
				dataStr, dataIsStr = v.(string)
			case "data_base64":
				dup, seenB64 = seenB64, true
				p.base = "data_base64"
				v := p.value()
				if p.err != nil {
					break
				}
				hasB64, b64Invalid = false, false
				switch v := v.(type) {
				case nil:
				case string:
					b64, hasB64 = v, true
				default:
					b64Invalid = true
					fs = append(fs, report.Finding{Rule: RuleDataBase64, Severity: report.SeverityError, Pointer: "/data_base64",
						Message: fmt.Sprintf("data_base64 must be a string of Base64 (RFC 4648), got %s", jsonKind(v))})
				}
			default:
				p.base = k
				p.loneSurrogate = false
				v := p.value()
				if p.err != nil {
					break
				}
				if _, isStr := v.(string); isStr && p.loneSurrogate {
					v = loneSurrogateString{}
				}
				if index == nil && len(attrs) >= 16 {
					index = make(map[string]int, 2*len(attrs))
					for i, a := range attrs {
						index[a.Name] = i
					}
				}
				at := -1
				if index != nil {
					if i, ok := index[k]; ok {
						at = i
					}
				} else {
					for i := range attrs {
						if attrs[i].Name == k {
							at = i
							break
						}
					}
				}
				if at >= 0 {
					dup = true
					attrs[at].Value = v // the last one wins, as in encoding/json
				} else {
					if index != nil {
						index[k] = len(attrs)
					}
					attrs = append(attrs, Attr{Name: k, Value: v})
				}
			}
			if p.err != nil {
				break
			}
			if dup {
				p.noteDup(k, keyAt, func() string { return "/" + jsonpos.Escape(k) })
			}
			p.skipWS()
			if p.pos < len(raw) && raw[p.pos] == ',' {
				p.pos++
				continue
			}
			if p.pos < len(raw) && raw[p.pos] == '}' {
				p.pos++
				break
			}
			p.unexpected("',' or '}' in object")
			break
		}
	}
	if p.err == nil {
		p.skipWS()
		if p.pos < len(raw) {
			p.unexpected("end of input after the event object")
		}
	}
	if p.err != nil {
		return nil, append(fs, syntaxFinding(raw, p.err))
	}
	fs = p.dupFindings(fs, true)

	c := checked{uris: uris}
	fs = checkAttributes(attrs, &c, fs)

	d := &Decoded{DataSchema: c.dataschemaText}
	switch {
	case hasData && (hasB64 || b64Invalid):
		fs = append(fs, report.Finding{Rule: RuleDataExclusive, Severity: report.SeverityError, Pointer: "/data_base64",
			Message: "data and data_base64 are mutually exclusive: use data for JSON or text, data_base64 for binary"})
	case hasB64:
		bin, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			fs = append(fs, report.Finding{Rule: RuleDataBase64, Severity: report.SeverityError, Pointer: "/data_base64",
				Message: fmt.Sprintf("data_base64 is not valid Base64 (RFC 4648, with padding): %v", err)})
			break
		}
		d.HasData, d.RawData = true, bin
		d.Event.DataBase64 = true
		if isJSONMediaType(c.mediaType) && !c.bad["datacontenttype"] {
			fs = d.decodeDataBytes(fs, "/data_base64")
		}
	case hasData:
		d.HasData = true
		switch {
		case c.bad["datacontenttype"]:
			d.RawData = dataRaw // type unknown: keep the JSON text
		case isJSONMediaType(c.mediaType):
			d.Data, d.RawData = data, dataRaw
		case dataIsStr:
			d.RawData = []byte(dataStr)
		default:
			d.RawData = dataRaw
			fs = append(fs, report.Finding{Rule: RuleDataType, Severity: report.SeverityWarning, Pointer: "/data",
				Message: fmt.Sprintf("datacontenttype %q is not JSON but data is %s: write the data as a JSON string, use data_base64, or declare a JSON content type", c.datacontenttype, jsonKind(data))})
		}
	}
	d.Event = buildEvent(&c, d.RawData, d.Event.DataBase64)
	fs = sdkFindings(&d.Event, &c, fs)
	return d, fs
}

// decodeDataBytes parses d.RawData as JSON into d.Data; ptr names where the
// bytes came from (the record value in binary mode, data_base64).
func (d *Decoded) decodeDataBytes(fs []report.Finding, ptr string) []report.Finding {
	v, dp, jerr := parseJSON(d.RawData, "data")
	if jerr != nil {
		return append(fs, report.Finding{Rule: jerr.rule, Severity: report.SeverityError, Pointer: ptr,
			Message: fmt.Sprintf("data is not JSON, as its content type says it is: %s (at byte %d of the data)", jerr.msg, jerr.offset)})
	}
	fs = dp.dupFindings(fs, false)
	d.Data = v
	return fs
}

func syntaxFinding(raw []byte, e *jsonError) report.Finding {
	f := report.Finding{Rule: e.rule, Severity: report.SeverityError}
	f.Line, f.Column = lineCol(raw, e.offset)
	f.Message = fmt.Sprintf("%s (line %d, column %d of the event)", e.msg, f.Line, f.Column)
	if e.rule == RuleJSONSyntax {
		f.Message = "malformed JSON: " + f.Message
	}
	return f
}

// buildEvent fills an sdk-go event from checked attribute values. It sets
// the EventContextV1 fields directly instead of calling the Set* methods:
// those trim white space (changing the value the producer sent) and parse
// URIs a second time.
func buildEvent(c *checked, data []byte, base64 bool) event.Event {
	ec := &event.EventContextV1{ID: c.id, Type: c.typ}
	if c.source != nil {
		ec.Source = types.URIRef{URL: *c.source}
	}
	if c.datacontenttype != "" {
		dct := c.datacontenttype
		ec.DataContentType = &dct
	}
	if c.dataschema != nil {
		ec.DataSchema = &types.URI{URL: *c.dataschema}
	}
	if c.hasSubject {
		s := c.subject
		ec.Subject = &s
	}
	if c.hasTime {
		ec.Time = &types.Timestamp{Time: c.time}
	}
	if len(c.ext) > 0 {
		ec.Extensions = c.ext
	}
	e := event.Event{Context: ec, DataEncoded: data, DataBase64: base64}
	if len(data) == 0 {
		e.DataEncoded = nil
	}
	return e
}

// sdkFindings runs sdk-go's Validate on the built event and reports what it
// finds that the envelope rules did not already report for the same
// attribute (it notably rejects values that are only white space).
func sdkFindings(e *event.Event, c *checked, fs []report.Finding) []report.Finding {
	err := e.Validate()
	if err == nil {
		return fs
	}
	var ve event.ValidationError
	if !errors.As(err, &ve) {
		return append(fs, report.Finding{Rule: RuleSDK, Severity: report.SeverityError, Message: "sdk-go: " + err.Error()})
	}
	keys := make([]string, 0, len(ve))
	for k := range ve {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := strings.TrimPrefix(k, "extension:")
		if c.bad[name] {
			continue
		}
		ptr := "/" + jsonpos.Escape(name)
		fs = append(fs, report.Finding{Rule: RuleSDK, Severity: report.SeverityError, Pointer: ptr,
			Message: fmt.Sprintf("sdk-go rejects %s: %v", k, ve[k])})
	}
	return fs
}
