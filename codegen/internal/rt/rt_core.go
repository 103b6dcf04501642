// Package rt is the runtime of the code evtool generates. It is not imported
// by generated code: the generator copies the pieces it needs (this file
// always, the others when used) into the generated package's shared file,
// so generated code depends on nothing from evtool. It is a real package so
// that it is compiled, vetted and tested here.
//
// Rules for the pieces (rt_*.go, not rt_stub.go or tests): one parenthesized
// import block, every import used by the piece itself, unexported names
// start with "evt", exported names are part of the generated API (the
// generator reserves them).
package rt

import (
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ValidationError is one way a JSON document fails its schema. Pointer is a
// JSON pointer (RFC 6901) into the document, "" for the document itself.
// Decoding reports every problem it finds, joined with errors.Join; use
// ValidationErrors to get them back one by one.
type ValidationError struct {
	Pointer string
	Message string
	err     error
}

func (e *ValidationError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "(root)"
	}
	return p + ": " + e.Message
}

// Unwrap returns the cause: ErrOutOfRange for numbers the Go type cannot
// hold, else nil.
func (e *ValidationError) Unwrap() error { return e.err }

// ErrOutOfRange is the cause of a ValidationError for a number the schema
// allows but the generated Go type cannot hold: an integer beyond int64 or a
// number beyond float64.
var ErrOutOfRange = errors.New("number out of range of its Go type")

// ValidationErrors returns the validation errors in err, in the order they
// were found (nil when err holds none).
func ValidationErrors(err error) []*ValidationError {
	var out []*ValidationError
	var walk func(error)
	walk = func(err error) {
		switch x := err.(type) {
		case nil:
		case *ValidationError:
			out = append(out, x)
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				walk(e)
			}
		case interface{ Unwrap() error }:
			walk(x.Unwrap())
		}
	}
	walk(err)
	return out
}

// Null is a value that may be JSON null: Valid reports whether V holds a
// value. Required nullable properties have type Null[T], optional ones
// *Null[T] (nil: absent).
type Null[T any] struct {
	V     T
	Valid bool
}

// NullOf returns a Null holding v.
func NullOf[T any](v T) Null[T] { return Null[T]{V: v, Valid: true} }

// MarshalJSON encodes null or V.
func (n Null[T]) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return json.Marshal(n.V)
}

// UnmarshalJSON decodes null or V (validating V when it is a generated
// type).
func (n *Null[T]) UnmarshalJSON(b []byte) error {
	if strings.TrimSpace(string(b)) == "null" {
		*n = Null[T]{}
		return nil
	}
	n.Valid = true
	return json.Unmarshal(b, &n.V)
}

// evtMaxDepth bounds the nesting of decoded documents.
const evtMaxDepth = 10000

// evtDecoder decodes and validates one JSON document in a single pass. It
// collects validation errors (with JSON pointers) and keeps going; a syntax
// error stops it.
type evtDecoder struct {
	data  []byte
	pos   int
	depth int
	stop  bool
	path  []evtSeg
	errs  []error
}

type evtSeg struct {
	key string
	idx int // -1 for a key
}

func (d *evtDecoder) push(key string) { d.path = append(d.path, evtSeg{key: key, idx: -1}) }
func (d *evtDecoder) pushIdx(i int)   { d.path = append(d.path, evtSeg{idx: i}) }
func (d *evtDecoder) pop()            { d.path = d.path[:len(d.path)-1] }

