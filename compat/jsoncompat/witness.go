package jsoncompat

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format/jsonschema/sample"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/internal/schemawalk"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema/kind"
	"github.com/evtool/evtool/report"
)

// Witness search: documents valid for the writer (under the lenient
// profile: for its closed view) are validated against the reader. Sources,
// in order: sample.Samples of the writer, the rules' targeted mutations
// (each finding's hint applied to those documents), and sample.Variants
// mutating documents toward the reader. Everything is deterministic for a
// seed.

// docCache keeps a side's generated documents across the pairs it is in.
type docCache struct {
	mu   sync.Mutex
	docs map[string][]any
	errs map[string]error

	depthOnce sync.Once
	depth     int
}

// nestingDepth is nestingDepth(s.Schema), computed once per side.
func (s *Side) nestingDepth() int {
	if s.docs == nil {
		return nestingDepth(s.Schema)
	}
	s.docs.depthOnce.Do(func() { s.docs.depth = nestingDepth(s.Schema) })
	return s.docs.depth
}

func (s *Side) baseDocs(n int, seed int64, lenient bool) ([]any, error) {
	if s.docs == nil {
		s.docs = &docCache{}
	}
	key := fmt.Sprintf("%d/%d/%t", n, seed, lenient)
	s.docs.mu.Lock()
	defer s.docs.mu.Unlock()
	if d, ok := s.docs.docs[key]; ok {
		return d, s.docs.errs[key]
	}
	gen := s.Schema
	if lenient && s.Closed != nil {
		gen = s.Closed
	}
	// Half small documents (what is required, few items: cheap to validate
	// and to read as counterexamples), half full ones.
	small := n / 2
	docs, err := sample.Samples(gen, small, seed, sample.Options{MaxItems: 1, MaxDepth: 3})
	more, err2 := sample.Samples(gen, n-small, seed+1, sample.Options{MaxItems: 3})
	docs = append(docs, more...)
	if err == nil {
		err = err2
	}
	var keep []any
	for _, d := range docs {
		d = jsonvalue.Normalize(d)
		if gen == s.Schema && lenient {
			stripUndeclared(d, s.Schema, 0)
			if !s.writerValid(d, lenient) {
				continue
			}
		}
		// Otherwise the sampler validated d against gen, and the closed
		// view only removes documents from the schema.
		keep = append(keep, d)
	}
	if s.docs.docs == nil {
		s.docs.docs, s.docs.errs = map[string][]any{}, map[string]error{}
	}
	s.docs.docs[key], s.docs.errs[key] = keep, err
	return keep, err
}

// writerValid: valid under the schema, and under the lenient profile under
// its closed view.
func (s *Side) writerValid(doc any, lenient bool) bool {
	if lenient && s.Closed != nil {
		// L(Closed) ⊆ L(Schema): Close only adds additionalProperties:
		// false, and never below `not` or `if`.
		return s.Closed.Validate(doc) == nil
	}
	if s.Schema.Validate(doc) != nil {
		return false
	}
	return !lenient || closedOK(doc, s.Schema)
}

// maxWitnessDepth is the deepest schema (subschemas nested in place or
// through properties and $refs) witness search validates documents
// against: the validator's cycle check makes each validation cost the
// square of the depth.
const maxWitnessDepth = 1000

// nestingDepth is the length of the longest chain of subschemas below s
// (a cycle counts once), computed in time linear in the schema's size.
func nestingDepth(s *jsonschema.Schema) int {
	depth := map[*jsonschema.Schema]int{}
	var walk func(s *jsonschema.Schema) int
	walk = func(s *jsonschema.Schema) int {
		if d, ok := depth[s]; ok {
			return d // a finished subschema, or 0 for one on the current path
		}
		depth[s] = 0
		d := 0
		for _, x := range schemawalk.Children(s) {
			d = max(d, walk(x))
		}
		depth[s] = d + 1
		return d + 1
	}
	if s == nil {
		return 0
	}
	return walk(s)
}

