package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/evtool/evtool/report"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/replay"
)

func (a *app) replayCommand() *cobra.Command {
	var (
		brokers    []string
		seed       uint64
		faults     string
		listFaults bool
		format     string
		reportFile string
		workdir    string
		keep       bool
		verbose    bool
		failFast   bool
		shrink     int
		cc         kafka.ClientConfig
		fields     []string
	)
	c := &cobra.Command{
		Use:   "replay SCENARIO...",
		Short: "Replay events through Kafka with duplicates, reordering, version skew, poison events and crashes; compare the consumer's state with a clean run",
		Long: `Replay the scenario's events through Kafka: twice clean (the baseline; a
consumer whose two clean runs differ is reported as nondeterministic) and once
through a seeded fault plan (duplicates, reordering, version skew, poison
events, crashes). The consumer under test (consumer.run) is started once per
run with a fresh topic, group and work directory in EVTOOL_BROKERS,
EVTOOL_TOPIC, EVTOOL_GROUP, EVTOOL_WORKDIR, EVTOOL_ADDR (a free 127.0.0.1 port
for its state endpoint), EVTOOL_RUN and EVTOOL_DLQ_TOPIC (its dead-letter topic).
Crash faults SIGKILL it and restart it with the same environment. After each
run settles (the group's committed offsets reach the end of every partition
and stay there for consumer.quiet) its state is read (GET consumer.state.http,
or the stdout of consumer.state.command) as JSON.

A baseline that tests nothing fails the replay: a state that is empty or the
one the consumer served before the first event, or clean events dead-lettered
(unless expect.baseline says so). The replay passes when the chaos state
equals the baseline state (without the consumer.ignore pointers) and every
expectation holds (expect.state, and
expect.dlq: every poison event on the dead-letter topic with a header naming
the error). A failure is confirmed by a rerun, then shrunk to a 1-minimal set
of faults (delta debugging, at most --shrink-budget runs); the report prints
those faults with their events, the state diff of the minimal run and the
command that reproduces it (--seed N --faults i,j; see --list-faults).

Every event is validated against the catalog before anything is produced.
Without kafka.brokers and --brokers, an embedded broker runs in-process.
Several scenarios run one after the other (--fail-fast: stop at the first
that does not pass).

Exit 0 pass, 1 the consumer failed (state differs, an expectation fails, it
exited early or never settled, nondeterministic), 2 error (scenario, events,
Kafka, state not JSON).`,
		Example: `  evtool replay examples/orders/replay.yaml
  evtool replay scenario.yaml --seed 7 --faults 3,12
  evtool replay scenario.yaml --list-faults
  evtool replay scenario.yaml --brokers kafka:9093 --tls --sasl-mechanism SCRAM-SHA-512 --sasl-user qa
  evtool replay scenario.yaml --format junit --report replay.xml
  evtool replay scenarios/*.yaml --fail-fast --shrink-budget 10`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := parseFormat(format, report.RunFormats)
			if err != nil {
				return err
			}
			sel := chaos.All()
			if cmd.Flags().Changed("faults") {
				if sel, err = chaos.ParseSelection(faults); err != nil {
					return usageError{fmt.Errorf("--faults: %w", err)}
				}
			}
			if cc.Compression != "" {
				if _, err := kafka.CompressionCodec(cc.Compression); err != nil {
					return usageError{fmt.Errorf("--compression: %w", err)}
				}
			}
			if cc.SASLPassword == "" {
				cc.SASLPassword = os.Getenv("EVTOOL_SASL_PASSWORD")
			}
			var brokerList []string
			for _, b := range brokers {
				for _, x := range strings.Split(b, ",") {
					if x = strings.TrimSpace(x); x != "" {
						brokerList = append(brokerList, x)
					}
				}
			}
			if listFaults && len(args) > 1 {
				return usagef("--list-faults takes one scenario")
			}
			if shrink < 0 {
				return usagef("--shrink-budget %d: want 0 (no shrinking) or more runs", shrink)
			}
			scenarios := make([]*replay.Scenario, len(args))
			for i, a := range args {
				sc, err := replay.LoadScenario(a)
				if err != nil {
					return err
				}
				scenarios[i] = sc
			}
			if os.Getenv("GOGC") == "" {
				defer debug.SetGCPercent(debug.SetGCPercent(replay.ProducerGCPercent))
			}
			if os.Getenv("GOMEMLIMIT") == "" {
				defer debug.SetMemoryLimit(debug.SetMemoryLimit(replay.MemoryLimit))
			}
			opts := replay.Options{
				Brokers:      brokerList,
				Client:       cc,
				Faults:       sel,
				WorkDir:      workdir,
				Keep:         keep,
				ShrinkBudget: shrink,
				BuildLog:     a.stderr,
			}
			if shrink == 0 {
				opts.ShrinkBudget = -1
			}
			if cmd.Flags().Changed("seed") {
				opts.Seed = &seed
			}
			if verbose {
				opts.Log = a.stderr
			}
			if opts.ContractFields, err = contractFields(fields); err != nil {
				return err
			}
			if listFaults {
				opts.Command = "evtool replay " + shellWord(args[0])
				return a.listFaults(cmd.Context(), scenarios[0], opts, f)
			}
			var reps []*replay.Report
			var firstErr error
			for i, sc := range scenarios {
				if failFast && i > 0 && replay.Worst(reps) != replay.Pass {
					reps = append(reps, &replay.Report{Scenario: sc.File, Verdict: replay.Skipped,
						Summary: "skipped: --fail-fast after " + reps[len(reps)-1].Scenario + " did not pass"})
					continue
				}
				o := opts
				o.Command = "evtool replay " + shellWord(args[i])
				var bar *barProgress
				if isTerminal(a.stderr) && !verbose {
					bar = newBarProgress(a.stderr)
					o.Progress = bar
				}
				rep, err := replay.Replay(cmd.Context(), sc, o)
				if bar != nil {
					bar.close()
				}
				if rep == nil {
					if len(scenarios) == 1 {
						return err
					}
					rep = &replay.Report{Scenario: sc.File, Verdict: replay.Error, Summary: "error: " + firstLine(err.Error()), Error: err.Error()}
				}
				if err != nil && firstErr == nil {
					firstErr = err
				}
				reps = append(reps, rep)
				if cmd.Context().Err() != nil {
					break
				}
			}
			if werr := replay.WriteAll(a.stdout, f, reps); werr != nil {
				return werr
			}
			if reportFile != "" {
				if werr := writeReportFile(reportFile, reps); werr != nil {
					return werr
				}
			}
			switch replay.Worst(reps) {
			case replay.Error:
				if firstErr == nil {
					firstErr = errors.New("a scenario could not be run")
				}
				return reportedError{firstErr} // the report says "error: ..."
			case replay.Fail:
				return errFindings
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.StringSliceVar(&brokers, "brokers", nil, "Kafka seed brokers host:port[,host:port] (default: kafka.brokers, else an embedded broker)")
	fl.Uint64Var(&seed, "seed", 0, "seed of the fault plan (default: chaos.seed, else random)")
	fl.StringVar(&faults, "faults", "", "apply only these faults of the plan, e.g. 3,7,10-12 (see --list-faults)")
	fl.BoolVar(&listFaults, "list-faults", false, "print the fault plan for the seed and exit, without Kafka")
	formatFlag(c, &format, report.RunFormats)
	fl.StringVar(&reportFile, "report", "", "also write the report to FILE (.json: JSON, .xml: JUnit, else text)")
	fl.StringVar(&workdir, "workdir", "", "keep the runs' work directories and consumer logs in a new directory inside DIR, evtool-replay-<scenario>-<random> (default: one in the temporary directory, removed)")
	fl.BoolVar(&keep, "keep", false, "keep the work directory, topics and consumer groups")
	fl.BoolVarP(&verbose, "verbose", "v", false, "log each step on stderr")
	fl.BoolVar(&failFast, "fail-fast", false, "with several scenarios, stop at the first one that does not pass (the rest are reported as skipped)")
	fl.IntVar(&shrink, "shrink-budget", replay.DefaultShrinkBudget, "most runs spent shrinking a failure to a minimal set of faults, or a failing contract run to the fields the consumer reads (0: confirm and shrink nothing)")
	fl.StringArrayVar(&fields, "contract-field", nil, "instead of the chaos run, a contract run mutating only this field, TYPE:POINTER (repeatable; a contract finding's reproduce line)")
	fl.StringVar(&cc.Compression, "compression", "", "codec of the record batches evtool produces: "+strings.Join(kafka.Compressions, "|")+" (default: kafka.compression, else none)")
	addSecurityFlags(fl, &cc)
	_ = c.RegisterFlagCompletionFunc("compression", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return kafka.Compressions, cobra.ShellCompDirectiveNoFileComp
	})
	return c
}

func writeReportFile(name string, reps []*replay.Report) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	if err := replay.WriteAll(f, replay.FormatForFile(name), reps); err != nil {
		f.Close()
		return fmt.Errorf("--report %s: %w", name, err)
	}
	return f.Close()
}

