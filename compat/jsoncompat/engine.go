package jsoncompat

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/internal/schemawalk"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema/kind"
	"github.com/evtool/evtool/report"
)

// The rule engine decides L(writer) ⊆ L(reader) by walking both compiled
// schemas together.
//
//   - The writer side is a conjunction of atoms (a schema and everything
//     it pulls in place: $ref, allOf) put in disjunctive normal form over
//     anyOf, oneOf (as anyOf, with the other branches as negative atoms)
//     and if/then/else. Each branch is checked separately. Over-approximating
//     the writer is always safe: it can only add findings.
//   - The reader side is a conjunction of atoms; every reader atom must hold
//     for every writer branch. Reader disjunctions (anyOf, oneOf) are
//     matched branch by branch, splitting the writer by JSON type when no
//     single branch fits.
//   - A finite writer (enum, const, booleans, null) is decided exactly by
//     validating each value against the reader.
//   - Recursion terminates: a (writer branch, reader) pair under check is
//     assumed compatible when it is met again deeper in the instance
//     (coinduction, sound because documents are finite), and treated as a
//     failure when met again at the same depth (an unguarded cycle adds no
//     values). A step budget bounds everything else and turns into an
//     analysis-incomplete warning.

type atom struct {
	s *jsonschema.Schema
	// borrowed atoms come from the other side (a reader's `if` added to
	// narrow the writer): they constrain values but are never closed by the
	// lenient profile and declare no properties of the writer.
	borrowed bool
}

type branch struct {
	pos  []atom
	neg  []*jsonschema.Schema
	mask typeMask
}

func (b branch) with(a atom) branch {
	nb := b
	nb.pos = append(append([]atom(nil), b.pos...), a)
	nb.mask &= atomMask(a.s)
	return nb
}

func (b branch) withNeg(s *jsonschema.Schema) branch {
	nb := b
	nb.neg = append(append([]*jsonschema.Schema(nil), b.neg...), s)
	return nb
}

func (b branch) restrict(m typeMask) branch {
	nb := b
	nb.mask &= m
	return nb
}

// atomMask is the set of types an atom's own keywords allow.
func atomMask(s *jsonschema.Schema) typeMask {
	if s == nil || s.Bool != nil {
		if s != nil && !*s.Bool {
			return 0
		}
		return tAll
	}
	m := maskOfTypes(s.Types)
	if s.Const != nil {
		m &= maskOfValue(*s.Const)
	}
	if s.Enum != nil {
		var em typeMask
		for _, v := range s.Enum.Values {
			em |= maskOfValue(v)
		}
		m &= em
	}
	return m
}

// Limits of one comparison.
const (
	defaultBudget = 200_000
	maxBranches   = 128
	maxDepth      = 200
)

type memoEntry struct {
	inProgress bool
	depth      int
	ipLen      int
	res        []*Finding
}

type checker struct {
	dir     engine.Direction
	lenient bool
	eq      *equalizer

	steps, budget int
	overBudget    bool
	// searchWork is the work of the comparison's string searches so
	// far, searchBudget its bound (maxComparisonSearchWork);
	// searchExhausted records that a search was left undecided for it;
	// searchUndecided that one was left undecided on its own (its limits
	// of threads and states, or a pattern its automata cannot run).
	searchWork, searchBudget int
	searchExhausted          bool
	searchUndecided          bool
	// ctx, when set, is polled every few hundred steps; canceled records
	// that it ended the walk (reported like an exceeded budget).
	ctx      context.Context
	canceled bool
	memo     map[string]*memoEntry
	ids      map[*jsonschema.Schema]int
	pure     map[*jsonschema.Schema]bool
	enums    map[*jsonschema.Schema]*enumShadow
	// enumScanned counts enum values the validator compared one by one
	// (tests check it stays linear).
	enumScanned   int
	depth         int
	minDep        int
	warnedDynamic bool
	// requires holds the schemas the rules make up: the {required: names}
	// atoms dependents add, forbidden names, pieces of a range.
	requires map[synthKey]*jsonschema.Schema
	autos    automata
}

