package consumers

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/report"
)

// Annotate is the consumer-aware step around a compat check's result.
// Each finding about a type's versions names the consumers whose fields it
// reaches (Finding.Consumers, and the message, so every output format
// shows them): a consumer decoding the pair's reader version whose
// field-aware comparison of the same pair (both schemas projected on its
// fields, the same engines) has the same finding. Where the format has no
// projection, or the consumer's projected comparison breaks elsewhere,
// every consumer of the reader version is named: the step errs toward
// naming. A break no consumer reaches says so; when complete (evtool.yaml
// says consumers: complete) it becomes a warning, else it stays an error
// and the gate is exactly as strict as without contracts. One info
// finding per type lists the consumers affected.
func Annotate(fs []report.Finding, k *Checker, cs []*Contract, complete bool) []report.Finding {
	if len(cs) == 0 {
		return fs
	}
	out := Mark(fs, k, cs, complete, Known(fs))
	return append(out, Affected(out)...)
}

// Known is the fingerprints of a check's findings: a consumer's break
// that matches none of them reaches every error of its pair (reaches).
func Known(fs []report.Finding) map[string]bool {
	known := map[string]bool{}
	for _, f := range fs {
		known[f.Fingerprint] = true
	}
	return known
}

// Mark is Annotate without the summary: each finding about a type's
// versions names the consumers it reaches, or says that none does. A
// catalog checked type by type marks each type's findings while its
// versions are compiled (known: the fingerprints of at least that type's
// findings), then adds Affected of them all.
func Mark(fs []report.Finding, k *Checker, cs []*Contract, complete bool, known map[string]bool) []report.Finding {
	if len(cs) == 0 {
		return fs
	}
	out := make([]report.Finding, 0, len(fs))
	for _, f := range fs {
		if f.Type == "" || f.Rule == RuleAffected {
			out = append(out, f)
			continue
		}
		read, decoded, exact := reached(f, k, cs, known)
		names := append(slices.Clone(read), decoded...)
		sort.Strings(names)
		f.Consumers = names
		switch {
		case len(names) > 0:
			var by []string
			if len(read) > 0 {
				by = append(by, "read by "+strings.Join(read, ", "))
			}
			if len(decoded) > 0 {
				by = append(by, "decoded by "+strings.Join(decoded, ", "))
			}
			f.Message += " (" + strings.Join(by, "; ") + ")"
		case exact && f.Severity == report.SeverityError && complete:
			f.Severity = report.SeverityWarning
			f.Message += " (no consumer's fields reach it; a warning because evtool.yaml says consumers: complete)"
		case exact && f.Severity == report.SeverityError:
			f.Message += " (no consumer contract's fields reach it; the catalog does not claim its contracts are complete, so it stays an error)"
		}
		out = append(out, f)
	}
	return out
}

// Affected is one info finding per type that lists the consumers the
// marked findings fs reach.
func Affected(fs []report.Finding) []report.Finding {
	affected := map[string]map[string]bool{}
	for _, f := range fs {
		if f.Type == "" || f.Rule == RuleAffected || len(f.Consumers) == 0 {
			continue
		}
		if affected[f.Type] == nil {
			affected[f.Type] = map[string]bool{}
		}
		for _, n := range f.Consumers {
			affected[f.Type][n] = true
		}
	}
	types := make([]string, 0, len(affected))
	for t := range affected {
		types = append(types, t)
	}
	sort.Strings(types)
	var out []report.Finding
	for _, t := range types {
		var names []string
		for n := range affected[t] {
			names = append(names, n)
		}
		sort.Strings(names)
		out = append(out, report.Finding{Rule: RuleAffected, Severity: report.SeverityInfo, Type: t, Subject: t, Consumers: names,
			Message: fmt.Sprintf("consumers affected by the changes to %s: %s", t, strings.Join(names, ", "))})
	}
	return out
}

// reached returns the consumers a finding reaches, and whether the answer
// is exact (false: the finding is not about a pair of versions the
// step can project, so it names every reader and is never softened).
// read are the consumers of the pair's reader version it reaches;
// decoded those that decode the writer's events with another version of
// the reader's side, which the pair's break reaches all the same.
func reached(f report.Finding, k *Checker, cs []*Contract, known map[string]bool) (read, decoded []string, exact bool) {
	readersOf := func(n int) []string {
		var out []string
		for _, c := range cs {
			if r, ok := c.Reads[f.Type]; ok && (n == 0 || r.ReadsVersion(n)) {
				out = append(out, c.Name)
			}
		}
		sort.Strings(out)
		return out
	}
	switch {
	case f.OldVersion == 0 && f.NewVersion == 0:
		return readersOf(0), nil, false // the type as a whole (removed)
	case f.Direction == "" || f.OldVersion == f.NewVersion:
		// A published version removed or edited in place: its readers.
		return readersOf(max(f.OldVersion, f.NewVersion)), nil, false
	}
	reader, writer := f.NewVersion, f.OldVersion
	if f.Direction == strings.ToUpper(string(engine.Forward)) {
		reader, writer = f.OldVersion, f.NewVersion
	}
	exact = true
	for _, c := range Readers(cs, f.Type, reader) {
		// A finding at a path the consumer reads (the path, a parent or a
		// child) reaches it whatever the projected comparison says: a
		// projection can leave out what makes the break (a Protobuf oneof
		// whose other members are not read), and the gate must not call
		// a break on a read field unreached. Pointers of formats that
		// point into the schema rather than the data can only add
		// consumers here, never take one away.
		if format.NewFields(c.Reads[f.Type].Pointers()).Reads(f.Pointer) {
			read = append(read, c.Name)
			continue
		}
		v := k.Verdict(c, f.Type, reader, writer, false)
		if v == nil || !v.Projected || reaches(v, f, known) {
			read = append(read, c.Name)
			if v == nil || !v.Projected {
				exact = false
			}
		}
	}
	// A consumer that decodes another version beyond the pair's writer,
	// on the reader's side (newer for BACKWARD, older for FORWARD), reads
	// the writer's events too: a mode that checks neighbours only never
	// pairs the two, so the pair's finding is the only place its break
	// shows (v1's reader of v3's events, where v3 widened what v1 and v2
	// both constrain).
	for _, c := range cs {
		r, ok := c.Reads[f.Type]
		if !ok || r.ReadsVersion(reader) {
			continue
		}
		for _, n := range r.Versions {
			if (reader > writer) != (n > writer) || n == writer {
				continue
			}
			v := k.Verdict(c, f.Type, n, writer, false)
			if v != nil && v.Projected && !reaches(v, f, known) {
				continue
			}
			decoded = append(decoded, c.Name)
			if v == nil || !v.Projected {
				exact = false
			}
			break
		}
	}
	sort.Strings(read)
	sort.Strings(decoded)
	return read, decoded, exact
}

// reaches reports whether a consumer's verdict shows the finding: the
// same finding (fingerprint), or, for an error, a break of the verdict
// that matches none of the gate's findings (the projection moved it; it
// is counted as reaching every error of the pair rather than lost).
func reaches(v *Verdict, f report.Finding, known map[string]bool) bool {
	for _, g := range v.Findings {
		if g.Fingerprint == f.Fingerprint && g.Severity == f.Severity {
			return true
		}
	}
	if f.Severity != report.SeverityError {
		return false
	}
	for _, g := range v.Findings {
		if g.Severity == report.SeverityError && !known[g.Fingerprint] {
			return true
		}
	}
	return false
}
