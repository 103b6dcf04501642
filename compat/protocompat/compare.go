package protocompat

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/evtool/evtool/compat/engine"
	pb "github.com/evtool/evtool/format/protobuf"
	"github.com/evtool/evtool/report"
)

// DefaultSamples is the number of sampled writer messages witness search
// checks per direction when Options.Samples is 0.
const DefaultSamples = 24

// DefaultBudget bounds one comparison's witness search when
// Options.Budget is 0: the bytes of writer messages it encodes and reads
// back (each sampled message is bounded too: pb.DefaultMaxValues).
const DefaultBudget = 8 << 20

// budgetOf is opts.Budget, or DefaultBudget when it is 0.
func budgetOf(o engine.Options) int {
	if o.Budget > 0 {
		return o.Budget
	}
	return DefaultBudget
}

// jsonOf: the profile keeps the canonical JSON mapping too.
func jsonOf(o engine.Options) bool { return o.Profile != ProfileWire }

func samplesOf(o engine.Options) int { return engine.SampleCount(o.Samples, DefaultSamples) }

// RuleIncomplete marks a comparison that was stopped before it finished.
const RuleIncomplete = "proto-incomplete"

// Compare checks one direction of a pair: BACKWARD (new reads data old
// wrote) or FORWARD (old reads data new wrote). Every break is an error
// finding with a counterexample; findings are sorted by pointer, then
// rule.
func Compare(old, new *pb.Schema, dir engine.Direction, opts engine.Options) []report.Finding {
	writer, reader := old, new
	if dir == engine.Forward {
		writer, reader = new, old
	}
	wx, rx := extensionsOf(writer.Desc), extensionsOf(reader.Desc)
	w := &walker{dir: dir, json: jsonOf(opts), seen: map[string]bool{}, wx: wx, rx: rx}
	w.message(writer.Message, reader.Message, nil)

	spent := 0
	t := trial{reader: reader.Message, lostIsChange: dir == engine.Backward, readerExt: rx, writerExt: wx, spent: &spent, moves: enumMoves{}}
	sampler := pb.Sampler{Seed: opts.Seed}
	sample := func(i int) *dynamicpb.Message { return sampler.Sample(writer.Message, i) }
	// Targeted messages start from a minimal message (only required fields
	// set), so that no other break of the pair shows in its witness, then
	// from a full sample.
	bases := []struct {
		aim  aim
		make func() *dynamicpb.Message
	}{
		{minimalAim, func() *dynamicpb.Message { return minimal(writer.Message, reader.Message, sample(1)) }},
		{fullAim, func() *dynamicpb.Message { return sample(1) }},
	}
	cancelled := func() bool { return opts.Context != nil && opts.Context.Err() != nil }
	stopped := func() bool { return cancelled() || spent >= budgetOf(opts) }
	try := func(f *finding, ms []*dynamicpb.Message, a aim) {
		for _, m := range ms {
			if stopped() || f.witness != nil {
				return
			}
			wits := t.run(m, jsonOf(opts))
			for _, wit := range wits {
				if wit.ReaderError != "" && a == minimalAim {
					// A message with only f's field set fails to parse in
					// this encoding: f explains such failures of samples.
					f.failsIn = append(f.failsIn, wit.Encoding)
				}
			}
			for _, wit := range wits {
				if cut, ok := explains(f, wit, a); ok {
					f.witness = cut
					return
				}
			}
		}
	}
	for _, f := range w.findings {
		if stopped() {
			// Building the remaining findings' messages costs too.
			break
		}
		for _, base := range bases {
			try(f, targeted(base.make, f), base.aim)
		}
		try(f, sampledFor(sample), sampledAim)
		if f.witness == nil && f.readerLeaf && !stopped() {
			f.witness = t.absent(bases[0].make(), f)
		}
	}
	sampled, planned, cutTo := 0, 0, pb.DefaultMaxDepth
	if samplesOf(opts) > 0 {
		planned = samplesOf(opts) + 1
	}
	for i := 0; i <= samplesOf(opts) && samplesOf(opts) > 0 && !stopped(); i++ {
		m, depth := sampler.SampleDepth(writer.Message, i)
		cutTo = min(cutTo, depth)
		w.findings = bruteForce(w.findings, t.run(m, jsonOf(opts)))
		sampled++
	}
	out := make([]report.Finding, 0, len(w.findings)+1)
	unproved := 0
	for _, f := range w.findings {
		out = append(out, toReport(f, old, new, dir))
		if f.witness == nil {
			unproved++
		}
	}
	incomplete := func(format string, args ...any) {
		out = append(out, report.Finding{Rule: RuleIncomplete, Severity: report.SeverityWarning, Direction: string(dir),
			Message: fmt.Sprintf(format, args...)})
	}
	switch {
	case cancelled():
		incomplete("the comparison was stopped (%v); the rest was not checked", context.Cause(opts.Context))
	case stopped():
		// Never a silent pass: what was left unchecked is said.
		incomplete("the witness search used its budget of %d bytes of encoded messages and stopped: %d of %d sampled messages were not read back, %d breaks have no counterexample (they stay errors)",
			budgetOf(opts), planned-sampled, planned, unproved)
	}
	if cutTo < pb.DefaultMaxDepth && sampled > 0 {
		incomplete("sampled messages were cut to %d levels of nesting (at most %d values each): differences nested deeper were checked by the rules only, not by reading samples back",
			cutTo, pb.DefaultMaxValues)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Pointer != out[j].Pointer {
			return out[i].Pointer < out[j].Pointer
		}
		return out[i].Rule < out[j].Rule
	})
	return out
}

