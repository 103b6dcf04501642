package jsoncompat

import (
	"context"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// String languages. A JSON Schema `pattern` is a search (it matches when
// any substring matches), evaluated here with Go's regexp syntax, the same
// engine the validator uses. Patterns and length bounds are decided exactly
// by exploring the product of the patterns' automata breadth first, so the
// answer comes with the shortest string that proves it. Every regular
// expression Go accepts is a regular language (no backreferences), and
// the anchors and word boundaries are modelled by carrying the previous
// character's class in the state; only a size budget makes the search give
// up, and then it says so (decideUnknown).

type decision int

const (
	decideNo decision = iota // no such string exists
	decideYes
	decideUnknown
)

// strAccept is what one side accepts: every pattern matches, the length is
// within [lo, hi] (hi < 0: unbounded) and, when enum is set, the string is
// one of enum.
type strAccept struct {
	pats    []string
	lo, hi  int
	enum    []string
	hasEnum bool
}

// strQuery asks for a string accepted by want and, when reject is set, not
// accepted by reject.
type strQuery struct {
	want   strAccept
	reject *strAccept
	// autos caches the automata of the patterns met in one comparison
	// (nil: compile each time).
	autos automata
	// ctx is the comparison's (nil: none): a search can take seconds
	// and a checker runs many, so each polls it and gives up (unknown)
	// once it is done, not only the checker between its steps.
	ctx context.Context
	// limit, when above zero, is the automaton instructions this search
	// may visit (what is left of its comparison's budget); spent, when
	// set, is added those it visited.
	limit int
	spent *int
}

const (
	maxClasses     = 4096
	maxSearchWork  = 3_000_000
	maxSearchNodes = 60_000
	// maxComparisonSearchWork bounds the automaton instructions all the
	// string searches of one comparison (one direction) visit: each
	// search is bounded on its own, but a pair of schemas asks one per
	// pair of patterns and one per pattern against all the others
	// (sixty patternProperties on each side: thousands of searches over
	// an alternation of sixty, tens of seconds). Past it every search is
	// undecided, which the rules treat as they treat one search over its
	// own bound, and the comparison says it was not exhaustive.
	maxComparisonSearchWork = 40_000_000
)

type automaton struct {
	prog *syntax.Prog
	// prefix is the literal every match starts with at the start of the
	// string (anchored: the pattern begins with ^ or \A, without (?m)),
	// suffix the one it ends with at the end (endAnchored: it ends with $
	// or \z); two patterns anchored to literals that differ match no
	// common string.
	prefix, suffix        string
	anchored, endAnchored bool
	// sets holds, for a rune instruction that folds case over a range, the
	// explicit ranges it matches.
	sets map[int][]rune
}

// automata maps a pattern's source to its automaton (nil when not
// compilable). Each checker owns one: a cache shared by the process
// would grow with every pattern a long-running registry server was sent.
type automata map[string]*automaton

func (m automata) compile(src string) *automaton {
	if m == nil {
		return buildAutomaton(src)
	}
	a, ok := m[src]
	if !ok {
		a = buildAutomaton(src)
		m[src] = a
	}
	return a
}

func buildAutomaton(src string) *automaton {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil
	}
	a := &automaton{prog: prog, sets: map[int][]rune{}}
	a.prefix, a.anchored = anchoredPrefix(re.Simplify())
	a.suffix, a.endAnchored = anchoredSuffix(re.Simplify())
	for pc, in := range prog.Inst {
		if (in.Op == syntax.InstRune || in.Op == syntax.InstRune1) && syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
			var rs []rune
			total := 0
			for i := 0; i+1 < len(in.Rune); i += 2 {
				total += int(in.Rune[i+1]-in.Rune[i]) + 1
			}
			if len(in.Rune) == 1 {
				total = 1
			}
			if total > 2048 {
				return nil // too large to expand; callers treat as unknown
			}
			add := func(r rune) {
				rs = append(rs, r, r)
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					rs = append(rs, f, f)
				}
			}
			if len(in.Rune) == 1 {
				add(in.Rune[0])
			} else {
				for i := 0; i+1 < len(in.Rune); i += 2 {
					for r := in.Rune[i]; r <= in.Rune[i+1]; r++ {
						add(r)
					}
				}
			}
			a.sets[pc] = rs
		}
	}
	return a
}

