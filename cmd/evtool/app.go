package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evtool/evtool/report"
)

// app carries the streams of one invocation; commands never touch os.Std*.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// errFindings reports that the command printed findings that fail it
// (exit 1). It carries no message: the findings were the message.
var errFindings = errors.New("findings")

// usageError marks bad invocations (exit 2) whose message is printed.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

func (a *app) exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFindings):
		return exitFindings
	}
	msg := err.Error()
	fmt.Fprintf(a.stderr, "evtool: %s\n", strings.TrimSpace(msg))
	var ue usageError
	if errors.As(err, &ue) && !strings.Contains(msg, "\n") {
		fmt.Fprintln(a.stderr, "Run 'evtool --help' for usage.")
	}
	return exitError
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "evtool",
		Short: "Event contracts on Kafka: catalog, compatibility gate, code generation, chaos replay",
		Long: `evtool keeps event types as code (CloudEvents envelopes plus versioned JSON
Schemas in git), gates schema changes in CI, generates Go types and validating
decoders, and replays events through Kafka with duplicates, reordering and
crashes to prove consumers survive at-least-once delivery.

Exit codes: 0 OK, 1 findings (incompatible, invalid, consumer failed, drift),
2 usage or system error.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion(),
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%s: %w", cmd.CommandPath(), err)}
	})
	root.SetVersionTemplate("evtool {{.Version}}\n")
	root.AddCommand(
		a.versionCommand(),
		a.initCommand(),
		a.lintCommand(),
		a.validateCommand(),
		a.brokerCommand(),
		a.replayCommand(),
		a.genCommand(),
		a.compatCommand(),
		a.registryCommand(),
		a.exportCommand(),
		a.docsCommand(),
	)
	for _, c := range root.Commands() {
		if c.Args == nil {
			c.Args = cobra.NoArgs
		}
		wrapArgs(c)
	}
	return root
}

// wrapArgs turns cobra's argument errors into usage errors (exit 2).
func wrapArgs(c *cobra.Command) {
	if c.Args != nil {
		check := c.Args
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return usageError{fmt.Errorf("%s: %w", cmd.CommandPath(), err)}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		wrapArgs(sub)
	}
}

func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v + " " + info.GoVersion
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print evtool's version",
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(a.stdout, "evtool %s\n", buildVersion())
			return nil
		},
	}
}

// formatFlag adds --format with the offered formats.
func formatFlag(c *cobra.Command, target *string, offered []report.Format) {
	names := make([]string, len(offered))
	for i, f := range offered {
		names[i] = string(f)
	}
	c.Flags().StringVar(target, "format", "text", "output format: "+strings.Join(names, "|"))
	_ = c.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return names, cobra.ShellCompDirectiveNoFileComp
	})
}

func parseFormat(name string, offered []report.Format) (report.Format, error) {
	f, err := report.ParseFormat(name, offered)
	if err != nil {
		return "", usageError{fmt.Errorf("--format: %w", err)}
	}
	return f, nil
}
