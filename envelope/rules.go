package envelope

import (
	"encoding/json"
	"fmt"
	"math"
	"mime"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/report"
)

// Rule ids of envelope findings. They are stable: CI configurations and
// ignore lists refer to them.
const (
	// JSON text problems; the event cannot be used at all (except for
	// duplicate keys, which are reported and the last value kept).
	RuleJSONSyntax       = "json-syntax"
	RuleJSONUTF8         = "json-invalid-utf8"
	RuleJSONDepth        = "json-max-depth"
	RuleJSONDuplicateKey = "json-duplicate-key"
	RuleNotObject        = "ce-not-object"

	// CloudEvents 1.0.2 rules.
	RuleAttributeName       = "ce-attribute-name"
	RuleAttributeNameLength = "ce-attribute-name-length" // a warning
	RuleDuplicateAttribute  = "ce-duplicate-attribute"
	RuleReservedName        = "ce-extension-name-reserved"
	RuleExtensionValue      = "ce-extension-value"
	RuleAttributeType       = "ce-attribute-type"
	RuleAttributeUTF8       = "ce-attribute-invalid-utf8"
	RuleRequired            = "ce-required-attribute"
	RuleSpecVersion         = "ce-specversion"
	RuleControlCharacter    = "ce-control-character"
	RuleTime                = "ce-time"
	RuleSource              = "ce-source"
	RuleDataSchema          = "ce-dataschema"
	RuleDataContentType     = "ce-datacontenttype"
	RuleSubject             = "ce-subject"
	RuleDataExclusive       = "ce-data-exclusive"
	RuleDataBase64          = "ce-data-base64"
	RuleDataType            = "ce-data-type" // a warning
	RuleSDK                 = "ce-sdk-validate"
)

// MaxAttributeNameLength is the length above which an attribute name draws
// a warning: CloudEvents 1.0.2 says names SHOULD NOT exceed 20 characters
// (some protocols limit header names), but longer names are still valid.
const MaxAttributeNameLength = 20

// Attr is one context attribute or extension as it appeared in the input,
// before any conversion. Value is what the input held: from JSON a string,
// bool, json.Number, map[string]any, []any or nil (null, meaning absent);
// from Kafka headers always a string.
type Attr struct {
	Name  string
	Value any
}

// loneSurrogateString stands for an attribute string that held an unpaired
// surrogate escape ("\ud800"): CloudEvents strings exclude surrogates
// unless paired, and the text decoded to U+FFFD would not be what the
// producer sent.
type loneSurrogateString struct{}

// checked holds the attribute values that passed their rules, already
// parsed, so that building the event does not parse them a second time.
type checked struct {
	id, typ, specversion string
	source               *url.URL
	dataschema           *url.URL
	dataschemaText       string // as spelled
	time                 time.Time
	hasTime              bool
	datacontenttype      string // "" when absent or invalid
	mediaType            string // lower-case type/subtype of datacontenttype
	hasSubject           bool
	subject              string
	ext                  map[string]any // string, bool or int32
	// bad names the attributes that failed a rule, so that the sdk-go
	// complaints about the same attribute are not reported twice.
	bad map[string]bool
	// uris, when set, caches parsed sources and dataschemas.
	uris *uriCache
}

// uriCache remembers parsed URI-references (sources, dataschemas): event
// streams repeat a handful of them millions of times, and url.Parse is a
// measurable part of checking an event. It stops growing at
// lookupCacheMax entries. The cached *url.URL values are shared: nothing
// may modify them (buildEvent copies them into the event).
type uriCache struct {
	n atomic.Int64
	m sync.Map // string -> *url.URL
}

func (u *uriCache) parse(s string) (*url.URL, error) {
	if u == nil {
		return parseURIReference(s)
	}
	if v, ok := u.m.Load(s); ok {
		return v.(*url.URL), nil
	}
	p, err := parseURIReference(s)
	if err == nil && u.n.Load() < lookupCacheMax {
		u.n.Add(1)
		u.m.Store(s, p)
	}
	return p, err
}