// anchoredPrefix returns the literal (case-sensitive) a pattern anchored
// at the start of the text begins with.
func anchoredPrefix(re *syntax.Regexp) (string, bool) {
	for re.Op == syntax.OpCapture && len(re.Sub) == 1 {
		re = re.Sub[0]
	}
	if re.Op == syntax.OpBeginText {
		return "", true
	}
	if re.Op != syntax.OpConcat || len(re.Sub) == 0 || re.Sub[0].Op != syntax.OpBeginText {
		return "", false
	}
	var b strings.Builder
	for _, sub := range re.Sub[1:] {
		if sub.Op != syntax.OpLiteral || sub.Flags&syntax.FoldCase != 0 {
			break
		}
		b.WriteString(string(sub.Rune))
	}
	return b.String(), true
}

// anchoredSuffix returns the literal (case-sensitive) a pattern anchored
// at the end of the text ends with.
func anchoredSuffix(re *syntax.Regexp) (string, bool) {
	for re.Op == syntax.OpCapture && len(re.Sub) == 1 {
		re = re.Sub[0]
	}
	if re.Op == syntax.OpEndText {
		return "", true
	}
	if re.Op != syntax.OpConcat || len(re.Sub) == 0 || re.Sub[len(re.Sub)-1].Op != syntax.OpEndText {
		return "", false
	}
	var parts []string
	for i := len(re.Sub) - 2; i >= 0; i-- {
		sub := re.Sub[i]
		if sub.Op != syntax.OpLiteral || sub.Flags&syntax.FoldCase != 0 {
			break
		}
		parts = append([]string{string(sub.Rune)}, parts...)
	}
	return strings.Join(parts, ""), true
}

// disjointPrefixes reports whether no string matches both automata
// because they are anchored to different literals at the start or at
// the end.
func disjointPrefixes(a, b *automaton) bool {
	if a == nil || b == nil {
		return false
	}
	if a.anchored && b.anchored && !strings.HasPrefix(a.prefix, b.prefix) && !strings.HasPrefix(b.prefix, a.prefix) {
		return true
	}
	return a.endAnchored && b.endAnchored && !strings.HasSuffix(a.suffix, b.suffix) && !strings.HasSuffix(b.suffix, a.suffix)
}

// withoutDisjoint drops the patterns that match no string pattern p
// matches (anchored to another literal): a reject set pruned so does
// not let more strings through than the whole set, and a search over
// it does not step sixty alternatives at every character.
func (m automata) withoutDisjoint(pats []string, p string) []string {
	pa := m.compile(p)
	var out []string
	for _, q := range pats {
		if !disjointPrefixes(pa, m.compile(q)) {
			out = append(out, q)
		}
	}
	return out
}

// matches reports whether instruction pc consumes rune r.
func (a *automaton) matches(pc int, r rune) bool {
	in := &a.prog.Inst[pc]
	switch in.Op {
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	case syntax.InstRune1:
		if s, ok := a.sets[pc]; ok {
			return inPairs(s, r)
		}
		return in.Rune[0] == r
	case syntax.InstRune:
		if s, ok := a.sets[pc]; ok {
			return inPairs(s, r)
		}
		return in.MatchRune(r)
	}
	return false
}

func inPairs(p []rune, r rune) bool {
	for i := 0; i+1 < len(p); i += 2 {
		if p[i] <= r && r <= p[i+1] {
			return true
		}
	}
	return false
}

// closure follows empty transitions from pcs given the characters around
// the position (-1 for the start or end of the string). It returns the
// rune instructions reached and whether a match instruction was reached.
func (a *automaton) closure(pcs []uint32, prev, next rune) (runes []uint32, match bool, visited int) {
	ctx := syntax.EmptyOpContext(prev, next)
	seen := make(map[uint32]bool, len(pcs)*2)
	stack := append([]uint32(nil), pcs...)
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		in := &a.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Out, in.Arg)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, in.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^ctx == 0 {
				stack = append(stack, in.Out)
			}
		case syntax.InstMatch:
			match = true
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			runes = append(runes, pc)
		}
	}
	return runes, match, len(seen)
}

// autoState is one automaton's position: the threads alive (before empty
// transitions) and whether a match was already seen (a search pattern
// stays matched whatever follows).
type autoState struct {
	pcs     []uint32
	matched bool
}