type witnessSearch struct {
	dir            engine.Direction
	writer, reader *Side
	lenient        bool
	n              int
	seed           int64
	rng            *rand.Rand
	// ctx, when set and done, stops validating further documents.
	ctx context.Context
	// attached counts the counterexamples given to findings.
	attached int
	// spent counts the JSON values of the documents validated; exhausted
	// records that maxWitnessValues stopped the search.
	spent     int
	exhausted bool
	// base are the writer's generated documents (isolate takes values
	// from them).
	base []any
}

// maxWitnessValues bounds the work of one witness search, counted in JSON
// values validated: documents of 2,000 required properties make every
// mutation and every minimisation step validate 2,000 values.
const maxWitnessValues = 1_000_000

// spend accounts for validating doc; false once the budget is spent.
func (w *witnessSearch) spend(doc any) bool {
	if w.exhausted {
		return false
	}
	w.spent += valueSize(doc)
	if w.spent > maxWitnessValues {
		w.exhausted = true
		return false
	}
	return true
}

type witness struct {
	doc  any
	err  error
	locs []string // locations of the reader's failing keywords
	used bool
}

func (w *witnessSearch) run(fs []*Finding) []*Finding {
	stream := uint64(1)
	if w.dir == engine.Forward {
		stream = 2
	}
	w.rng = rand.New(rand.NewPCG(uint64(w.seed), stream))
	base, _ := w.writer.baseDocs(w.n, w.seed, w.lenient)
	w.base = base
	var pool []*witness
	seen := map[string]*witness{}
	tried := 0
	check := func(doc any, writerKnown bool) *witness {
		if w.ctx != nil && w.ctx.Err() != nil {
			return nil
		}
		if !w.spend(doc) {
			return nil
		}
		tried++
		if !writerKnown && !w.writer.writerValid(doc, w.lenient) {
			return nil
		}
		err := w.reader.Schema.Validate(doc)
		if err == nil {
			return nil
		}
		wt := &witness{doc: doc, err: err, locs: errorLocations(err)}
		pool = append(pool, wt)
		return wt
	}
	// stopped: once the context is done no candidate is built or encoded
	// (a canceled comparison of a wide pair spent seconds encoding
	// candidates that check then refused).
	stopped := func() bool { return w.ctx != nil && w.ctx.Err() != nil }
	consider := func(doc any) *witness {
		if stopped() {
			return nil
		}
		key := compactJSON(doc)
		if wt, ok := seen[key]; ok {
			return wt
		}
		wt := check(doc, false)
		seen[key] = wt
		if wt == nil && (w.ctx == nil || w.ctx.Err() == nil) {
			// A candidate the writer refuses only for members it misses
			// (a dependentRequired of the property a rule set) is tried
			// with them.
			if fixed, ok := w.addMissing(doc); ok {
				fk := compactJSON(fixed)
				if _, done := seen[fk]; !done {
					wt = check(fixed, false)
					seen[fk] = wt
				}
			}
		}
		return wt
	}
	baseWitness := map[int]*witness{}
	for i, d := range base {
		if wt := check(d, true); wt != nil {
			baseWitness[i] = wt
		}
	}
	// Targeted mutations from the rules' findings. Errors stand without a
	// counterexample, so past maxCounterexamples only warnings (which a
	// counterexample turns into errors) are tried.
	for _, f := range fs {
		if stopped() {
			break
		}
		if f.hint == nil || f.HasCounterexample || f.Kind == KindDynamicRef || f.Kind == KindIncomplete {
			continue
		}
		if w.attached >= maxCounterexamples && f.Severity == report.SeverityError {
			continue
		}
		// Of the candidates that show the break, the one that shows
		// only it (the reader fails nowhere else).
		var best *witness
		bestStray := 0
		// The first documents, then (when none of them shows the break:
		// the hint needs a document of another branch) later ones.
		for off := 0; off < len(base) && off < hintWindows*hintWindow && best == nil; off += hintWindow {
			for _, cand := range w.fromHint(f.hint, base[off:]) {
				if wt := consider(cand); wt != nil && !wt.used && matches(w.readerLoc(f), wt.locs) {
					if n := strays(wt.err, w.readerLoc(f)); best == nil || n < bestStray {
						best, bestStray = wt, n
					}
					if bestStray == 0 {
						break
					}
				}
			}
		}
		if best != nil {
			w.attach(f, best)
		}
	}
	// Mutations toward the reader: a few when the rules found the pair
	// clean (they are the second opinion), more when the rules found
	// something to confirm or could not decide.
	gen := w.writer.Schema
	if w.lenient && w.writer.Closed != nil {
		gen = w.writer.Closed
	}
	nv, limit := 1, max(8, w.n)
	switch {
	case len(fs) > 0:
		nv, limit = max(1, w.n/8), max(24, 2*w.n)
	case w.n < 8:
		nv = 0 // a catalog's clean pair: the shared documents only
	}
	for i := 0; i < len(base) && i < nv && !stopped(); i++ {
		for _, v := range sample.Variants(base[i], gen, w.reader.Schema, w.rng, limit) {
			consider(jsonvalue.Normalize(v))
		}
	}
	// Match findings that have no counterexample yet with the pool: for
	// each, the witness that fails the reader at its place and at the
	// fewest others.
	for _, f := range fs {
		if f.HasCounterexample || f.Kind == KindDynamicRef || f.Kind == KindIncomplete ||
			w.attached >= maxCounterexamples && f.Severity == report.SeverityError {
			continue
		}
		var best *witness
		bestStray := 0
		for _, wt := range pool {
			if wt.used || !matches(w.readerLoc(f), wt.locs) {
				continue
			}
			if n := strays(wt.err, w.readerLoc(f)); best == nil || n < bestStray {
				best, bestStray = wt, n
			}
		}
		if best != nil {
			w.attach(f, best)
		}
	}
	if w.attached >= maxCounterexamples {
		unshown := 0
		for _, f := range fs {
			if f.Severity == report.SeverityError && !f.HasCounterexample && f.Kind != KindIncomplete {
				unshown++
			}
		}
		c := &checker{dir: w.dir}
		fs = append(fs, c.warnf(KindIncomplete, w.writer.Schema.Location, w.reader.Schema.Location, nil, nil, nil, nil,
			fmt.Sprintf("counterexamples are built for the first %d findings of a comparison; %d more findings have none", maxCounterexamples, unshown)))
	}
	if w.exhausted {
		c := &checker{dir: w.dir}
		fs = append(fs, c.warnf(KindIncomplete, w.writer.Schema.Location, w.reader.Schema.Location, nil, nil, nil, nil,
			fmt.Sprintf("witness search stopped after validating %d JSON values (the limit is %d); the documents are large", maxWitnessValues, maxWitnessValues)))
	}
	// Whatever is left proves a break no rule named.
	byLoc := map[string]bool{}
	added := 0
	for _, wt := range pool {
		if wt.used || added >= 5 {
			continue
		}
		covered := false
		for _, f := range fs {
			if f.Severity == report.SeverityError && matches(w.readerLoc(f), wt.locs) {
				covered = true
				break
			}
		}
		if covered {
			continue
		}
		rloc, _, _ := leafError(wt.err)
		if byLoc[rloc] {
			continue
		}
		byLoc[rloc] = true
		w.minimize(wt, rloc)
		_, msg, _ := leafError(wt.err)
		c := &checker{dir: w.dir}
		f := c.errorf(KindWitness, w.writer.Schema.Location, rloc, nil, nil, nil, nil,
			fmt.Sprintf("the %s schema accepts this document, the %s schema rejects it: %s", w.dir.Writer(), w.dir.Reader(), msg))
		f.Counterexample, f.HasCounterexample, f.ReaderError = wt.doc, true, msg
		wt.used = true
		fs = append(fs, f)
		added++
	}
	// A break the rules show without a document says so: the reader of
	// the report knows the verdict rests on the rules alone.
	note := fmt.Sprintf(" (no counterexample found in %d documents)", tried)
	if tried == 0 {
		// "found in 0 documents" read as if documents had been searched.
		note = fmt.Sprintf(" (no counterexample: no document of the %s schema could be generated to try)", w.dir.Writer())
		if stopped() {
			note = " (no counterexample: the comparison was stopped before a document was tried)"
		}
	}
	for _, f := range fs {
		if f.Severity == report.SeverityError && !f.HasCounterexample && f.Kind != KindDynamicRef && f.Kind != KindIncomplete {
			f.Message += note
		}
	}
	return fs
}