// contextAttributes are the CloudEvents 1.0.2 context attributes; every
// other name is an extension.
func isContextAttribute(name string) bool {
	switch name {
	case "id", "source", "specversion", "type", "datacontenttype", "dataschema", "subject", "time":
		return true
	}
	return false
}

// CheckAttributes applies the CloudEvents 1.0.2 attribute rules shared by
// every input form (structured JSON, Kafka binary headers) to attrs, in
// order. Names must be the attribute names themselves (for Kafka headers,
// without the ce_ prefix and lower-cased; datacontenttype for content-type).
// A nil value means the attribute is absent, as the JSON format says of
// null. The data itself is not an attribute and is not passed here.
func CheckAttributes(attrs []Attr) []report.Finding {
	var c checked
	return checkAttributes(attrs, &c, nil)
}

// checker accumulates findings for checkAttributes.
type checker struct {
	c  *checked
	fs []report.Finding
}

// add records a finding about the attribute name; the pointer is built only
// here, so that valid events cost no string building.
func (k *checker) add(rule string, sev report.Severity, name, format string, args ...any) {
	k.fs = append(k.fs, report.Finding{Rule: rule, Severity: sev, Pointer: "/" + jsonpos.Escape(name), Message: fmt.Sprintf(format, args...)})
	if sev == report.SeverityError {
		if k.c.bad == nil {
			k.c.bad = make(map[string]bool)
		}
		k.c.bad[name] = true
	}
}

func (k *checker) errorf(rule, name, format string, args ...any) {
	k.add(rule, report.SeverityError, name, format, args...)
}

func checkAttributes(attrs []Attr, c *checked, fs []report.Finding) []report.Finding {
	k := checker{c: c, fs: fs}
	var seen map[string]bool
	if len(attrs) > 16 {
		seen = make(map[string]bool, len(attrs))
	}
	present := func(name string) bool {
		for _, a := range attrs {
			if a.Name == name && a.Value != nil {
				return true
			}
		}
		return false
	}

	for i, a := range attrs {
		name := a.Name

		// Duplicates: the second occurrence is reported and skipped.
		dup := false
		if seen != nil {
			dup = seen[name]
			seen[name] = true
		} else {
			for _, b := range attrs[:i] {
				if b.Name == name {
					dup = true
					break
				}
			}
		}
		if dup {
			k.errorf(RuleDuplicateAttribute, name, "attribute %q is given more than once: keep one", name)
			continue
		}

		nameOK := checkName(name)
		if !nameOK {
			k.errorf(RuleAttributeName, name, "attribute name %q is invalid: CloudEvents attribute names use only lower-case letters a-z and digits 0-9%s", name, suggestName(name))
		} else if len(name) > MaxAttributeNameLength {
			k.add(RuleAttributeNameLength, report.SeverityWarning, name, "attribute name %q is %d characters long: CloudEvents recommends at most %d", name, len(name), MaxAttributeNameLength)
		}
		if name == "data" {
			k.errorf(RuleReservedName, name, "\"data\" is reserved for the event data and cannot be an extension name")
			continue
		}
		if a.Value == nil {
			continue // null means absent
		}

		if _, lone := a.Value.(loneSurrogateString); lone {
			k.errorf(RuleControlCharacter, name, "attribute %q contains an unpaired surrogate escape (U+D800-U+DFFF): CloudEvents strings exclude surrogates that are not a pair", name)
			continue
		}
		if isContextAttribute(name) {
			s, ok := a.Value.(string)
			if !ok {
				k.errorf(RuleAttributeType, name, "attribute %q must be a string, got %s", name, jsonKind(a.Value))
				continue
			}
			if !k.checkString(s, name) {
				continue
			}
			k.checkContextAttribute(name, s)
			continue
		}

		// Extension.
		v, ok := extensionValue(a.Value)
		if !ok {
			k.errorf(RuleExtensionValue, name, "extension %q must be a string, a boolean or an integer from -2147483648 to 2147483647, got %s", name, describeValue(a.Value))
			continue
		}
		if s, isStr := v.(string); isStr && !k.checkString(s, name) {
			continue
		}
		if nameOK {
			if c.ext == nil {
				c.ext = make(map[string]any)
			}
			c.ext[name] = v
		}
	}

	for _, name := range [...]string{"id", "source", "specversion", "type"} {
		if !present(name) {
			k.errorf(RuleRequired, name, "required attribute %q is missing", name)
		}
	}
	return k.fs
}