// listFaults prints the fault plan without touching Kafka.
func (a *app) listFaults(ctx context.Context, sc *replay.Scenario, opts replay.Options, f replay.Format) error {
	h, err := replay.NewHarness(sc, opts)
	if err != nil {
		return err
	}
	defer h.Close()
	inv, err := h.Validate(ctx)
	if err != nil {
		return err
	}
	// Against a real cluster crash faults strike once a commit is stored.
	embedded := len(opts.Brokers) == 0 && len(sc.Kafka.Brokers) == 0
	w := bufio.NewWriter(a.stdout)
	defer w.Flush()
	mark := func(applied bool) string {
		if opts.Faults.IsAll() || !applied {
			return ""
		}
		return " (selected)"
	}
	switch f {
	case replay.FormatJSON:
		fmt.Fprintf(w, "{\"scenario\":%s,\"seed\":%d,\"chaos\":%s,\"events\":%d,\"faults\":[", jsonString(sc.File), h.Seed(), jsonString(sc.Chaos.String()), inv.Events)
		first := true
		st, err := h.ListFaults(ctx, opts.Faults, func(fl chaos.Fault, applied bool) error {
			if !first {
				w.WriteString(",")
			}
			first = false
			b, err := json.Marshal(fl)
			if err != nil {
				return err
			}
			// The fault's members, then "selected".
			b = append(b[:len(b)-1], fmt.Sprintf(`,"selected":%t}`, applied)...)
			w.WriteString("\n  ")
			_, err = w.Write(report.JSONSafe(b))
			return err
		})
		if err != nil {
			return err
		}
		planned, _ := json.Marshal(st.Planned)
		fmt.Fprintf(w, "\n],\"planned\":%s}\n", planned)
		return nil
	case replay.FormatText:
		fmt.Fprintf(w, "%s\n", report.SafeLines(fmt.Sprintf("fault plan of %s, seed %d: %s over %d events", sc.File, h.Seed(), sc.Chaos, inv.Events)))
		st, err := h.ListFaults(ctx, opts.Faults, func(fl chaos.Fault, applied bool) error {
			_, err := fmt.Fprintf(w, "%s\n", report.SafeLines(fmt.Sprintf("%s%s", fl.Describe(embedded), mark(applied))))
			return err
		})
		if err != nil {
			return err
		}
		planned, applied := st.Total()
		var kinds []string
		for _, k := range chaos.Kinds {
			if n := st.Planned[k]; n > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
			}
		}
		if len(kinds) == 0 {
			fmt.Fprint(w, "no faults")
		} else {
			fmt.Fprintf(w, "%d faults (%s)", planned, strings.Join(kinds, ", "))
		}
		if !opts.Faults.IsAll() {
			fmt.Fprintf(w, ", %d selected", applied)
		}
		fmt.Fprintln(w)
		return nil
	}
	return usagef("--list-faults prints text or json, not %s", f)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(report.JSONSafe(b))
}

