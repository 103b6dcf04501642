package gogen

import (
	"fmt"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evtool/evtool/codegen/gocode"
)

// simplePattern is a pattern made of runs of character classes, which
// generated code matches without the regexp package: every run but the
// last has a fixed length, so no backtracking is ever needed. It is
// anchored at the start; end says whether it is anchored at the end too.
type simplePattern struct {
	runs []patRun
	end  bool
}

type patRun struct {
	ranges   []rune // pairs lo, hi
	min, max int    // max -1: unbounded
}

// compileSimple recognizes the patterns simplePattern can match exactly
// as regexp (RE2, Perl flags) does; ok is false for any other.
func compileSimple(pattern string) (*simplePattern, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, false
	}
	var subs []*syntax.Regexp
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	} else {
		subs = []*syntax.Regexp{re}
	}
	if len(subs) == 0 || subs[0].Op != syntax.OpBeginText {
		return nil, false
	}
	subs = subs[1:]
	p := &simplePattern{}
	if n := len(subs); n > 0 && subs[n-1].Op == syntax.OpEndText {
		p.end = true
		subs = subs[:n-1]
	}
	for _, s := range subs {
		switch s.Op {
		case syntax.OpLiteral:
			if s.Flags&syntax.FoldCase != 0 {
				return nil, false
			}
			for _, r := range s.Rune {
				p.runs = append(p.runs, patRun{ranges: []rune{r, r}, min: 1, max: 1})
			}
		case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
			p.runs = append(p.runs, patRun{ranges: classRanges(s), min: 1, max: 1})
		case syntax.OpRepeat, syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
			if s.Flags&syntax.NonGreedy != 0 && !p.end {
				return nil, false
			}
			sub := s.Sub[0]
			var ranges []rune
			switch sub.Op {
			case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
				ranges = classRanges(sub)
			case syntax.OpLiteral:
				if len(sub.Rune) != 1 || sub.Flags&syntax.FoldCase != 0 {
					return nil, false
				}
				ranges = []rune{sub.Rune[0], sub.Rune[0]}
			default:
				return nil, false
			}
			min, max := s.Min, s.Max
			switch s.Op {
			case syntax.OpStar:
				min, max = 0, -1
			case syntax.OpPlus:
				min, max = 1, -1
			case syntax.OpQuest:
				min, max = 0, 1
			}
			p.runs = append(p.runs, patRun{ranges: ranges, min: min, max: max})
		default:
			return nil, false
		}
	}
	// only the last run may vary in length, and only when the pattern is
	// anchored at the end (else matching a prefix never needs it: a
	// variable last run can always match its minimum)
	for i, r := range p.runs {
		if r.min != r.max && i != len(p.runs)-1 {
			return nil, false
		}
	}
	if !p.end && len(p.runs) > 0 {
		last := &p.runs[len(p.runs)-1]
		last.max = last.min
	}
	return p, true
}

func classRanges(s *syntax.Regexp) []rune {
	switch s.Op {
	case syntax.OpAnyCharNotNL:
		return []rune{0, '\n' - 1, '\n' + 1, utf8.MaxRune}
	case syntax.OpAnyChar:
		return []rune{0, utf8.MaxRune}
	}
	return s.Rune
}