// checkContextAttribute applies the rule of one context attribute whose
// value is a string free of control characters.
func (k *checker) checkContextAttribute(name, s string) {
	c := k.c
	switch name {
	case "id", "type":
		if s == "" {
			k.errorf(RuleRequired, name, "attribute %q must be a non-empty string", name)
			return
		}
		if name == "id" {
			c.id = s
		} else {
			c.typ = s
		}
	case "specversion":
		if s != "1.0" {
			k.errorf(RuleSpecVersion, name, "specversion must be exactly \"1.0\", got %q", s)
			return
		}
		c.specversion = s
	case "source":
		if s == "" {
			k.errorf(RuleRequired, name, "attribute \"source\" must be a non-empty URI-reference")
			return
		}
		u, err := c.uris.parse(s)
		if err != nil {
			k.errorf(RuleSource, name, "source %q is not a URI-reference (RFC 3986): %v", s, err)
			return
		}
		c.source = u
	case "dataschema":
		u, err := c.uris.parse(s)
		if err == nil && !u.IsAbs() {
			err = fmt.Errorf("it has no scheme; use an absolute URI such as https://schemas.example.com/type/v1.json")
		}
		if err != nil {
			k.errorf(RuleDataSchema, name, "dataschema %q is not an absolute URI: %v", s, err)
			return
		}
		c.dataschema, c.dataschemaText = u, s
	case "datacontenttype":
		mt, err := parseMediaType(s)
		if err != nil {
			k.errorf(RuleDataContentType, name, "datacontenttype %q is not a media type (RFC 2046), e.g. application/json: %v", s, err)
			return
		}
		c.datacontenttype, c.mediaType = s, mt
	case "subject":
		if s == "" {
			k.errorf(RuleSubject, name, "subject, if present, must be a non-empty string: omit it instead")
			return
		}
		c.subject, c.hasSubject = s, true
	case "time":
		t, err := parseRFC3339(s)
		if err != nil {
			k.errorf(RuleTime, name, "time %q is not an RFC 3339 timestamp like 2018-04-05T17:31:00Z: %v", s, err)
			return
		}
		c.time, c.hasTime = t, true
	}
}

// checkString reports invalid UTF-8 and control characters in a string
// attribute value; CloudEvents 1.0.2 excludes U+0000-U+001F and
// U+007F-U+009F from its String type.
func (k *checker) checkString(s, name string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				k.errorf(RuleControlCharacter, name, "attribute %q contains control character U+%04X at byte %d: CloudEvents strings exclude U+0000-U+001F and U+007F-U+009F", name, c, i)
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			k.errorf(RuleAttributeUTF8, name, "attribute %q is not valid UTF-8 (byte 0x%02x at %d)", name, c, i)
			return false
		}
		if r >= 0xFDD0 && r <= 0xFDEF || r&0xFFFE == 0xFFFE {
			k.errorf(RuleControlCharacter, name, "attribute %q contains the noncharacter U+%04X at byte %d: CloudEvents strings exclude Unicode noncharacters", name, r, i)
			return false
		}
		if r >= 0x80 && r <= 0x9f {
			k.errorf(RuleControlCharacter, name, "attribute %q contains control character U+%04X at byte %d: CloudEvents strings exclude U+0000-U+001F and U+007F-U+009F", name, r, i)
			return false
		}
		i += size
	}
	return true
}