// synthKey names a made-up schema, one per comparison (memo keys compare
// atoms by identity). The kind keeps the kinds apart: property names may
// hold any character, so they never share a key space with another kind.
type synthKey struct {
	kind synthKind
	text string
}

type synthKind int

const (
	synthRequired synthKind = iota
	synthForbid
	synthNegProp
	synthNumberPiece
	synthLengthPiece
)

func newChecker(dir engine.Direction, lenient bool, budget int) *checker {
	if budget <= 0 {
		budget = defaultBudget
	}
	return &checker{dir: dir, lenient: lenient, eq: newEqualizer(), budget: budget, searchBudget: budget * (maxComparisonSearchWork / defaultBudget),
		memo: map[string]*memoEntry{}, ids: map[*jsonschema.Schema]int{}, pure: map[*jsonschema.Schema]bool{}, enums: map[*jsonschema.Schema]*enumShadow{}, minDep: math.MaxInt,
		requires: map[synthKey]*jsonschema.Schema{}, autos: automata{}}
}

// finding builds a finding; w and r are writer and reader locations.
func (c *checker) finding(k Kind, sev report.Severity, w, r string, wv, rv any, ip ipath, h *hint, args ...any) *Finding {
	tmpl := strings.NewReplacer("{W}", c.dir.Writer(), "{R}", c.dir.Reader()).Replace(kinds[k].tmpl)
	msg := fmt.Sprintf(tmpl, args...)
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	f := &Finding{Rule: k.ID(c.dir), Kind: k, Severity: sev, Direction: c.dir, Message: msg, InstancePath: ip.String(), hint: h}
	if h != nil && h.path == nil {
		h.path = ip
	}
	if c.dir == engine.Backward {
		f.OldLocation, f.NewLocation, f.OldValue, f.NewValue = w, r, wv, rv
	} else {
		f.OldLocation, f.NewLocation, f.OldValue, f.NewValue = r, w, rv, wv
	}
	return f
}

func (c *checker) errorf(k Kind, w, r string, wv, rv any, ip ipath, h *hint, args ...any) *Finding {
	return c.finding(k, report.SeverityError, w, r, wv, rv, ip, h, args...)
}

func (c *checker) warnf(k Kind, w, r string, wv, rv any, ip ipath, h *hint, args ...any) *Finding {
	return c.finding(k, report.SeverityWarning, w, r, wv, rv, ip, h, args...)
}

func (c *checker) step() bool {
	c.steps++
	if c.steps > c.budget {
		c.overBudget = true
		return false
	}
	if c.ctx != nil && c.steps%256 == 0 && c.ctx.Err() != nil {
		c.canceled, c.overBudget = true, true
		return false
	}
	return true
}

func (c *checker) id(s *jsonschema.Schema) int {
	if n, ok := c.ids[s]; ok {
		return n
	}
	n := len(c.ids) + 1
	c.ids[s] = n
	return n
}

// hollow reports whether s constrains nothing but through `$ref` and
// `allOf`: the branch (or reader) it is an atom of holds each of those
// subschemas as an atom of its own, so s adds nothing to compare.
func (c *checker) hollow(s *jsonschema.Schema) bool {
	if s == nil || s.Bool != nil || (s.Ref == nil && len(s.AllOf) == 0) {
		return false
	}
	if p, ok := c.pure[s]; ok {
		return p
	}
	t := *s
	t.Ref, t.AllOf = nil, nil
	p := isEmptySchema(&t)
	c.pure[s] = p
	return p
}

// deref follows pure $refs (a hollow schema with only a $ref) to the
// schema that constrains.
func (c *checker) deref(s *jsonschema.Schema) *jsonschema.Schema {
	for i := 0; i < maxDepth*100 && s != nil && len(s.AllOf) == 0 && c.hollow(s); i++ {
		s = s.Ref
	}
	return s
}

