// Package jsoncompat is evtool's JSON Schema compatibility engine, a peer
// of compat/avrocompat and compat/protocompat behind compat/engine: it decides whether
// documents valid under one JSON Schema are valid under another, for a
// direction and a profile (see shared/DESIGN.md, "Compatibility").
//
// Two engines give one verdict:
//
//  1. Rules walk both compiled schemas together (santhosh-tekuri/jsonschema
//     v6, refs resolved) and emit Findings with a stable rule id (Rules),
//     pointers into both schemas, old and new values, the direction, a
//     one-line message and a fingerprint. A rule that cannot decide emits a
//     warning, never a silent pass.
//  2. Witness search generates documents valid under the writer (sample/,
//     plus the rules' own targeted mutations) and validates them against
//     the reader. A document valid for the writer and rejected by the reader
//     is printed as the counterexample; when the rules said "compatible" it
//     becomes a witness-rejected error: the gate never passes a change it
//     has a counterexample for.
//
// The package never returns a bare boolean: Compatible is derived from the
// findings.
package jsoncompat

import (
	"context"
	"fmt"
	"sort"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
	"github.com/evtool/evtool/report"
)

// DefaultSamples is the number of writer documents witness search generates
// per direction when Options.Samples is 0 (`compat diff --samples`
// overrides it).
const DefaultSamples = 24

// The engine's profiles (format/jsonschema declares them to the catalog,
// CompatProfiles).
const (
	// ProfileLenient, the default, assumes writers emit only declared
	// properties.
	ProfileLenient = "lenient"
	// ProfileStrict is exact set inclusion.
	ProfileStrict = "strict"
)

func lenient(o engine.Options) bool { return o.Profile != ProfileStrict }

func samples(o engine.Options) int { return engine.SampleCount(o.Samples, DefaultSamples) }

// Side is one schema of a pair.
type Side struct {
	Schema *jsonschema.Schema
	// Closed, when set, is the schema compiled from Close(document): the
	// lenient profile's writer, used to generate and check writer documents.
	// Without it (the usual case) the same closure is checked on each
	// document directly, which needs no second compile.
	Closed *jsonschema.Schema

	docs *docCache
}

// NewSide wraps a compiled schema and its optional closed view. Sides reused
// across pairs (a catalog's versions) share their generated documents.
func NewSide(s, closed *jsonschema.Schema) *Side {
	return &Side{Schema: s, Closed: closed, docs: &docCache{}}
}

// Compare checks one direction: BACKWARD (new reads old) or FORWARD (old
// reads new). Findings are sorted: errors first, then by instance path.
func Compare(old, new *Side, dir engine.Direction, opts engine.Options) []Finding {
	return compare(old, new, dir, opts, nil, false)
}