func (a *automaton) start() autoState {
	return autoState{pcs: []uint32{uint32(a.prog.Start)}}
}

// step returns the state after r, and the instructions it visited (what
// its time is proportional to: an alternation of sixty patterns is
// visited whole at every character, whatever threads are alive).
func (a *automaton) step(s autoState, prev, r rune) (autoState, int) {
	if s.matched {
		return s, 0
	}
	runes, match, visited := a.closure(s.pcs, prev, r)
	if match {
		return autoState{matched: true}, visited
	}
	next := map[uint32]bool{uint32(a.prog.Start): true}
	for _, pc := range runes {
		if a.matches(int(pc), r) {
			next[a.prog.Inst[pc].Out] = true
		}
	}
	out := make([]uint32, 0, len(next))
	for pc := range next {
		out = append(out, pc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return autoState{pcs: out}, visited
}

func (a *automaton) acceptsAtEnd(s autoState, prev rune) bool {
	if s.matched {
		return true
	}
	_, match, _ := a.closure(s.pcs, prev, -1)
	return match
}

func (s autoState) key(b *strings.Builder) {
	if s.matched {
		b.WriteString("M;")
		return
	}
	for _, pc := range s.pcs {
		b.WriteString(strconv.Itoa(int(pc)))
		b.WriteByte(',')
	}
	b.WriteByte(';')
}

// prevClass reduces the previous rune to what empty-width assertions see.
func prevClass(r rune) rune {
	switch {
	case r < 0:
		return -1
	case r == '\n':
		return '\n'
	case syntax.IsWordChar(r):
		return 'a'
	}
	return ' '
}

// alphabet partitions the code points into classes no automaton tells apart
// and returns one representative (a readable one when possible) per class.
func alphabet(autos []*automaton) ([]rune, bool) {
	bounds := map[rune]bool{0: true, '\n': true, '\n' + 1: true, '0': true, '9' + 1: true, 'A': true, 'Z' + 1: true,
		'_': true, '_' + 1: true, 'a': true, 'z' + 1: true, 0xD800: true, 0xE000: true, unicode.MaxRune + 1: true, ' ': true, 0x7F: true}
	for _, a := range autos {
		for pc, in := range a.prog.Inst {
			var pairs []rune
			if s, ok := a.sets[pc]; ok {
				pairs = s
			} else if in.Op == syntax.InstRune1 {
				pairs = []rune{in.Rune[0], in.Rune[0]}
			} else if in.Op == syntax.InstRune {
				pairs = in.Rune
				if len(pairs) == 1 {
					pairs = []rune{pairs[0], pairs[0]}
				}
			}
			for i := 0; i+1 < len(pairs); i += 2 {
				bounds[pairs[i]] = true
				bounds[pairs[i+1]+1] = true
			}
		}
		if len(bounds) > 2*maxClasses {
			return nil, false
		}
	}
	pts := make([]rune, 0, len(bounds))
	for r := range bounds {
		pts = append(pts, r)
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i] < pts[j] })
	var reps []rune
	for i := 0; i+1 < len(pts); i++ {
		lo, hi := pts[i], pts[i+1]-1
		if lo >= 0xD800 && lo < 0xE000 {
			continue // surrogates are not characters of a JSON string
		}
		reps = append(reps, representative(lo, hi))
	}
	if len(reps) > maxClasses {
		return nil, false
	}
	// Readable characters first, so the shortest witness is also legible.
	sort.SliceStable(reps, func(i, j int) bool { return readability(reps[i]) < readability(reps[j]) })
	return reps, true
}

func representative(lo, hi rune) rune {
	for _, want := range []rune{'a', 'x', 'A', 'X', '0', '1', '-', '_', ' '} {
		if lo <= want && want <= hi {
			return want
		}
	}
	for r := lo; r <= hi && r < lo+256; r++ {
		if unicode.IsPrint(r) {
			return r
		}
	}
	return lo
}

func readability(r rune) int {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return 0
	case r < 0x7F && unicode.IsPrint(r):
		return 1
	case unicode.IsPrint(r):
		return 2
	}
	return 3
}

