package sample

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// strCons is the merged string constraints of a flat.
type strCons struct {
	minL, maxL   int // maxL < 0: unbounded
	minAt, maxAt *jsonschema.Schema
	pats         []jsonschema.Regexp
	patAt        []*jsonschema.Schema
	fmts         []*jsonschema.Format
	fmtAt        *jsonschema.Schema
	content      *jsonschema.Schema // a leaf with contentEncoding/contentMediaType
}

func collectStr(f *flat) *strCons {
	c := &strCons{maxL: -1}
	seenPat := map[string]bool{}
	seenFmt := map[string]bool{}
	for _, l := range f.leaves {
		s := l.n.s
		if s.MinLength != nil && *s.MinLength > c.minL {
			c.minL, c.minAt = *s.MinLength, s
		}
		if s.MaxLength != nil && (c.maxL < 0 || *s.MaxLength < c.maxL) {
			c.maxL, c.maxAt = *s.MaxLength, s
		}
		if s.Pattern != nil && !seenPat[s.Pattern.String()] {
			seenPat[s.Pattern.String()] = true
			c.pats = append(c.pats, s.Pattern)
			c.patAt = append(c.patAt, s)
		}
		if s.Format != nil && s.Format.Validate != nil && !seenFmt[s.Format.Name] {
			seenFmt[s.Format.Name] = true
			c.fmts = append(c.fmts, s.Format)
			if c.fmtAt == nil {
				c.fmtAt = s
			}
		}
		if c.content == nil && (s.ContentEncoding != nil || s.ContentMediaType != nil) {
			c.content = s
		}
	}
	return c
}

func (c *strCons) ok(s string) bool {
	n := utf8.RuneCountInString(s)
	if n < c.minL || c.maxL >= 0 && n > c.maxL {
		return false
	}
	for _, p := range c.pats {
		if !p.MatchString(s) {
			return false
		}
	}
	for _, f := range c.fmts {
		if f.Validate(s) != nil {
			return false
		}
	}
	return true
}

// targetLen picks a length in [minL, maxL].
func (g *gen) targetLen(c *strCons) int {
	hi := c.maxL
	if g.opts.Boundary {
		if hi >= 0 && hi <= 4096 && g.rng.IntN(2) == 0 {
			return hi
		}
		if g.rng.IntN(2) == 0 || hi >= 0 && hi <= 4096 {
			return c.minL
		}
		return c.minL + 64 + g.rng.IntN(64)
	}
	top := c.minL + 12
	if hi >= 0 && hi < top {
		top = hi
	}
	lo := c.minL
	if lo < 3 && top >= 3 && g.rng.IntN(4) > 0 {
		lo = 3 // avoid mostly empty strings
	}
	if top < lo {
		return c.minL
	}
	return lo + g.rng.IntN(top-lo+1)
}

// maxGenLength and maxGenItems bound the strings and arrays the sampler
// builds; larger minLength/minItems are reported as unsatisfiable.
const (
	maxGenLength = 1 << 16
	maxGenItems  = 4096
)

const (
	lower     = "abcdefghijklmnopqrstuvwxyz"
	alnum     = "abcdefghijklmnopqrstuvwxyz0123456789"
	unicodeCh = "éüßñçøåЖжΩλ中文日本語한국😀🎉𝄞"
)

// randText returns n code points of filler text.
func (g *gen) randText(n int) string {
	var sb strings.Builder
	uni := g.rng.IntN(8) == 0 || g.opts.Boundary && g.rng.IntN(2) == 0
	urunes := []rune(unicodeCh)
	for i := 0; i < n; i++ {
		switch {
		case uni && g.rng.IntN(3) == 0:
			sb.WriteRune(urunes[g.rng.IntN(len(urunes))])
		case i > 0 && i < n-1 && g.rng.IntN(7) == 0:
			sb.WriteByte(' ')
		default:
			sb.WriteByte(lower[g.rng.IntN(len(lower))])
		}
	}
	return sb.String()
}

func (g *gen) genString(f *flat, depth int) (any, error) {
	c := collectStr(f)
	for _, n := range f.nots {
		switch soleKeyword(n.s) {
		case "maxLength":
			if m := *n.s.MaxLength + 1; m > c.minL {
				c.minL, c.minAt = m, n.at
			}
		case "minLength":
			if m := *n.s.MinLength - 1; c.maxL < 0 || m < c.maxL {
				if m < 0 {
					return nil, unsat(n.at, n.kw, "no string is shorter than 0")
				}
				c.maxL, c.maxAt = m, n.at
			}
		}
	}
	if c.maxL >= 0 && c.minL > c.maxL {
		return nil, unsat(c.maxAt, "maxLength", "maxLength is below minLength")
	}
	if c.minL > maxGenLength {
		return nil, unsat(c.minAt, "minLength", "minLength too large for the sampler")
	}
	if c.content != nil {
		if s, ok := g.contentString(c, depth); ok {
			return s, nil
		}
	}
	if len(c.fmts) > 0 {
		for i := 0; i < 16; i++ {
			if err := g.tick(); err != nil {
				return nil, err
			}
			s := g.formatString(c.fmts[i%len(c.fmts)].Name, c)
			if c.ok(s) {
				return s, nil
			}
		}
	}
	if len(c.pats) > 0 {
		s, ok, err := g.patternString(c)
		if err != nil {
			return nil, err
		}
		if ok {
			return s, nil
		}
		at := c.patAt[0]
		return nil, unsat(at, "pattern", "no string found that matches "+quoteShort(at.Pattern.String())+" within the length bounds")
	}
	for i := 0; i < 8; i++ {
		s := g.randText(g.targetLen(c))
		if c.ok(s) {
			return s, nil
		}
	}
	if len(c.fmts) > 0 {
		return nil, unsat(c.fmtAt, "format", "no "+c.fmts[0].Name+" value found within the length bounds")
	}
	return nil, unsat(c.minAt, "minLength", "no string found within the length bounds")
}

func quoteShort(s string) string {
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return "/" + s + "/"
}

// contentString builds a string for contentEncoding/contentMediaType/
// contentSchema (asserted only when the compiler asserts content).
func (g *gen) contentString(c *strCons, depth int) (string, bool) {
	s := c.content
	var payload []byte
	switch {
	case s.ContentSchema != nil:
		v, err := g.value(conj{pos: []node{{s: s.ContentSchema}}}, depth+1)
		if err != nil {
			return "", false
		}
		b, err := json.Marshal(v)
		if err != nil {
			return "", false
		}
		payload = b
	case s.ContentMediaType != nil && s.ContentMediaType.Name == "application/json":
		payload = []byte(`{"id":1}`)
	default:
		payload = []byte(g.randText(8))
	}
	out := string(payload)
	if s.ContentEncoding != nil {
		switch s.ContentEncoding.Name {
		case "base64":
			out = base64.StdEncoding.EncodeToString(payload)
		default:
			return "", false
		}
	}
	return out, c.ok(out)
}