func (d *evtDecoder) pointer() string {
	if len(d.path) == 0 {
		return ""
	}
	var b strings.Builder
	for _, s := range d.path {
		b.WriteByte('/')
		if s.idx >= 0 {
			b.WriteString(strconv.Itoa(s.idx))
			continue
		}
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(s.key, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func (d *evtDecoder) fail(msg string) {
	if d.stop {
		return
	}
	d.errs = append(d.errs, &ValidationError{Pointer: d.pointer(), Message: msg})
}

func (d *evtDecoder) failAt(ptr, msg string) {
	d.errs = append(d.errs, &ValidationError{Pointer: ptr, Message: msg})
}

func (d *evtDecoder) rangeErr(lit []byte, typ string) {
	if d.stop {
		return
	}
	d.errs = append(d.errs, &ValidationError{Pointer: d.pointer(), Message: "number " + evtShort(string(lit)) + " does not fit " + typ, err: ErrOutOfRange})
}

// syntax records a malformed document and stops decoding.
func (d *evtDecoder) syntax(msg string) {
	if d.stop {
		return
	}
	d.stop = true
	d.errs = append(d.errs, errors.New("malformed JSON at byte offset "+strconv.Itoa(d.pos)+": "+msg))
	d.pos = len(d.data)
}

// finish checks that only whitespace follows the value and returns the
// joined errors.
func (d *evtDecoder) finish() error {
	if !d.stop {
		d.ws()
		if d.pos < len(d.data) {
			d.syntax("unexpected " + evtQuoteByte(d.data[d.pos]) + " after the value")
		}
	}
	switch len(d.errs) {
	case 0:
		return nil
	case 1:
		return d.errs[0]
	}
	return errors.Join(d.errs...)
}

func (d *evtDecoder) ok() bool { return len(d.errs) == 0 }

func (d *evtDecoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the first byte of the next value, 0 at the end or after a
// syntax error.
func (d *evtDecoder) peek() byte {
	if d.stop {
		return 0
	}
	d.ws()
	if d.pos >= len(d.data) {
		return 0
	}
	return d.data[d.pos]
}

func evtKindOf(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return "number"
	}
	return ""
}

// typeErr reports that the next value is not of the wanted type and skips
// it.
func (d *evtDecoder) typeErr(want string) {
	c := d.peek()
	got := evtKindOf(c)
	if got == "" {
		if c == 0 && !d.stop {
			d.syntax("unexpected end of input")
		} else {
			d.syntax("unexpected " + evtQuoteByte(c))
		}
		return
	}
	d.fail("expected " + want + ", got " + got)
	d.skip()
}

func evtQuoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return "byte 0x" + strconv.FormatUint(uint64(c), 16)
}

// skip consumes one value, checking its syntax.
func (d *evtDecoder) skip() {
	switch c := d.peek(); c {
	case '{':
		if !d.enter() {
			return
		}
		// Member names are checked for duplicates here too, so a value
		// kept as raw JSON (a free-form property, an additional property)
		// is refused the way declared objects are.
		var small [8][]byte
		keys := small[:0]
		var many map[string]bool
		for i := 0; d.objMore(i); i++ {
			k := d.objKey()
			switch {
			case d.stop:
			case many != nil:
				if many[string(k)] {
					d.dup(string(k))
				}
				many[string(k)] = true
			default:
				for _, p := range keys {
					if string(p) == string(k) {
						d.dup(string(k))
						break
					}
				}
				if len(keys) < len(small) {
					keys = append(keys, k)
				} else {
					many = make(map[string]bool, 2*len(small))
					for _, p := range keys {
						many[string(p)] = true
					}
					many[string(k)] = true
				}
			}
			d.skip()
		}
	case '[':
		if !d.enter() {
			return
		}
		for i := 0; d.arrMore(i); i++ {
			d.skip()
		}
	case '"':
		d.skipString()
	case 't':
		d.literal("true")
	case 'f':
		d.literal("false")
	case 'n':
		d.literal("null")
	case 0:
		if !d.stop {
			d.syntax("unexpected end of input")
		}
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			d.scanNumber()
			return
		}
		d.syntax("unexpected " + evtQuoteByte(c))
	}
}

// raw consumes one value and returns its text (a view into the input).
func (d *evtDecoder) raw() []byte {
	d.peek()
	start := d.pos
	d.skip()
	if d.stop {
		return nil
	}
	return d.data[start:d.pos]
}

// mark returns the offset where the next value starts.
func (d *evtDecoder) mark() int {
	d.peek()
	return d.pos
}

func (d *evtDecoder) literal(lit string) {
	if len(d.data)-d.pos >= len(lit) && string(d.data[d.pos:d.pos+len(lit)]) == lit {
		d.pos += len(lit)
		return
	}
	d.syntax("invalid literal")
}

// enter consumes '{' or '[' and checks the nesting depth.
func (d *evtDecoder) enter() bool {
	d.depth++
	if d.depth > evtMaxDepth {
		d.syntax("nested too deeply")
		return false
	}
	d.pos++
	return true
}

// objBegin consumes '{', or reports a type error and skips the value.
func (d *evtDecoder) objBegin() bool {
	if d.peek() != '{' {
		d.typeErr("object")
		return false
	}
	return d.enter()
}

// objMore reports whether the object has a member with index i, consuming
// the ',' before it or the closing '}'.
func (d *evtDecoder) objMore(i int) bool {
	c := d.peek()
	if c == '}' {
		d.pos++
		d.depth--
		return false
	}
	if i > 0 {
		if c != ',' {
			d.unexpected(c, "',' or '}'")
			return false
		}
		d.pos++
		c = d.peek()
	}
	if c != '"' {
		d.unexpected(c, "a member name")
		return false
	}
	return true
}

func (d *evtDecoder) unexpected(c byte, want string) {
	if c == 0 {
		if !d.stop {
			d.syntax("unexpected end of input, want " + want)
		}
		return
	}
	d.syntax("unexpected " + evtQuoteByte(c) + ", want " + want)
}

// objKey reads a member name and the ':' after it.
func (d *evtDecoder) objKey() []byte {
	k, _ := d.strBytes()
	if c := d.peek(); c != ':' {
		d.unexpected(c, "':'")
		return nil
	}
	d.pos++
	return k
}

// arrBegin consumes '[', or reports a type error and skips the value.
func (d *evtDecoder) arrBegin() bool {
	if d.peek() != '[' {
		d.typeErr("array")
		return false
	}
	return d.enter()
}

// arrMore reports whether the array has an item with index i.
func (d *evtDecoder) arrMore(i int) bool {
	c := d.peek()
	if c == ']' {
		d.pos++
		d.depth--
		return false
	}
	if i > 0 {
		if c != ',' {
			d.unexpected(c, "',' or ']'")
			return false
		}
		d.pos++
		c = d.peek()
	}
	if c == 0 || c == ']' {
		d.unexpected(c, "a value")
		return false
	}
	return true
}

// dup reports a member name that appears twice in one object.
func (d *evtDecoder) dup(name string) {
	d.fail("member " + strconv.Quote(name) + " appears more than once")
}

// isNull consumes null if the next value is null.
func (d *evtDecoder) isNull() bool {
	if d.peek() == 'n' {
		d.literal("null")
		return !d.stop
	}
	return false
}

func (d *evtDecoder) skipString() {
	d.strBytes()
}

// strBytes reads a string and returns its bytes: a view into the input when
// the string has no escapes.
func (d *evtDecoder) strBytes() ([]byte, bool) {
	if d.peek() != '"' {
		d.typeErr("string")
		return nil, false
	}
	data := d.data
	start := d.pos + 1
	for i := start; i < len(data); i++ {
		c := data[i]
		if c == '"' {
			d.pos = i + 1
			return data[start:i], true
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			return d.strSlow(start)
		}
	}
	d.pos = len(data)
	d.syntax("unterminated string")
	return nil, false
}

func (d *evtDecoder) strSlow(start int) ([]byte, bool) {
	data := d.data
	var out []byte
	plain := true // no escapes seen: out is unused, the result is a view
	i := start
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			if plain {
				return data[start:i], true
			}
			return out, true
		case c == '\\':
			if plain {
				out = append(make([]byte, 0, i-start+16), data[start:i]...)
				plain = false
			}
			if i+1 >= len(data) {
				d.pos = i
				d.syntax("unterminated string")
				return nil, false
			}
			e := data[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := evtHex4(data, i)
				if !ok {
					d.pos = i
					d.syntax("invalid \\u escape")
					return nil, false
				}
				i += 4
				if r >= 0xD800 && r < 0xDC00 {
					// a high surrogate: a low one must follow
					if i+6 <= len(data) && data[i] == '\\' && data[i+1] == 'u' {
						if r2, ok := evtHex4(data, i+2); ok && r2 >= 0xDC00 && r2 < 0xE000 {
							r = (r-0xD800)<<10 + (r2 - 0xDC00) + 0x10000
							i += 6
							out = utf8.AppendRune(out, r)
							continue
						}
					}
					r = utf8.RuneError
				} else if r >= 0xDC00 && r < 0xE000 {
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
			default:
				d.pos = i - 1
				d.syntax("invalid escape " + evtQuoteByte(e))
				return nil, false
			}
		case c < 0x20:
			d.pos = i
			d.syntax("control character in string")
			return nil, false
		case c >= 0x80:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				d.pos = i
				d.syntax("invalid UTF-8 in string")
				return nil, false
			}
			if !plain {
				out = append(out, data[i:i+size]...)
			}
			i += size
		default:
			if !plain {
				out = append(out, c)
			}
			i++
		}
	}
	d.pos = len(data)
	d.syntax("unterminated string")
	return nil, false
}