// checkName reports whether name matches ^[a-z0-9]+$.
func checkName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// suggestName proposes a valid spelling, when dropping the offending
// characters and lower-casing gives one.
func suggestName(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 || b.String() == name {
		return ""
	}
	return fmt.Sprintf(" (try %q)", b.String())
}

// extensionValue converts an extension value to its CloudEvents type
// (string, bool or int32) or reports that it has none. Numbers must be
// whole and within int32; 3.0 and 3e2 are whole, 3.5 is not. sdk-go would
// silently truncate 3.5 to 3; evtool refuses it.
func extensionValue(v any) (any, bool) {
	switch v := v.(type) {
	case string, bool, int32:
		return v, true
	case json.Number:
		n, ok := wholeInt32(string(v))
		return n, ok
	case int:
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return int32(v), true
		}
	case int64:
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return int32(v), true
		}
	case float64:
		if v == math.Trunc(v) && v >= math.MinInt32 && v <= math.MaxInt32 {
			return int32(v), true
		}
	}
	return nil, false
}

// wholeInt32 decides exactly, from the decimal text of a JSON number,
// whether it is a whole number in int32 range, without float rounding
// (0.99999999999999999999 is not 1).
func wholeInt32(s string) (int32, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return 0, false // exponent too large to matter: not int32
		}
		mant, exp = s[:i], e
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	if digits == "" {
		return 0, true
	}
	if exp < 0 || len(digits)+exp > 10 {
		return 0, false
	}
	n, err := strconv.ParseInt(digits+strings.Repeat("0", exp), 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, false
	}
	return int32(n), true
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, int, int32, int64, float64:
		return "a number"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func describeValue(v any) string {
	switch v := v.(type) {
	case json.Number:
		return "the number " + string(v)
	case float64:
		return "the number " + strconv.FormatFloat(v, 'g', -1, 64)
	case int, int64:
		return fmt.Sprintf("the number %d", v)
	}
	return jsonKind(v)
}

// uriChars marks the bytes RFC 3986 allows in a URI-reference ('%' is
// checked separately, with its two hex digits).
var uriChars = func() (t [256]bool) {
	for _, c := range []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?#[]@!$&'()*+,;=") {
		t[c] = true
	}
	return t
}()

// parseURIReference parses s as an RFC 3986 URI-reference. net/url alone is
// too lenient (it accepts spaces, quotes and non-ASCII in paths), so the
// characters are checked first.
func parseURIReference(s string) (*url.URL, error) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return nil, fmt.Errorf("'%%' at byte %d is not followed by two hex digits", i)
			}
			i += 2
			continue
		}
		if !uriChars[c] {
			if c >= utf8.RuneSelf {
				r, _ := utf8.DecodeRuneInString(s[i:])
				return nil, fmt.Errorf("character %q at byte %d must be percent-encoded", r, i)
			}
			return nil, fmt.Errorf("character %q at byte %d must be percent-encoded", c, i)
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if e, ok := err.(*url.Error); ok {
			ue = e
			return nil, ue.Err
		}
		return nil, err
	}
	return u, nil
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// parseMediaType checks an RFC 2046 media type with mime.ParseMediaType
// plus what that function lets through (no subtype, wildcards, surrounding
// space) and returns the lower-case type/subtype.
func parseMediaType(s string) (string, error) {
	// Fast path for the common case without parameters, which needs no
	// allocation (mime.ParseMediaType allocates a parameter map).
	if typ, sub, ok := strings.Cut(s, "/"); ok && isToken(typ) && isToken(sub) {
		if typ == "*" || sub == "*" {
			return "", fmt.Errorf("wildcards name a range of media types, not a type")
		}
		return strings.ToLower(s), nil
	}
	if s != strings.TrimSpace(s) {
		return "", fmt.Errorf("leading or trailing white space")
	}
	mt, _, err := mime.ParseMediaType(s)
	if err != nil {
		return "", err
	}
	typ, sub, ok := strings.Cut(mt, "/")
	if !ok || typ == "" || sub == "" {
		return "", fmt.Errorf("want type/subtype")
	}
	if typ == "*" || sub == "*" {
		return "", fmt.Errorf("wildcards name a range of media types, not a type")
	}
	return mt, nil
}

