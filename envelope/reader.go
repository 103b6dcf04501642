package envelope

import (
	"errors"
	"fmt"
	"io"

	"github.com/evtool/evtool/report"
)

// DefaultMaxEventBytes is the size limit of one event when NewReader is
// given none: 1 MiB, the default maximum message size of Kafka.
const DefaultMaxEventBytes = 1 << 20

// ErrNoEvents is returned by Reader.Next when the input holds no JSON value
// at all (empty, or only white space).
var ErrNoEvents = errors.New("empty input: no events")

// Item is one event's JSON text as found in the input, or the reason one
// could not be read.
type Item struct {
	// Raw is the event's JSON text, exactly as in the input; the caller owns
	// it. Nil when Err is set.
	Raw []byte
	// Line and Column (1-based, column in bytes) and Offset (0-based) locate
	// the first byte of the event in the input.
	Line   int
	Column int
	Offset int64
	// Index is the event's position in its JSON array (CloudEvents batch),
	// or -1 for an event that is a top-level value (single event, JSONL).
	Index int
	// Err is an *InputError when this event could not be read (too large,
	// malformed); reading continues with the next event.
	Err error
}

// Locate turns a finding of DecodeJSON(it.Raw), whose Line and Column are
// relative to the event, into one relative to the input. A finding without
// a line gets the event's first line.
func (it Item) Locate(f report.Finding) report.Finding {
	if f.Line <= 0 {
		f.Line, f.Column = it.Line, 0
		return f
	}
	if f.Line == 1 {
		f.Column += it.Column - 1
	}
	f.Line += it.Line - 1
	return f
}

// InputError is a problem with the structure of the input, at a line.
type InputError struct {
	Line   int
	Column int
	Offset int64
	Msg    string
}

