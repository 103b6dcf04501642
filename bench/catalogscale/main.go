// Command catalogscale writes a generated catalog (catalogtest.Generate)
// for the catalog scale benchmark (bench/catalogscale/run.sh).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/evtool/evtool/catalog/catalogtest"
)

func main() {
	var o catalogtest.GenOptions
	var shape, mix string
	out := flag.String("out", "", "directory to write the catalog into (must not exist)")
	flag.IntVar(&o.Types, "types", 100, "event types")
	flag.IntVar(&o.Versions, "versions", 10, "versions per type")
	flag.IntVar(&o.Shared, "shared", 20, "shared files per format")
	flag.StringVar(&shape, "shape", "simple", "simple | heavy")
	flag.StringVar(&mix, "mix", "json", "json | mixed (6 JSON Schema, 2 Avro, 2 Protobuf of every 10 types)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "catalogscale: -out is required")
		os.Exit(2)
	}
	if _, err := os.Stat(*out); err == nil {
		fmt.Fprintf(os.Stderr, "catalogscale: %s exists\n", *out)
		os.Exit(2)
	}
	o.Shape, o.Mix = catalogtest.Shape(shape), catalogtest.Mix(mix)
	if err := catalogtest.Generate(*out, o); err != nil {
		fmt.Fprintln(os.Stderr, "catalogscale:", err)
		os.Exit(2)
	}
}