// minimal is an empty message of md with only the fields set (from full)
// that the writer or the reader requires: so that it encodes, and so that
// the reader's "required field not set" (a break of its own) does not
// stand in for the break the message is aimed at.
func minimal(md, reader protoreflect.MessageDescriptor, full *dynamicpb.Message) *dynamicpb.Message {
	m := dynamicpb.NewMessage(md)
	fs := md.Fields()
	for i := 0; i < fs.Len(); i++ {
		f := fs.Get(i)
		rf := reader.Fields().ByNumber(f.Number())
		required := f.Cardinality() == protoreflect.Required || rf != nil && rf.Cardinality() == protoreflect.Required
		if required && full.Has(f) {
			m.Set(f, full.Get(f))
		}
	}
	return m
}

func parseFailureShown(fs []*finding, encoding string) bool {
	for _, f := range fs {
		if f.rule != RuleWitnessChanged && slices.Contains(f.failsIn, encoding) {
			return true
		}
	}
	return false
}

// sameKindWitnessed keeps the safety net to one finding per unexplained
// failure kind: a parse error already reported as unexplained.
func sameKindWitnessed(fs []*finding, wit *witness) bool {
	for _, f := range fs {
		if f.rule == RuleWitnessChanged && f.witness.Encoding == wit.Encoding && (f.witness.ReaderError != "") == (wit.ReaderError != "") {
			if wit.ReaderError != "" || f.witness.Changes[0].key == wit.Changes[0].key && f.witness.Changes[0].Path == wit.Changes[0].Path {
				return true
			}
		}
	}
	return false
}

// Compatible reports whether findings contain no error.
func Compatible(fs []report.Finding) bool {
	for _, f := range fs {
		if f.Severity == report.SeverityError {
			return false
		}
	}
	return true
}

func pointerOf(path []protoreflect.FieldDescriptor) string {
	var b strings.Builder
	for _, f := range path {
		b.WriteString("/")
		b.WriteString(string(f.Name()))
	}
	return b.String()
}

// side renders "file:line:col#full.name" for a descriptor.
func side(d protoreflect.Descriptor) string {
	if d == nil {
		return ""
	}
	return pb.Location(d) + "#" + string(d.FullName())
}