func (w *witnessSearch) readerLoc(f *Finding) string {
	if w.dir == engine.Forward {
		return f.OldLocation
	}
	return f.NewLocation
}

// maxCounterexamples bounds the counterexamples of one comparison: each
// is a whole document (2,000 required properties make every one of 2,000
// findings carry all of them), and each costs a minimisation.
const maxCounterexamples = 20

func (w *witnessSearch) attach(f *Finding, wt *witness) {
	if w.attached >= maxCounterexamples {
		// Past the cap a counterexample still decides (a warning becomes
		// an error) but is neither minimised nor printed.
		f.Severity = report.SeverityError
		f.Message += fmt.Sprintf(" — witness search found a counterexample (not shown: only %d are per comparison), so it is a break", maxCounterexamples)
		return
	}
	w.minimize(wt, w.readerLoc(f))
	_, msg, _ := leafError(wt.err)
	f.Counterexample, f.HasCounterexample, f.ReaderError = wt.doc, true, msg
	wt.used = true
	w.attached++
	if f.Severity != report.SeverityError {
		f.Severity = report.SeverityError
		f.Message += " — witness search found a counterexample, so it is a break"
	}
}

// matches reports whether a finding's reader location is where a witness
// failed (the same keyword, or one inside the other).
func matches(rloc string, locs []string) bool {
	if rloc == "" {
		return false
	}
	_, ptr := splitLocation(rloc)
	for _, l := range locs {
		if l == rloc {
			return true
		}
		// A schema root matches only itself: every failure is inside it.
		if ptr == "" {
			continue
		}
		if _, lp := splitLocation(l); lp == "" {
			continue
		}
		if strings.HasPrefix(l, rloc+"/") || strings.HasPrefix(rloc, l+"/") {
			return true
		}
	}
	return false
}

