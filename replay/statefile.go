package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	// equal is the baseline state this one was found equal to, when its
	// canonical file was removed after (see compareRuns), and equalCmp
	// that comparison.
	equal    *storedState
	equalCmp Comparison
	// read is the bytes canonicalizing read: its cost, about the size
	// however deep the state (a test bounds it).
	read int64
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
	st.used, st.empty, st.text, st.read = c.used, c.empty, c.text, c.read
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
	// ends remembers where object members found by a skip end (see
	// endsMinSize).
	ends map[int64]int64
	read int64 // bytes the decoders read
}

// counted counts the bytes read through it.
type counted struct {
	r io.Reader
	n *int64
}

func (c counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

// stateError locates a malformed state by line and column.
func (c *canonicalizer) stateError(off int64, ptr, msg string) error {
	line, col := lineColAt(c.f, off)
	e := &jsonstrict.Error{Line: line, Column: col, Pointer: ptr, Msg: msg}
	return fmt.Errorf("not JSON (%v): %s", e, snippetAt(c.f))
}

func (c *canonicalizer) syntaxError(cur *cursor, err error) error {
	off := cur.base + cur.dec.InputOffset()
	var se *tokenError
	if errors.As(err, &se) {
		off = cur.base + se.Offset
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
	cur := c.cursor(0, c.size)
	first, err := cur.dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return c.stateError(0, "", "empty: expected a JSON value")
		}
		return c.syntaxError(cur, err)
	}
	switch first {
	case nil:
		c.empty = true
	case json.Delim('{'), json.Delim('['):
		c.empty = !cur.dec.More()
	}
	if err := c.value(cur, first); err != nil {
		return err
	}
	if _, err := cur.dec.Token(); !errors.Is(err, io.EOF) {
		return c.stateError(cur.base+cur.dec.InputOffset(), "", "unexpected data after the JSON value")
	}
	c.text = compactPrefix(c.f, 200)
	return nil
}

