// Package jsonpos maps positions in JSON text: a byte offset to a line and
// column, and a JSON pointer to the place its value starts. Error messages
// and CI annotations use it to point at the line a person edits.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// LineCol returns the 1-based line and column (in runes) of offset in text.
func LineCol(text []byte, offset int64) (line, col int) {
	if offset < 0 {
		offset = 0
	}
	if offset > int64(len(text)) {
		offset = int64(len(text))
	}
	before := text[:offset]
	line = bytes.Count(before, []byte{'\n'}) + 1
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	col = utf8.RuneCount(before[lineStart:]) + 1
	return line, col
}

// Escape escapes one reference token for use in a JSON pointer (RFC 6901).
func Escape(token string) string {
	if !strings.ContainsAny(token, "~/") {
		return token
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(token)
}

// Unescape reverses Escape.
func Unescape(token string) string {
	if !strings.Contains(token, "~") {
		return token
	}
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(token)
}

// Split turns a JSON pointer ("" or "/a/0/b", optionally with a leading '#')
// into its unescaped tokens.
func Split(pointer string) []string {
	pointer = strings.TrimPrefix(pointer, "#")
	if pointer == "" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	for i, p := range parts {
		parts[i] = Unescape(p)
	}
	return parts
}

// Get returns the value at pointer in a decoded JSON document (objects as
// map[string]any, arrays as []any); ok is false when the pointer does not
// resolve.
func Get(doc any, pointer string) (v any, ok bool) {
	return GetTokens(doc, Split(pointer))
}

// GetTokens is Get for a pointer's unescaped tokens.
func GetTokens(doc any, tokens []string) (v any, ok bool) {
	for _, tok := range tokens {
		switch x := doc.(type) {
		case map[string]any:
			if doc, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			doc = x[i]
		default:
			return nil, false
		}
	}
	return doc, true
}

// Join builds a JSON pointer from tokens.
func Join(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(Escape(t))
	}
	return b.String()
}

// Find returns the line and column where the value at pointer starts in
// text. When the pointer does not resolve it returns the position of the
// deepest ancestor that does, so a finding still lands near its cause.
func Find(text []byte, pointer string) (line, col int) {
	off := findOffset(text, Split(pointer))
	return LineCol(text, off)
}

func findOffset(text []byte, tokens []string) int64 {
	dec := json.NewDecoder(bytes.NewReader(text))
	best := skipSpace(text, 0)
	for depth := 0; ; depth++ {
		if depth == len(tokens) {
			return best
		}
		tok, err := dec.Token()
		if err != nil {
			return best
		}
		delim, ok := tok.(json.Delim)
		if !ok || (delim != '{' && delim != '[') {
			return best
		}
		want := tokens[depth]
		found := false
		for i := 0; dec.More(); i++ {
			if delim == '{' {
				keyTok, err := dec.Token()
				if err != nil {
					return best
				}
				key, _ := keyTok.(string)
				if key == want {
					found = true
					best = valueStart(text, dec.InputOffset())
					break
				}
			} else if strconv.Itoa(i) == want {
				found = true
				best = valueStart(text, dec.InputOffset())
				break
			}
			if err := skipValue(dec); err != nil {
				return best
			}
		}
		if !found {
			return best
		}
	}
}

// valueStart moves past the whitespace, commas and colon that precede a
// value after the decoder's offset.
func valueStart(text []byte, off int64) int64 {
	for off < int64(len(text)) {
		switch text[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
		default:
			return off
		}
	}
	return off
}

func skipSpace(text []byte, off int64) int64 {
	for off < int64(len(text)) {
		switch text[off] {
		case ' ', '\t', '\r', '\n':
			off++
		default:
			return off
		}
	}
	return off
}

func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// Index holds where every value of one JSON text starts, so that looking
// up many pointers costs one pass over the text instead of one per pointer
// (2,000 findings in a 120 KB schema took seconds with Find).
type Index struct {
	text   []byte
	starts map[string]int64 // pointer (as Join writes it) -> offset
}

// NewIndex reads text once. A text that is not JSON indexes what precedes
// the error.
func NewIndex(text []byte) *Index {
	ix := &Index{text: text, starts: map[string]int64{"": skipSpace(text, 0)}}
	dec := json.NewDecoder(bytes.NewReader(text))
	// record is false below a repeated key: Find only sees the first.
	var index func(ptr string, record bool) bool
	index = func(ptr string, record bool) bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		delim, ok := tok.(json.Delim)
		if !ok || (delim != '{' && delim != '[') {
			return true
		}
		for i := 0; dec.More(); i++ {
			child := ptr + "/" + strconv.Itoa(i)
			if delim == '{' {
				keyTok, err := dec.Token()
				if err != nil {
					return false
				}
				key, _ := keyTok.(string)
				child = ptr + "/" + Escape(key)
			}
			_, seen := ix.starts[child]
			if record && !seen {
				ix.starts[child] = valueStart(text, dec.InputOffset())
			}
			if !index(child, record && !seen) {
				return false
			}
		}
		_, err = dec.Token() // the closing delimiter
		return err == nil
	}
	index("", true)
	return ix
}

// Find is Find(text, pointer) from the index: the line and column of the
// value at pointer, or of its deepest ancestor that exists.
func (ix *Index) Find(pointer string) (line, col int) {
	tokens := Split(pointer)
	for n := len(tokens); n >= 0; n-- {
		if off, ok := ix.starts[Join(tokens[:n]...)]; ok {
			return LineCol(ix.text, off)
		}
	}
	return LineCol(ix.text, 0)
}
