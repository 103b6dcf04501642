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
	root := app.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	return app.exitCode(err)
}