func evtHex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// str reads a string.
func (d *evtDecoder) str() (string, bool) {
	b, ok := d.strBytes()
	if !ok {
		return "", false
	}
	return string(b), true
}

// scanNumber consumes a number and returns its literal.
func (d *evtDecoder) scanNumber() []byte {
	data := d.data
	start := d.pos
	i := start
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	default:
		d.pos = i
		d.syntax("invalid number")
		return nil
	}
	if i < len(data) && data[i] == '.' {
		i++
		j := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		if i == j {
			d.pos = i
			d.syntax("invalid number")
			return nil
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		if i == j {
			d.pos = i
			d.syntax("invalid number")
			return nil
		}
	}
	d.pos = i
	return data[start:i]
}

// num reads a number and returns its literal.
func (d *evtDecoder) num() ([]byte, bool) {
	c := d.peek()
	if c != '-' && (c < '0' || c > '9') {
		d.typeErr("number")
		return nil, false
	}
	lit := d.scanNumber()
	return lit, !d.stop
}

// int64v reads an integer (any number with a zero fraction: 1, 1.0, 1e2).
func (d *evtDecoder) int64v() (int64, []byte, bool) {
	c := d.peek()
	if c != '-' && (c < '0' || c > '9') {
		d.typeErr("integer")
		return 0, nil, false
	}
	lit := d.scanNumber()
	if d.stop {
		return 0, nil, false
	}
	digits := lit
	if lit[0] == '-' {
		digits = lit[1:]
	}
	if len(digits) <= 18 {
		var n int64
		fast := true
		for _, c := range digits {
			if c < '0' || c > '9' {
				fast = false
				break
			}
			n = n*10 + int64(c-'0')
		}
		if fast {
			if lit[0] == '-' {
				n = -n
			}
			return n, lit, true
		}
	}
	n, st := evtParseInt(lit)
	switch st {
	case 1:
		d.fail("expected integer, got number " + evtShort(string(lit)))
		return 0, nil, false
	case 2:
		d.rangeErr(lit, "int64")
		return 0, nil, false
	}
	return n, lit, true
}

