package replay

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// tokens reads what json.Decoder's Token reads (UseNumber): the same
// tokens and offsets for valid input, an error where it errs, also when
// the input comes one byte at a time.
func TestTokensAgreeWithDecoder(t *testing.T) {
	for _, text := range []string{
		`{"a": [1, -2.5e+3, 0, true, false, null], "b": {"c": "d\"e\u00e9\n"}, "": []}`,
		` [ ] `, `{}`, `"x"`, `12`, `-0.5E-7`, `[1, 2] [3]`, `{"k":{"k":{"k":[[[]]]}}}`,
		`{"a" 1}`, `{"a": 1,}`, `[1,]`, `[1 2]`, `{"a": tru}`, `nul`, `[01]`, `[-]`, `[1.]`, `[1e]`,
		`{1: 2}`, `["a` + "\x01" + `"]`, `["\x"]`, `["\u12"]`, `["\u12g4"]`, `]`, `}`, `{"a":1]`, `[1}`,
		`:`, `,`, `[,1]`, `{"a"::1}`, `{"a":1,,"b":2}`, `[1, 2`, `{"a": "b`, `[truex]`, `[+1]`, `{"a\u0000b": "\ud800"}`,
	} {
		for _, oneByte := range []bool{false, true} {
			compareTokens(t, text, oneByte)
		}
	}
}

// compareTokens reads text with tokens and with json.Decoder, token by
// token, and fails where they differ.
func compareTokens(t *testing.T, text string, oneByte bool) {
	t.Helper()
	var r io.Reader = strings.NewReader(text)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	tok := newTokens(r)
	for i := 0; ; i++ {
		wantMore, gotMore := dec.More(), tok.More()
		want, werr := dec.Token()
		got, gerr := tok.Token()
		if (werr == nil) != (gerr == nil) || (werr == nil && (!cmp.Equal(got, want) || gotMore != wantMore || tok.InputOffset() != dec.InputOffset())) {
			t.Fatalf("%q (one byte %v) token %d: got %#v, %v (more %v, offset %d), want %#v, %v (more %v, offset %d)", text, oneByte, i, got, gerr, gotMore, tok.InputOffset(), want, werr, wantMore, dec.InputOffset())
		}
		if werr != nil {
			if errors.Is(werr, io.EOF) != errors.Is(gerr, io.EOF) {
				t.Fatalf("%q token %d: got %v, want %v", text, i, gerr, werr)
			}
			return
		}
	}
}

func FuzzTokensAgreeWithDecoder(f *testing.F) {
	for _, s := range []string{`{"a": [1, -2.5e+3, true, null], "b": {"c": "d\u00e9"}}`, `[1 2]`, `{"a":1,}`, `nul`, `"\ud800"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			// storeState rejects invalid UTF-8 before tokenizing (checkText);
			// json.Decoder replaces it.
			return
		}
		compareTokens(t, text, false)
	})
}
