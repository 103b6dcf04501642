package envelope

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/report"
)

// MaxDepth is the deepest nesting of arrays and objects an event may have,
// counting the event object itself as depth 1. Deeper input is rejected with
// a json-max-depth finding instead of being parsed: the parser recurses, and
// a bound keeps a hostile 10,000-level event from costing more than a
// fixed, small amount of stack.
const MaxDepth = 1000

// jsonError is the first reason a JSON text could not be parsed. The parser
// stops at the first one: after a syntax error nothing that follows can be
// trusted.
type jsonError struct {
	rule   string // RuleJSONSyntax, RuleJSONUTF8 or RuleJSONDepth
	offset int    // byte offset into the parsed text
	msg    string
}

// pathElem is one step of the JSON pointer to the value being parsed. The
// path is kept only so that a duplicate key deep inside data can be reported
// with a pointer; it costs a slice append per nesting level, not per value.
type pathElem struct {
	key   string
	index int // -1 for object members
}

// parser is a strict, single-pass JSON parser producing the same values as
// encoding/json with UseNumber (map[string]any, []any, string, json.Number,
// bool, nil). It exists because encoding/json silently replaces invalid
// UTF-8, keeps the last of duplicate keys and nests to 10,000 levels; this
// parser reports each of those, and it is also faster, which matters because
// evtool validate is measured against bare decode-and-validate of the data.
type parser struct {
	data []byte
	// src is data as one string. Strings without escapes, member names and
	// numbers are substrings of it, which costs one allocation per event
	// instead of one per value.
	src   string
	pos   int
	depth int
	err   *jsonError
	// base is the top-level member whose value is being parsed; pointers of
	// duplicate-key findings start with it. It is a member name, not a
	// pointer, so that no string is built unless a duplicate is found.
	base string
	// loneSurrogate is set when a string held an unpaired surrogate escape
	// (decoded as U+FFFD, as encoding/json does): allowed in data, not in
	// a CloudEvents attribute.
	loneSurrogate bool
	path          []pathElem
	// dups collects the first maxDupReports duplicate member names, ndups
	// counts them all; they do not stop the parse. The cap keeps a hostile
	// event of a million repeated keys from producing a million findings.
	dups  []dupKey
	ndups int
}

// maxDupReports is how many duplicate member names one event reports
// individually; the rest are counted in one more finding.
const maxDupReports = 10

// noteDup records a duplicate member name at offset; pointer is called only
// for the ones reported.
func (p *parser) noteDup(key string, offset int, pointer func() string) {
	p.ndups++
	if len(p.dups) < maxDupReports {
		p.dups = append(p.dups, dupKey{pointer: pointer(), key: key, offset: offset})
	}
}

type dupKey struct {
	pointer string
	key     string
	offset  int
}

func (p *parser) fail(rule string, offset int, format string, args ...any) {
	if p.err == nil {
		p.err = &jsonError{rule: rule, offset: offset, msg: fmt.Sprintf(format, args...)}
	}
}

func (p *parser) skipWS() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// describe names the byte at offset i for an error message.
func (p *parser) describe(i int) string {
	if i >= len(p.data) {
		return "end of input"
	}
	c := p.data[i]
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("character %q", c)
	}
	if c >= utf8.RuneSelf {
		r, size := utf8.DecodeRune(p.data[i:])
		if r != utf8.RuneError || size > 1 {
			return fmt.Sprintf("character %q", r)
		}
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// unexpected reports the byte at the current position as a syntax error,
// or as invalid UTF-8 when it does not start a valid UTF-8 sequence.
func (p *parser) unexpected(want string) {
	if p.pos < len(p.data) && p.data[p.pos] >= utf8.RuneSelf {
		if r, size := utf8.DecodeRune(p.data[p.pos:]); r == utf8.RuneError && size == 1 {
			p.fail(RuleJSONUTF8, p.pos, "invalid UTF-8 byte 0x%02x at byte offset %d", p.data[p.pos], p.pos)
			return
		}
	}
	p.fail(RuleJSONSyntax, p.pos, "unexpected %s, want %s", p.describe(p.pos), want)
}

// value parses one JSON value at p.pos.
func (p *parser) value() any {
	p.skipWS()
	if p.pos >= len(p.data) {
		p.unexpected("a JSON value")
		return nil
	}
	switch c := p.data[p.pos]; c {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		s, _ := p.str()
		return s
	case 't':
		return p.literal("true", true)
	case 'f':
		return p.literal("false", false)
	case 'n':
		return p.literal("null", nil)
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			n, _ := p.number()
			return n
		}
		p.unexpected("a JSON value")
		return nil
	}
}

