package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// tokens reads JSON tokens from a stream as json.Decoder's Token, More
// and InputOffset do (UseNumber: numbers come back as json.Number; the
// same grammar checks, commas and colons consumed), without its cost per
// token: json.Decoder decodes each scalar as a top-level value and builds
// (and drops) a syntax error at the comma after it, which made storing a
// state of a million events take minutes. skipToken checks a token
// without making a Go value of it, for values that are only skipped.
type tokens struct {
	r     io.Reader
	buf   []byte
	scanp int   // next unread byte of buf
	done  int64 // bytes dropped from the front of buf
	err   error // the reader's error once it returned one
	state tokState
	stack []tokState
}

type tokState uint8

// The states of json.Decoder's token reader, by the same names.
const (
	tokTopValue tokState = iota
	tokArrayStart
	tokArrayValue
	tokArrayComma
	tokObjectStart
	tokObjectKey
	tokObjectColon
	tokObjectValue
	tokObjectComma
)

// tokenError is a syntax error at an offset of the stream (json's
// SyntaxError has no exported way to make one).
type tokenError struct {
	msg    string
	Offset int64
}

func (e *tokenError) Error() string { return e.msg }

// The read buffer starts small and doubles, up to tokensMaxBuffer, each
// time the bytes read pass four times its size (and for a token longer
// than it): a cursor that reads one short value reads little past it
// (canonicalizing starts one per nested member), a long one reads in
// large blocks.
const (
	tokensMinBuffer = 512
	tokensMaxBuffer = 64 << 10
)

func newTokens(r io.Reader) *tokens {
	return &tokens{r: r, buf: make([]byte, 0, tokensMinBuffer)}
}

// InputOffset is the offset of the byte after the last token read.
func (t *tokens) InputOffset() int64 { return t.done + int64(t.scanp) }