// float64v reads a number.
func (d *evtDecoder) float64v() (float64, []byte, bool) {
	lit, ok := d.num()
	if !ok {
		return 0, nil, false
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil && (f > 1 || f < -1) || f == 0 && evtNonZeroMantissa(lit) { // overflow, or underflow to zero
		d.rangeErr(lit, "float64")
		return 0, nil, false
	}
	return f, lit, true
}

// evtNonZeroMantissa reports whether a JSON number literal has a non-zero
// digit before its exponent: a value that is not zero, however small.
func evtNonZeroMantissa(lit []byte) bool {
	for _, c := range lit {
		switch {
		case c == 'e' || c == 'E':
			return false
		case c >= '1' && c <= '9':
			return true
		}
	}
	return false
}

// boolv reads a boolean.
func (d *evtDecoder) boolv() (bool, bool) {
	switch d.peek() {
	case 't':
		d.literal("true")
		return true, !d.stop
	case 'f':
		d.literal("false")
		return false, !d.stop
	}
	d.typeErr("boolean")
	return false, false
}

// nullv reads null.
func (d *evtDecoder) nullv() bool {
	if d.isNull() {
		return true
	}
	d.typeErr("null")
	return false
}

// evtDec is a JSON number as sign, significant digits (no leading or
// trailing zeros; "" for zero) and exponent: ±0.D × 10^exp... precisely the
// value is ±D × 10^exp.
type evtDec struct {
	neg bool
	d   string
	exp int
}

// evtParseDec decomposes a valid JSON number literal.
func evtParseDec(lit string) evtDec {
	var x evtDec
	if lit != "" && lit[0] == '-' {
		x.neg = true
		lit = lit[1:]
	}
	mant, e := lit, ""
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		mant, e = lit[:i], lit[i+1:]
	}
	ip, fp := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		ip, fp = mant[:i], mant[i+1:]
	}
	exp := 0
	if e != "" {
		neg := false
		if e[0] == '+' || e[0] == '-' {
			neg = e[0] == '-'
			e = e[1:]
		}
		for _, c := range e {
			if exp < 1e9 {
				exp = exp*10 + int(c-'0')
			}
		}
		if neg {
			exp = -exp
		}
	}
	digits := ip + fp
	exp -= len(fp)
	digits = strings.TrimLeft(digits, "0")
	n := len(digits)
	digits = strings.TrimRight(digits, "0")
	exp += n - len(digits)
	if digits == "" {
		return evtDec{}
	}
	x.d, x.exp = digits, exp
	return x
}

