package compat

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/report"
)

// CheckOptions configure a catalog check.
type CheckOptions struct {
	// Samples overrides evtool.yaml's compat.samples when SamplesSet
	// (negative: no witness search).
	Samples    int
	SamplesSet bool
	Seed       uint64
	// Parallel is the number of types checked at once (0: GOMAXPROCS).
	Parallel int
	// Engines compares the types of each format (nil: Engines(), every
	// one). A pair of a format without an engine is an error finding,
	// never a pass.
	Engines map[format.Kind]engine.Engine
	// Skip names head types not to compile or compare (types whose
	// files, and the files they reference, are the base's: see
	// catalog.Unchanged).
	Skip map[string]bool
	// TypeChecked, when set, is given each compared type's findings while
	// its versions (and the base's) are still compiled, from the worker
	// that compared it (so concurrently); what it returns replaces them.
	// The consumer-aware step marks them there, type by type.
	TypeChecked func(t *catalog.EventType, findings []report.Finding) []report.Finding
	// Context, when set, stops the check once done (a signal): no type
	// is started after that, and the result says Interrupted.
	Context context.Context
}

// CheckResult is what a catalog check found.
type CheckResult struct {
	Findings []report.Finding
	// Pairs counts the version pairs compared.
	Pairs int
	// Skipped counts the head types not compared (CheckOptions.Skip).
	Skipped int
	// HeadProblems and BaseProblems are the problems found compiling the
	// types of a catalog loaded with catalog.LoadDeferred (each type is
	// compiled when it is checked): what Load would have returned.
	HeadProblems, BaseProblems []report.Finding
	// Interrupted is set when CheckOptions.Context stopped the check
	// before every type was checked; TypesChecked counts those that were
	// (skipped ones included). The findings are then incomplete.
	Interrupted  bool
	TypesChecked int
}

// version is a schema of a type as the check uses it: from the head
// catalog, or from the base when the head modified a published version.
type version struct {
	v   *catalog.Version
	cat *catalog.Catalog
}