// fill reads more input, keeping buf[scanp:]; false at the end of input.
func (t *tokens) fill() bool {
	if t.err != nil {
		return false
	}
	if t.scanp > 0 {
		t.done += int64(t.scanp)
		n := copy(t.buf, t.buf[t.scanp:])
		t.buf = t.buf[:n]
		t.scanp = 0
	}
	if len(t.buf) == cap(t.buf) || (cap(t.buf) < tokensMaxBuffer && t.done >= 4*int64(cap(t.buf))) {
		nb := make([]byte, len(t.buf), 2*cap(t.buf))
		copy(nb, t.buf)
		t.buf = nb
	}
	for {
		n, err := t.r.Read(t.buf[len(t.buf):cap(t.buf)])
		t.buf = t.buf[:len(t.buf)+n]
		if err != nil {
			t.err = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// more reads more input (fill), keeping *i, an index into buf, at the
// same byte.
func (t *tokens) more(i *int) bool {
	start := t.scanp
	ok := t.fill()
	*i -= start - t.scanp
	return ok
}

// readErr is the error for input that ended (or failed) inside a token.
func (t *tokens) readErr() error {
	if t.err == nil || errors.Is(t.err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return t.err
}

// peek returns the next byte that is not white space, not consuming it.
func (t *tokens) peek() (byte, error) {
	for {
		for i := t.scanp; i < len(t.buf); i++ {
			c := t.buf[i]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				continue
			}
			t.scanp = i
			return c, nil
		}
		t.scanp = len(t.buf)
		if !t.fill() {
			if t.err == nil || errors.Is(t.err, io.EOF) {
				return 0, io.EOF
			}
			return 0, t.err
		}
	}
}

// More reports whether the current array or object has another element.
func (t *tokens) More() bool {
	c, err := t.peek()
	return err == nil && c != ']' && c != '}'
}

// Token returns the next token: json.Delim, string, json.Number, bool or
// nil; io.EOF at the end of the input between values.
func (t *tokens) Token() (json.Token, error) {
	return t.next(true)
}

// skipToken reads the next token as Token does and returns its delimiter
// (0 for a scalar), making no value of a scalar.
func (t *tokens) skipToken() (byte, error) {
	tok, err := t.next(false)
	if d, ok := tok.(json.Delim); ok {
		return byte(d), err
	}
	return 0, err
}

func (t *tokens) next(want bool) (json.Token, error) {
	for {
		c, err := t.peek()
		if err != nil {
			return nil, err
		}
		switch c {
		case '[', '{':
			if !t.valueAllowed() {
				return nil, t.syntax(c)
			}
			t.scanp++
			t.stack = append(t.stack, t.state)
			if c == '[' {
				t.state = tokArrayStart
			} else {
				t.state = tokObjectStart
			}
			return json.Delim(c), nil
		case ']':
			if t.state != tokArrayStart && t.state != tokArrayComma {
				return nil, t.syntax(c)
			}
			t.pop()
			return json.Delim(c), nil
		case '}':
			if t.state != tokObjectStart && t.state != tokObjectComma {
				return nil, t.syntax(c)
			}
			t.pop()
			return json.Delim(c), nil
		case ':':
			if t.state != tokObjectColon {
				return nil, t.syntax(c)
			}
			t.scanp++
			t.state = tokObjectValue
			continue
		case ',':
			switch t.state {
			case tokArrayComma:
				t.state = tokArrayValue
			case tokObjectComma:
				t.state = tokObjectKey
			default:
				return nil, t.syntax(c)
			}
			t.scanp++
			continue
		case '"':
			if t.state == tokObjectStart || t.state == tokObjectKey {
				s, err := t.str(want)
				if err != nil {
					return nil, err
				}
				t.state = tokObjectColon
				return s, nil
			}
		}
		if !t.valueAllowed() {
			return nil, t.syntax(c)
		}
		v, err := t.scalar(c, want)
		if err != nil {
			return nil, err
		}
		t.valueEnd()
		return v, nil
	}
}

func (t *tokens) pop() {
	t.scanp++
	t.state = t.stack[len(t.stack)-1]
	t.stack = t.stack[:len(t.stack)-1]
	t.valueEnd()
}

func (t *tokens) valueAllowed() bool {
	switch t.state {
	case tokTopValue, tokArrayStart, tokArrayValue, tokObjectValue:
		return true
	}
	return false
}

func (t *tokens) valueEnd() {
	switch t.state {
	case tokArrayStart, tokArrayValue:
		t.state = tokArrayComma
	case tokObjectValue:
		t.state = tokObjectComma
	}
}

// syntax is the error for byte c where the grammar does not allow it,
// worded as json's.
func (t *tokens) syntax(c byte) error {
	context := " looking for beginning of value"
	switch t.state {
	case tokArrayComma:
		context = " after array element"
	case tokObjectKey, tokObjectStart:
		context = " looking for beginning of object key string"
	case tokObjectColon:
		context = " after object key"
	case tokObjectComma:
		context = " after object key:value pair"
	}
	return t.errAt(t.InputOffset(), "invalid character "+quoteByte(c)+context)
}

func (t *tokens) errAt(off int64, msg string) error {
	return &tokenError{msg: msg, Offset: off}
}

func quoteByte(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

// scalar reads the value that starts with c: a string, number or literal.
func (t *tokens) scalar(c byte, want bool) (json.Token, error) {
	switch {
	case c == '"':
		return t.str(want)
	case c == '-' || (c >= '0' && c <= '9'):
		return t.number(want)
	case c == 't':
		return true, t.literal("true")
	case c == 'f':
		return false, t.literal("false")
	case c == 'n':
		return nil, t.literal("null")
	}
	return nil, t.syntax(c)
}

func (t *tokens) literal(lit string) error {
	for len(t.buf)-t.scanp < len(lit) {
		if !t.fill() {
			// Check what there is before calling it cut short.
			break
		}
	}
	for i := 0; i < len(lit); i++ {
		if t.scanp+i >= len(t.buf) {
			return t.readErr()
		}
		if c := t.buf[t.scanp+i]; c != lit[i] {
			return t.errAt(t.InputOffset()+int64(i), fmt.Sprintf("invalid character %s in literal %s (expecting %s)", quoteByte(c), lit, quoteByte(lit[i])))
		}
	}
	t.scanp += len(lit)
	return nil
}

// str reads a string starting at the opening quote at scanp.
func (t *tokens) str(want bool) (json.Token, error) {
	i := t.scanp + 1
	escaped := false
	for {
		if i >= len(t.buf) {
			if !t.more(&i) {
				return nil, t.readErr()
			}
			continue
		}
		c := t.buf[i]
		switch {
		case c == '\\':
			escaped = true
			i++
			if i >= len(t.buf) {
				if !t.more(&i) {
					return nil, t.readErr()
				}
			}
			if err := t.escape(&i); err != nil {
				return nil, err
			}
			continue
		case c == '"':
			raw := t.buf[t.scanp : i+1]
			off := t.InputOffset()
			t.scanp = i + 1
			if !want {
				return "", nil
			}
			if !escaped {
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, t.errAt(off, err.Error())
			}
			return s, nil
		case c < 0x20:
			return nil, t.errAt(t.done+int64(i), "invalid character "+quoteByte(c)+" in string literal")
		}
		i++
	}
}

// escape checks the escape whose letter is at buf[*i] (after a
// backslash) and moves *i past it.
func (t *tokens) escape(i *int) error {
	switch t.buf[*i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		*i++
		return nil
	case 'u':
		*i++
		for k := 0; k < 4; k++ {
			for *i >= len(t.buf) {
				if !t.more(i) {
					return t.readErr()
				}
			}
			c := t.buf[*i]
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return t.errAt(t.done+int64(*i), "invalid character "+quoteByte(c)+" in \\u hexadecimal character escape")
			}
			*i++
		}
		return nil
	}
	return t.errAt(t.done+int64(*i), "invalid character "+quoteByte(t.buf[*i])+" in string escape code")
}

// number reads a number starting at scanp, checking JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (t *tokens) number(want bool) (json.Token, error) {
	i := t.scanp
	// at returns the byte at i, or 0 at the end of the input.
	at := func() byte {
		for i >= len(t.buf) {
			if !t.more(&i) {
				return 0
			}
		}
		return t.buf[i]
	}
	digits := func() int {
		n := 0
		for c := at(); c >= '0' && c <= '9'; c = at() {
			i++
			n++
		}
		return n
	}
	bad := func(what string) error {
		c := at()
		if c == 0 && i >= len(t.buf) {
			return t.readErr()
		}
		return t.errAt(t.done+int64(i), "invalid character "+quoteByte(c)+" "+what)
	}
	if at() == '-' {
		i++
	}
	switch c := at(); {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		digits()
	default:
		return nil, bad("in numeric literal")
	}
	if at() == '.' {
		i++
		if digits() == 0 {
			return nil, bad("after decimal point in numeric literal")
		}
	}
	if c := at(); c == 'e' || c == 'E' {
		i++
		if c := at(); c == '+' || c == '-' {
			i++
		}
		if digits() == 0 {
			return nil, bad("in exponent of numeric literal")
		}
	}
	lit := t.buf[t.scanp:i]
	t.scanp = i
	if !want {
		return nil, nil
	}
	return json.Number(lit), nil
}

// quoteJSON is json.Marshal's encoding of s, without its reflection for
// the common string that needs no escape.
func quoteJSON(s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			return b
		}
	}
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