// key identifies a (writer branch, reader) question for the memo. Hollow
// atoms are left out on the writer side and pure $refs followed on the
// reader side: the same definition reached through
// two properties (or two chains of $refs) is one question, so the work is
// bounded by the schemas' size, not by the number of instance paths.
func (c *checker) key(b branch, r *jsonschema.Schema) string {
	pos := make([]int, 0, len(b.pos))
	for _, a := range b.pos {
		if c.hollow(a.s) {
			continue
		}
		p := c.id(a.s) * 2
		if a.borrowed {
			p++
		}
		pos = append(pos, p)
	}
	sort.Ints(pos)
	neg := make([]int, len(b.neg))
	for i, s := range b.neg {
		neg[i] = c.id(s)
	}
	sort.Ints(neg)
	var sb strings.Builder
	for _, p := range pos {
		sb.WriteString(strconv.Itoa(p))
		sb.WriteByte(',')
	}
	sb.WriteByte('!')
	for _, p := range neg {
		sb.WriteString(strconv.Itoa(p))
		sb.WriteByte(',')
	}
	sb.WriteByte('|')
	sb.WriteString(strconv.Itoa(int(b.mask)))
	sb.WriteByte('|')
	sb.WriteString(strconv.Itoa(c.id(c.deref(r))))
	return sb.String()
}

// clean reports whether a sub-check proved inclusion: no error and no
// undecided warning. Results used as a proof (not reported) must be clean.
func clean(fs []*Finding) bool { return len(fs) == 0 }

// hasErrors reports whether a result contains an error.
func hasErrors(fs []*Finding) bool {
	for _, f := range fs {
		if f.Severity == report.SeverityError {
			return true
		}
	}
	return false
}

func countErrors(fs []*Finding) int {
	n := 0
	for _, f := range fs {
		if f.Severity == report.SeverityError {
			n++
		}
	}
	return n
}

// sub checks the conjunction w (minus neg, within mask) against reader r.
func (c *checker) sub(w []atom, neg []*jsonschema.Schema, mask typeMask, r *jsonschema.Schema, ip ipath) []*Finding {
	if isTrue(r) || mask == 0 {
		return nil
	}
	for _, a := range w {
		if a.s == r || c.eq.equal(a.s, r) {
			return nil
		}
	}
	var bs []branch
	ok := true
	if len(w) == 1 && len(neg) == 0 && isLeaf(w[0].s) {
		// The common case (a property's own schema): nothing to expand.
		if m := mask & atomMask(w[0].s); m != 0 {
			bs = []branch{{pos: w, mask: m}}
		}
	} else {
		bs, ok = c.expand(w, neg, mask)
	}
	var out []*Finding
	if !ok {
		out = append(out, c.warnf(KindIncomplete, locOf(w), r.Location, nil, nil, ip, nil,
			fmt.Sprintf("the writer has more than %d alternatives (anyOf/oneOf/if combinations) here", maxBranches)))
	}
	for _, b := range bs {
		out = append(out, c.subBranch(b, r, ip)...)
	}
	return out
}

// isLeaf: a schema with no in-place applicators (its atoms are itself).
func isLeaf(s *jsonschema.Schema) bool {
	return s != nil && s.Bool == nil && s.Ref == nil && s.RecursiveRef == nil && s.DynamicRef == nil && len(s.AllOf) == 0 &&
		len(s.AnyOf) == 0 && len(s.OneOf) == 0 && s.Not == nil && s.If == nil
}

func (c *checker) subOne(w *jsonschema.Schema, r *jsonschema.Schema, ip ipath) []*Finding {
	return c.sub([]atom{{s: w}}, nil, tAll, r, ip)
}

// origin is the writer schema a branch stands for (nil for an
// unconstrained branch): what witness search samples from.
func origin(b branch) *jsonschema.Schema {
	for _, a := range b.pos {
		if !a.borrowed {
			return a.s
		}
	}
	if len(b.pos) > 0 {
		return b.pos[0].s
	}
	return nil
}

func locOf(w []atom) string {
	for _, a := range w {
		if !a.borrowed && a.s != nil {
			return a.s.Location
		}
	}
	if len(w) > 0 && w[0].s != nil {
		return w[0].s.Location
	}
	return ""
}