// CheckCatalog compares every type of head per its mode (evtool.yaml, or
// event.yaml's override): each version with the previous one, or with every
// earlier one for the transitive modes, naming each failing pair. With a
// base catalog (--against) it also reports published versions that were
// modified or removed and removed types; a published version modified in
// place is compared as published. Ignore entries are not applied here (see
// ApplyIgnores).
func CheckCatalog(head, base *catalog.Catalog, opts CheckOptions) *CheckResult {
	res := &CheckResult{}
	engines := opts.Engines
	if engines == nil {
		engines = Engines()
	}
	samples := head.Config.Compat.Samples
	if opts.SamplesSet {
		samples = opts.Samples
	}
	if samples == 0 && !opts.SamplesSet {
		samples = DefaultCatalogSamples
	} else if samples == 0 {
		samples = -1
	}

	// Published versions and what happened to them.
	published := map[string]map[int]*catalog.Version{}
	if base != nil {
		for _, bt := range base.Types {
			m := map[int]*catalog.Version{}
			published[bt.Name] = m
			ht := head.Lookup(bt.Name)
			if ht == nil {
				res.Findings = append(res.Findings, report.Finding{Rule: RuleTypeRemoved, Severity: report.SeverityError,
					File: filepath.Join(head.Root, bt.Name), Type: bt.Name, Subject: bt.Name,
					Message: fmt.Sprintf("type %s exists on the base (%d published version(s)) and was removed; its events are still in the log", bt.Name, len(bt.Versions))})
				continue
			}
			for _, bv := range bt.Versions {
				m[bv.Number] = bv
				if ht.Version(bv.Number) == nil {
					res.Findings = append(res.Findings, report.Finding{Rule: RuleVersionRemoved, Severity: report.SeverityError,
						File: filepath.Join(ht.Dir, fmt.Sprintf("v%d%s", bv.Number, bv.Format.Ext())), Type: bt.Name, Subject: bt.Name, OldVersion: bv.Number,
						Message: fmt.Sprintf("v%d is published on the base and was removed; deprecate it in event.yaml instead", bv.Number)})
				}
			}
		}
	}

	type job struct {
		idx int
		t   *catalog.EventType
	}
	results := make([][]report.Finding, len(head.Types))
	headProbs := make([][]report.Finding, len(head.Types))
	baseProbs := make([][]report.Finding, len(head.Types))
	pairs := make([]int, len(head.Types))
	// compileType compiles the versions of the type of job idx, and of
	// the same type on the base (on a catalog loaded deferred: each type
	// is compiled for its pairs only), and returns the findings of its
	// published versions edited in place.
	compileType := func(idx int, t *catalog.EventType) []report.Finding {
		headProbs[idx] = head.CompileType(t)
		if base == nil || base.Lookup(t.Name) == nil {
			return nil
		}
		bt := base.Lookup(t.Name)
		baseProbs[idx] = base.CompileType(bt)
		var out []report.Finding
		for _, bv := range bt.Versions {
			if hv := t.Version(bv.Number); hv != nil {
				if msg := modified(engines, base, bv, head, hv); msg != "" {
					out = append(out, report.Finding{Rule: RulePublishedModified, Severity: report.SeverityError,
						File: hv.File, Line: 1, Type: bt.Name, Subject: bt.Name, OldVersion: bv.Number, NewVersion: hv.Number,
						Message: msg})
				}
			}
		}
		return out
	}
	// releaseType lets the type's compiled versions go once its pairs
	// are compared.
	releaseType := func(t *catalog.EventType) {
		head.ReleaseType(t)
		if base != nil && base.Lookup(t.Name) != nil {
			base.ReleaseType(base.Lookup(t.Name))
		}
	}
	typeChecked := func(t *catalog.EventType, fs []report.Finding) []report.Finding {
		if opts.TypeChecked == nil {
			return fs
		}
		return opts.TypeChecked(t, fs)
	}
	stopped := func() bool { return opts.Context != nil && opts.Context.Err() != nil }
	// done marks the types whose check began (each by its one worker).
	done := make([]bool, len(head.Types))
	jobs := make(chan job)
	par := opts.Parallel
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	lineOf := func(file, ptr string) int {
		if n := head.LineOf(file, ptr); n > 0 {
			return n
		}
		if base != nil {
			return base.LineOf(file, ptr)
		}
		return 0
	}
	for w := 0; w < par; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				t := j.t
				if stopped() {
					continue
				}
				done[j.idx] = true
				if opts.Skip[t.Name] {
					continue
				}
				mode, profile := head.Compat(t)
				copts := engine.Options{Profile: string(profile), Samples: samples, Seed: opts.Seed}
				// Each engine's Compare for this type's pairs, made on first use:
				// it shares what a version's pairs have in common.
				cmps := map[format.Kind]engine.Compare{}
				compareOf := func(k format.Kind) engine.Compare {
					if c, ok := cmps[k]; ok {
						return c
					}
					var c engine.Compare
					if e, ok := engines[k]; ok {
						c = e.New()
					}
					cmps[k] = c
					return c
				}
				out := compileType(j.idx, t)
				// comparePair appends the findings of o read against n.
				comparePair := func(o, n *version, subject string, dirs []engine.Direction) {
					p := engine.Pair{Type: t.Name, OldVersion: o.v.Number, NewVersion: n.v.Number, OldFile: o.v.File, NewFile: n.v.File,
						OldURL: o.v.URL, NewURL: n.v.URL, Subject: subject}
					k := kindOf(n.v)
					e, ok := engines[k]
					if ok && kindOf(o.v) == k {
						if !e.Compiled(o.v) || !e.Compiled(n.v) {
							return
						}
					} else if o.v.Compiled == nil || n.v.Compiled == nil {
						return
					}
					pairs[j.idx]++
					vp := engine.VersionPair{Pair: p, Old: o.v, New: n.v, OldCatalog: o.cat, NewCatalog: n.cat, LineOf: lineOf}
					for _, dir := range dirs {
						out = append(out, ComparePair(vp, dir, copts, compareOf(k))...)
					}
				}
				vs := make([]*version, len(t.Versions))
				for i, hv := range t.Versions {
					vr := &version{v: hv, cat: head}
					if bv := published[t.Name][hv.Number]; bv != nil && bv.Compiled != nil && modified(engines, base, bv, head, hv) != "" {
						vr = &version{v: bv, cat: base}
						// What the edit breaks, beside published-version-modified:
						// events written with either content are in the log and
						// read by consumers on the other, so both directions,
						// whatever the type's mode.
						// (A version rewritten in another format is that, and
						// no more.)
						if kindOf(bv) == kindOf(hv) {
							comparePair(vr, &version{v: hv, cat: head}, fmt.Sprintf("%s v%d as published -> v%d as edited", t.Name, bv.Number, hv.Number),
								[]engine.Direction{engine.Backward, engine.Forward})
						}
					}
					vs[i] = vr
				}
				if mode == catalog.ModeNone || len(t.Versions) < 2 {
					results[j.idx] = typeChecked(t, out)
					releaseType(t)
					continue
				}
				for jn := 1; jn < len(vs); jn++ {
					from := jn - 1
					if mode.Transitive() {
						from = 0
					}
					for in := from; in < jn; in++ {
						o, n := vs[in], vs[jn]
						comparePair(o, n, fmt.Sprintf("%s v%d -> v%d", t.Name, o.v.Number, n.v.Number), directions(mode))
					}
				}
				results[j.idx] = typeChecked(t, out)
				releaseType(t)
			}
		}()
	}
	for i, t := range head.Types {
		if stopped() {
			break
		}
		jobs <- job{i, t}
	}
	close(jobs)
	wg.Wait()
	for i, t := range head.Types {
		if done[i] {
			res.TypesChecked++
		}
		res.Findings = append(res.Findings, results[i]...)
		res.Pairs += pairs[i]
		res.HeadProblems = append(res.HeadProblems, headProbs[i]...)
		res.BaseProblems = append(res.BaseProblems, baseProbs[i]...)
		if opts.Skip[t.Name] {
			res.Skipped++
		}
	}
	res.Interrupted = res.TypesChecked < len(head.Types)
	SortReport(res.Findings)
	return res
}

