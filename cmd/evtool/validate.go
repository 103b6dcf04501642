package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/internal/pipeline"
	"github.com/evtool/evtool/report"
)

func (a *app) validateCommand() *cobra.Command {
	var (
		dir, format string
		maxBytes    int
		workers     int
		topic       topicFlags
	)
	c := &cobra.Command{
		Use:   "validate [FILE|-]...",
		Short: "Validate CloudEvents against the catalog",
		Long: `Validate CloudEvents in the JSON format: a single event, a JSON array (the
CloudEvents batch format) or JSONL (one event per line). With no FILE, or
with -, read standard input. Each event gets the CloudEvents 1.0.2 envelope
rules, its dataschema mapped to a catalog version (an event without one is
checked against the latest version, with a warning), and its data validated
against that version's schema.

Input is streamed with constant memory and validated on all cores; findings
are reported in input order with the event's line (or array index), the
attribute or JSON pointer, and a message.

Exit 0 when every event is valid, 1 when any is invalid, 2 when the input
cannot be read (malformed JSON, invalid UTF-8, an event over --max-event-size).

With --brokers and --topic T[,T...], validate reads Kafka records instead:
each one decoded as a CloudEvent (binary or structured, per record) and
checked like an event of a file, plus its record key against the type's
partitionkey. Across records it reports an id reused for a different event
(error), an id repeated (warning, with its count), a key on several
partitions (warning) and, for a type whose event.yaml names a sequence
pointer, a sequence going backwards for one key in partition order (error).
Findings name topic/partition@offset. --until end (default) stops at the
end offsets seen at start; --until follow prints findings as they come
until interrupted. It never creates a topic.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := parseFormat(format, report.BasicFormats)
			if err != nil {
				return err
			}
			if maxBytes <= 0 {
				return usagef("--max-event-size must be positive")
			}
			if workers < 0 {
				return usagef("--workers %d: use 0 (one per core) or a positive count", workers)
			}
			if len(topic.topics) == 0 {
				if given := topic.given(cmd.Flags()); len(given) > 0 {
					return usagef("%s: only with --topic", given[0])
				}
			} else if len(args) > 0 {
				return usagef("--topic reads Kafka: give no FILE")
			}
			cat, err := loadCatalog(cmd.Context(), dir)
			if err != nil {
				return err
			}
			if len(topic.topics) > 0 {
				p, err := report.NewPrinter(a.stdout, f, "validate")
				if err != nil {
					return err
				}
				topic.workers = workers
				tuneGC()
				return a.validateTopics(cmd.Context(), cat, &topic, p)
			}
			if len(args) == 0 {
				args = []string{"-"}
			}
			p, err := report.NewPrinter(a.stdout, f, "validate")
			if err != nil {
				return err
			}
			ids, err := catalog.LoadSchemaIDs(cat)
			if err != nil {
				return err
			}
			tuneGC()
			v := &envelope.Validator{Catalog: cat, IDs: ids}
			var total validateStats
			for _, name := range args {
				st, err := a.validateInput(cmd.Context(), v, name, maxBytes, workers, p, inputHooks{})
				total.add(st)
				if err != nil {
					_ = p.Close(total.events, "event")
					return err
				}
			}
			if err := p.Close(total.events, "event"); err != nil {
				return err
			}
			if total.inputErrors > 0 {
				return fmt.Errorf("%d input error(s): the input could not be read completely", total.inputErrors)
			}
			if total.invalid > 0 {
				return errFindings
			}
			return nil
		},
	}
	dirFlag(c, &dir)
	formatFlag(c, &format, report.BasicFormats)
	c.Flags().IntVar(&maxBytes, "max-event-size", envelope.DefaultMaxEventBytes, "largest event accepted, in bytes")
	c.Flags().IntVar(&workers, "workers", 0, "validating goroutines (0: one per core)")
	addTopicFlags(c.Flags(), &topic)
	return c
}

type validateStats struct {
	events, invalid, inputErrors int
}

func (s *validateStats) add(o validateStats) {
	s.events += o.events
	s.invalid += o.invalid
	s.inputErrors += o.inputErrors
}

// validated is the outcome for one input item, computed on a worker.
type validated struct {
	item     envelope.Item
	findings []report.Finding
	unusable bool
	// decoded and version are the event and the version its data was
	// checked against, for inputHooks.keep.
	decoded *envelope.Decoded
	version *catalog.Version
}

// inputHooks let another command (produce) read events as validate does.
type inputHooks struct {
	// wrap turns an input value into the event text to check (produce
	// --type wraps plain data); nil keeps the value.
	wrap func(raw []byte) []byte
	// keep is called in input order with every item read, after its
	// findings were printed.
	keep func(res validated, display string) error
}

func (a *app) validateInput(ctx context.Context, v *envelope.Validator, name string, maxBytes, workers int, p report.Printer, hooks inputHooks) (validateStats, error) {
	var st validateStats
	var r io.Reader
	display := name
	switch fi, err := os.Stat(name); {
	case name == "-":
		in, stop := interruptible(ctx, func() (io.ReadCloser, error) { return io.NopCloser(a.stdin), nil })
		defer stop()
		r, display = in, "<stdin>"
	case err != nil:
		return st, fmt.Errorf("cannot read events: %w", err)
	case !fi.Mode().IsRegular():
		// A named pipe or a device (process substitution, /dev/stdin)
		// blocks in open and in read until a writer comes.
		in, stop := interruptible(ctx, func() (io.ReadCloser, error) { return os.Open(name) })
		defer stop()
		r = in
	default:
		f, err := os.Open(name)
		if err != nil {
			return st, fmt.Errorf("cannot read events: %w", err)
		}
		defer f.Close()
		r = f
	}
	reader := envelope.NewReader(r, maxBytes)
	done := false
	next := func() (envelope.Item, bool, error) {
		if done {
			return envelope.Item{}, false, nil
		}
		it, err := reader.Next()
		if errors.Is(err, io.EOF) {
			return it, false, nil
		}
		if err != nil {
			// The input cannot be read on (empty, broken batch): report it
			// as an item so it is printed in order, then stop.
			done = true
			return envelope.Item{Err: err, Line: lineOf(err)}, true, nil
		}
		return it, true, nil
	}
	work := func(it envelope.Item) validated {
		if it.Err != nil {
			f := report.Finding{Rule: envelope.RuleInput, Severity: report.SeverityError, Message: it.Err.Error()}
			var ie *envelope.InputError
			if errors.As(it.Err, &ie) {
				// Where the input breaks, not where its event began.
				f.Message, f.Line, f.Column = ie.Msg, ie.Line, ie.Column
			}
			return validated{item: it, unusable: true, findings: []report.Finding{f}}
		}
		raw := it.Raw
		if hooks.wrap != nil {
			raw = hooks.wrap(raw)
		}
		d, ver, fs := v.Validate(raw)
		// A JSON value that is not an object is read fine: an invalid
		// event (exit 1), not unreadable input (exit 2).
		notObject := len(fs) == 1 && fs[0].Rule == envelope.RuleNotObject
		return validated{item: it, findings: fs, unusable: d == nil && !notObject, decoded: d, version: ver}
	}
	emit := func(res validated) (err error) {
		if res.item.Err == nil {
			st.events++
		}
		if hooks.keep != nil {
			defer func() {
				if err == nil {
					err = hooks.keep(res, display)
				}
			}()
		}
		if len(res.findings) == 0 {
			return nil
		}
		subject := fmt.Sprintf("%s:%d", display, res.item.Line)
		if res.item.Line == 0 {
			subject = display
		}
		if res.item.Index >= 0 && res.item.Err == nil {
			subject = fmt.Sprintf("%s[%d] (line %d)", display, res.item.Index, res.item.Line)
		}
		failing := false
		for _, f := range res.findings {
			if res.item.Err == nil {
				f = res.item.Locate(f)
			}
			f.File, f.Subject = display, subject
			if f.Line == 0 {
				f.Line = res.item.Line
			}
			if f.Severity == report.SeverityError {
				failing = true
			}
			if err := p.Add(f); err != nil {
				return err
			}
		}
		switch {
		case res.unusable:
			st.inputErrors++
		case failing:
			st.invalid++
		}
		return nil
	}
	err := pipeline.Ordered(ctx, workers, 0, next, work, emit)
	if ctx.Err() != nil {
		// The caller closes the report: it must not read as a pass of
		// events nobody checked ("ok": true in JSON).
		st.inputErrors++
		f := report.Finding{Rule: envelope.RuleInput, Severity: report.SeverityError, File: display, Subject: display,
			Message: fmt.Sprintf("interrupted: the input was not read to its end (%d event(s) checked)", st.events)}
		if perr := p.Add(f); perr != nil {
			return st, perr
		}
		return st, fmt.Errorf("interrupted while reading %s: %d event(s) checked", display, st.events)
	}
	return st, err
}

// interruptible returns a reader of what open opens whose Read returns as
// soon as ctx is done (Ctrl-C), even while the open or a read blocks, as
// one from a terminal does until the user types a line or Ctrl-D, or one
// of a named pipe until its writer comes. stop releases it.
func interruptible(ctx context.Context, open func() (io.ReadCloser, error)) (io.Reader, func()) {
	pr, pw := io.Pipe()
	go func() {
		r, err := open()
		if err != nil {
			pw.CloseWithError(fmt.Errorf("cannot read events: %w", err))
			return
		}
		defer r.Close()
		_, err = io.Copy(pw, r)
		pw.CloseWithError(err)
	}()
	cancel := context.AfterFunc(ctx, func() { pr.CloseWithError(ctx.Err()) })
	return pr, func() {
		cancel()
		pr.Close() // ends the copy unless it is blocked reading r
	}
}

// lineOf extracts the line of a reader error, when it has one.
func lineOf(err error) int {
	var ie *envelope.InputError
	if errors.As(err, &ie) {
		return ie.Line
	}
	return 0
}

// tuneGC trades a little memory for throughput: validation allocates many
// short-lived values while its live heap stays a few MB, so the default
// GOGC=100 collects (and returns memory to the OS) far more often than
// needed. At 400 the peak stays around 50 MB whatever the input size, and
// CPU per event drops by about a third. An explicit GOGC wins.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}
