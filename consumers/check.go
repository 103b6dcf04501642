package consumers

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat"
	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/report"
)

// Rule ids of contract findings.
const (
	// RuleType: a contract reads a type the catalog does not have.
	RuleType = "consumer-type-unknown"
	// RuleVersion: a contract reads a version the type does not have.
	RuleVersion = "consumer-version-unknown"
	// RuleField: a contract's pointer does not resolve in a version.
	RuleField = "consumer-field-unresolved"
	// RuleAffected is the summary of the consumers a compat check's
	// findings reach, one per type.
	RuleAffected = "consumers-affected"
	// RuleBreaks is a consumers check finding: a consumer cannot read a
	// version producers may write, in the fields it reads.
	RuleBreaks = "consumer-breaks"
	// RuleReads is a consumers check finding: a consumer reads a type
	// with every version producers may write.
	RuleReads = "consumer-reads"
)

// pointerResolver is what a format's schema offers to check a contract's
// pointer (format/jsonschema, format/avro and format/protobuf do).
type pointerResolver interface {
	ResolvePointer(ptr string) error
}

// Lint checks every contract against the catalog: its types and versions
// exist and every field resolves in every version it lists. Each problem
// is an error finding at the contract's line. Fields are checked in the
// versions that are compiled; a catalog checked type by type
// (catalog.LoadDeferred) calls LintFields for each type while it is.
func Lint(cat *catalog.Catalog, cs []*Contract) []report.Finding {
	var out []report.Finding
	for _, c := range cs {
		for _, typ := range c.Types() {
			r := c.Reads[typ]
			t := cat.Lookup(typ)
			if t == nil {
				out = append(out, fail(c.File, r.Line, "/reads/"+jsonpos.Escape(typ), fmt.Sprintf("consumer %s reads type %s, which is not in the catalog", c.Name, typ)))
				out[len(out)-1].Rule = RuleType
				continue
			}
			for i, n := range r.Versions {
				if t.Version(n) == nil {
					f := fail(c.File, r.VersionLines[i], fmt.Sprintf("/reads/%s/versions/%d", jsonpos.Escape(typ), i), fmt.Sprintf("consumer %s reads %s v%d, which does not exist (the type has v1..v%d)", c.Name, typ, n, len(t.Versions)))
					f.Rule = RuleVersion
					out = append(out, f)
				}
			}
			out = append(out, lintFields(c, t)...)
		}
	}
	return out
}

// LintFields checks that every field of every contract that reads t
// resolves in every compiled version of t the contract lists.
func LintFields(t *catalog.EventType, cs []*Contract) []report.Finding {
	var out []report.Finding
	for _, c := range cs {
		if _, ok := c.Reads[t.Name]; ok {
			out = append(out, lintFields(c, t)...)
		}
	}
	return out
}

func lintFields(c *Contract, t *catalog.EventType) []report.Finding {
	var out []report.Finding
	r := c.Reads[t.Name]
	for _, n := range r.Versions {
		v := t.Version(n)
		if v == nil {
			continue // Lint reports it
		}
		res, ok := v.Compiled.(pointerResolver)
		if !ok {
			continue // not compiled (yet), or did not compile: lint reports the schema
		}
		for j, ptr := range r.Fields {
			if err := res.ResolvePointer(ptr); err != nil {
				f := fail(c.File, r.FieldLines[j], fmt.Sprintf("/reads/%s/fields/%d", jsonpos.Escape(t.Name), j), fmt.Sprintf("field %q does not resolve in %s v%d (%s): %v", ptr, t.Name, n, v.File, err))
				f.Rule = RuleField
				out = append(out, f)
			}
		}
	}
	return out
}

// Options configure field-aware comparisons.
type Options struct {
	// Samples is witness documents per comparison (as engine.Options).
	Samples int
	Seed    uint64
	// Engines compares the types of every format, projected or whole
	// (nil: compat.Engines(), every format's).
	Engines map[format.Kind]engine.Engine
	// Base, when set, is the catalog on the base branch: published
	// versions edited in place are writers as published too.
	Base *catalog.Catalog
	// Prepare, when set, is called by Check before it compares the
	// versions of a type, and what it returns after: a base loaded
	// deferred compiles the type there (catalog.CompileType) and releases
	// it after, so that it is never compiled whole.
	Prepare func(typ string) (release func())
	// Context, when set and done (a signal), makes Check start no
	// further type and the comparisons under way stop early:
	// Interrupted and TypesChecked say how far it got, and its verdicts
	// are not a whole check's.
	Context context.Context
}

