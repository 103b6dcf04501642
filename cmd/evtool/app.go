package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/schemaregistry"
)

// app carries the streams of one invocation; commands never touch os.Std*.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// errFindings reports that the command printed findings that fail it
// (exit 1). It carries no message: the findings were the message.
var errFindings = errors.New("findings")

// usageError marks bad invocations (exit 2) whose message is printed: a
// flag value the command refused says what to use.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// commandLineError is a command line cobra could not parse (an unknown flag
// or command, wrong arguments): exit 2, and a pointer to the command's help.
type commandLineError struct {
	err     error
	command string
}

func (e commandLineError) Error() string { return e.err.Error() }
func (e commandLineError) Unwrap() error { return e.err }

// reportedError is an error the command has already printed in its report
// (a replay that could not run prints "error: ..."): it sets exit 2 and is
// not printed again.
type reportedError struct{ err error }

func (e reportedError) Error() string { return e.err.Error() }
func (e reportedError) Unwrap() error { return e.err }

func (a *app) exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFindings):
		return exitFindings
	}
	var re reportedError
	if errors.As(err, &re) {
		return exitError
	}
	msg := strings.TrimSpace(err.Error())
	// Line by line: errors that list problems keep their lines, and a line
	// that a quoted name's line break starts cannot read as a command.
	fmt.Fprintf(a.stderr, "evtool: %s\n", report.SafeLines(msg))
	var ce commandLineError
	if errors.As(err, &ce) && !strings.Contains(msg, "\n") {
		fmt.Fprintf(a.stderr, "Run '%s --help' for usage.\n", ce.command)
	}
	return exitError
}

// completeValues registers the values of a flag for shell completion.
func completeValues(c *cobra.Command, flag string, values ...string) {
	_ = c.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	})
}

// namedCommand is one of evtool's commands, by the name it is called by,
// built only when asked.
type namedCommand struct {
	name  string
	build func() *cobra.Command
}

// commands are evtool's commands in the order help lists them.
func (a *app) commands() []namedCommand {
	return []namedCommand{
		{"version", a.versionCommand},
		{"init", a.initCommand},
		{"lint", a.lintCommand},
		{"validate", a.validateCommand},
		{"broker", a.brokerCommand},
		{"replay", a.replayCommand},
		{"verify", a.verifyCommand},
		{"gen", a.genCommand},
		{"compat", a.compatCommand},
		{"consumers", a.consumersCommand},
		{"registry", a.registryCommand},
		{"export", a.exportCommand},
		{"docs", a.docsCommand},
		{"dlq", a.dlqCommand},
		{"produce", a.produceCommand},
		{"consume", a.consumeCommand},
	}
}

// rootCommand is evtool with every command.
func (a *app) rootCommand() *cobra.Command { return a.rootCommandFor(nil) }

// rootCommandFor is evtool with only the command that args start with,
// when they start with the name of one: what that command does, its help,
// errors and completion depend only on it and on the root, and building
// all sixteen command trees with their flags is most of what a short
// command like version costs beyond package initialisation (a CI gate
// runs evtool many times). Any other command line (none, a flag first,
// help, completion, an unknown command that suggestions need every name
// for) gets every command.
func (a *app) rootCommandFor(args []string) *cobra.Command {
	cmds := a.commands()
	if len(args) > 0 {
		for _, c := range cmds {
			if c.name == args[0] {
				cmds = []namedCommand{c}
				break
			}
		}
	}
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
		return commandLineError{err: fmt.Errorf("%s: %w", cmd.CommandPath(), err), command: cmd.CommandPath()}
	})
	root.SetVersionTemplate("evtool {{.Version}}\n")
	for _, c := range cmds {
		root.AddCommand(c.build())
	}
	for _, c := range root.Commands() {
		if c.Args == nil {
			c.Args = cobra.NoArgs
		}
		wrapArgs(c)
	}
	completeEverywhere(root, flagValues())
	return root
}

// flagValues are the values of flags that several commands share, for
// shell completion.
func flagValues() map[string][]string {
	var strategies []string
	// The strategies the registry commands accept, as their parser says.
	for _, s := range []string{"type", "topic", "topic-type"} {
		if st, err := schemaregistry.ParseStrategy(s); err == nil && string(st) == s {
			strategies = append(strategies, s)
		}
	}
	return map[string][]string{
		"subject-strategy": strategies,
		"sasl-mechanism":   {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"},
	}
}

// completeEverywhere registers values for every command that has one of
// the flags and no completion of its own.
func completeEverywhere(c *cobra.Command, values map[string][]string) {
	for name, vs := range values {
		if c.Flags().Lookup(name) == nil && c.PersistentFlags().Lookup(name) == nil {
			continue
		}
		if _, ok := c.GetFlagCompletionFunc(name); !ok {
			completeValues(c, name, vs...)
		}
	}
	for _, sub := range c.Commands() {
		completeEverywhere(sub, values)
	}
}

// wrapArgs turns cobra's argument errors into usage errors (exit 2).
func wrapArgs(c *cobra.Command) {
	if c.Args != nil {
		check := c.Args
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return commandLineError{err: fmt.Errorf("%s: %w", cmd.CommandPath(), err), command: cmd.CommandPath()}
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
	completeValues(c, "format", names...)
}

func parseFormat(name string, offered []report.Format) (report.Format, error) {
	f, err := report.ParseFormat(name, offered)
	if err != nil {
		return "", usageError{fmt.Errorf("--format: %w", err)}
	}
	return f, nil
}