// compare is Compare with the structural equality shared by comparisons
// of the same schemas (a catalog type's versions; nil: its own), and
// without the rules when witnessOnly (tests of witness search).
func compare(old, new *Side, dir engine.Direction, opts engine.Options, eq *equalizer, witnessOnly bool) []Finding {
	writer, reader := old, new
	if dir == engine.Forward {
		writer, reader = new, old
	}
	c := newChecker(dir, lenient(opts), opts.Budget)
	c.ctx = opts.Context
	if eq != nil {
		c.eq = eq
	}
	var raw []*Finding
	if !witnessOnly {
		raw = c.subOne(writer.Schema, reader.Schema, nil)
	}
	if c.overBudget && !c.canceled {
		raw = append(raw, c.warnf(KindIncomplete, writer.Schema.Location, reader.Schema.Location, nil, nil, nil, nil,
			fmt.Sprintf("the schemas are too large to compare exhaustively (more than %d steps); the rest was not checked by rules", c.budget)))
	}
	if c.searchExhausted && !c.canceled {
		raw = append(raw, c.warnf(KindIncomplete, writer.Schema.Location, reader.Schema.Location, nil, nil, nil, nil,
			fmt.Sprintf("the schemas' patterns are too many to compare exhaustively (their string searches visited more than %d automaton instructions); the searches left undecided were taken as the rules take any undecided one: patterns as overlapping and names as not covered (findings the searches might have ruled out), and whether strings match a pattern left to witness search (a warning unless it finds a counterexample)", c.searchBudget)))
	}
	if c.searchUndecided && !c.searchExhausted && !c.canceled {
		raw = append(raw, c.warnf(KindIncomplete, writer.Schema.Location, reader.Schema.Location, nil, nil, nil, nil,
			fmt.Sprintf("a string search between the schemas' patterns was left undecided (over its own limit of %d automaton threads or %d states, or a pattern its automata cannot run); it was taken as the rules take any undecided one: patterns as overlapping and names as not covered (findings the search might have ruled out), and whether strings match a pattern left to witness search (a warning unless it finds a counterexample)", maxSearchWork, maxSearchNodes)))
	}
	if c.canceled {
		raw = append(raw, c.warnf(KindIncomplete, writer.Schema.Location, reader.Schema.Location, nil, nil, nil, nil,
			fmt.Sprintf("the comparison was stopped (%v); the rest was not checked", context.Cause(c.ctx))))
	}
	if c.warnedDynamic {
		raw = append(raw, c.warnf(KindDynamicRef, writer.Schema.Location, reader.Schema.Location, nil, nil, nil, nil))
	}
	fs := dedupe(raw)
	// A stopped comparison searches no witnesses: drawing the samples
	// alone can take seconds, and the deadline has passed.
	if n := samples(opts); n > 0 && !c.canceled {
		if d := max(writer.nestingDepth(), reader.nestingDepth()); d > maxWitnessDepth {
			// The validator checks each $ref against every scope above it,
			// so one validation of such a schema costs depth² steps.
			fs = append(fs, c.warnf(KindIncomplete, writer.Schema.Location, reader.Schema.Location, nil, nil, nil, nil,
				fmt.Sprintf("witness search was skipped: the schemas nest subschemas %d deep (the limit is %d); the rules alone decided", d, maxWitnessDepth)))
		} else {
			ws := &witnessSearch{dir: dir, writer: writer, reader: reader, lenient: lenient(opts), n: n, seed: int64(opts.Seed), ctx: opts.Context}
			fs = ws.run(fs)
		}
	}
	out := make([]Finding, len(fs))
	for i, f := range fs {
		out[i] = *f
	}
	sortFindings(out)
	return out
}

// Compatible reports whether findings contain no error.
func Compatible(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == report.SeverityError {
			return false
		}
	}
	return true
}

// dedupe keeps one finding per rule, pair of schema locations and values:
// a definition reached through many properties (2^40 instance paths in a
// hostile schema) is one break, reported at the first instance path met.
func dedupe(fs []*Finding) []*Finding {
	seen := map[string]*Finding{}
	var out []*Finding
	for _, f := range fs {
		key := f.Rule + "\x00" + f.OldLocation + "\x00" + f.NewLocation + "\x00" + string(f.Severity) +
			"\x00" + compactJSON(f.OldValue) + "\x00" + compactJSON(f.NewValue)
		if prev, ok := seen[key]; ok {
			if prev.hint == nil {
				prev.hint = f.hint
			}
			continue
		}
		seen[key] = f
		out = append(out, f)
	}
	// A warning and an error for the same place: keep the error.
	errs := map[string]bool{}
	for _, f := range out {
		if f.Severity == report.SeverityError {
			errs[f.Rule+"\x00"+f.OldLocation+"\x00"+f.NewLocation] = true
		}
	}
	kept := out[:0]
	for _, f := range out {
		if f.Severity != report.SeverityError && errs[f.Rule+"\x00"+f.OldLocation+"\x00"+f.NewLocation] {
			continue
		}
		kept = append(kept, f)
	}
	return kept
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Severity.Rank() != b.Severity.Rank() {
			return a.Severity.Rank() < b.Severity.Rank()
		}
		if a.InstancePath != b.InstancePath {
			return a.InstancePath < b.InstancePath
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.NewLocation+a.OldLocation < b.NewLocation+b.OldLocation
	})
}
