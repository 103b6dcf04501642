package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestValidateStdinInterrupted: validate reading a terminal (a read that
// blocks until the user types) stops at once when interrupted, exit 2 with
// a message, instead of waiting for Ctrl-D.
func TestValidateStdinInterrupted(t *testing.T) {
	stdin, w := io.Pipe() // never written: a terminal nobody types into
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"validate", "--dir", "../../examples/orders"}, stdin, &stdout, &stderr)
	}()
	time.Sleep(200 * time.Millisecond)
	cancel()
	select {
	case code := <-done:
		if code != exitError || !strings.Contains(stderr.String(), "evtool: interrupted while reading <stdin>") {
			t.Fatalf("exit %d, stderr %q", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("validate did not stop when interrupted")
	}
}

// TestBoolFlagsTakeNoValue: no boolean flag shows a value placeholder in
// --help (pflag takes a `quoted` word of the usage as the placeholder).
func TestBoolFlagsTakeNoValue(t *testing.T) {
	a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() != "bool" {
				return
			}
			if name, _ := pflag.UnquoteUsage(f); name != "" {
				t.Errorf("%s --%s shows the placeholder %q in --help", c.CommandPath(), f.Name, name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(a.rootCommand())
}