// expand puts a writer conjunction in disjunctive normal form.
func (c *checker) expand(pos []atom, neg []*jsonschema.Schema, mask typeMask) ([]branch, bool) {
	type alt struct {
		pos []atom
		neg []*jsonschema.Schema
	}
	type item struct {
		a    atom
		alts []alt
	}
	var out []branch
	ok := true
	var rec func(b branch, queue []item, seen map[*jsonschema.Schema]bool)
	rec = func(b branch, queue []item, seen map[*jsonschema.Schema]bool) {
		for len(queue) > 0 {
			if !ok {
				return
			}
			it := queue[0]
			queue = queue[1:]
			if it.alts != nil {
				for _, al := range it.alts {
					nb := b
					nb.pos = append([]atom(nil), b.pos...)
					nb.neg = append(append([]*jsonschema.Schema(nil), b.neg...), al.neg...)
					nq := make([]item, 0, len(al.pos)+len(queue))
					for _, a := range al.pos {
						nq = append(nq, item{a: a})
					}
					nq = append(nq, queue...)
					ns := make(map[*jsonschema.Schema]bool, len(seen))
					for k := range seen {
						ns[k] = true
					}
					rec(nb, nq, ns)
				}
				return
			}
			a := it.a
			s := a.s
			if s == nil || seen[s] {
				continue
			}
			seen[s] = true
			if s.Bool != nil {
				if *s.Bool {
					continue
				}
				return // false: the branch is empty
			}
			b.pos = append(b.pos, a)
			b.mask &= atomMask(s)
			if b.mask == 0 {
				return
			}
			var more []item
			if s.Ref != nil {
				more = append(more, item{a: atom{s.Ref, a.borrowed}})
			}
			if s.RecursiveRef != nil {
				more = append(more, item{a: atom{s.RecursiveRef, a.borrowed}})
			}
			if s.DynamicRef != nil && s.DynamicRef.Ref != nil {
				more = append(more, item{a: atom{s.DynamicRef.Ref, a.borrowed}})
			}
			for _, x := range s.AllOf {
				more = append(more, item{a: atom{x, a.borrowed}})
			}
			if s.Not != nil {
				b.neg = append(b.neg, s.Not)
			}
			if len(s.AnyOf) > 0 {
				alts := make([]alt, len(s.AnyOf))
				for i, x := range s.AnyOf {
					alts[i] = alt{pos: []atom{{x, a.borrowed}}}
				}
				more = append(more, item{alts: alts})
			}
			if len(s.OneOf) > 0 {
				alts := make([]alt, len(s.OneOf))
				for i, x := range s.OneOf {
					var others []*jsonschema.Schema
					for j, y := range s.OneOf {
						if j != i {
							others = append(others, y)
						}
					}
					alts[i] = alt{pos: []atom{{x, a.borrowed}}, neg: others}
				}
				more = append(more, item{alts: alts})
			}
			if s.If != nil && (s.Then != nil || s.Else != nil) {
				yes := alt{pos: []atom{{s.If, true}}}
				if s.Then != nil {
					yes.pos = append(yes.pos, atom{s.Then, a.borrowed})
				}
				no := alt{neg: []*jsonschema.Schema{s.If}}
				if s.Else != nil {
					no.pos = append(no.pos, atom{s.Else, a.borrowed})
				}
				more = append(more, item{alts: []alt{yes, no}})
			}
			queue = append(more, queue...)
		}
		out = append(out, b)
		if len(out) > maxBranches {
			ok = false
		}
	}
	q := make([]item, len(pos))
	for i, a := range pos {
		q[i] = item{a: a}
	}
	rec(branch{mask: mask, neg: append([]*jsonschema.Schema(nil), neg...)}, q, map[*jsonschema.Schema]bool{})
	if !ok {
		out = out[:maxBranches]
	}
	return out, ok
}

// readerAtoms expands a reader schema through $ref and allOf.
func readerAtoms(r *jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	seen := map[*jsonschema.Schema]bool{}
	var rec func(s *jsonschema.Schema)
	rec = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
		if s.Bool != nil {
			return
		}
		rec(s.Ref)
		rec(s.RecursiveRef)
		if s.DynamicRef != nil {
			rec(s.DynamicRef.Ref)
		}
		for _, x := range s.AllOf {
			rec(x)
		}
	}
	rec(r)
	return out
}

