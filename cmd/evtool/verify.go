package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/verify"
)

func (a *app) verifyCommand() *cobra.Command {
	var (
		kf         kafkaFlags
		seed       uint64
		faults     string
		listFaults bool
		format     string
		shrink     int
		verbose    bool
	)
	c := &cobra.Command{
		Use:   "verify SCENARIO",
		Short: "Run a producer under chaos (crashes around produce requests, produce errors, rollbacks, parallel relays); judge what reached the topic against what it committed",
		Long: `Start the producer under test (producer.run) with EVTOOL_BROKERS, EVTOOL_TOPIC,
EVTOOL_WORKDIR, EVTOOL_ADDR, EVTOOL_RUN and EVTOOL_INSTANCE, drive its workload
(workload.requests: JSONL requests sent to http://$EVTOOL_ADDR in order, each
retried with its Idempotency-Key until answered; or workload.command), read the
facts it committed (producer.state: a JSON array of {id, type, key, seq}) and
every record of its topic, and judge: lost, phantom, duplicate-new-id,
out-of-order, wrong-key and invalid (the catalog's contract). Same-id
duplicates are allowed and counted.

A clean run comes first; then the chaos run applies the seeded plan of
chaos.crash (SIGKILL and restart exactly before or after the broker appends a
produce request), chaos.produce_errors (retriable, disconnect, lost-ack),
chaos.rollback (requests marked X-Evtool-Fail-After-Write: 1) with
chaos.relays instances over one work directory. A failing chaos run is
shrunk to a minimal set of faults, with the command that reproduces it.
Against --brokers (or kafka.brokers) a crash strikes between produce
requests, and produce errors are refused (exit 2): only the embedded broker
injects them.

Exit 0 when both runs pass, 1 when one fails, 2 when the scenario cannot be
run. See docs/verify.md.`,
		Example: `  evtool verify examples/orders/verify.yaml
  evtool verify examples/orders/verify.yaml --list-faults
  evtool verify examples/orders/verify.yaml --seed 7 --faults 0,3`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := parseFormat(format, report.RunFormats)
			if err != nil {
				return err
			}
			if shrink < 0 {
				return usagef("--shrink-budget %d: want 0 (no shrinking) or more runs", shrink)
			}
			sel := chaos.All()
			if cmd.Flags().Changed("faults") {
				if sel, err = chaos.ParseSelection(faults); err != nil {
					return usageError{err}
				}
			}
			sc, err := verify.LoadScenario(args[0])
			if err != nil {
				return err
			}
			cat, err := loadCatalog(cmd.Context(), sc.Catalog)
			if err != nil {
				return err
			}
			cc := kf.config()
			opts := verify.Options{Brokers: cc.Brokers, Client: cc, Faults: sel, ShrinkBudget: shrink, Command: "evtool verify " + shellWord(args[0])}
			opts.Client.Brokers = nil
			if cmd.Flags().Changed("seed") {
				opts.Seed = &seed
			}
			if verbose {
				opts.Log = a.stderr
			}
			h, err := verify.NewHarness(sc, cat, opts)
			if err != nil {
				return err
			}
			defer h.Close()
			if listFaults {
				fmt.Fprintf(a.stdout, "seed %d: %d fault(s)\n", h.Seed(), len(h.Plan()))
				return verify.WritePlan(a.stdout, h.Plan(), sel.Has)
			}
			rep, err := h.Run(cmd.Context())
			if err != nil {
				return err
			}
			if err := verify.Write(a.stdout, f, rep); err != nil {
				return err
			}
			if !rep.Pass {
				return errFindings
			}
			return nil
		},
	}
	fl := c.Flags()
	addKafkaFlags(fl, &kf, "Kafka seed brokers host:port[,host:port] (default: kafka.brokers, else an embedded broker per run, where faults strike exactly; produce errors need the embedded broker)")
	fl.Uint64Var(&seed, "seed", 0, "seed of the fault plan (default: chaos.seed, else random)")
	fl.StringVar(&faults, "faults", "", "apply only these faults of the plan, e.g. 3,7,10-12 (see --list-faults)")
	fl.BoolVar(&listFaults, "list-faults", false, "print the fault plan for the seed and exit, without Kafka")
	formatFlag(c, &format, report.RunFormats)
	fl.IntVar(&shrink, "shrink-budget", verify.DefaultShrinkBudget, "most runs spent shrinking a failure to a minimal set of faults (0: none)")
	fl.BoolVarP(&verbose, "verbose", "v", false, "log each run on stderr")
	return c
}
