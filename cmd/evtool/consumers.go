package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat"
	"github.com/evtool/evtool/consumers"
	evformat "github.com/evtool/evtool/format"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/rules"
	"github.com/evtool/evtool/schemaregistry"
)

// loadContracts reads the catalog's consumer contracts and checks them
// against it; any problem is a *catalog.LoadError (exit 2).
func loadContracts(dir string, cat *catalog.Catalog) ([]*consumers.Contract, error) {
	cs, err := consumers.Load(dir)
	var le *catalog.LoadError
	if err != nil && !errors.As(err, &le) {
		return nil, err
	}
	var problems []report.Finding
	if le != nil {
		problems = le.Findings
	}
	problems = append(problems, consumers.Lint(cat, cs)...)
	if len(problems) > 0 {
		return cs, &catalog.LoadError{Findings: problems}
	}
	return cs, nil
}

// prepareBase compiles the types of a base loaded deferred
// (catalog.LoadDeferred) one at a time for consumers.Checker.Check
// (consumers.Options.Prepare), releasing each after its pairs, so the
// base is never compiled whole; nil for a base compiled at load (a
// registry's). Compile problems are left to lint and the gate.
func prepareBase(base *catalog.Catalog) func(typ string) func() {
	if base == nil || !base.Deferred() {
		return nil
	}
	return func(typ string) func() {
		t := base.Lookup(typ)
		if t == nil {
			return func() {}
		}
		base.CompileType(t)
		return func() { base.ReleaseType(t) }
	}
}

// contractStep is the consumer-aware step of a compat check of a catalog
// loaded deferred, type by type: while the check holds a type's versions
// compiled (compat.CheckOptions.TypeChecked) it checks the contracts'
// pointers in them and marks the type's findings with the consumers they
// reach, then lets the projections go; so memory follows the largest
// type, with contracts as without.
type contractStep struct {
	head     *catalog.Catalog
	cs       []*consumers.Contract
	k        *consumers.Checker
	complete bool

	mu       sync.Mutex
	problems []report.Finding
}

func newContractStep(head, base *catalog.Catalog, cs []*consumers.Contract, opts compat.CheckOptions) *contractStep {
	return &contractStep{head: head, cs: cs, complete: head.Config.Consumers == catalog.ConsumersComplete,
		k: consumers.NewChecker(head, consumers.Options{Samples: gateSamples(head, opts), Seed: opts.Seed, Base: base})}
}

// typeChecked is the step on one type's findings (concurrent per type).
func (s *contractStep) typeChecked(t *catalog.EventType, fs []report.Finding) []report.Finding {
	probs := consumers.LintFields(t, s.cs)
	out := consumers.Mark(fs, s.k, s.cs, s.complete, consumers.Known(fs))
	s.k.Forget(t.Name)
	s.mu.Lock()
	s.problems = append(s.problems, probs...)
	s.mu.Unlock()
	return out
}

// finish checks the contracts' pointers in the types the check skipped
// (skip: unchanged from the base) that a contract reads, one type
// compiled at a time, marks
// the findings the check makes outside a type's comparison (removed
// types and versions: their readers, no schema needed) and adds the
// summary of the consumers affected. problems are the contracts' (exit 2).
func (s *contractStep) finish(fs []report.Finding, skip map[string]bool) (out, problems []report.Finding) {
	read := map[string]bool{}
	for _, c := range s.cs {
		for typ := range c.Reads {
			read[typ] = true
		}
	}
	for _, t := range s.head.Types {
		if skip[t.Name] && read[t.Name] {
			s.head.CompileType(t)
			s.problems = append(s.problems, consumers.LintFields(t, s.cs)...)
			s.head.ReleaseType(t)
		}
	}
	out = make([]report.Finding, 0, len(fs))
	for _, f := range fs {
		if f.Rule == compat.RuleTypeRemoved || f.Rule == compat.RuleVersionRemoved {
			f = consumers.Mark([]report.Finding{f}, s.k, s.cs, s.complete, nil)[0]
		}
		out = append(out, f)
	}
	return append(out, consumers.Affected(out)...), s.problems
}