func (c *checker) subBranch(b branch, r *jsonschema.Schema, ip ipath) []*Finding {
	key := c.key(b, r)
	if e, ok := c.memo[key]; ok {
		if !e.inProgress {
			return e.res
		}
		if len(ip) > e.ipLen {
			c.minDep = min(c.minDep, e.depth)
			return nil // guarded recursion: assumed, proven by induction on the document
		}
		return []*Finding{c.errorf(KindIncomplete, locOf(b.pos), r.Location, nil, nil, ip, nil,
			"the reader refers to itself without descending into the document (an unguarded recursive $ref)")}
	}
	if c.depth > maxDepth {
		c.overBudget = true
	}
	if c.overBudget || !c.step() {
		return nil // reported once by Compare (analysis-incomplete)
	}
	d := c.depth
	c.depth++
	e := &memoEntry{inProgress: true, depth: d, ipLen: len(ip)}
	c.memo[key] = e
	saved := c.minDep
	c.minDep = math.MaxInt
	res := uniqueFindings(c.subBranchNow(b, r, ip))
	c.depth--
	if c.minDep >= d {
		e.inProgress = false
		e.res = res
		c.minDep = saved
	} else {
		delete(c.memo, key)
		c.minDep = min(saved, c.minDep)
	}
	return res
}

