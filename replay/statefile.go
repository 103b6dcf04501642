package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/jsonstrict"
)

// A consumer's state grows with what it applied (the example lists every
// payment, shipment and inbox entry: about 250 bytes per event), so a run
// keeps it on disk, never decoded whole: storeState writes the state as
// read to a file of the run's work directory and a canonical form beside
// it (object members sorted by key, numbers by value, the ignored
// pointers left out), made by walking the file with the offsets of each
// object's members, not their values. Two states are equal when their
// canonical files are byte-equal; differences are listed by walking both
// canonical files side by side. Memory is the keys and offsets of the
// largest object, not the state.

// storedState is a consumer's state kept in files.
type storedState struct {
	raw, canon string // the state as read; its canonical form
	size       int64  // of raw
	canonSize  int64
	// used says which consumer.ignore pointers matched something.
	used []bool
	// empty: the state is null, {} or []; text is the state's compact
	// JSON, cut at 200 bytes (messages).
	empty bool
	text  string
}

// smallCanonicalState is the size up to which two differing canonical
// states are decoded and compared with go-cmp (its report, the strings
// around each difference); larger ones are compared leaf by leaf from
// their files.
const smallCanonicalState = 16 << 20

// storeState checks the state file raw (one JSON value) and writes its
// canonical form to raw+".canon".
func storeState(raw string, ignore []string) (*storedState, error) {
	f, err := os.Open(raw)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	st := &storedState{raw: raw, canon: raw + ".canon", size: fi.Size()}
	out, err := os.Create(st.canon)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	w := bufio.NewWriterSize(out, 64<<10)
	c := &canonicalizer{f: f, src: f, size: fi.Size(), w: w, ignore: make([][]string, len(ignore)), used: make([]bool, len(ignore))}
	for i, p := range ignore {
		c.ignore[i] = jsonpos.Split(p)
	}
	if err := c.document(); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	if st.canonSize, err = out.Seek(0, io.SeekCurrent); err != nil {
		return nil, err
	}
	st.used, st.empty, st.text = c.used, c.empty, c.text
	return st, out.Close()
}

// canonicalizer writes the canonical form of a JSON file.
type canonicalizer struct {
	f *os.File
	// src is what values are read from: f, or a small value's bytes
	// read once (see object); offsets are f's either way.
	src    io.ReaderAt
	size   int64
	w      *bufio.Writer
	ignore [][]string
	used   []bool
	path   []string
	empty  bool
	text   string
}

// stateError locates a malformed state by line and column.
func (c *canonicalizer) stateError(off int64, ptr, msg string) error {
	line, col := lineColAt(c.f, off)
	e := &jsonstrict.Error{Line: line, Column: col, Pointer: ptr, Msg: msg}
	return fmt.Errorf("not JSON (%v): %s", e, snippetAt(c.f))
}

func (c *canonicalizer) syntaxError(dec *json.Decoder, base int64, err error) error {
	off := base + dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = base + se.Offset
	}
	msg := err.Error()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		msg, off = "unexpected end of JSON input", c.size
	}
	return c.stateError(off, jsonpos.Join(c.path...), msg)
}

func (c *canonicalizer) document() error {
	if err := c.checkText(); err != nil {
		return err
	}
	dec := c.decoder(0, c.size)
	first, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return c.stateError(0, "", "empty: expected a JSON value")
		}
		return c.syntaxError(dec, 0, err)
	}
	switch first {
	case nil:
		c.empty = true
	case json.Delim('{'), json.Delim('['):
		c.empty = !dec.More()
	}
	if err := c.value(dec, 0, first); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return c.stateError(dec.InputOffset(), "", "unexpected data after the JSON value")
	}
	c.text = compactPrefix(c.f, 200)
	return nil
}

