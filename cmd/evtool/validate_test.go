package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestValidateStdinInterrupted: validate reading a terminal (a read that
// blocks until the user types) stops at once when interrupted, exit 2 with
// a message, instead of waiting for Ctrl-D.
func TestValidateStdinInterrupted(t *testing.T) {
	pr, w := io.Pipe() // never written: a terminal nobody types into
	defer w.Close()
	stdin := &firstRead{r: pr, reading: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"validate", "--dir", "../../examples/orders"}, stdin, &stdout, &stderr)
	}()
	select { // interrupt once validate blocks reading, not before
	case <-stdin.reading:
	case code := <-done:
		t.Fatalf("validate ended before reading stdin: exit %d, stderr %q", code, stderr.String())
	}
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

// TestValidateInterruptedReportFails: a validate interrupted after some
// events (a stream half read) closes its report with an error finding, so
// that the report never reads as a pass of the events it did not check
// ("ok": true in JSON, "0 errors" in text).
func TestValidateInterruptedReportFails(t *testing.T) {
	for _, format := range []string{"json", "text"} {
		t.Run(format, func(t *testing.T) {
			pr, w := io.Pipe()
			defer pr.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() {
				done <- run(ctx, []string{"validate", "--dir", "../../examples/orders", "--format", format}, pr, &stdout, &stderr)
			}()
			// One event whole, then a line left open: validate has read
			// the first and waits for the rest.
			event := `{"specversion":"1.0","id":"1","source":"/orders-service","type":"com.example.order.created","datacontenttype":"application/json","data":{}}` + "\n"
			if _, err := w.Write([]byte(event + `{"specversion":`)); err != nil {
				t.Fatal(err)
			}
			cancel()
			var code int
			select {
			case code = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("validate did not stop when interrupted")
			}
			out := stdout.String()
			if code != exitError || !strings.Contains(stderr.String(), "evtool: interrupted while reading <stdin>") {
				t.Fatalf("exit %d, stderr %q", code, stderr.String())
			}
			if strings.Contains(out, `"ok":true`) || strings.Contains(out, " 0 errors") || !strings.Contains(out, "interrupted: the input was not read to its end") {
				t.Errorf("the interrupted report reads as a pass or does not say it was interrupted:\n%s", out)
			}
		})
	}
}

// firstRead closes reading when its first Read begins.
type firstRead struct {
	r       io.Reader
	reading chan struct{}
	once    sync.Once
}

func (f *firstRead) Read(b []byte) (int, error) {
	f.once.Do(func() { close(f.reading) })
	return f.r.Read(b)
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