// key is a canonical text of the number: equal numbers, equal keys.
func (x evtDec) key() string {
	if x.d == "" {
		return "0"
	}
	s := x.d + "e" + strconv.Itoa(x.exp)
	if x.neg {
		return "-" + s
	}
	return s
}

// evtCmpDec compares two numbers exactly.
func evtCmpDec(a, b evtDec) int {
	sa, sb := a.sign(), b.sign()
	if sa != sb {
		if sa < sb {
			return -1
		}
		return 1
	}
	if sa == 0 {
		return 0
	}
	c := evtCmpMag(a, b)
	if sa < 0 {
		return -c
	}
	return c
}

func (x evtDec) sign() int {
	switch {
	case x.d == "":
		return 0
	case x.neg:
		return -1
	}
	return 1
}

// evtCmpMag compares |a| and |b|, both non-zero.
func evtCmpMag(a, b evtDec) int {
	// position of the most significant digit
	pa, pb := len(a.d)+a.exp, len(b.d)+b.exp
	if pa != pb {
		if pa < pb {
			return -1
		}
		return 1
	}
	n := min(len(a.d), len(b.d))
	if c := strings.Compare(a.d[:n], b.d[:n]); c != 0 {
		return c
	}
	switch {
	case len(a.d) < len(b.d):
		return -1
	case len(a.d) > len(b.d):
		return 1
	}
	return 0
}

// evtCmpLit compares a number literal with a bound given as a literal.
func evtCmpLit(lit []byte, bound string) int {
	return evtCmpDec(evtParseDec(string(lit)), evtParseDec(bound))
}