func withFragment(l string) string {
	if strings.Contains(l, "#") {
		return l
	}
	return l + "#"
}

// errorLocations lists the keyword locations of every node of a
// validation error (not the schema-level grouping nodes).
func errorLocations(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		kp := e.ErrorKind.KeywordPath()
		switch e.ErrorKind.(type) {
		case *kind.Schema, *kind.Group, *kind.AllOf, *kind.AnyOf:
			// An allOf or anyOf fails where its branches fail: its own
			// location, above every branch, would match a finding in a
			// branch the document does not break (an integer "breaks" a
			// string branch's pattern).
		case *kind.Reference:
			// The $ref a failure went through: a finding at the
			// referring property is where its target's keyword failed.
			out = append(out, withFragment(e.SchemaURL)+"/"+kp[0])
		case *kind.FalseSchema:
			out = append(out, e.SchemaURL)
		case *kind.Not:
			out = append(out, withFragment(e.SchemaURL)+"/not")
		default:
			if d, ok := e.ErrorKind.(*kind.Dependency); ok {
				// The library names draft-7 `dependencies` "dependency"
				// in the keyword path; the schema's keyword is the former.
				kp = []string{"dependencies", d.Prop}
			}
			if len(kp) > 0 {
				l := e.SchemaURL
				if !strings.Contains(l, "#") {
					l += "#"
				}
				for _, t := range kp {
					l += "/" + url.PathEscape(jsonpos.Escape(t))
				}
				out = append(out, l)
			}
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

// A hint is applied to the base documents hintWindow at a time, in at
// most hintWindows windows.
const (
	hintWindow  = 6
	hintWindows = 4
)

// fromHint builds candidate documents by applying a hint to base documents.
func (w *witnessSearch) fromHint(h *hint, base []any) []any {
	var out []any
	base = w.inBranchFirst(h, base)
	limit := hintWindow
	for i, d := range base {
		if i >= limit && len(out) > 0 {
			break
		}
		if v, ok := w.apply(jsonvalue.DeepCopy(d), h); ok {
			out = append(out, v)
		}
		if len(out) >= 3 {
			break
		}
	}
	// The rule's own candidates: the whole document at the root, else
	// placed in the first document that takes them.
	for _, c := range h.cands {
		if len(h.path) == 0 {
			out = append(out, jsonvalue.Normalize(jsonvalue.DeepCopy(c)))
			continue
		}
		ch := &hint{path: h.path, value: c, hasValue: true}
		for i, d := range base {
			if i >= limit {
				break
			}
			if v, ok := w.apply(jsonvalue.DeepCopy(d), ch); ok {
				out = append(out, v)
				break
			}
		}
	}
	if h.setProp != "" || h.hasValue && h.extend == 0 {
		// The value the rule proposed (for a member, or in place) may be
		// one the reader takes after all (the closest anyOf branch
		// rejects it, another accepts it), or the rule had none: one
		// simple value of each JSON type, which writer and reader then
		// judge.
		for _, x := range []any{nil, false, 0.0, "", "x", []any{}, map[string]any{}} {
			vh := *h
			vh.value, vh.hasValue, vh.propFrom, vh.cands = x, true, nil, nil
			for i, d := range base {
				if i >= limit {
					break
				}
				if v, ok := w.apply(jsonvalue.DeepCopy(d), &vh); ok {
					out = append(out, v)
					break
				}
			}
		}
	}
	if len(out) == 0 && len(h.path) == 0 && h.hasValue {
		out = append(out, jsonvalue.Normalize(h.value))
	}
	if len(out) == 0 && len(h.path) == 0 && h.objectOp() {
		// No writer document is an object (the writer allows any value):
		// an object built from nothing.
		if v, ok := w.applyHere(map[string]any{}, h); ok {
			out = append(out, v)
		}
	}
	return out
}

// inBranchFirst orders the documents whose value at the hint's
// withinPath passes its writer branch first (a stable partition of the
// windows fromHint looks at). When none does (a branch three unions deep
// is one document in 24), one is made: a value sampled from the branch
// put at withinPath of the first document that has a place for it.
func (w *witnessSearch) inBranchFirst(h *hint, base []any) []any {
	if len(h.within) == 0 || len(base) == 0 {
		return base
	}
	passes := func(v any) bool {
		for _, s := range h.within {
			if s.Validate(v) != nil {
				return false
			}
		}
		return true
	}
	in := func(d any) bool {
		v, ok := lookup(d, h.withinPath)
		return ok && passes(v)
	}
	n := min(len(base), hintWindow*hintWindows)
	var first, rest []any
	for _, d := range base[:n] {
		if in(d) {
			first = append(first, d)
		} else {
			rest = append(rest, d)
		}
	}
	if len(first) == 0 {
		for try := 0; try < 4 && len(first) == 0; try++ {
			v, ok := w.sampleOf(h.within[len(h.within)-1], 0)
			if !ok || !passes(v) {
				continue
			}
			if len(h.withinPath) == 0 {
				first = append(first, v)
				continue
			}
			for _, d := range base[:n] {
				c := jsonvalue.DeepCopy(d)
				if setAt(c, h.withinPath, v) {
					first = append(first, c)
					break
				}
			}
		}
		if len(first) == 0 {
			return base
		}
	}
	return append(append(append(make([]any, 0, len(base)+1), first...), rest...), base[n:]...)
}

// apply changes doc as the hint says; false when the path is not there.
func (w *witnessSearch) apply(doc any, h *hint) (any, bool) {
	if len(h.path) == 0 {
		return w.applyHere(doc, h)
	}
	var parent any
	cur := doc
	var tok string
	for i, t := range h.path {
		parent, tok = cur, t
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[t]
			if !ok {
				if i == len(h.path)-1 && (h.hasValue || h.from != nil) {
					cur = nil
					continue
				}
				if i == len(h.path)-1 && h.objectOp() {
					// An optional object the base left out: one holding
					// just the needed members.
					cur = map[string]any{}
					continue
				}
				if i < len(h.path)-1 && (h.hasValue || h.objectOp()) && !isIndex(h.path[i+1]) {
					// An optional object on the way the base left out.
					next = map[string]any{}
					c[t] = next
				} else {
					return nil, false
				}
			}
			cur = next
		case []any:
			idx := 0
			if t != anyIndex {
				n, err := strconv.Atoi(t)
				if err != nil {
					return nil, false
				}
				idx = n
			}
			if idx >= len(c) {
				return nil, false
			}
			cur = c[idx]
			if t == anyIndex {
				tok = "0"
			}
		default:
			return nil, false
		}
	}
	nv, ok := w.applyHere(cur, h)
	if !ok {
		return nil, false
	}
	switch p := parent.(type) {
	case map[string]any:
		p[tok] = nv
	case []any:
		n, _ := strconv.Atoi(tok)
		p[n] = nv
	}
	return doc, true
}

func (w *witnessSearch) applyHere(v any, h *hint) (any, bool) {
	sampled := false
	switch {
	case h.hasValue && h.setProp == "" && h.extend == 0:
		return jsonvalue.Normalize(h.value), true
	case h.from != nil:
		sv, ok := w.sampleOf(h.from, h.fromMask)
		if !h.objectOp() {
			return sv, ok
		}
		// A sampled object (else the value there, or an empty object)
		// still gets the members the hint needs: the trigger of a
		// dependent schema.
		if obj, isObj := sv.(map[string]any); ok && isObj {
			v, sampled = obj, true
		}
	}
	if _, ok := v.(map[string]any); !ok && h.objectOp() && !h.dup && !h.truncSet && h.extend == 0 {
		v = map[string]any{}
	}
	if obj, ok := v.(map[string]any); ok {
		changed := sampled
		for _, name := range sortedKeys(h.need) {
			if _, ok := obj[name]; ok {
				continue
			}
			s := h.need[name]
			if s == nil {
				obj[name] = "x"
			} else if val, ok := w.sampleOf(s, 0); ok {
				obj[name] = val
			} else {
				return nil, false
			}
			changed = true
		}
		if h.drop != "" {
			if _, ok := obj[h.drop]; ok {
				delete(obj, h.drop)
				changed = true
			}
		}
		if h.setProp != "" {
			switch {
			case h.hasValue:
				obj[h.setProp] = jsonvalue.Normalize(h.value)
			case h.propFrom != nil:
				val, ok := w.sampleOf(h.propFrom, 0)
				if !ok {
					return nil, false
				}
				obj[h.setProp] = val
			default:
				obj[h.setProp] = "x"
			}
			changed = true
		}
		if h.trimSet {
			for _, k := range sortedKeys(obj) {
				if len(obj) <= h.trim {
					break
				}
				if _, needed := h.need[k]; !needed {
					delete(obj, k)
					changed = true
				}
			}
		}
		return obj, changed || h.drop == "" && h.setProp == "" && len(h.need) == 0
	}
	if arr, ok := v.([]any); ok {
		switch {
		case h.dup:
			if len(arr) == 0 {
				return nil, false
			}
			return append(arr, jsonvalue.DeepCopy(arr[0])), true
		case h.truncSet:
			if len(arr) <= h.truncate {
				return arr, true
			}
			return arr[:h.truncate], true
		case h.extend > 0 && h.hasValue:
			// The value belongs at index extend-1; the items before it
			// keep the writer's (or copy them when there are too few).
			for len(arr) < h.extend-1 {
				if len(arr) == 0 {
					arr = append(arr, "x")
				} else {
					arr = append(arr, jsonvalue.DeepCopy(arr[len(arr)-1]))
				}
			}
			if len(arr) < h.extend {
				arr = append(arr, nil)
			}
			arr[h.extend-1] = jsonvalue.Normalize(h.value)
			return arr, true
		case h.extend > 0:
			for i := 0; len(arr) < h.extend; i++ {
				switch {
				case h.itemFrom != nil:
					v, ok := w.sampleOf(h.itemFrom, 0)
					if !ok {
						return nil, false
					}
					arr = append(arr, v)
				case len(arr) > 0:
					arr = append(arr, jsonvalue.DeepCopy(arr[i%len(arr)]))
				default:
					arr = append(arr, "x")
				}
			}
			return arr, true
		}
	}
	if h.hasValue || h.from != nil || h.setProp != "" || h.drop != "" || len(h.need) > 0 || h.dup || h.truncSet || h.extend > 0 {
		return nil, false
	}
	return v, true
}

// addMissing returns a copy of doc with the members the writer's
// required, dependentRequired and draft-7 dependencies keywords miss added (valued "x"); false
// when the writer misses none.
func (w *witnessSearch) addMissing(doc any) (any, bool) {
	var ve *jsonschema.ValidationError
	if !w.spend(doc) || !errors.As(w.writer.Schema.Validate(doc), &ve) {
		return nil, false
	}
	out := jsonvalue.DeepCopy(doc)
	added := false
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		var missing []string
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			missing = k.Missing
		case *kind.DependentRequired:
			missing = k.Missing
		case *kind.Dependency:
			missing = k.Missing
		}
		if len(missing) > 0 {
			v, _ := lookup(out, e.InstanceLocation)
			if obj, ok := v.(map[string]any); ok {
				for _, m := range missing {
					if _, ok := obj[m]; !ok {
						obj[m] = "x"
						added = true
					}
				}
			}
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out, added
}

// isIndex reports whether a path token addresses an array item.
func isIndex(tok string) bool {
	if tok == anyIndex {
		return true
	}
	_, err := strconv.Atoi(tok)
	return err == nil
}

// sampleOf generates a value of s (of a type in mask when mask is set).
func (w *witnessSearch) sampleOf(s *jsonschema.Schema, mask typeMask) (any, bool) {
	sp := sample.New(s, sample.Options{Budget: 4000, Attempts: 4})
	for i := 0; i < 6; i++ {
		v, err := sp.Generate(w.rng)
		if err != nil {
			return nil, false
		}
		v = jsonvalue.Normalize(v)
		if mask == 0 || maskOfValue(v)&mask != 0 {
			return v, true
		}
	}
	return nil, false
}

// minimize shrinks a counterexample greedily (dropping properties and array
// items, shortening strings) while it stays valid for the writer and the
// reader keeps rejecting it at one of the same places, so the printed
// document shows the break and little else.
func (w *witnessSearch) minimize(wt *witness, rloc string) {
	// Each try validates the whole document: large documents get fewer.
	budget := max(2, 80*64/max(64, valueSize(wt.doc)))
	// A step keeps the reader failing at rloc and at no more other places.
	stray := strays(wt.err, rloc)
	still := func(doc any) bool {
		if budget <= 0 || !w.spend(doc) {
			return false
		}
		budget--
		if !w.writer.writerValid(doc, w.lenient) {
			return false
		}
		err := w.reader.Schema.Validate(doc)
		if err == nil {
			return false
		}
		if rloc == "" {
			return true
		}
		if !matches(rloc, errorLocations(err)) {
			return false
		}
		n := strays(err, rloc)
		if n > stray {
			return false
		}
		stray = n
		return true
	}
	w.isolate(wt, rloc)
	stray = strays(wt.err, rloc)
	doc := jsonvalue.DeepCopy(wt.doc)
	var shrink func(v any, set func(any)) bool
	shrink = func(v any, set func(any)) bool {
		changed := false
		switch t := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(t) {
				val := t[k]
				delete(t, k)
				if still(doc) {
					changed = true
					continue
				}
				t[k] = val
			}
			for _, k := range sortedKeys(t) {
				kk := k
				if shrink(t[kk], func(nv any) { t[kk] = nv }) {
					changed = true
				}
			}
		case string:
			for _, cand := range []string{"", "a", "x"} {
				if len(t) > len(cand) {
					set(cand)
					if still(doc) {
						return true
					}
				}
			}
			if r := []rune(t); len(r) > 8 {
				set(string(r[:8]))
				if still(doc) {
					return true
				}
			}
			set(t)
		case []any:
			for len(t) > 0 {
				set(t[:len(t)-1])
				if !still(doc) {
					set(t)
					break
				}
				t = t[:len(t)-1]
				changed = true
			}
			for i := range t {
				ii := i
				if shrink(t[ii], func(nv any) { t[ii] = nv }) {
					changed = true
				}
			}
		}
		return changed
	}
	shrink(doc, func(nv any) { doc = nv })
	// Every accepted step kept a counterexample; the last one is the result.
	if err := w.reader.Schema.Validate(doc); err != nil && w.writer.writerValid(doc, w.lenient) {
		wt.doc, wt.err, wt.locs = doc, err, errorLocations(err)
	}
}