// shellWord quotes an argument for the reproduce line (report.ShellWord).
func shellWord(s string) string { return report.ShellWord(s) }

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// barProgress shows a run's progress on a terminal: a bar of the events
// produced, then a spinner with the consumer's lag while it settles.
type barProgress struct {
	mu      sync.Mutex
	w       io.Writer
	bar     *progressbar.ProgressBar
	run     string
	settled bool // the current bar is the settle spinner
}

func newBarProgress(w io.Writer) *barProgress { return &barProgress{w: w} }

func (p *barProgress) replace(run string, max int64, desc string, settle bool) {
	if p.bar != nil {
		_ = p.bar.Finish()
		_ = p.bar.Clear()
	}
	p.run, p.settled = run, settle
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionThrottle(80 * time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionSpinnerType(14),
	}
	if max > 0 {
		opts = append(opts, progressbar.OptionShowCount())
	}
	p.bar = progressbar.NewOptions64(max, opts...)
}

func (p *barProgress) Phase(run, phase string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch phase {
	case "done", "stopping", "reading state":
		if p.bar != nil && p.run == run {
			_ = p.bar.Finish()
			_ = p.bar.Clear()
			p.bar = nil
		}
	}
}

func (p *barProgress) Produced(run string, done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar == nil || p.run != run || p.settled {
		p.replace(run, total, run+": producing events", false)
	}
	_ = p.bar.Set64(done)
}

func (p *barProgress) Lag(run string, lag int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar == nil || p.run != run || !p.settled {
		p.replace(run, -1, "", true)
	}
	p.bar.Describe(fmt.Sprintf("%s: waiting for the consumer to commit, lag %d", run, lag))
}

func (p *barProgress) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
		_ = p.bar.Clear()
		p.bar = nil
	}
}