// isToken reports whether s is an RFC 2045 token: one or more printable
// ASCII characters other than space and tspecials.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?=`, c) >= 0 {
			return false
		}
	}
	return true
}

// isJSONMediaType reports whether data of media type mt (lower-case
// type/subtype, "" when datacontenttype is absent) is JSON: absent,
// application/json, or any type with the +json structured syntax suffix.
func isJSONMediaType(mt string) bool {
	return mt == "" || mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// parseRFC3339 parses an RFC 3339 date-time strictly. time.Parse with
// time.RFC3339Nano alone accepts a one-digit hour, a comma before the
// fraction and offsets of 24 hours or more; RFC 3339 allows none of those
// but does allow a lower-case t and z, and a leap second (:60).
func parseRFC3339(s string) (time.Time, error) {
	// date-time = full-date "T" full-time
	// full-date = 4DIGIT "-" 2DIGIT "-" 2DIGIT; partial-time = 2DIGIT ":" 2DIGIT ":" 2DIGIT [ "." 1*DIGIT ]
	const shape = "dddd-dd-ddTdd:dd:dd"
	if len(s) < len(shape) {
		return time.Time{}, fmt.Errorf("too short")
	}
	for i := 0; i < len(shape); i++ {
		c := s[i]
		switch shape[i] {
		case 'd':
			if c < '0' || c > '9' {
				return time.Time{}, fmt.Errorf("want a digit at position %d", i+1)
			}
		case 'T':
			if c != 'T' && c != 't' {
				return time.Time{}, fmt.Errorf("want 'T' between date and time at position %d", i+1)
			}
		default:
			if c != shape[i] {
				return time.Time{}, fmt.Errorf("want %q at position %d", shape[i], i+1)
			}
		}
	}
	i := len(shape)
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i+1 {
			return time.Time{}, fmt.Errorf("want digits after '.' at position %d", i+2)
		}
		i = j
	}
	zone := s[i:]
	switch {
	case zone == "Z" || zone == "z":
	case len(zone) == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':' &&
		isDigit(zone[1]) && isDigit(zone[2]) && isDigit(zone[4]) && isDigit(zone[5]):
		if h := (zone[1]-'0')*10 + zone[2] - '0'; h > 23 {
			return time.Time{}, fmt.Errorf("zone offset hour %d is out of range", h)
		}
		if m := (zone[4]-'0')*10 + zone[5] - '0'; m > 59 {
			return time.Time{}, fmt.Errorf("zone offset minute %d is out of range", m)
		}
	case zone == "":
		return time.Time{}, fmt.Errorf("missing time zone: add Z or an offset like +02:00")
	default:
		return time.Time{}, fmt.Errorf("bad time zone %q: want Z or an offset like +02:00", zone)
	}
	norm := s
	if s[10] == 't' || zone == "z" {
		norm = strings.ToUpper(s)
	}
	leap := norm[17:19] == "60"
	if leap {
		norm = norm[:17] + "59" + norm[19:]
	}
	// Fractions beyond nanoseconds are legal RFC 3339; time.Parse truncates
	// them, which is what we want.
	t, err := time.Parse(time.RFC3339Nano, norm)
	if err != nil {
		var pe *time.ParseError
		if e, ok := err.(*time.ParseError); ok {
			pe = e
			if pe.Message != "" {
				return time.Time{}, fmt.Errorf("%s", strings.TrimPrefix(pe.Message, ": "))
			}
		}
		return time.Time{}, err
	}
	if leap {
		// A leap second is only ever the last second of a UTC day.
		if u := t.UTC(); u.Hour() != 23 || u.Minute() != 59 {
			return time.Time{}, fmt.Errorf("second 60 (a leap second) only exists at 23:59:60 UTC")
		}
		t = t.Add(time.Second)
	}
	return t, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