// checkText rejects invalid UTF-8, nesting beyond jsonstrict.MaxDepth
// and exponents beyond jsonstrict.MaxExponentDigits, as jsonstrict does,
// in one pass over the file.
func (c *canonicalizer) checkText() error {
	r := bufio.NewReaderSize(io.NewSectionReader(c.f, 0, c.size), 64<<10)
	var off int64
	depth := 0
	inString, escaped := false, false
	// In an exponent outside a string: expDigits counts its digits past
	// leading zeros; -1 elsewhere.
	expDigits, expStart := -1, int64(0)
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
			if expDigits >= 0 {
				switch {
				case ch == '0' && expDigits == 0, ch == '+' || ch == '-':
				case ch >= '0' && ch <= '9':
					if expDigits++; expDigits > jsonstrict.MaxExponentDigits {
						return c.stateError(expStart, "", fmt.Sprintf("number has an exponent beyond ±%d digits", jsonstrict.MaxExponentDigits))
					}
				default:
					expDigits = -1
				}
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
			case ch == 'e' || ch == 'E':
				expDigits, expStart = 0, off+int64(i)
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

// cursor is a decoder over an extent of the file: base is the file offset
// of its input, end the end of the extent, open the containers it is in
// (their opening delimiters). object moves it past a member whose end it
// already knows by starting a new decoder there (see seek).
type cursor struct {
	dec       *tokens
	base, end int64
	open      []byte
}

func (c *canonicalizer) cursor(start, end int64) *cursor {
	r := counted{io.NewSectionReader(c.src, start, end-start), &c.read}
	return &cursor{dec: newTokens(r), base: start, end: end}
}

// seek moves cur to off, the end of an object member it would otherwise
// tokenize. A decoder cannot start inside an object, so the new one reads
// the open delimiters first, then the file from past the member's comma
// (or at the object's closing brace): its offsets are the file's again
// once those are read.
func (c *canonicalizer) seek(cur *cursor, off int64) error {
	var b [64]byte
	for {
		n, err := c.src.ReadAt(b[:], off)
		i := 0
		for i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
			i++
		}
		off += int64(i)
		if i < n {
			if b[i] == ',' {
				off++
			}
			break
		}
		if err != nil {
			return io.ErrUnexpectedEOF
		}
	}
	prefix := cur.open
	r := counted{io.NewSectionReader(c.src, off, cur.end-off), &c.read}
	dec := newTokens(io.MultiReader(bytes.NewReader(prefix), r))
	for range prefix {
		if _, err := dec.Token(); err != nil {
			return err
		}
	}
	cur.dec, cur.base = dec, off-int64(len(prefix))
	return nil
}

// smallValue is the size up to which a nested value is read into memory
// once and canonicalized from there: reading each nested object again
// from the file would cost a read of its bytes per level of nesting.
const smallValue = 1 << 20

// An object is written in key order, so its members are first found
// (skipped, token by token) and then canonicalized from their offsets:
// without memory of what a skip found, a member nested d levels deep is
// tokenized once per level above it, and a deep state costs depth × size
// (a 1 MB state 999 levels deep took 48 s). A skip therefore remembers
// where the larger object members inside it end (ends: start -> end, an
// entry used once and dropped), so each byte is tokenized about once.
// Members under endsMinSize are skipped again, which costs at most that
// much per level; endsMax bounds the memory (past it, skips just
// tokenize again: slower, never wrong).
const (
	endsMinSize = 64
	endsMax     = 1 << 17
)

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

// value writes the canonical form of the value that starts with tok.
func (c *canonicalizer) value(cur *cursor, tok json.Token) error {
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			cur.open = append(cur.open, '[')
			c.w.WriteByte('[')
			n := 0
			for i := 0; cur.dec.More(); i++ {
				c.path = append(c.path, strconv.Itoa(i))
				tok, err := cur.dec.Token()
				if err != nil {
					return c.syntaxError(cur, err)
				}
				if c.ignored() {
					start := cur.base + cur.dec.InputOffset() - 1
					if err := c.skip(cur, tok); err != nil {
						return c.syntaxError(cur, err)
					}
					if _, ok := tok.(json.Delim); ok {
						if err := c.checkKeys(start, cur.base+cur.dec.InputOffset()); err != nil {
							return err
						}
					}
				} else {
					if n > 0 {
						c.w.WriteByte(',')
					}
					n++
					if err := c.value(cur, tok); err != nil {
						return err
					}
				}
				c.path = c.path[:len(c.path)-1]
			}
			if _, err := cur.dec.Token(); err != nil {
				return c.syntaxError(cur, err)
			}
			cur.open = cur.open[:len(cur.open)-1]
			c.w.WriteByte(']')
			return nil
		}
		return c.object(cur)
	default:
		c.w.Write(canonicalScalar(tok))
		return nil
	}
}

// object collects the members of an object (keys, scalars, offsets of
// nested values), then writes them in key order, reading each nested
// value again from its offsets.
func (c *canonicalizer) object(cur *cursor) error {
	cur.open = append(cur.open, '{')
	var ms []stateMember
	ptr := jsonpos.Join(c.path...)
	for cur.dec.More() {
		kt, err := cur.dec.Token()
		if err != nil {
			return c.syntaxError(cur, err)
		}
		key, _ := kt.(string)
		vt, err := cur.dec.Token()
		if err != nil {
			return c.syntaxError(cur, err)
		}
		m := stateMember{key: key}
		if d, ok := vt.(json.Delim); ok {
			// The offset after a delimiter token is just past it.
			m.start = cur.base + cur.dec.InputOffset() - 1
			if end, ok := c.ends[m.start]; ok {
				delete(c.ends, m.start)
				if err := c.seek(cur, end); err != nil {
					return c.syntaxError(cur, err)
				}
				m.end = end
			} else {
				if err := c.skip(cur, d); err != nil {
					return c.syntaxError(cur, err)
				}
				m.end = cur.base + cur.dec.InputOffset()
			}
		} else {
			m.scalar = canonicalScalar(vt)
		}
		ms = append(ms, m)
	}
	if _, err := cur.dec.Token(); err != nil {
		return c.syntaxError(cur, err)
	}
	cur.open = cur.open[:len(cur.open)-1]
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
			c.w.Write(quoteJSON(m.key))
			c.w.WriteByte(':')
			if m.scalar != nil {
				c.w.Write(m.scalar)
			} else if err := c.nested(m.start, m.end); err != nil {
				return err
			}
		} else {
			c.forget(m.start, m.end)
			if m.scalar == nil {
				if err := c.checkKeys(m.start, m.end); err != nil {
					return err
				}
			}
		}
		c.path = c.path[:len(c.path)-1]
	}
	c.w.WriteByte('}')
	return nil
}