// checkText rejects invalid UTF-8 and nesting beyond jsonstrict.MaxDepth,
// as jsonstrict does, in one pass over the file.
func (c *canonicalizer) checkText() error {
	r := bufio.NewReaderSize(io.NewSectionReader(c.f, 0, c.size), 64<<10)
	var off int64
	depth := 0
	inString, escaped := false, false
	var pend []byte // an incomplete rune at a read boundary
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		b := append(pend, buf[:n]...)
		pend = nil
		i := 0
		for i < len(b) {
			ch := b[i]
			if ch >= utf8.RuneSelf {
				if !utf8.FullRune(b[i:]) && err == nil {
					pend = append([]byte(nil), b[i:]...)
					break
				}
				r, size := utf8.DecodeRune(b[i:])
				if r == utf8.RuneError && size <= 1 {
					return c.stateError(off+int64(i), "", "invalid UTF-8")
				}
				i += size
				escaped = false
				continue
			}
			switch {
			case inString && escaped:
				escaped = false
			case inString && ch == '\\':
				escaped = true
			case inString && ch == '"':
				inString = false
			case inString:
			case ch == '"':
				inString = true
			case ch == '{' || ch == '[':
				if depth++; depth > jsonstrict.MaxDepth {
					return c.stateError(off+int64(i), "", fmt.Sprintf("nested more than %d levels deep", jsonstrict.MaxDepth))
				}
			case ch == '}' || ch == ']':
				depth--
			}
			i++
		}
		off += int64(i)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (c *canonicalizer) decoder(start, end int64) *json.Decoder {
	var r io.Reader = io.NewSectionReader(c.src, start, end-start)
	if c.src == io.ReaderAt(c.f) {
		r = bufio.NewReaderSize(r, 4<<10)
	}
	dec := json.NewDecoder(r)
	dec.UseNumber()
	return dec
}

// smallValue is the size up to which a nested value is read into memory
// once and canonicalized from there: reading each nested object again
// from the file would cost a read of its bytes per level of nesting.
const smallValue = 1 << 20

// bytesAt reads an extent of the file as a ReaderAt at the file's offsets.
type bytesAt struct {
	b    []byte
	base int64
}

func (r bytesAt) ReadAt(p []byte, off int64) (int, error) {
	off -= r.base
	if off < 0 || off >= int64(len(r.b)) {
		return 0, io.EOF
	}
	n := copy(p, r.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// ignored reports whether the current path is a consumer.ignore pointer
// ("*" matches any member or element); the root never is.
func (c *canonicalizer) ignored() bool {
	hit := false
	for i, p := range c.ignore {
		if len(p) != len(c.path) || len(p) == 0 {
			continue
		}
		ok := true
		for j, t := range p {
			if t != "*" && t != c.path[j] {
				ok = false
				break
			}
		}
		if ok {
			c.used[i], hit = true, true
		}
	}
	return hit
}

// stateMember is an object member: its key and either its scalar value
// (canonical text) or where its value lies in the file.
type stateMember struct {
	key        string
	scalar     []byte
	start, end int64
}

// value writes the canonical form of the value that starts with tok;
// base is the file offset of dec's input.
func (c *canonicalizer) value(dec *json.Decoder, base int64, tok json.Token) error {
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			c.w.WriteByte('[')
			n := 0
			for i := 0; dec.More(); i++ {
				c.path = append(c.path, strconv.Itoa(i))
				tok, err := dec.Token()
				if err != nil {
					return c.syntaxError(dec, base, err)
				}
				if c.ignored() {
					if err := skipAfter(dec, tok); err != nil {
						return c.syntaxError(dec, base, err)
					}
				} else {
					if n > 0 {
						c.w.WriteByte(',')
					}
					n++
					if err := c.value(dec, base, tok); err != nil {
						return err
					}
				}
				c.path = c.path[:len(c.path)-1]
			}
			if _, err := dec.Token(); err != nil {
				return c.syntaxError(dec, base, err)
			}
			c.w.WriteByte(']')
			return nil
		}
		return c.object(dec, base)
	default:
		c.w.Write(canonicalScalar(tok))
		return nil
	}
}

// object collects the members of an object (keys, scalars, offsets of
// nested values), then writes them in key order, reading each nested
// value again from its offsets.
func (c *canonicalizer) object(dec *json.Decoder, base int64) error {
	var ms []stateMember
	ptr := jsonpos.Join(c.path...)
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return c.syntaxError(dec, base, err)
		}
		key, _ := kt.(string)
		vt, err := dec.Token()
		if err != nil {
			return c.syntaxError(dec, base, err)
		}
		m := stateMember{key: key}
		if d, ok := vt.(json.Delim); ok {
			// The offset after a delimiter token is just past it.
			start := base + dec.InputOffset() - 1
			if err := skipAfter(dec, d); err != nil {
				return c.syntaxError(dec, base, err)
			}
			m.start, m.end = start, base+dec.InputOffset()
		} else {
			m.scalar = canonicalScalar(vt)
		}
		ms = append(ms, m)
	}
	if _, err := dec.Token(); err != nil {
		return c.syntaxError(dec, base, err)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
	for i := 1; i < len(ms); i++ {
		if ms[i].key == ms[i-1].key {
			return c.stateError(c.size, ptr, fmt.Sprintf("duplicate key %q", ms[i].key))
		}
	}
	c.w.WriteByte('{')
	n := 0
	for _, m := range ms {
		c.path = append(c.path, m.key)
		if !c.ignored() {
			if n > 0 {
				c.w.WriteByte(',')
			}
			n++
			k, _ := json.Marshal(m.key)
			c.w.Write(k)
			c.w.WriteByte(':')
			if m.scalar != nil {
				c.w.Write(m.scalar)
			} else if err := c.nested(m.start, m.end); err != nil {
				return err
			}
		}
		c.path = c.path[:len(c.path)-1]
	}
	c.w.WriteByte('}')
	return nil
}