// strays counts the reader's failures that are not at rloc: leaves of
// the validation error with no node at rloc on their way from the root.
// A counterexample with none shows one break, not several at once.
func strays(err error, rloc string) int {
	return len(strayLeaves(err, rloc))
}

// strayLeaves lists the instance locations of those failures.
func strayLeaves(err error, rloc string) [][]string {
	var ve *jsonschema.ValidationError
	if _, ptr := splitLocation(rloc); ptr == "" || !errors.As(err, &ve) {
		// Every failure is inside a schema's root.
		return nil
	}
	var out [][]string
	var walk func(e *jsonschema.ValidationError, covered bool)
	walk = func(e *jsonschema.ValidationError, covered bool) {
		if !covered {
			covered = atOrIn(rloc, e)
		}
		if len(e.Causes) == 0 {
			if !covered {
				out = append(out, e.InstanceLocation)
			}
			return
		}
		for _, c := range e.Causes {
			walk(c, covered)
		}
	}
	walk(ve, false)
	return out
}

// atOrIn reports whether a node of the reader's failure is at rloc or
// inside it, or is an anyOf/oneOf above it (failing one of those fails
// every branch: the others' failures belong to the break). An allOf, a
// then or a $ref above rloc does not count: it fails as well when the
// document breaks a sibling branch, which is another break.
func atOrIn(rloc string, e *jsonschema.ValidationError) bool {
	alt := false
	locs := errorLocations(&jsonschema.ValidationError{SchemaURL: e.SchemaURL, ErrorKind: e.ErrorKind})
	switch e.ErrorKind.(type) {
	case *kind.AnyOf:
		alt = true
		locs = []string{withFragment(e.SchemaURL) + "/anyOf"}
	case *kind.OneOf:
		alt = true
	}
	for _, l := range locs {
		if l == rloc || strings.HasPrefix(l, rloc+"/") || alt && strings.HasPrefix(rloc, l+"/") {
			return true
		}
	}
	return false
}

