package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat"
	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/rules"
	"github.com/evtool/evtool/schemaregistry"
)

func (a *app) compatCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "compat",
		Short: "Compatibility gate: compare schema versions (diff, check)",
		Long: `Decide whether events written with one schema validate against another.

BACKWARD: the new schema reads old events. FORWARD: the old schema reads new
events. FULL: both. The lenient profile (default) assumes producers emit only
declared properties; strict is exact set inclusion.

Rules walk both schemas and name each break (rule id, pointers into both
schemas, old and new values); witness search generates documents from the
writer and prints one the reader rejects as the counterexample.

Avro (.avsc) types follow the specification's schema resolution; Protobuf
(.proto) types compat.profile wire or wire-json (the default). Their
counterexamples are datums found by encoding. See docs/compat.md and
docs/rules.md.`,
	}
	c.AddCommand(a.compatDiffCommand(), a.compatCheckCommand())
	return c
}

func (a *app) compatDiffCommand() *cobra.Command {
	var (
		modeName, profileName, format string
		message                       string
		samples                       int
		seed                          int64
		assertFormats                 bool
		defaultDraft                  string
		protoPaths                    []string
	)
	c := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Compare two schema files",
		Long: `Compare two schema files: is NEW compatible with OLD? Both are JSON Schema
(.json), Avro (.avsc) or Protobuf (.proto).

--mode backward (NEW reads events written with OLD), forward (OLD reads events
written with NEW) or full (both; the default). --profile lenient (default) or
strict. $ref in each file resolves to files in its own directory (never above
it, never the network). A schema without $schema is read as --default-draft
(2020-12; Confluent and Karapace read such schemas as draft 7).

Avro: named types resolve among the .avsc files of each file's own directory;
the verdict is the specification's schema resolution (no profile). Protobuf:
imports resolve, as protoc's -I, in each --proto-path DIR (repeatable, in
order), then in the file's catalog root (the schemas directory of the nearest
evtool.yaml above the file, when the file is inside it: imports load as lint
loads them), then in the file's own directory (plus the well-known types);
--message pkg.Name picks the message (default: OLD's first message,
compared with the message of the same full name in NEW, or of the same
short name when the package changed); --profile wire or wire-json (the
default).

Exit 0 when compatible (warnings allowed), 1 when not, 2 on bad input.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := parseFormat(format, report.GateFormats)
			if err != nil {
				return err
			}
			mode, err := catalog.ParseMode(modeName)
			if err != nil {
				return usageError{fmt.Errorf("--mode: %w", err)}
			}
			profile, err := catalog.ParseProfile(profileName)
			if err != nil {
				return usageError{fmt.Errorf("--profile: %w", err)}
			}
			if mode == catalog.ModeNone {
				return usagef("--mode: NONE compares nothing; use backward, forward or full")
			}
			if mode.Transitive() {
				return usagef("--mode %s: compat diff compares two schemas, so there is nothing transitive to check; use %s (compat check walks every earlier version of a catalog)", modeName, strings.TrimSuffix(string(mode), "_TRANSITIVE"))
			}
			if samples < 0 {
				return usagef("--samples %d: use 0 (rules only) or a positive count", samples)
			}
			do := diffOptions{mode: mode, profile: profile, profileSet: cmd.Flags().Changed("profile"),
				message: message, samples: samples, samplesSet: cmd.Flags().Changed("samples"), seed: seed, format: f, protoPaths: protoPaths}
			if kind, ok := diffKind(args); ok {
				vp, opts, err := loadDiffFormat(args, kind, do)
				if err != nil {
					return err
				}
				return a.compatDiff(vp, opts, do)
			} else if message != "" {
				return usagef("--message selects a %s message; %s and %s are not %s files", namesOf(isMessagePicker), args[0], args[1], extsOf(isMessagePicker))
			} else if len(protoPaths) > 0 {
				return usagef("--proto-path resolves %s imports; %s and %s are not %s files", namesOf(isPathLoader), args[0], args[1], extsOf(isPathLoader))
			}
			rp, err := rootProvider()
			if err != nil {
				return err
			}
			if err := rootProfile(rp, profile); err != nil {
				return err
			}
			dialect, err := rootDialect(rp, defaultDraft)
			if err != nil {
				return usageError{fmt.Errorf("--default-draft: %w", err)}
			}
			fileOpts := rootFileOptions(assertFormats, dialect)
			old, err := rp.LoadRootFile(args[0], fileOpts)
			if err != nil {
				return err
			}
			nw, err := rp.LoadRootFile(args[1], fileOpts)
			if err != nil {
				return err
			}
			p := engine.Pair{OldFile: old.File, NewFile: nw.File, OldURL: old.URL, NewURL: nw.URL, Subject: old.File + " -> " + nw.File}
			lineOf := func(file, ptr string) int {
				if n := nw.LineOf(file, ptr); n > 0 {
					return n
				}
				return old.LineOf(file, ptr)
			}
			vp := engine.VersionPair{Pair: p, Old: rootVersion(rp, old), New: rootVersion(rp, nw), LineOf: lineOf, OldLocate: old.Locate, NewLocate: nw.Locate}
			return a.compatDiff(vp, diffEngineOptions(profile, do), do)
		},
	}
	c.Flags().StringVar(&modeName, "mode", "full", "backward | forward | full")
	c.Flags().StringVar(&profileName, "profile", "lenient", "lenient | strict (JSON Schema), wire | wire-json (Protobuf; default wire-json)")
	c.Flags().StringVar(&message, "message", "", "Protobuf: the message to compare, by full name (default: OLD's first message)")
	c.Flags().StringArrayVar(&protoPaths, "proto-path", nil, "Protobuf: a directory imports resolve in, before the file's catalog root and its own directory (repeatable, in order)")
	completeValues(c, "mode", "backward", "forward", "full")
	completeValues(c, "profile", profileNames()...)
	c.Flags().IntVar(&samples, "samples", compat.DefaultSamples, "witness documents generated per direction (0: rules only)")
	c.Flags().Int64Var(&seed, "seed", 1, "seed of witness search (same seed, same counterexamples)")
	c.Flags().BoolVar(&assertFormats, "assert-formats", false, "treat the format keyword as an assertion (as assert_formats in evtool.yaml)")
	c.Flags().StringVar(&defaultDraft, "default-draft", defaultDialect(), "JSON Schema draft of a schema without $schema: "+dialectNames()+" (as default_draft in evtool.yaml)")
	formatFlag(c, &format, report.GateFormats)
	return c
}

func (a *app) compatCheckCommand() *cobra.Command {
	var (
		dir, against, format string
		samples              int
		seed                 int64
		full                 bool
		limits               schemaregistry.ClientOptions
	)
	c := &cobra.Command{
		Use:   "check",
		Short: "Check every type of the catalog against its compatibility mode",
		Long: `Check every type of the catalog in --dir under its mode (evtool.yaml's
compat.mode, or event.yaml's override; default FULL_TRANSITIVE, lenient):
each version against the previous one, or against every earlier one for the
transitive modes. Each failing pair of versions is named.

--against REF|DIR also compares with the base catalog: a git revision (read
with git ls-tree/cat-file; in a shallow CI clone, fetch it first) or a
directory holding the base catalog. It reports published-version-modified,
version-removed and type-removed, and compares new versions with the
published ones as they are on the base. --against registry:URL reads the
base from a Confluent-compatible registry, its responses bounded by
--max-response and --max-response-total. Against a git revision or a directory, only the types
whose files (or the files their schemas reference) differ from the base are
compared; the report says how many were skipped (types-unchanged); --full
compares every type.

Approve an intentional break with an entry under compat.ignore in evtool.yaml
(type, rule, path or fingerprint, and a reason). Approved findings are shown
but do not fail; an entry that matches nothing is a warning.

Exit 0 when compatible, 1 when any pair breaks, 2 on bad input (malformed
catalog, unknown revision, a --against directory without a catalog) or when
interrupted (Ctrl-C, SIGTERM: it stops with no report).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := parseFormat(format, report.GateFormats)
			if err != nil {
				return err
			}
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				return fmt.Errorf("catalog directory %s does not exist", dir)
			}
			// Against a git revision, a byte-level prefilter leaves out
			// the types that cannot have changed before anything is parsed.
			pf, err := prefilterAgainst(cmd, dir, against, full)
			if err != nil {
				return err
			}
			defer pf.Close()
			// Loaded without compiling: each type is compiled when it is
			// checked and let go after, so memory follows the largest
			// type, not the catalog.
			var head *catalog.Catalog
			if pf != nil {
				head, err = catalog.LoadFSDeferredContext(cmd.Context(), pf.Head, dir)
			} else {
				head, err = catalog.LoadDeferredContext(cmd.Context(), dir)
			}
			if err != nil {
				return a.annotateLoadError(err, f, "compat check")
			}
			var base *catalog.Catalog
			var baseProblems []report.Finding
			var baseDisplay string
			if err := checkResponseLimits(limits.MaxResponse, limits.MaxResponseTotal); err != nil {
				return err
			}
			if pf != nil {
				base, baseDisplay, baseProblems, err = loadPrefilteredBase(cmd.Context(), pf)
			} else if against != "" {
				base, baseDisplay, baseProblems, err = loadBase(cmd, dir, against, limits)
				if err != nil {
					return err
				}
			}
			if samples < 0 {
				return usagef("--samples %d: use 0 (rules only) or a positive count", samples)
			}
			opts := compat.CheckOptions{Samples: samples, SamplesSet: cmd.Flags().Changed("samples"), Seed: uint64(seed), Context: cmd.Context()}
			if opts.SamplesSet && samples == 0 {
				opts.Samples = -1
			}
			if base != nil && !full && !strings.HasPrefix(against, schemaregistry.AgainstPrefix) {
				opts.Skip = catalog.Unchanged(head, base)
				for _, name := range pf.HiddenTypes() {
					opts.Skip[name] = true
				}
			}
			cs, err := loadContracts(dir, head)
			if err != nil {
				return a.annotateLoadError(err, f, "compat check")
			}
			var step *contractStep
			if len(cs) > 0 {
				step = newContractStep(head, base, cs, opts)
				opts.TypeChecked = step.typeChecked
			}
			res := compat.CheckCatalog(head, base, opts)
			if res.Interrupted {
				// A signal: no report (a partial one would read as a
				// passing gate), exit 2.
				return fmt.Errorf("interrupted while checking %s: %d of %d type(s) checked", filepath.Clean(dir), res.TypesChecked, len(head.Types))
			}
			if probs := append(res.HeadProblems, head.LintShared()...); len(probs) > 0 {
				return a.annotateLoadError(catalog.Problems(probs), f, "compat check")
			}
			findings := res.Findings
			if step != nil {
				var probs []report.Finding
				if findings, probs = step.finish(findings, opts.Skip); len(probs) > 0 {
					return a.annotateLoadError(catalog.Problems(probs), f, "compat check")
				}
			}
			baseWarnings := baseWarning(baseDisplay, append(baseProblems, res.BaseProblems...))
			if skipped, total := res.Skipped+len(pf.HiddenTypes()), pf.TotalTypes(len(head.Types)); skipped > 0 {
				baseWarnings = append(baseWarnings, report.Finding{Rule: compat.RuleTypesUnchanged, Severity: report.SeverityInfo, File: head.ConfigFile,
					Message: fmt.Sprintf("%d of %d types skipped: unchanged from %s (evtool.yaml, their files, the files they reference and the contracts that read them are the same), so their verdict is %[3]s's, which is assumed to have passed the gate; --full rechecks them%[4]s", skipped, total, against, pf.Said())})
			}
			// The head catalog's warnings (a reason cut at a '#', ...) are
			// part of the gate's report, as in lint.
			findings = append(append(baseWarnings, head.Warnings...), findings...)
			findings = compat.ApplyIgnoresSkipped(findings, head.Config, head.ConfigFile, opts.Skip)
			rep := &report.Report{Command: "compat check", Findings: findings, Checked: res.Pairs, Unit: "version pair", Rules: rules.All(), ToolVersion: buildVersion()}
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
	c.Flags().StringVar(&against, "against", "", "base to compare with: a git revision (e.g. origin/main), a directory holding the base catalog, or registry:URL (a Confluent-compatible schema registry)")
	c.Flags().IntVar(&samples, "samples", compat.DefaultCatalogSamples, "witness documents per version (default: evtool.yaml compat.samples, else 2; 0: rules only)")
	c.Flags().Int64Var(&seed, "seed", 1, "seed of witness search")
	c.Flags().BoolVar(&full, "full", false, "with --against a git revision or directory, compare every type, not only those whose files differ from the base")
	c.Flags().Int64Var(&limits.MaxResponse, "max-response", schemaregistry.DefaultMaxResponse, "with --against registry:, largest registry response read, in bytes")
	c.Flags().Int64Var(&limits.MaxResponseTotal, "max-response-total", schemaregistry.DefaultMaxResponseTotal, "with --against registry:, most bytes read from the registry in all, in bytes")
	formatFlag(c, &format, report.GateFormats)
	return c
}