func (e *InputError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Reader splits a stream into events: one JSON event (possibly
// pretty-printed), a JSON array of events (the CloudEvents JSON batch
// format), JSONL, or any mix of white-space separated JSON values. It finds
// value boundaries with a byte-level state machine that tracks strings,
// escapes and nesting, so memory stays constant however large the input:
// one read buffer, one event (at most maxEventBytes) and a nesting stack of
// at most MaxDepth bytes. It checks structure (brackets, member names,
// colons and commas) but not the spelling of numbers and literals, which
// DecodeJSON checks.
//
// Errors are reported as Items with Err set, and reading goes on: a value
// over the size limit is skipped to its end without being buffered; after a
// malformed top-level value (a broken JSONL line) the reader resumes at the
// next line that starts with '{'. A malformed batch array cannot be
// resynchronised and ends the input with an error from Next.
type Reader struct {
	r   io.Reader
	max int

	buf      []byte
	pos, end int
	off      int64 // input offset of buf[0]
	eof      bool
	rerr     error
	started  bool

	line           int
	lineStart      int64 // input offset of the current line's first byte
	lineHasContent bool  // a non-space byte precedes pos on the current line
	sawValue       bool
	// jsonl is set once an event outside a batch began and ended on one
	// line: the input is JSONL, so a line break inside a later event means
	// that event was cut short, and reading resumes on the next line.
	jsonl bool

	mode  int
	final error // what Next returns in modeDone

	// batch state
	inBatch    bool
	batch      int // batchFirst, batchElem, batchAfter
	batchLine  int
	batchIndex int

	// value state
	st        int
	isKey     bool
	stack     []byte
	deep      int // nesting depth while skipping a too-deep value
	deepStr   bool
	deepEsc   bool
	acc       []byte
	accFrom   int // index in buf of the first byte not yet copied to acc; -1 when not accumulating
	over      bool
	startLine int
	startCol  int
	startOff  int64
	index     int
	// compactStart is set when the event's first line holds more than its
	// opening brace, as a JSONL line does; a pretty-printer puts the brace
	// alone on its line.
	compactStart bool
}

const (
	modeTop = iota
	modeValue
	modeSkipDeep
	modeRecover
	modeDone
)

const (
	batchFirst = iota // after '['
	batchElem         // after ','
	batchAfter        // after an element
)

const (
	stValue      = iota // a value is expected
	stValueOrEnd        // after '[': a value or ']'
	stKey               // after ',' in an object: a member name
	stKeyOrEnd          // after '{': a member name or '}'
	stColon             // after a member name
	stCommaOrEnd        // after a value inside a container
	stString
	stStringEsc
	stScalar
)

const readBufSize = 64 << 10

// NewReader returns a Reader of r. maxEventBytes limits the size of one
// event; zero or less means DefaultMaxEventBytes.
func NewReader(r io.Reader, maxEventBytes int) *Reader {
	if maxEventBytes <= 0 {
		maxEventBytes = DefaultMaxEventBytes
	}
	return &Reader{r: r, max: maxEventBytes, buf: make([]byte, readBufSize), line: 1, accFrom: -1}
}

// Next returns the next event. At the end of the input it returns io.EOF;
// for input with no JSON value at all, ErrNoEvents; for a read error or a
// malformed batch array, that error (an *InputError for the latter). These
// are final: later calls return the same error. Problems confined to one
// event come back as an Item with Err set, and reading can go on.
func (r *Reader) Next() (Item, error) {
	for {
		if r.mode == modeDone {
			return Item{}, r.final
		}
		if r.pos >= r.end {
			if !r.fill() {
				if it, err, ok := r.atEOF(); ok {
					return it, err
				}
				continue
			}
		}
		var it Item
		var err error
		var ok bool
		switch r.mode {
		case modeTop:
			it, err, ok = r.top()
		case modeValue:
			it, err, ok = r.value()
		case modeSkipDeep:
			it, err, ok = r.skipDeep()
		case modeRecover:
			r.recover()
		}
		if ok {
			return it, err
		}
	}
}

// fill reads more input into buf, first saving the current event's bytes.
// It reports false at the end of the input or on a read error.
func (r *Reader) fill() bool {
	if r.eof || r.rerr != nil {
		return false
	}
	if r.accFrom >= 0 {
		r.appendAcc(r.buf[r.accFrom:r.end])
		r.accFrom = 0
	}
	r.off += int64(r.end)
	r.pos, r.end = 0, 0
	for (r.pos >= r.end || !r.started) && !r.eof && r.rerr == nil {
		n, err := r.r.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			if err == io.EOF {
				r.eof = true
			} else {
				r.rerr = err
			}
		}
		if !r.started && (r.end >= 3 || r.eof || r.rerr != nil) {
			// Skip a UTF-8 byte order mark at the very start; editors on
			// some systems write one.
			r.started = true
			if r.end >= 3 && r.buf[0] == 0xEF && r.buf[1] == 0xBB && r.buf[2] == 0xBF {
				r.pos = 3
				r.lineStart = 3
			}
		}
	}
	return r.pos < r.end
}

func (r *Reader) appendAcc(b []byte) {
	if r.over {
		return
	}
	if len(r.acc)+len(b) > r.max {
		r.over = true
		r.acc = r.acc[:0]
		return
	}
	r.acc = append(r.acc, b...)
}

func (r *Reader) newline() {
	r.line++
	r.lineStart = r.off + int64(r.pos) + 1
	r.lineHasContent = false
}

func (r *Reader) column() int { return int(r.off+int64(r.pos)-r.lineStart) + 1 }

func (r *Reader) errHere(format string, args ...any) *InputError {
	return &InputError{Line: r.line, Column: r.column(), Offset: r.off + int64(r.pos), Msg: fmt.Sprintf(format, args...)}
}

func (r *Reader) finish(err error) (Item, error, bool) {
	r.mode, r.final = modeDone, err
	r.accFrom = -1
	return Item{}, err, true
}

// top handles bytes between events.
func (r *Reader) top() (Item, error, bool) {
	for r.pos < r.end {
		c := r.buf[r.pos]
		switch c {
		case ' ', '\t', '\r':
			r.pos++
			continue
		case '\n':
			r.newline()
			r.pos++
			continue
		}
		if r.inBatch {
			switch r.batch {
			case batchFirst, batchAfter:
				if c == ']' {
					r.inBatch = false
					r.pos++
					r.lineHasContent = true
					continue
				}
				if r.batch == batchAfter {
					if c == ',' {
						r.batch = batchElem
						r.pos++
						r.lineHasContent = true
						continue
					}
					return r.finish(r.errHere("unexpected %s after an event in the array starting at line %d: want ',' or ']'", describeByte(c), r.batchLine))
				}
			case batchElem:
				if c == ']' {
					return r.finish(r.errHere("trailing ',' before ']' in the array starting at line %d", r.batchLine))
				}
			}
			if isDelim(c) && c != '{' && c != '[' && c != '"' {
				return r.finish(r.errHere("unexpected %s in the array starting at line %d: want an event", describeByte(c), r.batchLine))
			}
			r.begin(r.batchIndex)
			return Item{}, nil, false
		}
		if c == '[' {
			r.inBatch, r.batch, r.batchLine, r.batchIndex = true, batchFirst, r.line, 0
			r.sawValue = true
			r.pos++
			r.lineHasContent = true
			continue
		}
		if isDelim(c) && c != '{' && c != '"' {
			err := r.errHere("unexpected %s between events: want an event (a JSON object)", describeByte(c))
			r.sawValue = true
			r.mode = modeRecover
			r.pos++
			r.lineHasContent = true
			return Item{Line: err.Line, Column: err.Column, Offset: err.Offset, Index: -1, Err: err}, nil, true
		}
		r.begin(-1)
		return Item{}, nil, false
	}
	return Item{}, nil, false
}

// begin starts an event at r.pos.
func (r *Reader) begin(index int) {
	r.sawValue = true
	r.mode = modeValue
	r.startLine, r.startCol, r.startOff = r.line, r.column(), r.off+int64(r.pos)
	r.compactStart = false
	r.index = index
	r.stack = r.stack[:0]
	r.acc = r.acc[:0]
	r.accFrom = r.pos
	r.over = false
	r.st = stValue
}

func isDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', ':', '[', ']', '{', '}', '"':
		return true
	}
	return false
}

func describeByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", c)
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// value scans inside an event.
func (r *Reader) value() (Item, error, bool) {
	buf := r.buf
	for r.pos < r.end {
		c := buf[r.pos]
		switch r.st {
		case stString:
			r.lineHasContent = true
			i := r.pos
			for i < r.end {
				c = buf[i]
				if c == '"' || c == '\\' || c == '\n' {
					break
				}
				i++
			}
			r.pos = i
			if i == r.end {
				continue
			}
			switch c {
			case '"':
				r.pos++
				if r.isKey {
					r.st = stColon
				} else if it, err, ok := r.afterValue(); ok {
					return it, err, ok
				}
			case '\\':
				r.pos++
				r.st = stStringEsc
			case '\n':
				return r.malformed("unterminated string: a JSON string cannot span lines")
			}
			continue
		case stStringEsc:
			if c == '\n' {
				return r.malformed("unterminated string: a JSON string cannot span lines")
			}
			r.pos++
			r.st = stString
			continue
		case stScalar:
			if isDelim(c) {
				if it, err, ok := r.afterValue(); ok {
					return it, err, ok
				}
				continue
			}
			r.pos++
			continue
		}

		switch c {
		case ' ', '\t', '\r':
			r.pos++
			continue
		case '\n':
			if r.jsonl && !r.inBatch {
				e := r.errHere("the event ends at the end of line %d unfinished: in JSONL every event is one line", r.line)
				r.accFrom = -1
				it := Item{Line: r.startLine, Column: r.startCol, Offset: r.startOff, Index: r.index, Err: e}
				r.newline()
				r.pos++
				r.mode = modeTop
				return it, nil, true
			}
			if r.line == r.startLine {
				// More than "{" or "{\r" before the line break.
				r.compactStart = r.column() > r.startCol+2
			}
			r.newline()
			r.pos++
			continue
		}
		if c == '{' && r.compactStart && !r.inBatch && r.index < 0 && r.line > r.startLine && r.startCol == 1 && !r.lineHasContent && r.column() == 1 {
			// A line that starts with '{' inside an unfinished top-level
			// event whose first line held more than its brace: the event
			// was cut short (JSONL, first line cut after `"id":`), and this
			// line is the next event. A pretty-printed event starts with a
			// line of its own brace, so its nested objects at column 1 stay
			// its own.
			e := &InputError{Line: r.line - 1, Column: 0, Offset: r.off + int64(r.pos), Msg: fmt.Sprintf(
				"the event starting at line %d ends unfinished at the end of line %d (line %d starts the next event): every event must be complete", r.startLine, r.line-1, r.line)}
			r.accFrom = -1
			r.mode = modeTop
			return Item{Line: r.startLine, Column: r.startCol, Offset: r.startOff, Index: r.index, Err: e}, nil, true
		}
		switch r.st {
		case stValue, stValueOrEnd:
			switch c {
			case '{', '[':
				if len(r.stack) >= MaxDepth {
					return r.tooDeep()
				}
				r.stack = append(r.stack, c)
				if c == '{' {
					r.st = stKeyOrEnd
				} else {
					r.st = stValueOrEnd
				}
			case '"':
				r.st, r.isKey = stString, false
			case ']':
				if r.st != stValueOrEnd {
					return r.malformed("unexpected ']': want a value")
				}
				r.stack = r.stack[:len(r.stack)-1]
				r.pos++
				r.lineHasContent = true
				if it, err, ok := r.afterValue(); ok {
					return it, err, ok
				}
				continue
			default:
				if isDelim(c) {
					return r.malformed("unexpected %s: want a value", describeByte(c))
				}
				r.st = stScalar
			}
		case stKey, stKeyOrEnd:
			switch {
			case c == '"':
				r.st, r.isKey = stString, true
			case c == '}' && r.st == stKeyOrEnd:
				r.stack = r.stack[:len(r.stack)-1]
				r.pos++
				r.lineHasContent = true
				if it, err, ok := r.afterValue(); ok {
					return it, err, ok
				}
				continue
			default:
				return r.malformed("unexpected %s: want a member name in double quotes", describeByte(c))
			}
		case stColon:
			if c != ':' {
				return r.malformed("unexpected %s: want ':' after the member name", describeByte(c))
			}
			r.st = stValue
		case stCommaOrEnd:
			top := r.stack[len(r.stack)-1]
			switch c {
			case ',':
				if top == '{' {
					r.st = stKey
				} else {
					r.st = stValue
				}
			case '}', ']':
				if (c == '}') != (top == '{') {
					return r.malformed("unexpected %s: the %s opened earlier is not closed", describeByte(c), map[byte]string{'{': "object", '[': "array"}[top])
				}
				r.stack = r.stack[:len(r.stack)-1]
				r.pos++
				r.lineHasContent = true
				if it, err, ok := r.afterValue(); ok {
					return it, err, ok
				}
				continue
			default:
				if top == '{' {
					return r.malformed("unexpected %s: want ',' or '}' after an object member", describeByte(c))
				}
				return r.malformed("unexpected %s: want ',' or ']' after an array element", describeByte(c))
			}
		}
		r.pos++
		r.lineHasContent = true
	}
	return Item{}, nil, false
}