func toReport(f *finding, old, new *pb.Schema, dir engine.Direction) report.Finding {
	wd, rd := f.writer, f.reader
	if f.rule == RuleWitnessChanged {
		wd, rd = old.Message, new.Message
		if dir == engine.Forward {
			wd, rd = new.Message, old.Message
		}
	}
	oldD, newD := wd, rd
	if dir == engine.Forward {
		oldD, newD = rd, wd
	}
	r := report.Finding{
		Rule:       f.rule,
		Severity:   lookupRule(f.rule).Severity,
		Message:    f.message,
		Direction:  string(dir),
		Pointer:    pointerOf(f.path),
		OldPointer: side(oldD),
		NewPointer: side(newD),
	}
	if f.rule == RuleWitnessChanged && f.witness != nil && len(f.witness.Changes) > 0 {
		// Up to the first list index or map key ("lines[0].qty" is at
		// /lines): a consumer contract names items by any index and map
		// values by any key, and reads what is below a pointer it reads.
		path, _, _ := strings.Cut(f.witness.Changes[0].Path, "[")
		if path != "" { // "" when it starts with an extension: the whole message
			r.Pointer = "/" + strings.ReplaceAll(path, ".", "/")
		}
	}
	at := newD
	if at == nil {
		at = oldD
	}
	if at != nil && !placed(at) {
		// A field of a well-known type (google.protobuf.Int64Value's
		// value) is in a bundled file the catalog does not hold, and a
		// map's key and value fields have no place in the source: the
		// finding is placed at the catalog's field that holds them.
		at = catalogField(new.Message, f.path, at)
	}
	if at != nil {
		r.File, r.Line, r.Column = pb.Position(at)
	}
	if f.witness != nil {
		r.Counterexample = f.witness.raw()
		r.Message += "; e.g. " + f.witness.summary()
	}
	return r
}

// bundled reports whether d is declared in one of the well-known type
// files evtool bundles (google/protobuf/*.proto), not in the catalog.
func bundled(d protoreflect.Descriptor) bool {
	return d.ParentFile() != nil && strings.HasPrefix(d.ParentFile().Path(), "google/protobuf/")
}

// placed reports whether d has a line in a file of the catalog.
func placed(d protoreflect.Descriptor) bool {
	_, line, _ := pb.Position(d)
	return line > 0 && !bundled(d)
}

// catalogField is the deepest field along path (writer fields, matched by
// number from md down) that has a line in a file of the catalog, or at
// when none has.
func catalogField(md protoreflect.MessageDescriptor, path []protoreflect.FieldDescriptor, at protoreflect.Descriptor) protoreflect.Descriptor {
	found := at
	for _, wf := range path {
		if md == nil {
			break
		}
		f := md.Fields().ByNumber(wf.Number())
		if f == nil {
			break
		}
		if placed(f) {
			found = f
		}
		md = f.Message()
	}
	return found
}

// bruteForce checks the witnesses of one sampled writer message against
// the findings: sampled messages must read the same, or a rule must
// explain why not; an unexplained difference becomes a
// proto-witness-changed break.
func bruteForce(fs []*finding, wits []*witness) []*finding {
	for _, wit := range wits {
		explained := false
		for _, f := range fs {
			if cut, ok := explains(f, wit, sampledAim); ok {
				explained = true
				if f.witness == nil {
					f.witness = cut
				}
			}
		}
		if !explained && wit.ReaderError != "" {
			// A parse error that names no field (a JSON syntax error at a
			// changed field's value) is explained by a break whose own
			// message failed to parse in the same encoding.
			explained = parseFailureShown(fs, wit.Encoding)
		}
		if !explained && !sameKindWitnessed(fs, wit) {
			fs = append(fs, &finding{rule: RuleWitnessChanged, witness: wit,
				message: "an encoded writer message reads differently and no rule explains it"})
		}
	}
	return fs
}
