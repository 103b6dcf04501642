package avrocompat

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/report"
)

// Counterexample is a writer datum that shows a break: its Avro JSON
// encoding, its binary encoding in hex, and what the reader does with it:
// fail (ReaderError) or read a value that means something else (Written
// and ReadAs; Read is the reader's whole datum in Avro JSON).
type Counterexample struct {
	Datum       json.RawMessage `json:"datum"`
	Hex         string          `json:"hex"`
	ReaderError string          `json:"readerError,omitempty"`
	Read        json.RawMessage `json:"read,omitempty"`
	Written     string          `json:"written,omitempty"`
	ReadAs      string          `json:"readAs,omitempty"`
}

const witnessTries = 8

const maxCoverSamples = 1024

// maxWitnessBytes bounds the binary datums one comparison encodes for
// counterexamples. Lint keeps a datum's minimum at 1 MiB, but a hundred
// breaks beside a 1 MiB fixed made a hundred megabyte-sized
// counterexamples (each printed as hex and JSON); once the budget is
// spent the remaining breaks are reported without one.
const maxWitnessBytes = 1 << 20

// maxWitnessDatum is the largest datum shown as a counterexample: one
// of a 1 MiB fixed is 8 MB of hex and JSON, which nobody reads and which
// took a second to write out.
const maxWitnessDatum = 64 << 10

// budget is what is left of maxWitnessBytes in one comparison.
type budget struct{ left int }

func (b *budget) spent() bool { return b.left <= 0 }

// findWitnesses gives every error finding a counterexample: a writer datum
// steered through the finding's path, encoded, decoded and resolved.
func findWitnesses(writer, reader *avro.Schema, fs []*Finding, defaults map[*avro.Field]any, opts engine.Options, b *budget) {
	for _, f := range fs {
		if f.Severity != report.SeverityError {
			continue
		}
		for i := range witnessTries {
			if done(opts) || b.spent() {
				return
			}
			datum, err := writer.SampleAt(opts.Seed, i, f.path, f.leaf)
			if err != nil {
				break
			}
			if cx := tryDatum(writer, reader, datum, f, defaults, b); cx != nil {
				f.Counterexample = cx
				break
			}
		}
	}
}

func done(opts engine.Options) bool {
	return opts.Context != nil && opts.Context.Err() != nil
}

// tryDatum encodes datum with the writer, decodes the bytes, resolves them
// with the reader and returns a counterexample when the outcome shows f
// (or, when f is nil, any break at all).
func tryDatum(writer, reader *avro.Schema, datum any, f *Finding, defaults map[*avro.Field]any, b *budget) *Counterexample {
	bin, err := writer.Encode(datum)
	if err != nil {
		return nil
	}
	b.left -= len(bin)
	if len(bin) > maxWitnessDatum {
		return nil
	}
	decoded, err := writer.Decode(bin)
	if err != nil {
		return nil
	}
	js, err := writer.EncodeJSON(decoded)
	if err != nil {
		return nil
	}
	rs := newResolver(defaults)
	read := rs.resolve(writer.Root, reader.Root, decoded, "")
	cx := &Counterexample{Datum: js, Hex: hex.EncodeToString(bin)}
	for _, e := range rs.errs {
		if f == nil || (e.rule == f.Rule && e.w == f.Writer && e.r == f.Reader) || (f.Rule == "avro-unexplained-break" && e.w == f.Writer && e.r == f.Reader) {
			cx.ReaderError = e.reason
			return cx
		}
	}
	if len(rs.errs) == 0 {
		if out, err := reader.EncodeJSON(read); err == nil {
			cx.Read = out
		} else if f == nil {
			cx.ReaderError = "the resolved value does not fit the reader: " + err.Error()
			return cx
		}
	}
	for _, c := range rs.changes {
		if f == nil || (c.w == f.Writer && c.r == f.Reader) {
			if written, read := c.render(); written != read {
				cx.Written, cx.ReadAs = written, read
				return cx
			}
		}
	}
	return nil
}

// unexplained samples writer datums and reports any break the rules did
// not predict: a safety net so the gate never passes a pair it has a
// counterexample for.
func unexplained(writer, reader *avro.Schema, dir engine.Direction, fs []*Finding, defaults map[*avro.Field]any, opts engine.Options, b *budget) []*Finding {
	n := engine.SampleCount(opts.Samples, DefaultSamples)
	// Cover walks every branch and symbol, but a schema may have tens of
	// thousands; the rules check those one by one already, so the safety
	// net stops at maxCoverSamples.
	datums, err := writer.Samples(opts.Seed, max(n, min(writer.Cover(), maxCoverSamples)))
	if err != nil {
		return nil
	}
	var out []*Finding
	known := map[[2]avro.Place]bool{}
	for _, f := range fs {
		known[[2]avro.Place{f.Writer, f.Reader}] = true
	}
	for _, d := range datums {
		if done(opts) {
			return out
		}
		// A sample is already what decoding its encoding gives, so it is
		// resolved as it is and encoded only for a break: a datum with a
		// large fixed costs megabytes to encode.
		rs := newResolver(defaults)
		rs.resolve(writer.Root, reader.Root, d, "")
		for _, e := range rs.errs {
			key := [2]avro.Place{e.w, e.r}
			if known[key] {
				continue
			}
			var cx *Counterexample
			if !b.spent() {
				bin, err := writer.Encode(d)
				if err != nil {
					continue
				}
				b.left -= len(bin)
				if len(bin) <= maxWitnessDatum {
					js, _ := writer.EncodeJSON(d)
					cx = &Counterexample{Datum: js, Hex: hex.EncodeToString(bin), ReaderError: e.reason}
				}
			}
			known[key] = true
			out = append(out, &Finding{Rule: "avro-unexplained-break", Severity: report.SeverityError, Direction: dir,
				Writer: e.w, Reader: e.r, Message: fmt.Sprintf("a writer datum fails in the reader: %s", e.reason),
				Counterexample: cx})
		}
	}
	return out
}

// boundary is a writer value of w that shows why the reader's r cannot
// stand for it, where a first sample (0, "") would not: a long above an
// int's range, a double a float rounds. nil leaves the sampler's value.
func boundary(w, r *avro.Node) any {
	switch {
	case w.Kind == "long" && r.Kind == "int":
		return int64(math.MaxInt32) + 1
	case w.Kind == "double" && (r.Kind == "float" || r.Kind == "int" || r.Kind == "long"):
		return math.Pi
	case w.Kind == "float" && (r.Kind == "int" || r.Kind == "long"):
		return float32(2.5)
	case w.Kind == "string" && w.Logical == "" && r.Kind != "string":
		return "abc"
	}
	return nil
}

// lost says what a value would lose in the reader's type, for a writer
// value of a type the reader cannot read: "" when nothing shows.
func lost(v any, to string) string {
	switch x := v.(type) {
	case int64:
		if to == "int" && (x > math.MaxInt32 || x < math.MinInt32) {
			return fmt.Sprintf("; %d is outside an int's range (%d to %d)", x, math.MinInt32, math.MaxInt32)
		}
	case float64:
		if to == "float" && float64(float32(x)) != x {
			return fmt.Sprintf("; as a float %v would be %v", x, float32(x))
		}
		if (to == "int" || to == "long") && x != math.Trunc(x) {
			return fmt.Sprintf("; %v has a fraction no %s holds", x, to)
		}
	case float32:
		if (to == "int" || to == "long") && float64(x) != math.Trunc(float64(x)) {
			return fmt.Sprintf("; %v has a fraction no %s holds", x, to)
		}
	}
	return ""
}