func directions(m catalog.Mode) []engine.Direction {
	var out []engine.Direction
	if m.Backward() {
		out = append(out, engine.Backward)
	}
	if m.Forward() {
		out = append(out, engine.Forward)
	}
	return out
}

// modified explains how a published version differs between base and
// head ("" when it does not): its own file, or a file it references.
func modified(engines map[format.Kind]engine.Engine, base *catalog.Catalog, bv *catalog.Version, head *catalog.Catalog, hv *catalog.Version) string {
	if kindOf(bv) != kindOf(hv) {
		// Digests of two formats always differ; say what changed.
		return modifiedFormat(bv, hv)
	}
	if bv.Digest != hv.Digest {
		return fmt.Sprintf("v%d is published and was edited in place (digest %s -> %s); published versions are immutable: revert the edit and add a new version instead",
			bv.Number, short(bv.Digest), short(hv.Digest))
	}
	if msg := modifiedFormat(bv, hv); msg != "" {
		return msg
	}
	e, ok := engines[kindOf(hv)]
	if !ok || e.ReferencedFiles == nil || !e.Compiled(bv) || !e.Compiled(hv) {
		return ""
	}
	bf, hf := e.ReferencedFiles(base, bv), e.ReferencedFiles(head, hv)
	var changed []string
	for rel, d := range bf {
		if hd, ok := hf[rel]; !ok || hd != d {
			changed = append(changed, rel)
		}
	}
	for rel := range hf {
		if _, ok := bf[rel]; !ok {
			changed = append(changed, rel)
		}
	}
	if len(changed) == 0 {
		return ""
	}
	sort.Strings(changed)
	return fmt.Sprintf("v%d is published and a file it references changed (%s), which changes v%d in place; add a new file (or version) instead of editing a shared one",
		bv.Number, strings.Join(changed, ", "), bv.Number)
}