// findString answers q: decideYes with a witness, decideNo, or
// decideUnknown when a pattern is not a Go regexp or the search is too big.
func findString(q strQuery) (string, decision) {
	s, d, _ := searchString(q)
	return s, d
}

// findString is findString with the checker's automata.
func (c *checker) findString(q strQuery) (string, decision) {
	if c.ctx != nil && c.ctx.Err() != nil {
		// As step: the comparison is stopped, and says so.
		c.canceled, c.overBudget = true, true
		return "", decideUnknown
	}
	left := c.searchBudget - c.searchWork
	if left <= 0 {
		c.searchExhausted = true
		return "", decideUnknown
	}
	q.autos = c.autos
	q.ctx = c.ctx
	q.limit, q.spent = left, &c.searchWork
	s, d := findString(q)
	switch {
	case d != decideUnknown:
	case c.searchWork >= c.searchBudget:
		c.searchExhausted = true
	case c.ctx == nil || c.ctx.Err() == nil:
		c.searchUndecided = true
	}
	return s, d
}

// searchString is findString that also returns the number of automaton
// threads it stepped (what its time is proportional to).
func searchString(q strQuery) (string, decision, int) {
	stepped := 0
	s, d := searchStringCounting(q, &stepped)
	return s, d, stepped
}

func searchStringCounting(q strQuery, stepped *int) (string, decision) {
	// work bounds the search on its own (threads stepped); visits, the
	// instructions the steps visited, are charged to the comparison.
	work, visits := 0, 0
	if q.spent != nil {
		defer func() { *q.spent += visits }()
	}
	if q.want.hasEnum {
		// A finite writer: check each value directly.
		for _, s := range q.want.enum {
			if q.want.accepts(s) && (q.reject == nil || !q.reject.accepts(s)) {
				return s, decideYes
			}
		}
		return "", decideNo
	}
	var wantA, rejA []*automaton
	for _, p := range q.want.pats {
		a := q.autos.compile(p)
		if a == nil {
			return "", decideUnknown
		}
		for _, b := range wantA {
			if disjointPrefixes(a, b) {
				return "", decideNo
			}
		}
		wantA = append(wantA, a)
	}
	if q.reject != nil {
		for _, p := range q.reject.rejectPatterns() {
			a := q.autos.compile(p)
			if a == nil {
				return "", decideUnknown
			}
			rejA = append(rejA, a)
		}
	}
	all := append(append([]*automaton(nil), wantA...), rejA...)
	if len(all) == 0 {
		return findByLength(q)
	}
	reps, ok := alphabet(all)
	if !ok {
		return "", decideUnknown
	}
	// Length buckets: lengths at or above cap behave alike.
	capLen := 1
	for _, n := range []int{q.want.lo, q.want.hi} {
		capLen = max(capLen, n+1)
	}
	if q.reject != nil {
		capLen = max(capLen, q.reject.lo+1, q.reject.hi+1)
	}
	type node struct {
		states []autoState
		prev   rune
		length int
		parent int
		char   rune
	}
	start := node{prev: -1, parent: -1}
	for _, a := range all {
		start.states = append(start.states, a.start())
	}
	nodes := []node{start}
	seen := map[string]bool{}
	keyOf := func(n *node) string {
		var b strings.Builder
		b.WriteString(strconv.Itoa(min(n.length, capLen)))
		b.WriteByte('|')
		b.WriteString(strconv.Itoa(int(n.prev)))
		b.WriteByte('|')
		for _, s := range n.states {
			s.key(&b)
		}
		return b.String()
	}
	seen[keyOf(&start)] = true
	for i := 0; i < len(nodes); i++ {
		if q.ctx != nil && q.ctx.Err() != nil {
			return "", decideUnknown
		}
		n := nodes[i]
		if q.accepts(n.states, len(wantA), wantA, rejA, n.prev, n.length) {
			var rs []rune
			for j := i; nodes[j].parent >= 0; j = nodes[j].parent {
				rs = append(rs, nodes[j].char)
			}
			for l, r := 0, len(rs)-1; l < r; l, r = l+1, r-1 {
				rs[l], rs[r] = rs[r], rs[l]
			}
			return string(rs), decideYes
		}
		if q.want.hi >= 0 && n.length >= q.want.hi {
			continue
		}
		// A writer pattern that can no longer match kills the branch: it is
		// dead when no thread is alive beyond the restart at Start... we keep
		// it simple and rely on the visited set to bound the search.
		// Work is counted in automaton threads stepped, not in nodes: an
		// unanchored pattern with counted repetitions keeps thousands of
		// threads alive in every state.
		threads := len(all)
		for _, s := range n.states {
			threads += len(s.pcs)
		}
		for _, r := range reps {
			if q.ctx != nil && q.ctx.Err() != nil {
				return "", decideUnknown
			}
			work += threads
			if work > maxSearchWork || len(nodes) > maxSearchNodes || q.limit > 0 && visits > q.limit {
				return "", decideUnknown
			}
			next := node{prev: prevClass(r), length: n.length + 1, parent: i, char: r}
			next.states = make([]autoState, len(all))
			for k, a := range all {
				*stepped += len(n.states[k].pcs)
				var v int
				next.states[k], v = a.step(n.states[k], n.prev, r)
				visits += v
			}
			k := keyOf(&next)
			if seen[k] {
				continue
			}
			seen[k] = true
			nodes = append(nodes, next)
		}
	}
	return "", decideNo
}