// uniqueFindings drops repeated pointers: a memoised result reached
// through several properties is one set of findings (reported once, at the
// first instance path met), not one copy per path.
func uniqueFindings(fs []*Finding) []*Finding {
	if len(fs) < 2 {
		return fs
	}
	seen := make(map[*Finding]bool, len(fs))
	out := fs[:0:0]
	for _, f := range fs {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

func (c *checker) subBranchNow(b branch, r *jsonschema.Schema, ip ipath) []*Finding {
	ratoms := readerAtoms(r)
	var out []*Finding
	c.noteDynamic(b, ratoms, ip)
	for _, ra := range ratoms {
		if ra.Bool != nil && !*ra.Bool {
			if c.branchEmpty(b) {
				return nil
			}
			return []*Finding{c.errorf(KindFalse, locOf(b.pos), ra.Location, nil, false, ip, &hint{})}
		}
		if ra.Not != nil && (isTrue(ra.Not) || isEmptySchema(ra.Not)) {
			if c.branchEmpty(b) {
				return nil
			}
			return []*Finding{c.errorf(KindFalse, locOf(b.pos), loc(ra, "not"), nil, nil, ip, &hint{})}
		}
	}
	if vals, finite := c.writerValues(b); finite {
		return c.checkFinite(b, vals, r, ip)
	}
	if b.mask.has(tObject) && c.hasDependents(b) {
		// The writer's dependents apply to its objects that have the
		// trigger: check those object branches on their own.
		obs, changed := c.applyDependents(b.restrict(tObject))
		if changed {
			if rest := b.restrict(tAll &^ tObject); rest.mask != 0 {
				out = append(out, c.subBranch(rest, r, ip)...)
			}
			for _, ob := range obs {
				out = append(out, c.subBranch(ob, r, ip)...)
			}
			return out
		}
	}
	var same map[string][]atom
	if len(b.pos) > maxEqualTries {
		same = atomsByPointer(b.pos)
	}
	for _, ra := range ratoms {
		// A hollow reader atom's subschemas are reader atoms of their own.
		if ra.Bool != nil || c.hollow(ra) || c.equalsAnyOf(b.pos, same, ra) {
			continue
		}
		out = append(out, c.local(b, ra, ip)...)
		out = append(out, c.combinators(b, ra, ip)...)
	}
	return out
}

// isEmptySchema reports whether s is `{}` up to annotations.
func isEmptySchema(s *jsonschema.Schema) bool {
	return s != nil && s.Bool == nil && newEqualizer().equal(s, trueSchema)
}

var (
	trueSchema = &jsonschema.Schema{}
	printer    = message.NewPrinter(language.English)
)

func (c *checker) equalsAny(b branch, r *jsonschema.Schema) bool {
	return c.equalsAnyOf(b.pos, nil, r)
}

// maxEqualTries is how many writer atoms a reader atom is compared with
// structurally; beyond it only the atoms at the same JSON pointer (the
// same definition in the other version) are. Equality only lets the rules
// skip work, so trying fewer pairs is safe.
const maxEqualTries = 32

// equalsAnyOf reports whether r is one of the atoms, structurally. same,
// when set, indexes the atoms by JSON pointer.
func (c *checker) equalsAnyOf(pos []atom, same map[string][]atom, r *jsonschema.Schema) bool {
	// Only a hollow schema (just $ref/allOf) can equal a hollow one.
	hr := c.hollow(r)
	try := func(a atom) bool {
		return a.s == r || (c.hollow(a.s) == hr && c.eq.equal(a.s, r))
	}
	if same == nil {
		for _, a := range pos {
			if try(a) {
				return true
			}
		}
		return false
	}
	_, ptr := splitLocation(r.Location)
	for _, a := range same[ptr] {
		if try(a) {
			return true
		}
	}
	for _, a := range pos[:maxEqualTries] {
		if try(a) {
			return true
		}
	}
	return false
}

func atomsByPointer(pos []atom) map[string][]atom {
	m := make(map[string][]atom, len(pos))
	for _, a := range pos {
		_, ptr := splitLocation(a.s.Location)
		m[ptr] = append(m[ptr], a)
	}
	return m
}

func (c *checker) noteDynamic(b branch, ratoms []*jsonschema.Schema, ip ipath) {
	if c.warnedDynamic {
		return
	}
	for _, a := range b.pos {
		if a.s.RecursiveRef != nil || (a.s.DynamicRef != nil && a.s.DynamicRef.Anchor != "") {
			c.warnedDynamic = true
			return
		}
	}
	for _, s := range ratoms {
		if s.RecursiveRef != nil || (s.DynamicRef != nil && s.DynamicRef.Anchor != "") {
			c.warnedDynamic = true
			return
		}
	}
}

// writerValues returns the writer's values when it has finitely many:
// an enum or const (filtered by every other atom), or only null/boolean.
func (c *checker) writerValues(b branch) ([]any, bool) {
	var cand []any
	found := false
	for _, a := range b.pos {
		if a.s.Const != nil {
			cand, found = []any{*a.s.Const}, true
			break
		}
		if a.s.Enum != nil && (!found || len(a.s.Enum.Values) < len(cand)) {
			cand, found = a.s.Enum.Values, true
		}
	}
	if !found {
		if b.mask&^(tNull|tBoolean) != 0 {
			return nil, false
		}
		if b.mask.has(tNull) {
			cand = append(cand, nil)
		}
		if b.mask.has(tBoolean) {
			cand = append(cand, false, true)
		}
	}
	var out []any
	for _, v := range cand {
		if c.writerAccepts(b, v) {
			out = append(out, v)
		}
	}
	return out, true
}

// enumShadow answers validation against a schema with a large enum in
// time independent of the enum's size: membership by hash, the other
// keywords by the same schema without its enum.
type enumShadow struct {
	index map[string]int
	rest  *jsonschema.Schema
}

// largeEnum is the enum size from which validation goes through a hash
// index instead of the validator's linear scan.
const largeEnum = 64

// accepts reports whether v is valid against s. It is s.Validate(v) == nil,
// except that a large enum of s itself is looked up by hash: a finite
// writer of n values checked against an enum of m values costs n+m, not n·m.
func (c *checker) accepts(s *jsonschema.Schema, v any) bool {
	s = c.deref(s)
	if s == nil {
		return true
	}
	if s.Bool != nil || s.Enum == nil || len(s.Enum.Values) < largeEnum {
		if s.Enum != nil {
			c.enumScanned += len(s.Enum.Values)
		}
		return s.Validate(v) == nil
	}
	sh := c.enumShadow(s)
	if _, ok := sh.index[valueKey(v)]; !ok {
		return false
	}
	return sh.rest.Validate(v) == nil
}

func (c *checker) enumShadow(s *jsonschema.Schema) *enumShadow {
	if sh, ok := c.enums[s]; ok {
		return sh
	}
	rest := *s
	rest.Enum = nil
	sh := &enumShadow{index: valueIndex(s.Enum.Values), rest: &rest}
	c.enums[s] = sh
	return sh
}

// enumPosition is the index of v in s's enum (-1 when absent).
func (c *checker) enumPosition(s *jsonschema.Schema, v any) int {
	if len(s.Enum.Values) >= largeEnum {
		if i, ok := c.enumShadow(s).index[valueKey(v)]; ok {
			return i
		}
		return -1
	}
	for i, e := range s.Enum.Values {
		if jsonvalue.Equal(e, v) {
			return i
		}
	}
	return -1
}

// writerAccepts validates a value against every atom of a writer branch
// (and no negative atom).
func (c *checker) writerAccepts(b branch, v any) bool {
	if maskOfValue(v)&b.mask == 0 {
		return false
	}
	for _, a := range b.pos {
		if !c.accepts(a.s, v) {
			return false
		}
		if c.lenient && !a.borrowed && !c.closedAccepts(a.s, v) {
			return false
		}
	}
	for _, n := range b.neg {
		if c.accepts(n, v) {
			return false
		}
	}
	return true
}

// closedAccepts checks the lenient closure of one writer atom on an object
// value: only declared properties.
func (c *checker) closedAccepts(s *jsonschema.Schema, v any) bool {
	obj, ok := v.(map[string]any)
	if !ok || !implicitlyClosed(s) {
		return true
	}
	for k := range obj {
		if _, ok := s.Properties[k]; !ok {
			return false
		}
	}
	return true
}

// implicitlyClosed: lenient closes a writer object schema that declares
// properties and says nothing about other properties.
func implicitlyClosed(s *jsonschema.Schema) bool {
	if s.Properties == nil || s.AdditionalProperties != nil || s.PatternProperties != nil || s.UnevaluatedProperties != nil {
		return false
	}
	// A schema that requires a name it does not declare expects more than
	// its properties: closing it would leave no valid object at all, and
	// every change would look compatible.
	for _, n := range s.Required {
		if _, ok := s.Properties[n]; !ok {
			return false
		}
	}
	return true
}

// checkFinite decides a finite writer exactly.
func (c *checker) checkFinite(b branch, vals []any, r *jsonschema.Schema, ip ipath) []*Finding {
	var out []*Finding
	src := origin(b)
	wkw := ""
	for _, a := range b.pos {
		if a.s.Const != nil {
			src, wkw = a.s, "const"
			break
		}
		if a.s.Enum != nil {
			src, wkw = a.s, "enum"
		}
	}
	seenLoc := map[string]bool{}
	listed := 0
	for i, v := range vals {
		if c.accepts(r, v) {
			continue
		}
		if listed == maxValueFindings {
			rejected := 0
			for _, v := range vals[i:] {
				if !c.accepts(r, v) {
					rejected++
				}
			}
			f := c.errorf(KindEnumValue, loc(src, wkw), r.Location, nil, nil, ip, nil, "")
			f.Message = fmt.Sprintf("%d more values of the %s schema are rejected by the %s schema; only the first %d are listed", rejected, c.dir.Writer(), c.dir.Reader(), maxValueFindings)
			out = append(out, f)
			break
		}
		err := r.Validate(v)
		if err == nil {
			continue
		}
		if wkw == "" {
			// null/booleans from `type`: one finding per reader keyword.
			l, _, _ := leafError(err)
			if seenLoc[l] {
				continue
			}
			seenLoc[l] = true
		}
		idx := -1
		if wkw == "enum" {
			idx = c.enumPosition(src, v)
		}
		rloc, msg, kw := leafError(err)
		k := KindEnumValue
		switch {
		case wkw == "const" && kw == "const":
			k = KindConst
		case wkw == "":
			// Values that come from `type` (null, booleans), not a list.
			switch top := topKind(err); {
			case top == "anyOf":
				k = KindAnyOf
			case top == "oneOf":
				k = KindOneOf
			case kw == "enum":
				k = KindEnumAdded
			case kw == "const":
				k = KindConstAdded
			default:
				k = KindType
			}
		}
		wl := locOf(b.pos)
		switch {
		case idx >= 0:
			wl = loc(src, wkw, strconv.Itoa(idx))
		case wkw != "":
			wl = loc(src, wkw)
		}
		f := c.errorf(k, wl, rloc, v, readerValueAt(r, rloc), ip, &hint{value: v, hasValue: true}, compactJSON(v))
		if k != KindEnumValue && k != KindConst {
			f.Message = fmt.Sprintf("The %s schema allows %s, the %s schema rejects it", c.dir.Writer(), compactJSON(v), c.dir.Reader())
		}
		if k != KindConst {
			f.Message += ": " + msg
		}
		out = append(out, f)
		listed++
	}
	return out
}

// maxValueFindings bounds the findings of one finite writer (an enum of
// 100,000 values all rejected): the rest are counted in one more finding.
const maxValueFindings = 100

// topKind names the keyword of the first real failure of an error tree
// ("anyOf", "oneOf", ...).
func topKind(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return ""
	}
	for {
		switch ve.ErrorKind.(type) {
		case *kind.Schema, *kind.Group, *kind.Reference:
			if len(ve.Causes) == 0 {
				return ""
			}
			ve = ve.Causes[0]
			continue
		}
		if kp := ve.ErrorKind.KeywordPath(); len(kp) > 0 {
			return kp[0]
		}
		return ""
	}
}

// readerValueAt returns the keyword value a reader failed on, for the
// finding's new/old value (only enum and const are worth showing).
func readerValueAt(r *jsonschema.Schema, location string) any {
	var found any
	seen := map[*jsonschema.Schema]bool{}
	var walk func(s *jsonschema.Schema, depth int)
	walk = func(s *jsonschema.Schema, depth int) {
		if s == nil || seen[s] || found != nil || depth > 20 {
			return
		}
		seen[s] = true
		if s.Enum != nil && loc(s, "enum") == location {
			found = shownValues(s.Enum.Values)
			return
		}
		if s.Const != nil && loc(s, "const") == location {
			found = []any{*s.Const}
			return
		}
		for _, x := range schemawalk.Children(s) {
			walk(x, depth+1)
		}
	}
	walk(r, 0)
	if l, ok := found.([]any); ok && len(l) == 1 && strings.HasSuffix(location, "/const") {
		return l[0]
	}
	return found
}

// maxMessage bounds (in characters) the reader's complaint quoted in a
// finding.
const maxMessage = 300

// leafError returns the location, message and keyword of the most specific
// cause of a validation error.
func leafError(err error) (location, msg, keyword string) {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return "", err.Error(), ""
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	kp := ve.ErrorKind.KeywordPath()
	base := ve.SchemaURL
	if ref, ok := ve.ErrorKind.(*kind.Reference); ok {
		base, kp = ref.URL, nil
	}
	location = base
	if !strings.Contains(location, "#") {
		location += "#"
	}
	for _, t := range kp {
		location += "/" + url.PathEscape(jsonpos.Escape(t))
	}
	if len(kp) > 0 {
		keyword = kp[len(kp)-1]
	}
	// An enum's message lists every value: keep findings small.
	msg = truncate(ve.ErrorKind.LocalizedString(printer), maxMessage)
	if len(ve.InstanceLocation) > 0 {
		msg = "at /" + strings.Join(ve.InstanceLocation, "/") + ": " + msg
	}
	return location, msg, keyword
}

// branchEmpty reports whether a writer branch provably has no values.
func (c *checker) branchEmpty(b branch) bool {
	if c.effectiveMask(b) == 0 {
		return true
	}
	vals, finite := c.writerValues(b) // disjoint consts, an enum the rest rejects
	return finite && len(vals) == 0
}

// atomsEmpty reports whether a conjunction of writer atoms (a property's
// schemas) provably has no value: that property is never sent.
func (c *checker) atomsEmpty(atoms []atom) bool {
	bs, ok := c.expand(atoms, nil, tAll)
	if !ok {
		return false
	}
	for _, b := range bs {
		if !c.branchEmpty(b) {
			return false
		}
	}
	return true
}