// Verdict is whether one consumer, decoding one version of a type, reads
// what producers may write with one other version, in the fields its
// contract lists.
type Verdict struct {
	Consumer *Contract
	Type     string
	Reader   int
	Writer   int
	// Published: the writer is the base's published content of a version
	// the head edited in place.
	Published bool
	// Projected is false when the type's format has no projection (no
	// format.Projector) or it failed: the comparison was of the whole
	// schemas, so it may name breaks in fields the consumer does not read.
	Projected bool
	// Findings of the comparison (errors break the consumer).
	Findings []report.Finding
}

// Breaks reports whether the verdict has an error.
func (v *Verdict) Breaks() bool {
	for _, f := range v.Findings {
		if f.Severity == report.SeverityError {
			return true
		}
	}
	return false
}

// Checker computes verdicts, each once.
type Checker struct {
	cat  *catalog.Catalog
	opts Options

	mu   sync.Mutex
	memo map[verdictKey]*verdictCell
	// projections are versions of the formats with a format.Projector,
	// projected (nil: not projected).
	projections map[sideKey]*catalog.Version
	// compares are the engines' Compares of a type, for engines whose
	// Compare may be shared by parallel readings (engine.Engine's
	// Concurrent): what one keeps per projected version (JSON Schema's
	// sides and witness documents) is made once, not once per reading.
	compares map[compareKey]engine.Compare

	// typesChecked and typesTotal count the types of the last Check;
	// interrupted says its Context stopped it.
	typesChecked, typesTotal int
	interrupted              bool
}

// Interrupted reports whether Options.Context stopped the last Check
// before its last type.
func (k *Checker) Interrupted() bool { return k.interrupted }

// TypesChecked is how many of the types the last Check's contracts read
// it compared, of how many.
func (k *Checker) TypesChecked() (done, total int) { return k.typesChecked, k.typesTotal }

type compareKey struct {
	typ  string
	kind format.Kind
}

type verdictKey struct {
	consumer       string
	typ            string
	reader, writer int
	published      bool
}

type verdictCell struct {
	once sync.Once
	v    *Verdict
}

type sideKey struct {
	typ    string
	v      *catalog.Version
	fields string
}

// NewChecker compares against the head catalog cat.
func NewChecker(cat *catalog.Catalog, opts Options) *Checker {
	if opts.Engines == nil {
		opts.Engines = compat.Engines()
	}
	return &Checker{cat: cat, opts: opts, memo: map[verdictKey]*verdictCell{},
		projections: map[sideKey]*catalog.Version{}}
}

// Verdict is c reading typ's writer version with its reader version
// (published: the writer as published on the base). Safe for concurrent
// use; nil when a version is missing or did not compile.
func (k *Checker) Verdict(c *Contract, typ string, reader, writer int, published bool) *Verdict {
	key := verdictKey{c.Name, typ, reader, writer, published}
	k.mu.Lock()
	cell := k.memo[key]
	if cell == nil {
		cell = &verdictCell{}
		k.memo[key] = cell
	}
	k.mu.Unlock()
	cell.once.Do(func() { cell.v = k.compute(c, typ, reader, writer, published) })
	return cell.v
}