// evtParseInt converts an integer-valued literal: status 0 ok, 1 not an
// integer, 2 out of int64 range.
func evtParseInt(lit []byte) (int64, int) {
	x := evtParseDec(string(lit))
	if x.d == "" {
		return 0, 0
	}
	if x.exp < 0 {
		return 0, 1
	}
	if len(x.d)+x.exp > 19 {
		return 0, 2
	}
	var u uint64
	for _, c := range x.d {
		u = u*10 + uint64(c-'0')
	}
	for i := 0; i < x.exp; i++ {
		if u > (1<<64-1)/10 {
			return 0, 2
		}
		u *= 10
	}
	if x.neg {
		if u > 1<<63 {
			return 0, 2
		}
		return int64(-u), 0 //nolint:gosec // -1<<63 wraps to itself
	}
	if u > 1<<63-1 {
		return 0, 2
	}
	return int64(u), 0
}

// evtShort abbreviates a value for an error message.
func evtShort(s string) string {
	if len(s) > 64 {
		return s[:60] + "..."
	}
	return s
}

// evtQuote quotes a string for an error message.
func evtQuote(s string) string {
	if len(s) > 64 {
		cut := 60
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return strconv.Quote(s)
}

func (d *evtDecoder) failMinLength(s string, n int) {
	d.fail("string " + evtQuote(s) + " is shorter than minLength " + strconv.Itoa(n))
}

func (d *evtDecoder) failMaxLength(s string, n int) {
	d.fail("string " + evtQuote(s) + " is longer than maxLength " + strconv.Itoa(n))
}

func (d *evtDecoder) failPattern(s, pattern string) {
	d.fail("string " + evtQuote(s) + " does not match pattern " + strconv.Quote(pattern))
}

func (d *evtDecoder) failBound(lit []byte, rel, kw, bound string) {
	d.fail("number " + evtShort(string(lit)) + " is " + rel + " " + bound + " (" + kw + ")")
}

func (d *evtDecoder) failEnum(what string, allowed string) {
	d.fail("value " + evtShort(what) + " is not one of " + allowed)
}

func (d *evtDecoder) failConst(what string, want string) {
	d.fail("value " + evtShort(what) + " is not the constant " + want)
}

func (d *evtDecoder) failMultipleOf(lit []byte, m string) {
	d.fail("number " + evtShort(string(lit)) + " is not a multiple of " + m)
}

func (d *evtDecoder) failFormat(s, format string) {
	d.fail("string " + evtQuote(s) + " is not a valid " + format)
}

func (d *evtDecoder) failItems(n int, rel, kw string, bound int) {
	d.fail("array has " + strconv.Itoa(n) + " items, " + rel + " " + kw + " " + strconv.Itoa(bound))
}

func (d *evtDecoder) failProps(n int, rel, kw string, bound int) {
	d.fail("object has " + strconv.Itoa(n) + " properties, " + rel + " " + kw + " " + strconv.Itoa(bound))
}

func (d *evtDecoder) missing(name string) {
	d.fail("missing required property " + strconv.Quote(name))
}

func (d *evtDecoder) notAllowed(name string) {
	d.push(name)
	d.fail("property " + strconv.Quote(name) + " is not allowed")
	d.pop()
}

// evtRuneCount counts code points, as JSON Schema lengths do.
func evtRuneCount(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return utf8.RuneCountInString(s)
		}
	}
	return len(s)
}

// evtCanon returns a canonical text of a valid JSON value: equal values (in
// the JSON Schema sense: numbers by value, objects regardless of member
// order) have equal texts.
func evtCanon(raw []byte) string {
	d := evtDecoder{data: raw}
	var b []byte
	b = d.canon(b)
	return string(b)
}

