package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/consumers"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/report"
)

func dirFlag(c *cobra.Command, target *string) {
	c.Flags().StringVarP(target, "dir", "d", ".", "catalog directory (holds evtool.yaml)")
}

// loadCatalog loads a catalog for commands that need a clean one: any load
// problem is an error (exit 2) that lists the problems. Once ctx is done
// (a signal) the load stops: "interrupted while loading the catalog DIR"
// (exit 2).
func loadCatalog(ctx context.Context, dir string) (*catalog.Catalog, error) {
	cat, err := catalog.LoadContext(ctx, dir)
	if err != nil {
		return nil, err
	}
	return cat, nil
}

// annotateLoadError prints a catalog's load problems as annotations when
// the output is GitHub's, so that they show on the files like findings
// (stderr still says the catalog is malformed); other errors pass through.
func (a *app) annotateLoadError(err error, f report.Format, command string) error {
	var le *catalog.LoadError
	if f != report.FormatGitHub || !errors.As(err, &le) {
		return err
	}
	if werr := report.Write(a.stdout, f, &report.Report{Command: command, Findings: le.Findings, Unit: "schema"}); werr != nil {
		return werr
	}
	return fmt.Errorf("the catalog is malformed: %d problem(s) above", len(le.Findings))
}

func (a *app) initCommand() *cobra.Command {
	var schemaFormat string
	c := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Scaffold a catalog: evtool.yaml and one example event type",
		Long: `Scaffold a catalog in DIR (default: the current directory): evtool.yaml and
schemas/com.example.greeting.sent with event.yaml, v1 and an example.
--format json (default), avro or protobuf chooses the schema format: v1.json,
v1.avsc or v1.proto, and a dataschema template ending in that extension.
The result passes 'evtool lint' and 'evtool compat check' as it stands.
Existing files are never overwritten.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			p, ok := formats.ForName(schemaFormat)
			if !ok {
				return usagef("--format %q: want %s", schemaFormat, formats.List(formats.Names(), "or"))
			}
			files, err := catalog.ScaffoldFormat(dir, p.Kind())
			if err != nil {
				return err
			}
			for _, f := range files {
				fmt.Fprintf(a.stdout, "created %s\n", f)
			}
			next := "evtool lint"
			if dir != "." {
				next += " --dir " + dir
			}
			fmt.Fprintf(a.stdout, "next: %s\n", next)
			return nil
		},
	}
	c.Flags().StringVar(&schemaFormat, "format", "json", "schema format of the example type: "+strings.Join(formats.Names(), "|"))
	completeValues(c, "format", formats.Names()...)
	return c
}

func (a *app) lintCommand() *cobra.Command {
	var dir, format string
	c := &cobra.Command{
		Use:   "lint",
		Short: "Check that the catalog is well formed, its schemas compile and its examples validate",
		Long: `Check the catalog in --dir: evtool.yaml and every event.yaml against their
meta-schemas, type names, contiguous versions, that every schema compiles with
its $refs resolved inside the catalog, and that every example validates
against its version.

Exit 0 when clean (warnings allowed), 1 when an example fails its version,
2 when the catalog itself is malformed (the findings say where), or when
interrupted (Ctrl-C, SIGTERM: it stops with no report).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := parseFormat(format, report.BasicFormats)
			if err != nil {
				return err
			}
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				return fmt.Errorf("catalog directory %s does not exist", dir)
			}
			// Type by type: a type's versions are compiled, its examples
			// checked, and the compiled schemas let go before the next. A
			// signal stops the load or the walk (exit 2, no report).
			ctx := cmd.Context()
			cat, loadErr := catalog.LoadDeferredContext(ctx, dir)
			var le *catalog.LoadError
			if loadErr != nil && !errors.As(loadErr, &le) {
				return loadErr
			}
			rep := &report.Report{Command: "lint", Unit: "schema"}
			var contracts []*consumers.Contract
			if cat != nil {
				// Consumer contracts are part of the catalog: malformed
				// ones, or ones naming what the catalog lacks, make it
				// malformed. Their pointers are checked type by type
				// below, while each type is compiled.
				var cerr error
				if contracts, cerr = loadContracts(dir, cat); cerr != nil {
					var ce *catalog.LoadError
					if !errors.As(cerr, &ce) {
						return cerr
					}
					if le == nil {
						le = &catalog.LoadError{}
					}
					le.Findings = append(le.Findings, ce.Findings...)
				}
			}
			var problems []report.Finding
			if le != nil {
				problems = append(problems, le.Findings...)
			}
			if cat != nil {
				// Examples of the versions that compiled are checked even
				// when other files are malformed: lint reports every problem.
				rep.Findings = append(rep.Findings, cat.Warnings...)
				for i, t := range cat.Types {
					if ctx.Err() != nil {
						return fmt.Errorf("interrupted while linting %s: %d of %d type(s) checked", filepath.Clean(dir), i, len(cat.Types))
					}
					problems = append(problems, cat.CompileType(t)...)
					problems = append(problems, consumers.LintFields(t, contracts)...)
					rep.Findings = append(rep.Findings, cat.CheckTypeExamples(t)...)
					cat.ReleaseType(t)
					rep.Checked += len(t.Versions)
				}
				problems = append(problems, cat.LintShared()...)
			}
			if len(problems) > 0 {
				le = catalog.Problems(problems).(*catalog.LoadError)
				rep.Findings = append(le.Findings, rep.Findings...)
			}
			rep.Sort()
			if err := report.Write(a.stdout, f, rep); err != nil {
				return err
			}
			if le != nil {
				return fmt.Errorf("catalog %s is malformed: %d problem(s) above", filepath.Clean(dir), len(le.Findings))
			}
			if rep.Failed() {
				return errFindings
			}
			return nil
		},
	}
	dirFlag(c, &dir)
	formatFlag(c, &format, report.BasicFormats)
	return c
}