func (k *Checker) compute(c *Contract, typ string, reader, writer int, published bool) *Verdict {
	t := k.cat.Lookup(typ)
	if t == nil {
		return nil
	}
	rv, wv := t.Version(reader), t.Version(writer)
	wcat := k.cat
	if published {
		if k.opts.Base == nil || k.opts.Base.Lookup(typ) == nil {
			return nil
		}
		wv, wcat = k.opts.Base.Lookup(typ).Version(writer), k.opts.Base
	}
	if rv == nil || wv == nil || rv.Compiled == nil || wv.Compiled == nil {
		return nil
	}
	_, profile := k.cat.Compat(t)
	copts := engine.Options{Profile: string(profile), Samples: k.opts.Samples, Seed: k.opts.Seed, Context: k.opts.Context}
	// The pair as the gate names it: the lower version is old; the
	// reader is new (BACKWARD) or old (FORWARD).
	old, new, ocat, ncat, dir := wv, rv, wcat, k.cat, engine.Backward
	if writer > reader || (writer == reader && published) {
		old, new, ocat, ncat, dir = rv, wv, k.cat, wcat, engine.Forward
	}
	subject := fmt.Sprintf("%s: %s v%d reads v%d", c.Name, typ, reader, writer)
	if published {
		subject += " as published"
	}
	p := engine.Pair{Type: typ, OldVersion: old.Number, NewVersion: new.Number, OldFile: old.File, NewFile: new.File,
		OldURL: old.URL, NewURL: new.URL, Subject: subject}
	v := &Verdict{Consumer: c, Type: typ, Reader: reader, Writer: writer, Published: published}
	r := c.Reads[typ]
	if e, ok := k.opts.Engines[new.Format]; ok && old.Format == new.Format && e.Compiled(old) && e.Compiled(new) {
		key := strings.Join(r.Pointers(), "\x00")
		wholeOld, wholeNew := old, new
		exact := false
		if po, pn := k.projected(old, key, r.Pointers()), k.projected(new, key, r.Pointers()); po != nil && pn != nil {
			// The format projects: the same engine judges the projections.
			v.Projected = true
			if dir == engine.Backward {
				po = projectedWriter(old, pn, r.Pointers(), po)
			} else {
				pn = projectedWriter(new, po, r.Pointers(), pn)
			}
			old, new = po, pn
			exact = projectsExactly(new.Format)
		}
		lineOf := func(file, ptr string) int {
			if n := ncat.LineOf(file, ptr); n > 0 {
				return n
			}
			return ocat.LineOf(file, ptr)
		}
		vp := engine.VersionPair{Pair: p, Old: old, New: new, OldCatalog: ocat, NewCatalog: ncat, LineOf: lineOf}
		cmp := k.compare(typ, new.Format, e)
		v.Findings = engine.Stamp(vp, dir, cmp(vp, dir, copts))
		if v.Projected && !exact {
			// A projection can leave out what makes a break on a read
			// field (a Protobuf oneof whose other members are unread, on
			// one side only): the whole pair's findings at a path the
			// consumer reads count too, as the gate counts them. So do
			// those whose reader fails to decode the event (an Avro
			// reader field with no default, a Protobuf string that is not
			// UTF-8): the consumer's decoder rejects the whole event,
			// whatever fields it reads.
			seen := map[string]bool{}
			for _, f := range v.Findings {
				seen[f.Fingerprint] = true
			}
			fields := format.NewFields(r.Pointers())
			wp := engine.VersionPair{Pair: p, Old: wholeOld, New: wholeNew, OldCatalog: ocat, NewCatalog: ncat}
			for _, f := range engine.Stamp(wp, dir, cmp(wp, dir, copts)) {
				if !seen[f.Fingerprint] && (fields.Reads(f.Pointer) || decodeFails(f)) {
					v.Findings = append(v.Findings, f)
				}
			}
		}
	}
	return v
}

// decodeFails reports whether a finding's counterexample is an event its
// reader fails to decode (the Avro and Protobuf engines' readerError). An
// error without a counterexample (the engine's witness budget was spent)
// counts too: whether its reader fails or only reads a value differently
// cannot be told, and the verdict errs toward the finding.
func decodeFails(f report.Finding) bool {
	if f.Severity != report.SeverityError {
		return false
	}
	if len(f.Counterexample) == 0 {
		return true
	}
	var cx struct {
		ReaderError string `json:"readerError"`
	}
	return json.Unmarshal(f.Counterexample, &cx) == nil && cx.ReaderError != ""
}

// projectsExactly reports whether the projections of kind's provider
// alone decide a verdict (format.ExactProjector).
func projectsExactly(kind format.Kind) bool {
	prov, ok := formats.ForKind(kind)
	if !ok {
		return false
	}
	ep, ok := prov.(format.ExactProjector)
	return ok && ep.ProjectsExactly()
}

