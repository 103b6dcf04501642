package sample

import (
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Strings matching a pattern are built from the pattern's syntax tree
// (regexp/syntax, Perl flags as regexp.Compile uses), aiming at a target
// length, and then verified with the compiled pattern. Patterns the tree walk
// gets wrong (word boundaries, anchors in odd places, a non-Go regexp engine)
// fall back to a random search over the pattern's own characters.

type regexCache struct {
	mu sync.Mutex
	m  map[string]*syntax.Regexp // nil: does not parse
}

func newRegexCache() *regexCache { return &regexCache{m: map[string]*syntax.Regexp{}} }

func (c *regexCache) get(src string) *syntax.Regexp {
	c.mu.Lock()
	defer c.mu.Unlock()
	if re, ok := c.m[src]; ok {
		return re
	}
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		re = nil
	}
	c.m[src] = re
	return re
}

const inf = -1

// reMin is the fewest code points a match of re has.
func reMin(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture:
		return reMin(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		return 0
	case syntax.OpPlus:
		return reMin(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * reMin(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			n += reMin(s)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, s := range re.Sub {
			if m := reMin(s); n < 0 || m < n {
				n = m
			}
		}
		return max(n, 0)
	}
	return 0
}

// reMax is the most code points a match of re has, or inf.
func reMax(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture:
		return reMax(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		if reMax(re.Sub[0]) == 0 {
			return 0
		}
		return inf
	case syntax.OpQuest:
		return reMax(re.Sub[0])
	case syntax.OpRepeat:
		m := reMax(re.Sub[0])
		if m == 0 {
			return 0
		}
		if re.Max < 0 || m == inf {
			return inf
		}
		return re.Max * m
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			m := reMax(s)
			if m == inf {
				return inf
			}
			n += m
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, s := range re.Sub {
			m := reMax(s)
			if m == inf {
				return inf
			}
			n = max(n, m)
		}
		return n
	}
	return 0
}

// reGen walks a syntax tree.
type reGen struct {
	g     *gen
	steps int
	fail  bool
}

// gen appends to sb a string matching re, of about want code points
// (want < 0: any length).
func (r *reGen) gen(sb *strings.Builder, re *syntax.Regexp, want int) {
	r.steps++
	if r.steps > 20000 || r.fail {
		r.fail = true
		return
	}
	rng := r.g.rng
	switch re.Op {
	case syntax.OpNoMatch:
		r.fail = true
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && rng.IntN(2) == 0 {
				c = unicode.SimpleFold(c)
			}
			sb.WriteRune(c)
		}
	case syntax.OpCharClass:
		sb.WriteRune(r.pick(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		sb.WriteByte(alnum[rng.IntN(len(alnum))])
	case syntax.OpCapture:
		r.gen(sb, re.Sub[0], want)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, inf
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
		}
		sub := re.Sub[0]
		unit := max(reMin(sub), 1)
		var n int
		if want >= 0 {
			n = want / unit
		} else {
			n = lo + rng.IntN(3)
		}
		n = max(n, lo)
		if hi >= 0 {
			n = min(n, hi)
		}
		if n > 4096 {
			n = max(lo, 4096)
		}
		rest := want
		for i := 0; i < n && !r.fail; i++ {
			w := -1
			if want >= 0 {
				w = rest / (n - i)
			}
			before := sb.Len()
			r.gen(sb, sub, w)
			if want >= 0 {
				rest -= utf8.RuneCountInString(sb.String()[before:])
			}
		}
	case syntax.OpConcat:
		if want < 0 {
			for _, s := range re.Sub {
				r.gen(sb, s, -1)
			}
			return
		}
		mins := make([]int, len(re.Sub))
		wants := make([]int, len(re.Sub))
		total := 0
		for i, s := range re.Sub {
			mins[i] = reMin(s)
			wants[i] = mins[i]
			total += mins[i]
		}
		extra := want - total
		order := rng.Perm(len(re.Sub))
		for k, i := range order {
			if extra <= 0 {
				break
			}
			room := reMax(re.Sub[i])
			if room != inf {
				room -= mins[i]
			} else {
				room = extra
			}
			give := min(room, extra)
			if k < len(order)-1 && give > 0 && rng.IntN(3) == 0 {
				give = rng.IntN(give + 1)
			}
			wants[i] += give
			extra -= give
		}
		for i, s := range re.Sub {
			r.gen(sb, s, wants[i])
		}
	case syntax.OpAlternate:
		var fit []int
		for i, s := range re.Sub {
			if want < 0 {
				fit = append(fit, i)
				continue
			}
			mx := reMax(s)
			if reMin(s) <= want && (mx == inf || mx >= want) {
				fit = append(fit, i)
			}
		}
		if len(fit) == 0 {
			// closest by length
			best, bestd := 0, -1
			for i, s := range re.Sub {
				d := reMin(s) - want
				if mx := reMax(s); d < 0 && mx != inf {
					d = want - mx
				}
				if d < 0 {
					d = -d
				}
				if bestd < 0 || d < bestd {
					best, bestd = i, d
				}
			}
			fit = []int{best}
		}
		r.gen(sb, re.Sub[fit[rng.IntN(len(fit))]], want)
	default:
		// empty matches and assertions (^ $ \A \z \b \B) add nothing
	}
}

// pick chooses a rune from a char class, preferring printable ASCII and
// letters/digits.
func (r *reGen) pick(ranges []rune) rune {
	rng := r.g.rng
	type span struct{ lo, hi rune }
	clip := func(lo, hi rune) []span {
		var out []span
		for i := 0; i+1 < len(ranges); i += 2 {
			a, b := max(ranges[i], lo), min(ranges[i+1], hi)
			if a <= b {
				out = append(out, span{a, b})
			}
		}
		return out
	}
	choose := func(sp []span) rune {
		total := 0
		for _, s := range sp {
			total += int(s.hi-s.lo) + 1
		}
		k := rng.IntN(total)
		for _, s := range sp {
			n := int(s.hi-s.lo) + 1
			if k < n {
				return s.lo + rune(k)
			}
			k -= n
		}
		return sp[0].lo
	}
	var an []span
	an = append(an, clip('0', '9')...)
	an = append(an, clip('A', 'Z')...)
	an = append(an, clip('a', 'z')...)
	if len(an) > 0 && rng.IntN(5) > 0 {
		return choose(an)
	}
	if p := clip(0x20, 0x7e); len(p) > 0 {
		return choose(p)
	}
	var other []span
	other = append(other, clip(0xa0, 0xd7ff)...)
	other = append(other, clip(0xe000, 0xfffd)...)
	other = append(other, clip(0x10000, 0x10ffff)...)
	if len(other) > 0 {
		return choose(other)
	}
	if p := clip(0, 0x7f); len(p) > 0 {
		return choose(p)
	}
	if len(ranges) > 0 {
		return ranges[0]
	}
	r.fail = true
	return 'a'
}

// anchored reports whether re is anchored at its start / end.
func anchored(re *syntax.Regexp) (start, end bool) {
	first, last := re, re
	for {
		switch first.Op {
		case syntax.OpCapture:
			first = first.Sub[0]
			continue
		case syntax.OpConcat:
			if len(first.Sub) > 0 {
				first = first.Sub[0]
				continue
			}
		}
		break
	}
	for {
		switch last.Op {
		case syntax.OpCapture:
			last = last.Sub[0]
			continue
		case syntax.OpConcat:
			if len(last.Sub) > 0 {
				last = last.Sub[len(last.Sub)-1]
				continue
			}
		}
		break
	}
	start = first.Op == syntax.OpBeginText || first.Op == syntax.OpBeginLine
	end = last.Op == syntax.OpEndText || last.Op == syntax.OpEndLine
	return
}

// patternString searches for a string satisfying c (patterns, lengths and
// formats).
func (g *gen) patternString(c *strCons) (string, bool, error) {
	trees := make([]*syntax.Regexp, len(c.pats))
	for i, p := range c.pats {
		trees[i] = g.sp.re.get(p.String())
	}
	for attempt := 0; attempt < 24; attempt++ {
		if err := g.tick(); err != nil {
			return "", false, err
		}
		i := attempt % len(c.pats)
		re := trees[i]
		if re == nil {
			continue
		}
		target := g.targetLen(c)
		if attempt%4 == 3 {
			target = -1
		}
		rmin, rmax := reMin(re), reMax(re)
		want := target
		if want >= 0 {
			want = max(want, rmin)
			if rmax != inf {
				want = min(want, rmax)
			}
		}
		rg := &reGen{g: g}
		var sb strings.Builder
		rg.gen(&sb, re, want)
		if rg.fail {
			continue
		}
		s := sb.String()
		// other patterns: unanchored ones can be satisfied by concatenation
		if len(c.pats) > 1 && attempt%2 == 1 {
			for j, o := range trees {
				if j == i || o == nil || c.pats[j].MatchString(s) {
					continue
				}
				st, en := anchored(o)
				sub := &reGen{g: g}
				var sb2 strings.Builder
				sub.gen(&sb2, o, -1)
				if sub.fail {
					continue
				}
				switch {
				case !en:
					s = sb2.String() + s
				case !st:
					s += sb2.String()
				}
			}
		}
		s = g.pad(s, c, trees)
		if c.ok(s) {
			return s, true, nil
		}
	}
	// fallback: random strings over the patterns' own characters
	alpha := []rune("a0A_-. ")
	for _, re := range trees {
		if re != nil {
			alpha = append(alpha, literalRunes(re)...)
		}
	}
	for _, p := range c.pats {
		for _, ch := range p.String() {
			if unicode.IsLetter(ch) || unicode.IsDigit(ch) {
				alpha = append(alpha, ch)
			}
		}
	}
	for i := 0; i < 300; i++ {
		if err := g.tick(); err != nil {
			return "", false, err
		}
		n := c.minL + g.rng.IntN(7)
		if c.maxL >= 0 && n > c.maxL {
			n = c.maxL
		}
		rs := make([]rune, n)
		for k := range rs {
			rs[k] = alpha[g.rng.IntN(len(alpha))]
		}
		if s := string(rs); c.ok(s) {
			return s, true, nil
		}
	}
	return "", false, nil
}

// pad lengthens s to minLength where no pattern is anchored on that side.
func (g *gen) pad(s string, c *strCons, trees []*syntax.Regexp) string {
	n := utf8.RuneCountInString(s)
	if n >= c.minL {
		return s
	}
	okStart, okEnd := true, true
	for _, t := range trees {
		if t == nil {
			continue
		}
		st, en := anchored(t)
		okStart = okStart && !st
		okEnd = okEnd && !en
	}
	fill := g.randText(c.minL - n)
	switch {
	case okEnd:
		return s + fill
	case okStart:
		return fill + s
	}
	return s
}

func literalRunes(re *syntax.Regexp) []rune {
	var out []rune
	var walk func(*syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		switch r.Op {
		case syntax.OpLiteral:
			out = append(out, r.Rune...)
		case syntax.OpCharClass:
			for i := 0; i+1 < len(r.Rune) && i < 16; i += 2 {
				out = append(out, r.Rune[i])
				if r.Rune[i+1] != r.Rune[i] && r.Rune[i+1] < 0x10000 {
					out = append(out, r.Rune[i+1])
				}
			}
		}
		for _, s := range r.Sub {
			walk(s)
		}
	}
	walk(re)
	return out
}