func (d *evtDecoder) canon(b []byte) []byte {
	switch c := d.peek(); c {
	case '{':
		d.enter()
		type member struct{ k, v string }
		var ms []member
		for i := 0; d.objMore(i); i++ {
			k := string(d.objKey())
			v := string(d.canon(nil))
			ms = append(ms, member{k, v})
		}
		for i := 1; i < len(ms); i++ { // insertion sort: objects are small
			for j := i; j > 0 && ms[j].k < ms[j-1].k; j-- {
				ms[j], ms[j-1] = ms[j-1], ms[j]
			}
		}
		b = append(b, '{')
		for i, m := range ms {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, m.k)
			b = append(b, ':')
			b = append(b, m.v...)
		}
		return append(b, '}')
	case '[':
		d.enter()
		b = append(b, '[')
		for i := 0; d.arrMore(i); i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = d.canon(b)
		}
		return append(b, ']')
	case '"':
		s, _ := d.strBytes()
		return strconv.AppendQuote(b, string(s))
	case 't', 'f', 'n':
		start := d.pos
		d.skip()
		return append(b, d.data[start:d.pos]...)
	default:
		lit := d.scanNumber()
		return append(b, evtParseDec(string(lit)).key()...)
	}
}

// evtEncoder appends JSON.
type evtEncoder struct {
	b   []byte
	err error
}

// key starts a member of the object opened at offset start; k is the
// quoted name followed by ':'.
func (e *evtEncoder) key(start int, k string) {
	if len(e.b) > start+1 {
		e.b = append(e.b, ',')
	}
	e.b = append(e.b, k...)
}

