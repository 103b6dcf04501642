package protobuf

import (
	"bytes"
	"unicode/utf8"

	"google.golang.org/protobuf/types/descriptorpb"
)

// protocompile computes a column by scanning from the start of its line
// (ast.FileInfo.SourcePos), once per position it records: a file whose
// enum of 20000 values is on one line (280 KB) took 12 s, quadratic in the
// line's length. A line longer than longLine is therefore given to the
// compiler broken into pieces of about wrapAt bytes, at token boundaries
// outside strings and comments, and every position the compiler reports
// (errors, source locations) is mapped back to the file as written.
const (
	longLine = 4096
	wrapAt   = 512
)

// lineMap says where a line of the wrapped text starts in the file: its
// line (1-based), and what to add to a wrapped column to get the file's.
type lineMap struct {
	line, shift int
}

// wrapped is a file's text as given to the compiler and the way back.
type wrapped struct {
	lines []lineMap // by wrapped line, 0-based
}

// position maps a 1-based wrapped line and column to the file's.
func (w *wrapped) position(line, col int) (int, int) {
	if w == nil || line < 1 || line > len(w.lines) {
		return line, col
	}
	m := w.lines[line-1]
	return m.line, col + m.shift
}

// wrapLongLines returns data with its lines longer than longLine broken
// at token boundaries, and the map back; nil when no line is that long.
// The text after a break is indented so that tab stops fall where they
// fell (protocompile expands tabs to multiples of 8).
func wrapLongLines(data []byte) ([]byte, *wrapped) {
	long := false
	for rest := data; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			i = len(rest)
		}
		if i > longLine {
			long = true
			break
		}
		rest = rest[min(i+1, len(rest)):]
	}
	if !long {
		return data, nil
	}
	const (
		code = iota
		str
		lineComment
		blockComment
	)
	out := make([]byte, 0, len(data)+len(data)/wrapAt*9)
	w := &wrapped{lines: []lineMap{{line: 1}}}
	state, quote := code, byte(0)
	line, col, run := 1, 0, 0 // the file's line, its 0-based column, bytes on the wrapped line
	// afterComment: no token since a comment ended. The compiler attaches
	// a comment to the token before or after it by the line breaks around
	// it, so no break goes between a comment and its neighbouring tokens.
	afterComment := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if state == code && run >= wrapAt && i > 0 && boundary(data[i-1]) && c != '\n' && c != '\r' && !afterComment && !commentAhead(data, i) {
			pad := col % 8
			out = append(out, '\n')
			for range pad {
				out = append(out, ' ')
			}
			w.lines = append(w.lines, lineMap{line: line, shift: col - pad})
			run = pad
		}
		if state == code && c != ' ' && c != '\t' && c != '\r' && c != '\n' && !commentAt(data, i) {
			afterComment = false
		}
		out = append(out, c)
		run++
		switch state {
		case code:
			switch {
			case c == '"' || c == '\'':
				state, quote = str, c
			case c == '/' && i+1 < len(data) && data[i+1] == '/':
				state = lineComment
			case c == '/' && i+1 < len(data) && data[i+1] == '*':
				state = blockComment
				out = append(out, '*')
				i++
				col++
				run++
			}
		case str:
			switch c {
			case '\\':
				if i+1 < len(data) && data[i+1] != '\n' {
					i++
					out = append(out, data[i])
					run++
					if data[i] == '\t' {
						col += 8 - col%8
					} else if utf8.RuneStart(data[i]) {
						col++
					}
				}
			case quote, '\n':
				state = code
			}
		case lineComment:
			if c == '\n' {
				state, afterComment = code, true
			}
		case blockComment:
			if c == '*' && i+1 < len(data) && data[i+1] == '/' {
				out = append(out, '/')
				i++
				col++
				run++
				state, afterComment = code, true
			}
		}
		switch {
		case c == '\n':
			line++
			col, run = 0, 0
			w.lines = append(w.lines, lineMap{line: line})
		case c == '\t':
			col += 8 - col%8
		case utf8.RuneStart(c):
			col++
		}
	}
	return out, w
}

// commentAt: a comment starts at data[i].
func commentAt(data []byte, i int) bool {
	return data[i] == '/' && i+1 < len(data) && (data[i+1] == '/' || data[i+1] == '*')
}

// commentAhead: only blanks separate data[i] from a comment on its line.
func commentAhead(data []byte, i int) bool {
	for ; i < len(data) && (data[i] == ' ' || data[i] == '\t'); i++ {
	}
	return i < len(data) && commentAt(data, i)
}

// boundary: a break after c cannot join or split a token.
func boundary(c byte) bool {
	switch c {
	case ' ', '\t', ';', ',', '{', '}', ']', '=':
		return true
	}
	return false
}

// unwrapSpans maps the spans of a compiled file's source locations back
// to the file as written.
func (w *wrapped) unwrapSpans(info *descriptorpb.SourceCodeInfo) {
	if w == nil || info == nil {
		return
	}
	for _, loc := range info.Location {
		s := loc.Span
		var sl, sc, el, ec int
		switch len(s) {
		case 3:
			sl, sc, el, ec = int(s[0]), int(s[1]), int(s[0]), int(s[2])
		case 4:
			sl, sc, el, ec = int(s[0]), int(s[1]), int(s[2]), int(s[3])
		default:
			continue
		}
		// Spans are 0-based; position works on 1-based lines and columns.
		sl, sc = w.position(sl+1, sc+1)
		el, ec = w.position(el+1, ec+1)
		if sl == el {
			loc.Span = []int32{int32(sl - 1), int32(sc - 1), int32(ec - 1)}
		} else {
			loc.Span = []int32{int32(sl - 1), int32(sc - 1), int32(el - 1), int32(ec - 1)}
		}
	}
}