// checkKeys rejects a duplicate key in the container at [start, end), a
// member or element left out (consumer.ignore), as jsonstrict does:
// canonicalizing only skipped it. Memory is the keys of its largest
// object.
func (c *canonicalizer) checkKeys(start, end int64) error {
	sub := c.cursor(start, end)
	var open []map[string]bool // nil for an array
	for {
		tok, err := sub.dec.Token()
		if err != nil {
			return c.syntaxError(sub, err)
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				open = append(open, map[string]bool{})
			case '[':
				open = append(open, nil)
			default:
				open = open[:len(open)-1]
				if len(open) == 0 {
					return nil
				}
			}
			continue
		case string:
			if top := open[len(open)-1]; top != nil {
				if top[t] {
					return c.stateError(sub.base+sub.dec.InputOffset(), jsonpos.Join(c.path...), fmt.Sprintf("duplicate key %q", t))
				}
				top[t] = true
				// The member's value: its first token, skipped whole.
				vt, err := sub.dec.Token()
				if err != nil {
					return c.syntaxError(sub, err)
				}
				if d, ok := vt.(json.Delim); ok {
					if d == '{' {
						open = append(open, map[string]bool{})
					} else {
						open = append(open, nil)
					}
				}
			}
		}
	}
}

// forget drops what a skip remembered inside [start, end), a member left
// out (consumer.ignore) whose members are never looked up.
func (c *canonicalizer) forget(start, end int64) {
	if end-start < endsMinSize || len(c.ends) == 0 {
		return
	}
	for s := range c.ends {
		if s > start && s < end {
			delete(c.ends, s)
		}
	}
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
	sub := c.cursor(start, end)
	tok, err := sub.dec.Token()
	if err != nil {
		return c.syntaxError(sub, err)
	}
	return c.value(sub, tok)
}

// skip skips the rest of a value whose first token was tok, remembering
// where the object members inside it that are at least endsMinSize long
// end (see endsMinSize).
func (c *canonicalizer) skip(cur *cursor, tok json.Token) error {
	d, ok := tok.(json.Delim)
	if !ok || d == '}' || d == ']' {
		return nil
	}
	if c.ends == nil {
		c.ends = map[int64]int64{}
	}
	stack := []skipOpen{{start: -1, obj: d == '{', key: d == '{'}}
	for len(stack) > 0 {
		d, err := cur.dec.skipToken()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		top := &stack[len(stack)-1]
		if top.obj {
			if top.key {
				if d == '}' {
					stack = c.closed(stack, cur)
				} else {
					top.key = false
				}
				continue
			}
			top.key = true
		}
		switch {
		case d == 0:
		case d == '{' || d == '[':
			start := int64(-1)
			if top.obj {
				start = cur.base + cur.dec.InputOffset() - 1
			}
			stack = append(stack, skipOpen{start: start, obj: d == '{', key: d == '{'})
		default:
			stack = c.closed(stack, cur)
		}
	}
	return nil
}

// skipOpen is a container open in a skip: its start when it is an object
// member's value (-1 otherwise) and, for an object, whether a key comes
// next.
type skipOpen struct {
	start    int64
	obj, key bool
}

// closed pops the container cur just closed, remembering its end when it
// is a large enough object member.
func (c *canonicalizer) closed(stack []skipOpen, cur *cursor) []skipOpen {
	o := stack[len(stack)-1]
	if o.start >= 0 && len(c.ends) < endsMax {
		if end := cur.base + cur.dec.InputOffset(); end-o.start >= endsMinSize {
			c.ends[o.start] = end
		}
	}
	return stack[:len(stack)-1]
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
		switch v := numberValue(t).(type) {
		case float64:
			return strconv.AppendFloat(nil, v, 'g', -1, 64)
		case json.Number:
			return []byte(v)
		}
		return []byte(t)
	case string:
		return quoteJSON(t)
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
