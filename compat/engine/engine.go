// Package engine is the contract between the compatibility gate (package
// compat) and its engines, one per schema format: compat/jsoncompat,
// compat/avrocompat and compat/protocompat. The engines sit beside each
// other and import this package, never compat or one another; the gate
// calls every one through Compare and prints the report.Findings they
// return, so modes, approvals, printers and exit codes do not fork per
// format.
package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/report"
)

// Direction is the way data flows between the two schemas of a pair.
type Direction string

const (
	// Backward: the new schema reads events written with the old one.
	Backward Direction = "backward"
	// Forward: the old schema reads events written with the new one.
	Forward Direction = "forward"
)

// Writer names the side that writes in messages ("old" or "new").
func (d Direction) Writer() string {
	if d == Forward {
		return "new"
	}
	return "old"
}

// Reader names the side that reads in messages ("old" or "new").
func (d Direction) Reader() string {
	if d == Forward {
		return "old"
	}
	return "new"
}

// Options configure a comparison, for every engine.
type Options struct {
	// Profile is the pair's compat.profile, one of the names its format's
	// provider declares (format.Profiles: lenient or strict for JSON
	// Schema, wire or wire-json for Protobuf; Avro takes none); "" is the
	// format's default. A string like engine.Rule's Profile: the engine
	// gives a name its meaning, the catalog only checks that it fits.
	Profile string
	// Samples is the number of generated writer documents per direction:
	// 0 means the engine's default, a negative number turns witness
	// search off (the rules alone decide).
	Samples int
	// Seed makes witness search deterministic.
	Seed uint64
	// Budget bounds the engine's work (JSON Schema: rule steps, and its
	// string searches 200 automaton instructions per step; Protobuf:
	// bytes of encoded writer messages); 0 means the engine's default.
	Budget int
	// Context, when set, bounds the comparison in time: once it is done
	// the engine stops and adds a warning saying the rest was not
	// checked. Callers that must not act on a partial answer (registry
	// serve) check Context.Err().
	Context context.Context
}

// SampleCount reads a Samples option as every engine does: negative turns
// witness search off (0), zero means the engine's default, else the count.
func SampleCount(samples, def int) int {
	switch {
	case samples < 0:
		return 0
	case samples == 0:
		return def
	}
	return samples
}

// Pair names the two schemas for report findings.
type Pair struct {
	Type       string
	OldVersion int
	NewVersion int
	// OldFile and NewFile are display paths of the schema files.
	OldFile, NewFile string
	// Subject groups findings in text output, e.g. "com.x.y v1 -> v2".
	Subject string
	// OldURL and NewURL are the URLs the schemas were compiled at; they make
	// fingerprints independent of where evtool runs from.
	OldURL, NewURL string
}

// VersionPair is two versions of one type to compare, with the catalogs
// they come from (the head, or the base for a published version edited in
// place; none for compat diff).
type VersionPair struct {
	Pair
	Old, New               *catalog.Version
	OldCatalog, NewCatalog *catalog.Catalog
	// LineOf, when set, is the line of a JSON pointer in a display file
	// (the catalog check looks in the head, then the base).
	LineOf func(file, pointer string) int
	// OldLocate and NewLocate, when set, map a JSON Schema location
	// ("url#/pointer") to a display file and pointer for a side loaded
	// outside a catalog (compat diff); else the side's catalog does.
	OldLocate, NewLocate func(location string) (file, pointer string)
}

// Compare compares a pair of versions of one format in one direction.
// Its findings carry the pair (type, versions, subject, fingerprint) and
// display paths, so printers, modes, approvals and exit codes are shared.
// A pair whose versions did not compile gives no findings.
type Compare func(p VersionPair, dir Direction, opts Options) []report.Finding

// Engine is one format's engine as the gate calls it.
type Engine struct {
	// Compiled reports whether a version has what Compare needs: a
	// version that did not compile is lint's to report, and its pairs are
	// neither compared nor counted.
	Compiled func(v *catalog.Version) bool
	// New returns the Compare of one event type's pairs: it may keep
	// what the pairs share (documents generated once per version). It is
	// called once per type; its Compare is used from one goroutine at a
	// time unless Concurrent is set.
	New func() Compare
	// Concurrent says New's Compare may also be called from several
	// goroutines at once (the consumer check shares one per type among
	// its parallel readings, so what it keeps per version is made once).
	Concurrent bool
	// ReferencedFiles, when set, lists the catalog files (path relative
	// to the schemas root -> digest) a compiled version of cat reaches
	// besides its own file: the gate reports a published version as
	// modified in place when one of them changed (JSON Schema's $ref).
	// Formats whose digest covers what a version uses, or whose provider
	// is a format.EditChecker, leave it nil.
	ReferencedFiles func(cat *catalog.Catalog, v *catalog.Version) map[string]string
	// Rules documents every rule id the engine emits, in documentation
	// order: the gate's rule table (ignore entries, SARIF, docs) spans
	// every engine's. Every engine of the gate's table sets Rules and
	// Section.
	Rules func() []Rule
	// Section renders the engine's section of docs/rules.md from its
	// Rules. The gate's own rules (gate) are given to the first engine
	// of the table only: its section follows the document's introduction
	// and lists them with its own; the others get nil.
	Section func(gate []Rule) string
}

