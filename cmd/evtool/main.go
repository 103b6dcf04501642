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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
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