// afterValue is called when a value inside the event ends at r.pos
// (exclusive). At depth zero the event is complete.
func (r *Reader) afterValue() (Item, error, bool) {
	if len(r.stack) > 0 {
		r.st = stCommaOrEnd
		return Item{}, nil, false
	}
	it := Item{Line: r.startLine, Column: r.startCol, Offset: r.startOff, Index: r.index}
	if !r.inBatch && r.line == r.startLine {
		r.jsonl = true
	}
	tail := r.buf[r.accFrom:r.pos]
	r.accFrom = -1
	switch {
	case r.over || len(r.acc)+len(tail) > r.max:
		it.Err = &InputError{Line: r.startLine, Column: r.startCol, Offset: r.startOff, Msg: fmt.Sprintf("event exceeds %d bytes", r.max)}
	case len(r.acc) == 0:
		// The whole event is in the read buffer: one copy.
		it.Raw = append([]byte(nil), tail...)
	default:
		it.Raw = append(append(make([]byte, 0, len(r.acc)+len(tail)), r.acc...), tail...)
	}
	r.endEvent()
	return it, nil, true
}

// endEvent returns to the between-events state.
func (r *Reader) endEvent() {
	r.mode = modeTop
	if r.inBatch {
		r.batch = batchAfter
		r.batchIndex++
	}
}