func (p *parser) literal(word string, v any) any {
	if len(p.data)-p.pos >= len(word) && string(p.data[p.pos:p.pos+len(word)]) == word {
		p.pos += len(word)
		return v
	}
	// Point at the first byte that differs.
	i := 0
	for p.pos+i < len(p.data) && i < len(word) && p.data[p.pos+i] == word[i] {
		i++
	}
	p.pos += i
	p.unexpected(fmt.Sprintf("%q", word))
	return nil
}

// number checks the RFC 8259 number grammar and returns the text as a
// json.Number, so that no precision is lost before schema validation.
func (p *parser) number() (json.Number, bool) {
	start := p.pos
	d := p.data
	i := p.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		p.pos = i
		p.unexpected("a digit")
		return "", false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			p.pos = i
			p.unexpected("a digit after the decimal point")
			return "", false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			p.pos = i
			p.unexpected("a digit in the exponent")
			return "", false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if jsonstrict.ExponentOutOfRange(p.src[start:i]) {
		p.pos = start
		p.fail(RuleJSONSyntax, start, "number %.40s has an exponent beyond %d digits, which evtool refuses (no event needs more than 10^9999, and schema validators compute with exact numbers)", p.src[start:i], jsonstrict.MaxExponentDigits)
		return "", false
	}
	p.pos = i
	return json.Number(p.src[start:i]), true
}

// str parses a JSON string at p.pos (which holds the opening quote). The
// common case, no escapes, costs one scan and one allocation.
func (p *parser) str() (string, bool) {
	d := p.data
	i := p.pos + 1
	start := i
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return p.src[start:i], true
		case c == '\\':
			return p.strEscaped(start, i)
		case c < 0x20:
			p.pos = i
			if c == '\n' {
				p.fail(RuleJSONSyntax, i, "unterminated string: a raw newline is not allowed inside a JSON string (write \\n)")
			} else {
				p.fail(RuleJSONSyntax, i, "control character 0x%02x inside a string: escape it (\\u%04x)", c, c)
			}
			return "", false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				p.pos = i
				p.fail(RuleJSONUTF8, i, "invalid UTF-8 byte 0x%02x at byte offset %d", c, i)
				return "", false
			}
			i += size
		}
	}
	p.pos = i
	p.fail(RuleJSONSyntax, i, "unterminated string starting at byte offset %d", start-1)
	return "", false
}

// strEscaped finishes a string that contains escapes; start is the first
// content byte and i the first backslash.
func (p *parser) strEscaped(start, i int) (string, bool) {
	d := p.data
	buf := make([]byte, 0, i-start+16)
	buf = append(buf, d[start:i]...)
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return string(buf), true
		case c == '\\':
			if i+1 >= len(d) {
				p.pos = i + 1
				p.fail(RuleJSONSyntax, i+1, "unterminated string starting at byte offset %d", start-1)
				return "", false
			}
			switch e := d[i+1]; e {
			case '"', '\\', '/':
				buf = append(buf, e)
				i += 2
			case 'b':
				buf = append(buf, '\b')
				i += 2
			case 'f':
				buf = append(buf, '\f')
				i += 2
			case 'n':
				buf = append(buf, '\n')
				i += 2
			case 'r':
				buf = append(buf, '\r')
				i += 2
			case 't':
				buf = append(buf, '\t')
				i += 2
			case 'u':
				r, ok := hex4(d, i+2)
				if !ok {
					p.pos = i
					p.fail(RuleJSONSyntax, i, "invalid \\u escape: want four hex digits")
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A high surrogate followed by a low one encodes one
					// rune; a lone surrogate becomes U+FFFD, exactly as
					// encoding/json does, so both decoders agree on data.
					r2, ok2 := rune(-1), false
					if i+1 < len(d) && d[i] == '\\' && d[i+1] == 'u' {
						r2, ok2 = hex4(d, i+2)
					}
					if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
						p.loneSurrogate = true
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				p.pos = i
				p.fail(RuleJSONSyntax, i, "invalid escape \\%s in string", p.describeEsc(i+1))
				return "", false
			}
		case c < 0x20:
			p.pos = i
			if c == '\n' {
				p.fail(RuleJSONSyntax, i, "unterminated string: a raw newline is not allowed inside a JSON string (write \\n)")
			} else {
				p.fail(RuleJSONSyntax, i, "control character 0x%02x inside a string: escape it (\\u%04x)", c, c)
			}
			return "", false
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				p.pos = i
				p.fail(RuleJSONUTF8, i, "invalid UTF-8 byte 0x%02x at byte offset %d", c, i)
				return "", false
			}
			buf = append(buf, d[i:i+size]...)
			i += size
		}
	}
	p.pos = i
	p.fail(RuleJSONSyntax, i, "unterminated string starting at byte offset %d", start-1)
	return "", false
}

