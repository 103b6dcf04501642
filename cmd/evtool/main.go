// Command evtool keeps event contracts as code: a catalog of CloudEvents
// types with versioned JSON Schemas, a compatibility gate for CI, Go code
// generation, and chaos replay of consumers through Kafka.
//
// This package only wires commands to the packages that do the work.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	os.Exit(runUntilSignalled(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// runUntilSignalled is run with a context that SIGINT, SIGTERM and SIGHUP
// cancel, so that a command stops cleanly: a replay stops its consumers
// (in process groups of their own, they get none of these from a terminal)
// and removes its temporary directory.
func runUntilSignalled(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals()...)
	defer stop()
	return run(ctx, args, stdin, stdout, stderr)
}

// stopSignals are the signals that stop a command. SIGHUP (the terminal
// closed) only when evtool was not started with it ignored: catching it
// would undo nohup.
func stopSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// Exit codes, like diff(1).
const (
	exitOK       = 0
	exitFindings = 1
	exitError    = 2
)

// run executes one command line and returns its exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	return app.execute(ctx, app.rootCommandFor(args), args)
}

// execute runs one command line through root and returns its exit code.
func (a *app) execute(ctx context.Context, root *cobra.Command, args []string) int {
	root.SetArgs(args)
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	err := root.ExecuteContext(ctx)
	return a.exitCode(err)
}