func short(d string) string {
	d = strings.TrimPrefix(d, "sha256:")
	if len(d) > 12 {
		return d[:12]
	}
	return d
}

// SortReport orders catalog findings by type, then version pair, then
// direction and severity, so text output groups them.
func SortReport(fs []report.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		if a.NewVersion != b.NewVersion {
			return a.NewVersion < b.NewVersion
		}
		if a.OldVersion != b.OldVersion {
			return a.OldVersion < b.OldVersion
		}
		if a.Subject != b.Subject {
			return a.Subject < b.Subject
		}
		if a.Direction != b.Direction {
			return a.Direction < b.Direction
		}
		return a.Severity.Rank() < b.Severity.Rank()
	})
}

// ApplyIgnores marks findings approved by evtool.yaml's ignore entries and
// adds a warning for every entry that matched nothing (a stale approval),
// naming its line.
func ApplyIgnores(fs []report.Finding, cfg catalog.Config, configFile string) []report.Finding {
	return ApplyIgnoresSkipped(fs, cfg, configFile, nil)
}

// ApplyIgnoresSkipped is ApplyIgnores after a check that skipped the
// types in skipped (CheckOptions.Skip): an entry that could match a
// finding of a skipped type (it names that type, or none) is not called
// stale, since those findings were not computed.
func ApplyIgnoresSkipped(fs []report.Finding, cfg catalog.Config, configFile string, skipped map[string]bool) []report.Finding {
	used := make([]bool, len(cfg.Compat.Ignore))
	for k, ig := range cfg.Compat.Ignore {
		if len(skipped) > 0 && (ig.Type == "" || skipped[ig.Type]) {
			used[k] = true
		}
	}
	for i := range fs {
		f := &fs[i]
		for k, ig := range cfg.Compat.Ignore {
			if ignoreMatches(ig, f) {
				used[k] = true
				if f.Ignored == "" {
					f.Ignored = ig.Reason
				}
			}
		}
	}
	for k, ig := range cfg.Compat.Ignore {
		if used[k] {
			continue
		}
		what := []string{}
		if ig.Type != "" {
			what = append(what, "type "+ig.Type)
		}
		if ig.Rule != "" {
			what = append(what, "rule "+ig.Rule)
		}
		if ig.Path != "" {
			what = append(what, "path "+ig.Path)
		}
		if ig.Fingerprint != "" {
			what = append(what, "fingerprint "+ig.Fingerprint)
		}
		fs = append(fs, report.Finding{Rule: RuleIgnoreStale, Severity: report.SeverityWarning, File: configFile, Line: ig.Line,
			Pointer: fmt.Sprintf("/compat/ignore/%d", k),
			Message: fmt.Sprintf("ignore entry (%s) matches no finding: a stale approval; remove it", strings.Join(what, ", "))})
	}
	return fs
}

func ignoreMatches(ig catalog.IgnoreRule, f *report.Finding) bool {
	if f.Rule == RuleIgnoreStale {
		return false
	}
	if ig.Type != "" && ig.Type != f.Type {
		return false
	}
	if ig.Rule != "" && ig.Rule != f.Rule {
		return false
	}
	if ig.Fingerprint != "" && ig.Fingerprint != f.Fingerprint {
		return false
	}
	if ig.Path != "" && !pathMatches(ig.Path, f.NewPointer) && !pathMatches(ig.Path, f.OldPointer) && !pathMatches(ig.Path, f.Pointer) {
		return false
	}
	return ig.Rule != "" || ig.Fingerprint != ""
}

// pathMatches: the entry's path names the finding's pointer or one of its
// ancestors (/properties/status approves /properties/status/enum).
func pathMatches(path, ptr string) bool {
	if ptr == "" {
		return false
	}
	path = strings.TrimSuffix(strings.TrimPrefix(path, "#"), "/")
	ptr = strings.TrimPrefix(ptr, "#")
	if path == "" {
		return true
	}
	return ptr == path || strings.HasPrefix(ptr, path+"/")
}