// Rule documents one rule id an engine or the gate emits: the id an
// ignore entry names, its severity and what it means, in one value, so
// docs/rules.md and the printers' rule tables are generated from the code.
type Rule struct {
	ID       string
	Severity report.Severity
	// Direction is the direction the id names the change in, or "" when
	// the id is used for both.
	Direction Direction
	// Profile is the compat profile the rule belongs to (one of its
	// format's, format.Profiles): it fires under that profile and the
	// profiles that include it; "" for a format without profiles.
	Profile string
	// Compares is what the rule compares, in the format's words (JSON
	// Schema: a keyword), or "".
	Compares string
	// Summary is one line for tables; Detail, when set, explains when it
	// fires and what to do about it.
	Summary string
	Detail  string
	// Nearest are the nearest rules of other compatibility checkers, for
	// readers who know those; Differs says where evtool differs from
	// them.
	Nearest []Nearest
	Differs string
}

// Nearest is the rule of another tool nearest to an evtool rule.
type Nearest struct {
	// Tool names the tool as docs do ("buf", "Confluent").
	Tool string
	// ID is the tool's rule id or change type, with its verdict when
	// the tool gives one; "-" when the tool has none and says so.
	ID string
}

// NearestOf is the id of r's nearest rule of tool ("" when r names none).
func (r Rule) NearestOf(tool string) string {
	for _, n := range r.Nearest {
		if n.Tool == tool {
			return n.ID
		}
	}
	return ""
}

// Doc is the rule as the printers (SARIF) document it.
func (r Rule) Doc() report.RuleDoc {
	d := r.Detail
	if d == "" {
		d = r.Summary
	}
	return report.RuleDoc{ID: r.ID, Summary: r.Summary, Detail: d}
}

// Fingerprint is a stable hash of the type, rule, both pointers and the
// direction: what an ignore entry matches when it names a fingerprint. It
// does not change with line numbers, versions or message wording.
func Fingerprint(typ, rule, oldPtr, newPtr string, d Direction) string {
	h := sha256.Sum256([]byte(strings.Join([]string{typ, rule, oldPtr, newPtr, string(d)}, "\x00")))
	return hex.EncodeToString(h[:])[:16]
}

// DisplayPath is the display path of a file a schema names: by its path
// in the catalog directory, or relative to the catalog root when
// rootRelative. Without a catalog (compat diff) the schema was loaded
// from the version file's directory, or with import directories.
func DisplayPath(cat *catalog.Catalog, v *catalog.Version, file string, rootRelative bool) string {
	if p, ok := v.Compiled.(interface{ PathOf(string) (string, bool) }); ok && cat == nil {
		// Loaded with import directories (compat diff --proto-path).
		if s, ok := p.PathOf(file); ok {
			return s
		}
	}
	switch {
	case cat == nil:
		return filepath.Join(filepath.Dir(v.File), filepath.FromSlash(file))
	case rootRelative:
		return cat.ShowRel(file)
	}
	return cat.Show(file)
}

// Stamp gives an engine's findings the pair's identity: subject, type,
// versions, the direction (upper case), a fingerprint of the rule and
// pointers when the engine gave none, and the new version's file when a
// finding names no file.
func Stamp(vp VersionPair, dir Direction, fs []report.Finding) []report.Finding {
	for i := range fs {
		f := &fs[i]
		f.Subject, f.Type, f.OldVersion, f.NewVersion = vp.Subject, vp.Type, vp.OldVersion, vp.NewVersion
		if f.Direction == "" {
			f.Direction = string(dir)
		}
		f.Direction = strings.ToUpper(f.Direction)
		if f.Fingerprint == "" {
			f.Fingerprint = Fingerprint(vp.Type, f.Rule, f.OldPointer, f.NewPointer, dir)
		}
		if f.File == "" {
			f.File = vp.NewFile
		}
	}
	return fs
}