// maxIsolateTries bounds the replacements isolate validates.
const maxIsolateTries = 40

// isolate makes a counterexample show one break: where the reader also
// fails away from rloc, the value there is replaced with the value at the
// same place in a writer document, as long as the writer accepts the
// result and the reader still fails at rloc, and at fewer other places.
func (w *witnessSearch) isolate(wt *witness, rloc string) {
	tries := 0
	for tries < maxIsolateTries {
		leaves := strayLeaves(wt.err, rloc)
		if len(leaves) == 0 || len(leaves[0]) == 0 {
			return
		}
		at := leaves[0]
		improved := false
		for _, b := range w.base {
			if tries >= maxIsolateTries {
				break
			}
			v, ok := lookup(b, at)
			if !ok {
				continue
			}
			doc := jsonvalue.DeepCopy(wt.doc)
			if !setAt(doc, at, jsonvalue.DeepCopy(v)) {
				return
			}
			tries++
			if !w.spend(doc) || !w.writer.writerValid(doc, w.lenient) {
				continue
			}
			err := w.reader.Schema.Validate(doc)
			if err == nil || !matches(rloc, errorLocations(err)) || strays(err, rloc) >= strays(wt.err, rloc) {
				continue
			}
			wt.doc, wt.err, wt.locs = doc, err, errorLocations(err)
			improved = true
			break
		}
		if !improved {
			return
		}
	}
}

// lookup is the value at an instance location, if the document has one.
func lookup(doc any, at []string) (any, bool) { return jsonpos.GetTokens(doc, at) }

// setAt replaces the value at a non-empty instance location.
func setAt(doc any, at []string, v any) bool {
	parent, ok := lookup(doc, at[:len(at)-1])
	if !ok {
		return false
	}
	last := at[len(at)-1]
	switch p := parent.(type) {
	case map[string]any:
		if _, ok := p[last]; !ok {
			return false
		}
		p[last] = v
		return true
	case []any:
		n, err := strconv.Atoi(last)
		if err != nil || n < 0 || n >= len(p) {
			return false
		}
		p[n] = v
		return true
	}
	return false
}

// valueSize counts the values in a JSON document.
func valueSize(v any) int {
	n := 1
	switch t := v.(type) {
	case map[string]any:
		for _, e := range t {
			n += valueSize(e)
		}
	case []any:
		for _, e := range t {
			n += valueSize(e)
		}
	}
	return n
}