// nested writes the canonical form of the container at [start, end).
func (c *canonicalizer) nested(start, end int64) error {
	if c.src == io.ReaderAt(c.f) && end-start <= smallValue {
		b := make([]byte, end-start)
		if _, err := c.f.ReadAt(b, start); err != nil {
			return err
		}
		c.src = bytesAt{b: b, base: start}
		defer func() { c.src = c.f }()
	}
	sub := c.decoder(start, end)
	tok, err := sub.Token()
	if err != nil {
		return c.syntaxError(sub, start, err)
	}
	return c.value(sub, start, tok)
}

// skipAfter skips the rest of a value whose first token was tok.
func skipAfter(dec *json.Decoder, tok json.Token) error {
	d, ok := tok.(json.Delim)
	if !ok || d == '}' || d == ']' {
		return nil
	}
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// canonicalScalar is a scalar's canonical text: numbers by value (as
// Compare's normalize: float64, or the literal beyond 2^53), strings
// re-encoded.
func canonicalScalar(tok json.Token) []byte {
	switch t := tok.(type) {
	case nil:
		return []byte("null")
	case bool:
		return strconv.AppendBool(nil, t)
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil && (i > 1<<53 || i < -(1<<53)) {
			return []byte(t)
		}
		if f, err := t.Float64(); err == nil && !math.IsInf(f, 0) {
			return strconv.AppendFloat(nil, f, 'g', -1, 64)
		}
		return []byte(t)
	case string:
		b, _ := json.Marshal(t)
		return b
	}
	return []byte("null")
}

// lineColAt is the line and column of offset off in f.
func lineColAt(f *os.File, off int64) (line, col int) {
	line, col = 1, 1
	r := bufio.NewReader(io.NewSectionReader(f, 0, off))
	for {
		b, err := r.ReadByte()
		if err != nil {
			return line, col
		}
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
}

// snippetAt is the start of f, as snippet shows it.
func snippetAt(f *os.File) string {
	b := make([]byte, 160)
	n, _ := f.ReadAt(b, 0)
	return snippet(b[:n])
}

// compactPrefix is f's JSON without insignificant space, cut at n bytes
// with an ellipsis (as jsonText shows a value).
func compactPrefix(f *os.File, n int) string {
	b := make([]byte, 4*n)
	m, _ := f.ReadAt(b, 0)
	var out bytes.Buffer
	inString, escaped := false, false
	for _, ch := range b[:m] {
		if out.Len() > n {
			break
		}
		switch {
		case inString && escaped:
			escaped = false
		case inString && ch == '\\':
			escaped = true
		case inString && ch == '"':
			inString = false
		case inString:
		case ch == '"':
			inString = true
		case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n':
			continue
		}
		out.WriteByte(ch)
	}
	s := out.String()
	if len(s) > n || int64(m) == int64(len(b)) {
		s = strings.ToValidUTF8(s[:min(len(s), n)], "") + "…"
	}
	return s
}

// lookupStored returns the value at pointer in the JSON file path, numbers
// normalized as Evaluate's are. With countOnly an array or object comes
// back as a []any of as many nil elements as it has members (what a count
// expectation reads), without decoding them.
func lookupStored(path, pointer string, countOnly bool) (any, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 64<<10))
	dec.UseNumber()
	for _, tok := range jsonpos.Split(pointer) {
		t, err := dec.Token()
		if err != nil {
			return nil, false, err
		}
		switch t {
		case json.Delim('{'):
			found := false
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, false, err
				}
				if kt == tok {
					found = true
					break
				}
				if err := skipNext(dec); err != nil {
					return nil, false, err
				}
			}
			if !found {
				return nil, false, nil
			}
		case json.Delim('['):
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || (len(tok) > 1 && tok[0] == '0') {
				return nil, false, nil
			}
			for ; i > 0 && dec.More(); i-- {
				if err := skipNext(dec); err != nil {
					return nil, false, err
				}
			}
			if !dec.More() {
				return nil, false, nil
			}
		default:
			return nil, false, nil
		}
	}
	if !countOnly {
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, false, err
		}
		return numbers(v), true, nil
	}
	t, err := dec.Token()
	if err != nil {
		return nil, false, err
	}
	d, ok := t.(json.Delim)
	if !ok {
		return numbers(t), true, nil
	}
	n := 0
	for dec.More() {
		if d == '{' {
			if _, err := dec.Token(); err != nil {
				return nil, false, err
			}
		}
		if err := skipNext(dec); err != nil {
			return nil, false, err
		}
		n++
	}
	return make([]any, n), true, nil
}

// skipNext skips the next value of dec.
func skipNext(dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	return skipAfter(dec, t)
}
