package avrocompat

import (
	"encoding/json"
	"strings"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/report"
)

// Finding is one break (or warning) between a writer and a reader schema.
// Writer and Reader are places in the two schemas' files; ToReport turns
// them into old/new pointers for the shared printers and gate.
//
// It is not a report.Finding because the engine works on it before it is
// one: its places are writer and reader, which become old and new only
// with the direction, witness search follows its path and leaf to build
// Counterexample, and the counterexample is printed from the compiled
// schemas (ToReport takes them).
type Finding struct {
	Rule           string
	Severity       report.Severity
	Direction      engine.Direction
	Message        string
	Writer, Reader avro.Place
	Counterexample *Counterexample

	// path steers the witness search from the writer's root to the break;
	// leaf, when set, is the writer value to put there.
	path []avro.Step
	leaf any
}

// Old and New are the finding's places in the old and new schema.
func (f *Finding) Old() avro.Place {
	if f.Direction == engine.Forward {
		return f.Reader
	}
	return f.Writer
}

func (f *Finding) New() avro.Place {
	if f.Direction == engine.Forward {
		return f.Writer
	}
	return f.Reader
}

// ToReport converts the finding for printing and the gate, like the JSON
// Schema engine's: file and line in the new schema, pointers into both
// ("file#pointer" when a pointer is in another file than the version's
// own), the counterexample as JSON.
func (f *Finding) ToReport(p engine.Pair, old, new *avro.Schema) report.Finding {
	show := func(pl avro.Place, own string) string {
		ptr := pl.Pointer
		if ptr == "" {
			ptr = "/"
		}
		if pl.File == own || pl.File == "" {
			return ptr
		}
		return pl.File + "#" + ptr
	}
	o, n := f.Old(), f.New()
	oldPtr, newPtr := show(o, p.OldFile), show(n, p.NewFile)
	rf := report.Finding{
		Rule: f.Rule, Severity: f.Severity, Message: f.Message,
		Subject: p.Subject, Type: p.Type, OldVersion: p.OldVersion, NewVersion: p.NewVersion,
		Direction: strings.ToUpper(string(f.Direction)), OldPointer: oldPtr, NewPointer: newPtr,
		Fingerprint: engine.Fingerprint(p.Type, f.Rule, oldPtr, newPtr, f.Direction),
	}
	at, s := n, new
	if at.File == "" {
		at, s = o, old
	}
	rf.File, rf.Pointer = at.File, at.Pointer
	if rf.Pointer == "" {
		rf.Pointer = "/"
	}
	if s != nil && at.File != "" {
		rf.Line = s.Line(at.File, at.Pointer)
	}
	if f.Counterexample != nil {
		rf.Counterexample, _ = json.Marshal(f.Counterexample)
		rf.Message += " (counterexample: " + f.Counterexample.Summary() + ")"
	}
	return rf
}

// Summary is the counterexample in one line.
func (c *Counterexample) Summary() string {
	s := truncate(string(c.Datum), 120) + " = 0x" + truncate(c.Hex, 64)
	switch {
	case c.ReaderError != "":
		return s + "; reader fails: " + c.ReaderError
	case c.Written != "":
		return s + "; written " + c.Written + ", read as " + c.ReadAs
	}
	return s
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
