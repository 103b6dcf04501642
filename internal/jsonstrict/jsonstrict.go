// Package jsonstrict decodes JSON documents that evtool reads from files
// (schemas, examples) without losing anything: duplicate object keys,
// invalid UTF-8, trailing data and absurd nesting are errors with a line
// and column instead of being silently resolved the way encoding/json does.
// Numbers decode as json.Number so no precision is lost either.
package jsonstrict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/evtool/evtool/internal/jsonpos"
)

// MaxDepth bounds nesting; deeper documents are rejected before any
// recursive code sees them.
const MaxDepth = 1000

// MaxExponentDigits bounds the exponent of a JSON number to 4 digits
// (|e| < 10000). JSON allows any exponent, but santhosh-tekuri/jsonschema
// computes with math/big: 1e9999999 makes it panic (big.Rat.SetString
// fails and the nil result is compared), and a large but parseable exponent
// costs memory in proportion to its value. No real event or schema needs
// more than 10^9999.
const MaxExponentDigits = 4

// ExponentOutOfRange reports whether the JSON number text num has an
// exponent evtool refuses (see MaxExponentDigits).
func ExponentOutOfRange(num string) bool {
	i := strings.IndexAny(num, "eE")
	if i < 0 {
		return false
	}
	exp := strings.TrimLeft(num[i+1:], "+-")
	exp = strings.TrimLeft(exp, "0")
	return len(exp) > MaxExponentDigits
}

// Error is a decoding error with its position.
type Error struct {
	Line, Column int
	Pointer      string
	Msg          string
}

func (e *Error) Error() string {
	if e.Pointer != "" {
		return fmt.Sprintf("line %d, column %d (at %s): %s", e.Line, e.Column, e.Pointer, e.Msg)
	}
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Decode parses data as exactly one JSON value.
func Decode(data []byte) (any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{Line: 1, Column: 1, Msg: "empty file: expected a JSON value"}
	}
	if !utf8.Valid(data) {
		off := InvalidUTF8Offset(data)
		line, col := jsonpos.LineCol(data, int64(off))
		return nil, &Error{Line: line, Column: col, Msg: "invalid UTF-8"}
	}
	if d := Depth(data); d > MaxDepth {
		return nil, &Error{Line: 1, Column: 1, Msg: fmt.Sprintf("nested %d levels deep; the limit is %d", d, MaxDepth)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := parser{dec: dec, data: data}
	v, err := p.value("")
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		line, col := jsonpos.LineCol(data, dec.InputOffset())
		return nil, &Error{Line: line, Column: col, Msg: "unexpected data after the JSON value"}
	}
	return v, nil
}

// Depth returns the maximum nesting depth of arrays and objects in data
// without building anything; strings are skipped correctly.
func Depth(data []byte) int {
	depth, max := 0, 0
	inString, escaped := false, false
	for _, c := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > max {
				max = depth
			}
		case '}', ']':
			depth--
		}
	}
	return max
}

// InvalidUTF8Offset returns the offset of the first byte of data that is
// not valid UTF-8, or len(data).
func InvalidUTF8Offset(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(data)
}

type parser struct {
	dec  *json.Decoder
	data []byte
}

func (p *parser) fail(ptr string, err error) error {
	off := p.dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	msg := err.Error()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "unexpected end of JSON input"
		off = int64(len(p.data))
	}
	line, col := jsonpos.LineCol(p.data, off)
	return &Error{Line: line, Column: col, Pointer: ptr, Msg: msg}
}

func (p *parser) value(ptr string) (any, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.fail(ptr, err)
	}
	return p.fromToken(tok, ptr)
}

func (p *parser) fromToken(tok json.Token, ptr string) (any, error) {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := map[string]any{}
			for p.dec.More() {
				keyOff := p.dec.InputOffset()
				kt, err := p.dec.Token()
				if err != nil {
					return nil, p.fail(ptr, err)
				}
				key, ok := kt.(string)
				if !ok {
					return nil, p.fail(ptr, fmt.Errorf("object key must be a string"))
				}
				if _, dup := obj[key]; dup {
					for keyOff < int64(len(p.data)) && strings.IndexByte(" \t\r\n,", p.data[keyOff]) >= 0 {
						keyOff++
					}
					line, col := jsonpos.LineCol(p.data, keyOff)
					return nil, &Error{Line: line, Column: col, Pointer: ptr, Msg: fmt.Sprintf("duplicate key %q", key)}
				}
				v, err := p.value(ptr + "/" + jsonpos.Escape(key))
				if err != nil {
					return nil, err
				}
				obj[key] = v
			}
			if _, err := p.dec.Token(); err != nil {
				return nil, p.fail(ptr, err)
			}
			return obj, nil
		case '[':
			arr := []any{}
			for i := 0; p.dec.More(); i++ {
				v, err := p.value(fmt.Sprintf("%s/%d", ptr, i))
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := p.dec.Token(); err != nil {
				return nil, p.fail(ptr, err)
			}
			return arr, nil
		}
		return nil, p.fail(ptr, fmt.Errorf("unexpected %q", rune(t)))
	case json.Number:
		if ExponentOutOfRange(string(t)) {
			line, col := jsonpos.LineCol(p.data, p.dec.InputOffset()-int64(len(t)))
			return nil, &Error{Line: line, Column: col, Pointer: ptr, Msg: fmt.Sprintf("number %.40s has an exponent beyond ±%d digits", t, MaxExponentDigits)}
		}
		return t, nil
	default:
		return t, nil
	}
}