func (p *parser) describeEsc(i int) string {
	if i < len(p.data) && p.data[i] >= 0x20 && p.data[i] < 0x7f {
		return string(p.data[i])
	}
	return fmt.Sprintf("<0x%02x>", p.data[i])
}

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

func (p *parser) enter() bool {
	p.depth++
	if p.depth > MaxDepth {
		p.fail(RuleJSONDepth, p.pos, "nesting deeper than %d levels at byte offset %d", MaxDepth, p.pos)
		return false
	}
	return true
}

func (p *parser) object() any {
	if !p.enter() {
		return nil
	}
	p.pos++ // '{'
	m := make(map[string]any)
	p.skipWS()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return m
	}
	p.path = append(p.path, pathElem{index: -1})
	for {
		p.skipWS()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			p.unexpected("a string (object member name)")
			return nil
		}
		keyAt := p.pos
		k, ok := p.str()
		if !ok {
			return nil
		}
		p.skipWS()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			p.unexpected("':' after object member name")
			return nil
		}
		p.pos++
		p.path[len(p.path)-1].key = k
		v := p.value()
		if p.err != nil {
			return nil
		}
		n := len(m)
		m[k] = v
		if len(m) == n {
			// The map did not grow: the key was already there.
			p.noteDup(k, keyAt, p.pointer)
		}
		p.skipWS()
		if p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',':
				p.pos++
				continue
			case '}':
				p.pos++
				p.depth--
				p.path = p.path[:len(p.path)-1]
				return m
			}
		}
		p.unexpected("',' or '}' in object")
		return nil
	}
}

func (p *parser) array() any {
	if !p.enter() {
		return nil
	}
	p.pos++ // '['
	a := make([]any, 0, 4)
	p.skipWS()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return a
	}
	p.path = append(p.path, pathElem{index: 0})
	for {
		p.path[len(p.path)-1].index = len(a)
		v := p.value()
		if p.err != nil {
			return nil
		}
		a = append(a, v)
		p.skipWS()
		if p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',':
				p.pos++
				continue
			case ']':
				p.pos++
				p.depth--
				p.path = p.path[:len(p.path)-1]
				return a
			}
		}
		p.unexpected("',' or ']' in array")
		return nil
	}
}

// pointer renders p.path as a JSON pointer below the member p.base.
func (p *parser) pointer() string {
	var b strings.Builder
	if p.base != "" {
		b.WriteByte('/')
		b.WriteString(jsonpos.Escape(p.base))
	}
	for _, e := range p.path {
		b.WriteByte('/')
		if e.index >= 0 {
			b.WriteString(strconv.Itoa(e.index))
		} else {
			b.WriteString(jsonpos.Escape(e.key))
		}
	}
	return b.String()
}

// parseJSON parses a complete JSON text (one value, surrounding whitespace
// allowed). base names the member the text is the value of ("data"), for
// the pointers of duplicate-key findings.
func parseJSON(data []byte, base string) (any, *parser, *jsonError) {
	p := &parser{data: data, src: string(data), base: base, path: make([]pathElem, 0, 8)}
	v := p.value()
	if p.err == nil {
		p.skipWS()
		if p.pos < len(p.data) {
			p.unexpected("end of input after the JSON value")
		}
	}
	if p.err != nil {
		return nil, p, p.err
	}
	return v, p, nil
}

// dupFindings reports the duplicate member names p found, in input order,
// with lines and columns relative to p.data when locate is set.
func (p *parser) dupFindings(fs []report.Finding, locate bool) []report.Finding {
	sort.Slice(p.dups, func(i, j int) bool { return p.dups[i].offset < p.dups[j].offset })
	line, lineStart, at := 1, 0, 0
	for _, d := range p.dups {
		f := report.Finding{Rule: RuleJSONDuplicateKey, Severity: report.SeverityError, Pointer: d.pointer,
			Message: fmt.Sprintf("member %q appears more than once in its object; JSON readers disagree on which one counts (the last is used): keep one", d.key)}
		if locate {
			for ; at < d.offset; at++ {
				if p.data[at] == '\n' {
					line, lineStart = line+1, at+1
				}
			}
			f.Line, f.Column = line, d.offset-lineStart+1
		}
		fs = append(fs, f)
	}
	if more := p.ndups - len(p.dups); more > 0 {
		fs = append(fs, report.Finding{Rule: RuleJSONDuplicateKey, Severity: report.SeverityError,
			Message: fmt.Sprintf("%d more duplicate member names not listed", more)})
	}
	return fs
}

// lineCol converts a byte offset into a 1-based line and column (in bytes).
func lineCol(data []byte, offset int) (line, col int) {
	if offset > len(data) {
		offset = len(data)
	}
	line, lineStart := 1, 0
	for i := 0; i < offset; i++ {
		if data[i] == '\n' {
			line++
			lineStart = i + 1
		}
	}
	return line, offset - lineStart + 1
}
