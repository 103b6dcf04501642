package jsoncompat

import (
	"strings"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
	"github.com/evtool/evtool/report"
)

// Finding is one reason a writer schema's documents may be rejected by
// its reader. It is data: printers and the gate turn it into
// report.Finding with ToReport.
//
// It is not a report.Finding because the engine works on it before it is
// one: witness search reads its hint and fills Counterexample, rules are
// merged by Kind, and its places are compiled-schema locations
// ("url#/pointer") that become a file, line and pointer only through the
// side's Locator, which the pair gives at the boundary (ToReport).
type Finding struct {
	Rule      string
	Kind      Kind
	Severity  report.Severity
	Direction engine.Direction
	Message   string
	// OldLocation and NewLocation are schema locations ("url#/pointer") in
	// the old and new schema; empty when that side has no such place.
	OldLocation, NewLocation string
	OldValue, NewValue       any
	// InstancePath is where in a document the difference shows ("-" stands
	// for any array item).
	InstancePath string
	// Counterexample, when set, is a whole document valid for the writer
	// and rejected by the reader; ReaderError is the reader's complaint.
	Counterexample    any
	HasCounterexample bool
	ReaderError       string

	hint *hint
}

// hint tells witness search how to build a counterexample for a finding
// from a document the writer accepts.
type hint struct {
	path ipath
	// value replaces the value at path (when hasValue).
	value    any
	hasValue bool
	// drop deletes a property of the object at path.
	drop string
	// need lists properties that must be present at path, with the writer
	// schema to sample them from.
	need map[string]*jsonschema.Schema
	// from: sample the value at path from this schema (a reader-side schema
	// whose values may also be the writer's).
	from     *jsonschema.Schema
	fromMask typeMask
	// dup makes the array at path repeat its first item.
	dup bool
	// setProp adds property name (sampled from propFrom) to the object at path.
	setProp  string
	propFrom *jsonschema.Schema
	// truncate shortens the array at path to that many items (when >= 0
	// and truncSet); extend lengthens it by repeating items.
	truncate int
	truncSet bool
	extend   int
	itemFrom *jsonschema.Schema // a writer item schema for extend
	// trim keeps at most that many members of the object at path (when
	// trimSet), the needed ones first: the fewest properties a writer
	// sends, for a reader's minProperties.
	trim    int
	trimSet bool
	// within, when set, are the writer branch a finding of a union was
	// found in (the schemas the value at withinPath passes there): the
	// hint is applied to documents in that branch first, where the
	// change shows ({"d": null} takes b as the branch of d has it; a
	// document of another branch takes any b).
	within     []*jsonschema.Schema
	withinPath ipath
	// cands are values for the place at path that the rule derived while
	// deciding the break ({} for a minProperties no writer object has to
	// reach). Witness search puts each into the documents (alone when path
	// is the root) and validates the result against writer and reader
	// like any other, so a wrong candidate is never printed.
	cands []any
}

// objectOp reports whether the hint changes members of an object: one
// the base document lacks at path, or a non-object there, can be an
// empty object to start from.
func (h *hint) objectOp() bool {
	return len(h.need) > 0 || h.setProp != "" || h.trimSet
}

// Locator maps a schema location to a display file and a JSON pointer into
// that file. Catalog and standalone comparisons each provide one.
type Locator func(location string) (file, pointer string)

// Pointers returns the finding's pointers into the old and new schema as
// the locator shows them: a plain JSON pointer inside the version's own
// file, "file#pointer" inside another file.
func (f *Finding) Pointers(p engine.Pair, oldL, newL Locator) (oldPtr, newPtr string) {
	show := func(l Locator, location, own string) string {
		if location == "" {
			return ""
		}
		file, ptr := l(location)
		if file == own || file == "" {
			if ptr == "" {
				return "/"
			}
			return ptr
		}
		return file + "#" + ptr
	}
	return show(oldL, f.OldLocation, p.OldFile), show(newL, f.NewLocation, p.NewFile)
}

// ToReport converts a finding for printing: file and line point into the
// new schema when it has a place for the finding, else into the old one.
func (f *Finding) ToReport(p engine.Pair, oldL, newL Locator, lineOf func(file, pointer string) int) report.Finding {
	oldPtr, newPtr := f.Pointers(p, oldL, newL)
	rf := report.Finding{
		Rule: f.Rule, Severity: f.Severity, Message: f.Message,
		Subject: p.Subject, Type: p.Type, OldVersion: p.OldVersion, NewVersion: p.NewVersion,
		Direction: strings.ToUpper(string(f.Direction)), OldPointer: oldPtr, NewPointer: newPtr,
		OldValue: f.OldValue, NewValue: f.NewValue,
		Fingerprint: engine.Fingerprint(p.Type, f.Rule, stablePointer(f.OldLocation, p.OldURL), stablePointer(f.NewLocation, p.NewURL), f.Direction),
	}
	location, l := f.NewLocation, newL
	if location == "" {
		location, l = f.OldLocation, oldL
	}
	if location != "" {
		rf.File, rf.Pointer = l(location)
		if rf.File == "" {
			rf.File = p.NewFile
			if l == nil || f.NewLocation == "" {
				rf.File = p.OldFile
			}
			rf.Pointer = ""
		}
		if rf.Pointer == "" {
			rf.Pointer = "/"
		}
		if lineOf != nil && rf.File != "" {
			rf.Line = lineOf(rf.File, strings.TrimSuffix(rf.Pointer, "/"))
		}
	}
	if f.HasCounterexample {
		if b, err := jsonvalue.Marshal(f.Counterexample, ""); err == nil {
			rf.Counterexample = b
		}
		what := "an old event the new schema rejects"
		if f.Direction == engine.Forward {
			what = "a new event the old schema rejects"
		}
		rf.Message += " (counterexample: " + what + ")"
	}
	return rf
}

// stablePointer is a location as fingerprints see it: the JSON pointer
// inside the schema's own file, or "path#pointer" with the path relative to
// the catalog root for another file. It does not depend on --dir or on the
// working directory.
func stablePointer(location, own string) string {
	if location == "" {
		return ""
	}
	base, ptr := splitLocation(location)
	if own == "" || base == strings.TrimSuffix(own, "#") {
		return ptr
	}
	return strings.TrimPrefix(base, "file:///evtool-catalog/") + "#" + ptr
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