func (e *evtEncoder) str(s string) {
	e.b = append(e.b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			e.b = append(e.b, s[start:i]...)
			switch c {
			case '"', '\\':
				e.b = append(e.b, '\\', c)
			case '\n':
				e.b = append(e.b, '\\', 'n')
			case '\r':
				e.b = append(e.b, '\\', 'r')
			case '\t':
				e.b = append(e.b, '\\', 't')
			default:
				const hex = "0123456789abcdef"
				e.b = append(e.b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			e.b = append(e.b, s[start:i]...)
			e.b = append(e.b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			e.b = append(e.b, s[start:i]...)
			e.b = append(e.b, '\\', 'u', '2', '0', '2', byte('8'+r-'\u2028'))
			i += size
			start = i
			continue
		}
		i += size
	}
	e.b = append(e.b, s[start:]...)
	e.b = append(e.b, '"')
}

func (e *evtEncoder) int(v int64) { e.b = strconv.AppendInt(e.b, v, 10) }

func (e *evtEncoder) bool(v bool) { e.b = strconv.AppendBool(e.b, v) }

func (e *evtEncoder) null() { e.b = append(e.b, "null"...) }

// float writes a number the way encoding/json does.
func (e *evtEncoder) float(f float64) {
	if f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308 {
		if e.err == nil {
			e.err = errors.New("cannot encode " + strconv.FormatFloat(f, 'g', -1, 64) + " as JSON")
		}
		e.b = append(e.b, '0')
		return
	}
	abs := f
	if abs < 0 {
		abs = -abs
	}
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	n := len(e.b)
	e.b = strconv.AppendFloat(e.b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		b := e.b[n:]
		if m := len(b); m >= 4 && b[m-4] == 'e' && b[m-3] == '-' && b[m-2] == '0' {
			b[m-2] = b[m-1]
			e.b = e.b[:len(e.b)-1]
		}
	}
}

// raw writes a JSON value held as text; empty means null.
func (e *evtEncoder) raw(r []byte) {
	if len(r) == 0 {
		e.null()
		return
	}
	if !json.Valid(r) {
		if e.err == nil {
			e.err = errors.New("invalid JSON in json.RawMessage")
		}
		e.null()
		return
	}
	e.b = append(e.b, r...)
}

// evtCopy copies raw bytes that must outlive the input.
func evtCopy(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// dynKey starts a member with a computed name.
func (e *evtEncoder) dynKey(start int, k string) {
	if len(e.b) > start+1 {
		e.b = append(e.b, ',')
	}
	e.str(k)
	e.b = append(e.b, ':')
}

func (e *evtEncoder) fail(msg string) {
	if e.err == nil {
		e.err = errors.New(msg)
	}
}

// evtSortedKeys returns the keys of m in order.
func evtSortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// evtTry decodes raw with f: 0 when it is valid, 2 when it fails only
// because a number is out of range of its Go type, 1 otherwise.
func evtTry(raw []byte, f func(d *evtDecoder)) int {
	d := evtDecoder{data: raw}
	f(&d)
	if d.finish() == nil {
		return 0
	}
	for _, e := range d.errs {
		if ve, ok := e.(*ValidationError); !ok || ve.err != ErrOutOfRange {
			return 1
		}
	}
	return 2
}

// union reports the outcome of a oneOf (one) or anyOf check. ranged says
// that an alternative failed only for a number out of range of its Go
// type: whether it matches is then unknown.
func (d *evtDecoder) union(one bool, matched, alternatives int, ranged bool) {
	switch {
	case ranged && (matched == 0 || one && matched == 1):
		if !d.stop {
			d.errs = append(d.errs, &ValidationError{Pointer: d.pointer(), Message: "an alternative holds a number out of range of its Go type", err: ErrOutOfRange})
		}
	case matched == 0 && one:
		d.fail("value matches none of the " + strconv.Itoa(alternatives) + " oneOf alternatives")
	case matched == 0:
		d.fail("value matches none of the " + strconv.Itoa(alternatives) + " anyOf alternatives")
	case one && matched > 1:
		d.fail("value matches more than one oneOf alternative, want exactly one")
	}
}

// evtDup returns the indexes of the first two equal items.
func evtDup[T comparable](xs []T) (int, int, bool) {
	if len(xs) < 2 {
		return 0, 0, false
	}
	seen := make(map[T]int, len(xs))
	for j, x := range xs {
		if i, ok := seen[x]; ok {
			return i, j, true
		}
		seen[x] = j
	}
	return 0, 0, false
}

// evtDupRaw is evtDup for items given as spans of data (start, end pairs),
// compared as JSON values.
func evtDupRaw(data []byte, spans []int) (int, int, bool) {
	seen := make(map[string]int, len(spans)/2)
	for j := 0; 2*j+1 < len(spans); j++ {
		k := evtCanon(data[spans[2*j]:spans[2*j+1]])
		if i, ok := seen[k]; ok {
			return i, j, true
		}
		seen[k] = j
	}
	return 0, 0, false
}

func (d *evtDecoder) failUnique(i, j int) {
	d.fail("items " + strconv.Itoa(i) + " and " + strconv.Itoa(j) + " are equal (uniqueItems)")
}

// tag finds the string value of member name in the object that comes next,
// without consuming it. ok is false when the value is not an object (a
// type error, and the value is skipped), or the member is missing or not
// a string (reported, and the value is skipped).
func (d *evtDecoder) tag(name string) (string, bool) {
	if d.peek() != '{' {
		d.typeErr("object")
		return "", false
	}
	pos, depth := d.pos, d.depth
	d.enter()
	val, found, isStr := "", false, false
	for i := 0; d.objMore(i); i++ {
		k := d.objKey()
		if string(k) == name && !found {
			found = true
			if d.peek() == '"' {
				b, _ := d.strBytes()
				val, isStr = string(b), true
				continue
			}
		}
		d.skip()
	}
	if d.stop {
		return "", false
	}
	d.pos, d.depth = pos, depth
	switch {
	case !found:
		d.missing(name)
	case !isStr:
		d.push(name)
		d.fail("expected string")
		d.pop()
	default:
		return val, true
	}
	d.skip()
	return "", false
}