// projected is v with its schema projected on a consumer's pointers by
// its format's provider (format.Projector), made once per version and
// pointers; nil when the format has no projection or it failed (the
// whole schemas are compared then).
func (k *Checker) projected(v *catalog.Version, key string, pointers []string) *catalog.Version {
	sk := sideKey{v.Type, v, key}
	k.mu.Lock()
	p, done := k.projections[sk]
	k.mu.Unlock()
	if done {
		return p
	}
	if prov, ok := formats.ForKind(v.Format); ok {
		if pr, ok := prov.(format.Projector); ok {
			if s, err := pr.Project(v.Compiled, format.NewFields(pointers)); err == nil {
				c := *v
				c.Compiled = s
				p = &c
			}
		}
	}
	k.mu.Lock()
	k.projections[sk] = p
	k.mu.Unlock()
	return p
}

// projectedWriter is writer projected for the projected reader when its
// format matches fields by more than their names (format.WriterProjector),
// else byName, writer's projection on the pointers.
func projectedWriter(writer, reader *catalog.Version, pointers []string, byName *catalog.Version) *catalog.Version {
	prov, ok := formats.ForKind(writer.Format)
	if !ok {
		return byName
	}
	wp, ok := prov.(format.WriterProjector)
	if !ok {
		return byName
	}
	s, err := wp.ProjectWriter(writer.Compiled, reader.Compiled, format.NewFields(pointers))
	if err != nil {
		return byName
	}
	c := *writer
	c.Compiled = s
	return &c
}

// Forget drops the projections the checker made of typ's versions (its
// verdicts stay: they hold findings only). A catalog checked type by type
// calls it before it releases the type, so memory follows one type.
func (k *Checker) Forget(typ string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for sk := range k.projections {
		if sk.typ == typ {
			delete(k.projections, sk)
		}
	}
	for ck := range k.compares {
		if ck.typ == typ {
			delete(k.compares, ck)
		}
	}
}