// loadBase loads the --against catalog: a directory when one exists by
// that name, else a git revision of the repository holding dir; a
// registry's responses are bounded as limits says. A directory or a
// revision is loaded deferred (catalog.LoadDeferred). It returns the
// base's display name and its load problems (see baseWarning).
func loadBase(cmd *cobra.Command, dir, against string, limits schemaregistry.ClientOptions) (*catalog.Catalog, string, []report.Finding, error) {
	var (
		cat     *catalog.Catalog
		err     error
		display string
	)
	if u, ok := strings.CutPrefix(against, schemaregistry.AgainstPrefix); ok {
		display = schemaregistry.AgainstPrefix + schemaregistry.RedactURL(u)
		cat, err = schemaregistry.LoadBase(cmd.Context(), dir, u, schemaregistry.ClientOptions{MaxResponse: limits.MaxResponse, MaxResponseTotal: limits.MaxResponseTotal})
	} else if info, statErr := os.Stat(against); statErr == nil && info.IsDir() {
		if _, cfgErr := os.Stat(filepath.Join(against, catalog.ConfigName)); cfgErr != nil {
			return nil, "", nil, fmt.Errorf("--against %s: no %s in that directory; it must hold the base catalog (the directory that has evtool.yaml)", against, catalog.ConfigName)
		}
		display = against
		cat, err = catalog.LoadDeferredContext(cmd.Context(), against)
	} else {
		tree, gerr := catalog.ReadGitTree(cmd.Context(), dir, against)
		if gerr != nil {
			return nil, "", nil, interruptedLoad(cmd.Context(), dir, gerr)
		}
		display = tree.Display
		cat, err = catalog.LoadFSDeferredContext(cmd.Context(), tree.FS, tree.Display)
	}
	var le *catalog.LoadError
	if err != nil && !errors.As(err, &le) {
		return nil, "", nil, interruptedLoad(cmd.Context(), dir, err)
	}
	if le != nil {
		return cat, display, le.Findings, nil
	}
	return cat, display, nil, nil
}

// baseWarning is the one warning that the base catalog (display) has
// problems: versions that did not load there are not treated as
// published.
func baseWarning(display string, problems []report.Finding) []report.Finding {
	var warns []report.Finding
	if len(problems) > 0 {
		le := catalog.Problems(problems).(*catalog.LoadError)
		var lines []string
		for i, f := range le.Findings {
			if i == 3 {
				lines = append(lines, fmt.Sprintf("and %d more", len(le.Findings)-3))
				break
			}
			lines = append(lines, f.Location()+": "+f.Message)
		}
		warns = append(warns, report.Finding{Rule: compat.RuleBaseCatalog, Severity: report.SeverityWarning, File: display,
			Message: fmt.Sprintf("the base catalog has %d problem(s); versions that did not load there are not treated as published: %s",
				len(le.Findings), strings.Join(lines, "; "))})
	}
	return warns
}