func (q strQuery) accepts(states []autoState, nWant int, wantA, rejA []*automaton, prev rune, length int) bool {
	if length < q.want.lo || (q.want.hi >= 0 && length > q.want.hi) {
		return false
	}
	for k, a := range wantA {
		if !a.acceptsAtEnd(states[k], prev) {
			return false
		}
	}
	if q.reject == nil {
		return true
	}
	if length < q.reject.lo || (q.reject.hi >= 0 && length > q.reject.hi) {
		return true
	}
	for k, a := range rejA {
		if !a.acceptsAtEnd(states[nWant+k], prev) {
			return true
		}
	}
	return false
}

// rejectPatterns are the reader's patterns plus its enum as an anchored
// alternation of literals.
func (s *strAccept) rejectPatterns() []string {
	pats := append([]string(nil), s.pats...)
	if s.hasEnum {
		lits := make([]string, len(s.enum))
		for i, e := range s.enum {
			lits[i] = regexp.QuoteMeta(e)
		}
		if len(lits) == 0 {
			pats = append(pats, `[^\x00-\x{10FFFF}]`) // matches nothing
		} else {
			pats = append(pats, `\A(?:`+strings.Join(lits, "|")+`)\z`)
		}
	}
	return pats
}

func (s *strAccept) accepts(v string) bool {
	n := len([]rune(v))
	if n < s.lo || (s.hi >= 0 && n > s.hi) {
		return false
	}
	for _, p := range s.pats {
		re, err := regexp.Compile(p)
		if err != nil || !re.MatchString(v) {
			return false
		}
	}
	if s.hasEnum {
		for _, e := range s.enum {
			if e == v {
				return true
			}
		}
		return false
	}
	return true
}

// findByLength answers a query without patterns from the bounds alone.
func findByLength(q strQuery) (string, decision) {
	lo, hi := q.want.lo, q.want.hi
	if hi >= 0 && lo > hi {
		return "", decideNo
	}
	capped := false
	try := func(n int) (string, bool) {
		if n < lo || (hi >= 0 && n > hi) || n < 0 {
			return "", false
		}
		if n > maxLengthWitness {
			capped = true
			return "", false
		}
		return strings.Repeat("a", n), true
	}
	undecided := func() (string, decision) {
		if capped {
			// A witness exists but is too long to build.
			return "", decideUnknown
		}
		return "", decideNo
	}
	if q.reject == nil {
		if s, ok := try(lo); ok {
			return s, decideYes
		}
		return undecided()
	}
	r := q.reject
	if s, ok := try(lo); ok && (lo < r.lo || (r.hi >= 0 && lo > r.hi)) {
		return s, decideYes
	}
	if r.hi >= 0 {
		if s, ok := try(max(lo, r.hi+1)); ok {
			return s, decideYes
		}
	}
	if s, ok := try(r.lo - 1); ok && r.lo > 0 {
		return s, decideYes
	}
	return undecided()
}

// maxLengthWitness bounds the strings findByLength builds: a schema with
// minLength 1000000000 must not make evtool allocate a gigabyte. Past it
// the rules say they cannot decide (a warning), never "compatible".
const maxLengthWitness = 1 << 20