// compare is the Compare of typ's pairs of format kind: the type's shared
// one when the engine allows it, else a new one.
func (k *Checker) compare(typ string, kind format.Kind, e engine.Engine) engine.Compare {
	if !e.Concurrent {
		return e.New()
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	ck := compareKey{typ, kind}
	c := k.compares[ck]
	if c == nil {
		if k.compares == nil {
			k.compares = map[compareKey]engine.Compare{}
		}
		c = e.New()
		k.compares[ck] = c
	}
	return c
}

// Check computes every verdict: each consumer, each type it reads, each
// version it reads against every version of the type (and, with a base,
// every published version edited in place), in contract and version order.
// It goes type by type (Options.Prepare), comparing the pairs of one type
// in parallel, and forgets a type's projections once its pairs are done.
func (k *Checker) Check(cs []*Contract) []*Verdict {
	// One slot per contract and type it reads, in the order of the
	// verdicts; the slots of a type are filled while the type is in hand.
	type slot struct {
		c   *Contract
		out []*Verdict
	}
	var slots []*slot
	byType := map[string][]*slot{}
	var types []string
	for _, c := range cs {
		for _, typ := range c.Types() {
			if k.cat.Lookup(typ) == nil {
				continue
			}
			s := &slot{c: c}
			slots = append(slots, s)
			if byType[typ] == nil {
				types = append(types, typ)
			}
			byType[typ] = append(byType[typ], s)
		}
	}
	jobs := make(chan func())
	var wg sync.WaitGroup
	for range max(1, parallelism()) {
		go func() {
			for j := range jobs {
				j()
				wg.Done()
			}
		}()
	}
	defer close(jobs)
	k.typesChecked, k.typesTotal, k.interrupted = 0, len(types), false
	for _, typ := range types {
		if ctx := k.opts.Context; ctx != nil && ctx.Err() != nil {
			k.interrupted = true
			break
		}
		release := func() {}
		if k.opts.Prepare != nil {
			release = k.opts.Prepare(typ)
		}
		t := k.cat.Lookup(typ)
		for _, s := range byType[typ] {
			type pair struct {
				reader, writer int
				published      bool
			}
			var pairs []pair
			for _, r := range s.c.Reads[typ].Versions {
				for _, w := range t.Versions {
					if w.Number != r {
						pairs = append(pairs, pair{r, w.Number, false})
					}
					if k.edited(typ, w.Number) {
						pairs = append(pairs, pair{r, w.Number, true})
					}
				}
			}
			s.out = make([]*Verdict, len(pairs))
			for i, p := range pairs {
				wg.Add(1)
				jobs <- func() { s.out[i] = k.Verdict(s.c, typ, p.reader, p.writer, p.published) }
			}
		}
		wg.Wait()
		k.Forget(typ)
		release()
		if ctx := k.opts.Context; ctx != nil && ctx.Err() != nil {
			// The signal came while the type was compared: its
			// comparisons stopped early, so it is not checked.
			k.interrupted = true
			break
		}
		k.typesChecked++
	}
	kept := []*Verdict{}
	for _, s := range slots {
		for _, v := range s.out {
			if v != nil {
				kept = append(kept, v)
			}
		}
	}
	return kept
}

// edited reports whether the head changed the published content of a
// version (its digest differs from the base's).
func (k *Checker) edited(typ string, n int) bool {
	if k.opts.Base == nil {
		return false
	}
	bt, ht := k.opts.Base.Lookup(typ), k.cat.Lookup(typ)
	if bt == nil || ht == nil {
		return false
	}
	bv, hv := bt.Version(n), ht.Version(n)
	return bv != nil && hv != nil && bv.Digest != hv.Digest && bv.Format == hv.Format
}

// Readers returns the contracts that read typ with version n, by name.
func Readers(cs []*Contract, typ string, n int) []*Contract {
	var out []*Contract
	for _, c := range cs {
		if r, ok := c.Reads[typ]; ok && r.ReadsVersion(n) {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Findings turns verdicts into a consumers check report: each break's
// findings (named for the consumer and the versions), and one line per
// consumer and type that reads everything it should.
func Findings(cs []*Contract, vs []*Verdict) []report.Finding {
	type ct struct{ consumer, typ string }
	broken := map[ct]bool{}
	writers := map[ct][]string{}
	var out []report.Finding
	for _, v := range vs {
		key := ct{v.Consumer.Name, v.Type}
		w := fmt.Sprintf("v%d", v.Writer)
		if v.Published {
			w += " as published"
		}
		writers[key] = append(writers[key], w)
		for _, f := range v.Findings {
			if f.Severity == report.SeverityInfo {
				continue
			}
			f.Consumers = []string{v.Consumer.Name}
			if f.Severity == report.SeverityError {
				broken[key] = true
				f.Message = fmt.Sprintf("%s, decoding with v%d, cannot read %s: %s", v.Consumer.Name, v.Reader, w, f.Message)
			}
			if !v.Projected {
				f.Message += " (the whole schemas were compared: this format has no field projection)"
			}
			out = append(out, f)
		}
	}
	for _, c := range cs {
		for _, typ := range c.Types() {
			key := ct{c.Name, typ}
			if broken[key] {
				continue
			}
			r := c.Reads[typ]
			vs := make([]string, len(r.Versions))
			for i, n := range r.Versions {
				vs[i] = fmt.Sprintf("v%d", n)
			}
			msg := fmt.Sprintf("%s reads %s with %s: OK", c.Name, typ, strings.Join(vs, ", "))
			if ws := writers[key]; len(ws) > 0 {
				msg = fmt.Sprintf("%s reads %s with %s, and what producers write with %s: OK", c.Name, typ, strings.Join(vs, ", "), strings.Join(dedupe(ws), ", "))
			}
			out = append(out, report.Finding{Rule: RuleReads, Severity: report.SeverityInfo, File: c.File, Line: r.Line, Type: typ,
				Subject: c.Name + ": " + typ, Consumers: []string{c.Name}, Message: msg})
		}
	}
	return out
}

// dedupe returns the distinct version names in version order ("v2"
// before "v10", "v2" before "v2 as published").
func dedupe(ss []string) []string {
	seen := map[string]bool{}
	out := ss[:0:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	num := func(s string) int {
		n, _ := strconv.Atoi(strings.TrimPrefix(strings.Fields(s)[0], "v"))
		return n
	}
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := num(out[i]), num(out[j]); a != b {
			return a < b
		}
		return len(out[i]) < len(out[j])
	})
	return out
}