// malformed reports a structural error inside the current event. Inside a
// batch the input cannot be resynchronised and reading ends. Otherwise the
// event is reported and reading resumes at the current byte if it is a '{'
// starting a later line (the previous JSONL line was cut short), or else
// at the next line starting with '{'.
func (r *Reader) malformed(format string, args ...any) (Item, error, bool) {
	e := r.errHere(format, args...)
	if e.Line != r.startLine {
		e.Msg += fmt.Sprintf(" (in the event starting at line %d)", r.startLine)
	}
	r.accFrom = -1
	if r.inBatch {
		e.Msg += fmt.Sprintf(" in the array starting at line %d", r.batchLine)
		return r.finish(e)
	}
	it := Item{Line: r.startLine, Column: r.startCol, Offset: r.startOff, Index: r.index, Err: e}
	if r.pos < r.end && r.buf[r.pos] == '{' && !r.lineHasContent && r.line > r.startLine {
		r.mode = modeTop
	} else {
		r.mode = modeRecover
	}
	return it, nil, true
}

// tooDeep reports an event nested deeper than MaxDepth and skips the rest
// of it by counting brackets only.
func (r *Reader) tooDeep() (Item, error, bool) {
	e := &InputError{Line: r.startLine, Column: r.startCol, Offset: r.startOff,
		Msg: fmt.Sprintf("event is nested deeper than %d levels (at line %d)", MaxDepth, r.line)}
	it := Item{Line: r.startLine, Column: r.startCol, Offset: r.startOff, Index: r.index, Err: e}
	r.accFrom = -1
	r.mode = modeSkipDeep
	r.deep = len(r.stack)
	r.deepStr, r.deepEsc = false, false
	return it, nil, true
}

// skipDeep consumes the rest of a too-deep event.
func (r *Reader) skipDeep() (Item, error, bool) {
	for r.pos < r.end {
		c := r.buf[r.pos]
		r.pos++
		if c == '\n' {
			r.pos--
			r.newline()
			r.pos++
			if r.deepStr {
				// A string cannot span lines: the event is malformed
				// anyway; give up on it here.
				r.deepStr = false
				if r.inBatch {
					return r.finish(r.errHere("unterminated string in the array starting at line %d", r.batchLine))
				}
				r.mode = modeRecover
				return Item{}, nil, false
			}
			continue
		}
		r.lineHasContent = true
		switch {
		case r.deepEsc:
			r.deepEsc = false
		case r.deepStr:
			if c == '\\' {
				r.deepEsc = true
			} else if c == '"' {
				r.deepStr = false
			}
		case c == '"':
			r.deepStr = true
		case c == '{' || c == '[':
			r.deep++
		case c == '}' || c == ']':
			r.deep--
			if r.deep == 0 {
				r.endEvent()
				return Item{}, nil, false
			}
		}
	}
	return Item{}, nil, false
}

// recover skips to the next line whose first non-blank byte is '{'.
func (r *Reader) recover() {
	for r.pos < r.end {
		c := r.buf[r.pos]
		switch {
		case c == '\n':
			r.newline()
		case c == ' ' || c == '\t' || c == '\r':
		case c == '{' && !r.lineHasContent:
			r.mode = modeTop
			return
		default:
			r.lineHasContent = true
		}
		r.pos++
	}
}

// atEOF decides what the end of input means in the current state; ok is
// false when Next should loop again.
func (r *Reader) atEOF() (Item, error, bool) {
	if r.rerr != nil {
		return r.finish(fmt.Errorf("read input: %w", r.rerr))
	}
	switch r.mode {
	case modeValue:
		if r.st == stScalar && len(r.stack) == 0 {
			return r.afterValue()
		}
		msg := fmt.Sprintf("unexpected end of input: the event starting at line %d is incomplete", r.startLine)
		if r.st == stString || r.st == stStringEsc {
			msg = fmt.Sprintf("unexpected end of input in a string: the event starting at line %d is incomplete", r.startLine)
		}
		e := r.errHere("%s", msg)
		if r.inBatch {
			return r.finish(e)
		}
		r.mode, r.final = modeDone, io.EOF
		return Item{Line: r.startLine, Column: r.startCol, Offset: r.startOff, Index: r.index, Err: e}, nil, true
	case modeSkipDeep:
		if r.inBatch {
			return r.finish(r.errHere("unexpected end of input: the array starting at line %d is not closed", r.batchLine))
		}
		return r.finish(io.EOF)
	}
	if r.inBatch {
		return r.finish(r.errHere("unexpected end of input: the array starting at line %d is not closed", r.batchLine))
	}
	if !r.sawValue {
		return r.finish(ErrNoEvents)
	}
	return r.finish(io.EOF)
}