// match is what the generated matcher does, for tests.
func (p *simplePattern) match(s string) bool {
	i := 0
	in := func(r rune, ranges []rune) bool {
		for j := 0; j+1 < len(ranges); j += 2 {
			if r >= ranges[j] && r <= ranges[j+1] {
				return true
			}
		}
		return false
	}
	for _, run := range p.runs {
		if run.min == run.max {
			for k := 0; k < run.min; k++ {
				if i >= len(s) {
					return false
				}
				r, n := utf8.DecodeRuneInString(s[i:])
				if !in(r, run.ranges) {
					return false
				}
				i += n
			}
			continue
		}
		for k := 0; ; k++ {
			if i >= len(s) {
				return k >= run.min
			}
			if k == run.max {
				return false
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			if !in(r, run.ranges) {
				return false
			}
			i += n
		}
	}
	if p.end {
		return i == len(s)
	}
	return true
}

// literalRuns returns the text of the single-rune runs that start runs.
func literalRuns(runs []patRun) string {
	var b strings.Builder
	for _, r := range runs {
		if r.min != 1 || r.max != 1 || len(r.ranges) != 2 || r.ranges[0] != r.ranges[1] {
			break
		}
		b.WriteRune(r.ranges[0])
	}
	return b.String()
}

// cond renders a test of rune r against ranges.
func condRanges(r string, ranges []rune) string {
	var parts []string
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		switch {
		case lo == hi:
			parts = append(parts, fmt.Sprintf("%s == %s", r, runeLit(lo)))
		case lo == 0:
			parts = append(parts, fmt.Sprintf("%s <= %s", r, runeLit(hi)))
		case hi == utf8.MaxRune:
			parts = append(parts, fmt.Sprintf("%s >= %s", r, runeLit(lo)))
		default:
			parts = append(parts, fmt.Sprintf("%s >= %s && %s <= %s", r, runeLit(lo), r, runeLit(hi)))
		}
	}
	if len(parts) == 0 {
		return "false"
	}
	return strings.Join(parts, " || ")
}

func runeLit(r rune) string {
	if r >= 0x20 && r < 0x7f && r != '\'' && r != '\\' {
		return "'" + string(r) + "'"
	}
	return "0x" + strconv.FormatInt(int64(r), 16)
}

// emitMatcher writes func name(s string) bool matching p.
func emitMatcher(o *gocode.Writer, name, pattern string, p *simplePattern) {
	o.P("// %s matches %s without the regexp package (same result).", name, strings.ReplaceAll(strconv.Quote(pattern), "*/", "*\\/"))
	o.P("func %s(s string) bool {", name)
	o.P("i := 0")
	o.P("var r rune")
	o.P("var n int")
	o.P("_, _ = r, n")
	for ri := 0; ri < len(p.runs); ri++ {
		run := p.runs[ri]
		if lit := literalRuns(p.runs[ri:]); len(lit) > 1 {
			o.P("if !strings.HasPrefix(s[i:], %s) {", strconv.Quote(lit))
			o.P("return false")
			o.P("}")
			o.P("i += %d", len(lit))
			ri += utf8.RuneCountInString(lit) - 1
			continue
		}
		cond := condRanges("r", run.ranges)
		// one rune at a time: ASCII fast, else decode
		next := func() {
			o.P("if i >= len(s) {")
			o.P("return false")
			o.P("}")
			o.P("if r, n = rune(s[i]), 1; r >= utf8.RuneSelf {")
			o.P("r, n = utf8.DecodeRuneInString(s[i:])")
			o.P("}")
		}
		switch {
		case run.min == run.max && run.min <= 4:
			for k := 0; k < run.min; k++ {
				next()
				o.P("if !(%s) {", cond)
				o.P("return false")
				o.P("}")
				o.P("i += n")
			}
		case run.min == run.max:
			o.P("for k := 0; k < %d; k++ {", run.min)
			next()
			o.P("if !(%s) {", cond)
			o.P("return false")
			o.P("}")
			o.P("i += n")
			o.P("}")
		default:
			// the last run, anchored at the end: count until the end
			o.P("for k := 0; ; k++ {")
			o.P("if i >= len(s) {")
			o.P("return k >= %d", run.min)
			o.P("}")
			if run.max >= 0 {
				o.P("if k == %d {", run.max)
				o.P("return false")
				o.P("}")
			}
			o.P("if r, n = rune(s[i]), 1; r >= utf8.RuneSelf {")
			o.P("r, n = utf8.DecodeRuneInString(s[i:])")
			o.P("}")
			o.P("if !(%s) {", cond)
			o.P("return false")
			o.P("}")
			o.P("i += n")
			o.P("}")
		}
	}
	if n := len(p.runs); n > 0 && p.runs[n-1].min != p.runs[n-1].max {
		o.P("}") // the loop of a variable last run returns
		o.P("")
		return
	}
	if p.end {
		o.P("return i == len(s)")
	} else {
		o.P("return true")
	}
	o.P("}")
	o.P("")
}
