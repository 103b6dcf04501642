package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/replay"
	"github.com/evtool/evtool/report"
)

func (a *app) consumersInferCommand() *cobra.Command {
	var (
		typ     string
		maxRuns int
		brokers []string
		verbose bool
		cc      kafka.ClientConfig
	)
	c := &cobra.Command{
		Use:   "infer SCENARIO",
		Short: "Print the contract a consumer's code implies: the fields whose mutation changes its state",
		Long: `Infer runs the scenario's consumer on its events clean (the baseline, twice),
then again with sets of fields of the events' data mutated (removed where the
schema allows it, else replaced by another valid value, in every event) and
keeps the fields whose mutation changes the consumer's final state: group
testing, halving a set that changes the state down to one field, then again
on the fields not found yet until mutating all of them changes nothing. That
is at most k·(⌈log2 n⌉+1)+2 runs for k fields read of n.

It prints the contract (YAML for consumers/<name>.yaml) on stdout, and the
runs it made on stderr. By construction its last run mutated every field the
contract does not list without changing the state: the contract passes a
contract run (consumer.contract in the scenario). Fields are JSON pointers
into the data's JSON form (Avro's JSON encoding, Protobuf's JSON mapping);
an array is one field.

Exit 0 contract printed, 1 no field changes the state, or the run budget ran
out (the fields left are listed, and printed in the contract), 2 error.`,
		Example: `  evtool consumers infer examples/orders/replay.yaml > examples/orders/consumers/orders.yaml
  evtool consumers infer scenario.yaml --type com.example.order.paid`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxRuns < 1 {
				return usagef("--max-runs %d: want 1 or more", maxRuns)
			}
			sc, err := replay.LoadScenario(args[0])
			if err != nil {
				return err
			}
			if cc.SASLPassword == "" {
				cc.SASLPassword = os.Getenv("EVTOOL_SASL_PASSWORD")
			}
			if os.Getenv("GOGC") == "" {
				defer debug.SetGCPercent(debug.SetGCPercent(replay.ProducerGCPercent))
			}
			opts := replay.Options{Brokers: splitList(brokers), Client: cc, BuildLog: a.stderr, Command: "evtool replay " + shellWord(args[0])}
			if verbose {
				opts.Log = a.stderr
			}
			inf, err := replay.Infer(cmd.Context(), sc, opts, typ, maxRuns)
			if err != nil {
				return err
			}
			fmt.Fprint(a.stdout, inferredContract(args[0], inf))
			k, n := len(inf.Read), len(inf.Fields)
			bound := ""
			if k > 0 && n > 1 {
				bound = fmt.Sprintf("; 2·k·log2(n) = %.0f", 2*float64(k)*math.Log2(float64(n)))
			}
			fmt.Fprintf(a.stderr, "%s\n", report.SafeLines(fmt.Sprintf("infer %s: %d of %d field(s) change the state; %d mutation run(s) and %d baseline run(s) in %s%s",
				sc.File, k, n, inf.Runs, inf.Baselines, inf.Duration, bound)))
			switch {
			case len(inf.Unresolved) > 0:
				names := make([]string, len(inf.Unresolved))
				for i, f := range inf.Unresolved {
					names[i] = f.String()
				}
				fmt.Fprintf(a.stderr, "%s\n", report.SafeLines(fmt.Sprintf("the run budget (--max-runs %d) ran out: one or more of %s change the state too; the contract lists them all", maxRuns, strings.Join(names, ", "))))
				return errFindings
			case k == 0:
				fmt.Fprintf(a.stderr, "no field of the events changes the consumer's state: a contract lists at least one\n")
				return errFindings
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVar(&typ, "type", "", "consider only the fields of this event type")
	fl.IntVar(&maxRuns, "max-runs", replay.DefaultInferRuns, "most mutation runs")
	fl.StringSliceVar(&brokers, "brokers", nil, "Kafka seed brokers host:port[,host:port] (default: kafka.brokers, else an embedded broker)")
	fl.BoolVarP(&verbose, "verbose", "v", false, "log each step on stderr")
	addSecurityFlags(fl, &cc)
	return c
}

// plainYAML matches strings YAML reads as themselves without quotes in a
// flow sequence or as a key.
var plainYAML = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_/][A-Za-z0-9._/-]*$`) })

// yamlString writes s as a YAML scalar: plain when that reads back as s,
// else double-quoted with JSON's escapes (YAML reads them), every
// character a terminal would act on escaped.
func yamlString(s string) string {
	if plainYAML().MatchString(s) && !strings.Contains(s, "//") {
		return s
	}
	b, _ := json.Marshal(s)
	return string(report.JSONSafe(b))
}

// inferredContract renders an inference as a contract file.
func inferredContract(scenario string, inf *replay.Inference) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Inferred by evtool consumers infer %s: the fields whose\n", report.Escape(scenario))
	fmt.Fprintf(&b, "# mutation changed the consumer's state (%d of %d, in %d runs).\n", len(inf.Read), len(inf.Fields), inf.Runs)
	b.WriteString("reads:\n")
	byType := map[string][]string{}
	var types []string
	for _, f := range append(append([]replay.Field(nil), inf.Read...), inf.Unresolved...) {
		if byType[f.Type] == nil {
			types = append(types, f.Type)
		}
		byType[f.Type] = append(byType[f.Type], f.Pointer)
	}
	// Read and Unresolved are each sorted by type: merge the orders.
	slices.Sort(types)
	for _, t := range types {
		ptrs := byType[t]
		slices.Sort(ptrs)
		vs := inf.Versions[t]
		nums := make([]string, len(vs))
		for i, v := range vs {
			nums[i] = fmt.Sprint(v)
		}
		q := make([]string, len(ptrs))
		for i, p := range ptrs {
			q[i] = yamlString(p)
		}
		fmt.Fprintf(&b, "  %s:\n    versions: [%s]\n    fields: [%s]\n", yamlString(t), strings.Join(nums, ", "), strings.Join(q, ", "))
	}
	return b.String()
}

// contractFields reads replay's --contract-field values (nil for none).
func contractFields(values []string) ([]replay.Field, error) {
	var out []replay.Field
	for _, v := range values {
		f, err := replay.ParseContractField(v)
		if err != nil {
			return nil, usageError{err}
		}
		out = append(out, f)
	}
	return out, nil
}
