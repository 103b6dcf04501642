// Command genevents writes CloudEvents of the examples/orders catalog as
// JSON lines: orders are placed (v1 or v2 of com.example.order.placed), then
// paid in parts and shipped in parts, interleaved across orders. Every event
// is valid against its schema version, the orderVersion of one order's events
// goes 1, 2, 3, ... in file order, and the output is byte-identical for a seed.
//
//	go run ./bench/genevents -n 1000 -orders 50 -seed 1 -out examples/orders/events.jsonl
//	go run ./bench/genevents -n 1000000 -out /tmp/x.jsonl
//
// It streams: memory depends on -orders, not on -n.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its outside world passed in. Exit codes: 0 OK, 2 usage or
// system error.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("genevents", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: genevents [-n N] [-orders K] [-seed S] [-start RFC3339] [-out FILE]")
		fs.PrintDefaults()
	}
	n := fs.Int("n", 1000, "number of events to write")
	orders := fs.Int("orders", 50, "number of distinct order ids (1..99999); events are spread evenly over them")
	seed := fs.Uint64("seed", 1, "random seed; the same seed gives byte-identical output")
	start := fs.String("start", "2025-03-03T08:00:00Z", "time of the first event (RFC 3339); later events are 1-15s apart")
	out := fs.String("out", "-", "output file, - for stdout")
	source := fs.String("source", "/orders-service", "CloudEvents source attribute")
	dataschema := fs.String("dataschema", "https://schemas.example.com/{type}/v{version}.json",
		"dataschema URI template, as in evtool.yaml")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "genevents: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *n < 0 {
		fmt.Fprintf(stderr, "genevents: -n %d: must be 0 or more\n", *n)
		return 2
	}
	if *orders < 1 || *orders > 99999 {
		fmt.Fprintf(stderr, "genevents: -orders %d: must be between 1 and 99999 (order ids are ord-00001..ord-99999)\n", *orders)
		return 2
	}
	t0, err := time.Parse(time.RFC3339, *start)
	if err != nil {
		fmt.Fprintf(stderr, "genevents: -start %q: not an RFC 3339 time: %v\n", *start, err)
		return 2
	}
	cfg := config{N: *n, Orders: *orders, Seed: *seed, Start: t0, Source: *source, DataSchema: *dataschema}

	if *out == "-" {
		if err := generate(stdout, cfg); err != nil {
			fmt.Fprintf(stderr, "genevents: writing stdout: %v\n", err)
			return 2
		}
		return 0
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintf(stderr, "genevents: %v\n", err)
		return 2
	}
	err = generate(f, cfg)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(stderr, "genevents: writing %s: %v\n", *out, err)
		return 2
	}
	return 0
}