// gateSamples is the witness count a catalog check uses (as
// compat.CheckCatalog decides it), for the consumer-aware step.
func gateSamples(cat *catalog.Catalog, opts compat.CheckOptions) int {
	switch {
	case opts.SamplesSet:
		return opts.Samples
	case cat.Config.Compat.Samples != 0:
		return cat.Config.Compat.Samples
	}
	return compat.DefaultCatalogSamples
}

func (a *app) consumersCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "consumers",
		Short: "Consumer contracts: who reads which types, versions and fields",
		Long: `Consumer contracts are consumers/<name>.yaml beside evtool.yaml: the event
types, versions and fields (JSON pointers into the data's JSON form) one
consumer reads. See docs/consumers.md.`,
	}
	c.AddCommand(a.consumersCheckCommand(), a.consumersWhoReadsCommand(), a.consumersInferCommand())
	return c
}

func (a *app) consumersCheckCommand() *cobra.Command {
	var (
		dir, against, format string
		samples              int
		seed                 int64
	)
	c := &cobra.Command{
		Use:   "check",
		Short: "Check that every consumer reads every version producers may write, in the fields it reads",
		Long: `For each consumer contract, each type it reads and each version it decodes,
check that it reads every version of the type producers may write, restricted
to the fields it lists: both schemas are projected on the contract's pointers
and compared with the compat engines (with counterexamples that hold only the
read fields). With --against REF|DIR, a published version the head edited in
place is a writer as published too. JSON Schema, Avro and Protobuf are all
projected (docs/consumers.md).

Exit 0 when every consumer reads OK, 1 when one breaks, 2 on bad input
(malformed catalog or contract).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := parseFormat(format, report.GateFormats)
			if err != nil {
				return err
			}
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				return fmt.Errorf("catalog directory %s does not exist", dir)
			}
			head, err := loadCatalog(cmd.Context(), dir)
			if err != nil {
				return a.annotateLoadError(err, f, "consumers check")
			}
			cs, err := loadContracts(dir, head)
			if err != nil {
				return a.annotateLoadError(err, f, "consumers check")
			}
			if samples < 0 {
				return usagef("--samples %d: use 0 (rules only) or a positive count", samples)
			}
			var base *catalog.Catalog
			if against != "" {
				if base, _, _, err = loadBase(cmd, dir, against, schemaregistry.ClientOptions{MaxResponse: schemaregistry.DefaultMaxResponse, MaxResponseTotal: schemaregistry.DefaultMaxResponseTotal}); err != nil {
					return err
				}
			}
			opts := compat.CheckOptions{Samples: samples, SamplesSet: cmd.Flags().Changed("samples"), Seed: uint64(seed)}
			if opts.SamplesSet && samples == 0 {
				opts.Samples = -1
			}
			k := consumers.NewChecker(head, consumers.Options{Samples: gateSamples(head, opts), Seed: uint64(seed), Base: base, Prepare: prepareBase(base),
				Context: cmd.Context()})
			verdicts := k.Check(cs)
			if k.Interrupted() {
				// As compat check: no report of a check that did not end.
				done, total := k.TypesChecked()
				return fmt.Errorf("interrupted while checking %s: %d of %d type(s) checked", filepath.Clean(dir), done, total)
			}
			// Approved breaks (compat.ignore) are approved here too; an
			// entry this check does not meet is the gate's to call stale.
			var findings []report.Finding
			for _, f := range compat.ApplyIgnores(consumers.Findings(cs, verdicts), head.Config, head.ConfigFile) {
				if f.Rule != compat.RuleIgnoreStale {
					findings = append(findings, f)
				}
			}
			rep := &report.Report{Command: "consumers check", Findings: findings, Checked: len(verdicts), Unit: "reading", Rules: rules.All(), ToolVersion: buildVersion()}
			if err := report.Write(a.stdout, f, rep); err != nil {
				return err
			}
			if rep.Failed() {
				return errFindings
			}
			return nil
		},
	}
	dirFlag(c, &dir)
	c.Flags().StringVar(&against, "against", "", "base catalog: a git revision (e.g. origin/main) or a directory; published versions edited in place are writers as published")
	c.Flags().IntVar(&samples, "samples", compat.DefaultCatalogSamples, "witness documents per comparison (default: evtool.yaml compat.samples, else 2; 0: rules only)")
	c.Flags().Int64Var(&seed, "seed", 1, "seed of witness search")
	formatFlag(c, &format, report.GateFormats)
	return c
}

// whoReads is one line of who-reads.
type whoReads struct {
	Consumer string   `json:"consumer"`
	Owner    string   `json:"owner,omitempty"`
	File     string   `json:"file"`
	Versions []int    `json:"versions"`
	Fields   []string `json:"fields"`
}

func (a *app) consumersWhoReadsCommand() *cobra.Command {
	var (
		dir, field, format string
		version            int
	)
	c := &cobra.Command{
		Use:   "who-reads TYPE",
		Short: "List the consumers that read a type, a version of it, or a field",
		Long: `List the consumers whose contracts read TYPE: with --version N only those that
decode version N (can v2 be retired?), with --field PTR only those that read
the field, a parent or a child of it (can /note be removed?). A contract
without fields reads the whole data.

Exit 0 (an empty list is an answer), 2 on bad input (unknown type or version,
malformed catalog or contract, a --field that is not a JSON pointer).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := parseFormat(format, report.BasicFormats)
			if err != nil {
				return err
			}
			typ := args[0]
			if field != "" && !consumers.ValidPointer(field) {
				return usagef("--field %q: want a JSON pointer into the data, e.g. /orderId (write ~ as ~0 and / inside a name as ~1)", field)
			}
			head, err := loadCatalog(cmd.Context(), dir)
			if err != nil {
				return err
			}
			cs, err := loadContracts(dir, head)
			if err != nil {
				return err
			}
			t := head.Lookup(typ)
			if t == nil {
				return fmt.Errorf("type %s is not in the catalog %s", typ, dir)
			}
			if version != 0 && t.Version(version) == nil {
				return fmt.Errorf("%s has no v%d (it has v1..v%d)", typ, version, len(t.Versions))
			}
			var out []whoReads
			for _, c := range cs {
				r, ok := c.Reads[typ]
				if !ok || (version != 0 && !r.ReadsVersion(version)) {
					continue
				}
				if field != "" && !evformat.NewFields(r.Pointers()).Reads(field) {
					continue
				}
				out = append(out, whoReads{Consumer: c.Name, Owner: c.Owner, File: c.File, Versions: r.Versions, Fields: r.Pointers()})
			}
			if f == report.FormatJSON {
				if out == nil {
					out = []whoReads{}
				}
				b, err := json.Marshal(out)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(a.stdout, "%s\n", report.JSONSafe(b))
				return err
			}
			what := typ
			if version != 0 {
				what += fmt.Sprintf(" v%d", version)
			}
			if field != "" {
				what += " " + field
			}
			if len(out) == 0 {
				fmt.Fprintln(a.stdout, report.SafeLine("no consumer contract reads "+report.Escape(what)))
				return nil
			}
			for _, w := range out {
				vs := make([]string, len(w.Versions))
				for i, n := range w.Versions {
					vs[i] = fmt.Sprintf("v%d", n)
				}
				fields := make([]string, len(w.Fields))
				for i, p := range w.Fields {
					fields[i] = p
					if p == "" {
						fields[i] = "(all of the data)"
					}
				}
				// Names, pointers and owners come from contract files and
				// the command line: each is escaped, so none can break the
				// line or start a CI command.
				line := fmt.Sprintf("%s\t%s\t%s\t%s", report.Escape(w.Consumer), strings.Join(vs, ","), report.Escape(strings.Join(fields, " ")), report.Escape(w.File))
				if w.Owner != "" {
					line += "\towner " + report.Escape(w.Owner)
				}
				fmt.Fprintln(a.stdout, report.SafeLine(line))
			}
			return nil
		},
	}
	dirFlag(c, &dir)
	c.Flags().IntVar(&version, "version", 0, "only consumers that decode this version")
	c.Flags().StringVar(&field, "field", "", "only consumers that read this JSON pointer (or a parent or child of it)")
	formatFlag(c, &format, report.BasicFormats)
	return c
}
