// Command consumers-bench writes a synthetic catalog with consumer
// contracts (bench/consumers/gen) and times, in this one process and the
// same run, `consumers check` (every consumer's projected comparisons) and
// the baseline `compat check` of the same catalog, printing the median of
// several runs of each and their ratio. Run it with bench/consumers/run.sh.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"sort"
	"time"

	"github.com/evtool/evtool/bench/consumers/gen"
	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat"
	"github.com/evtool/evtool/consumers"
)

func main() {
	types := flag.Int("types", 100, "event types")
	versions := flag.Int("versions", 10, "versions per type")
	ncons := flag.Int("consumers", 20, "consumers")
	readers := flag.Int("readers", 2, "consumers reading each type")
	rounds := flag.Int("rounds", 5, "runs of each; the median is reported")
	write := flag.String("write", "", "only write the catalog into this directory (for bench/consumers/rss.sh)")
	flag.Parse()
	shape := gen.Shape{Types: *types, Versions: *versions, Consumers: *ncons, ReadersPerType: *readers, Seed: 1}
	if *write != "" {
		if err := gen.Write(*write, shape); err != nil {
			log.Fatal(err)
		}
		return
	}
	dir, err := os.MkdirTemp("", "consumers-bench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := gen.Write(dir, shape); err != nil {
		log.Fatal(err)
	}
	cat, err := catalog.Load(dir)
	if err != nil {
		log.Fatal(err)
	}
	cs, err := consumers.Load(dir)
	if err != nil {
		log.Fatal(err)
	}
	if probs := consumers.Lint(cat, cs); len(probs) > 0 {
		log.Fatalf("contracts do not lint: %v", probs[0])
	}
	var check, gate []time.Duration
	var readings, breaks, pairs int
	for range *rounds {
		start := time.Now()
		vs := consumers.NewChecker(cat, consumers.Options{Samples: compat.DefaultCatalogSamples, Seed: 1}).Check(cs)
		check = append(check, time.Since(start))
		readings, breaks = len(vs), 0
		for _, v := range vs {
			if v.Breaks() {
				breaks++
			}
		}
		start = time.Now()
		res := compat.CheckCatalog(cat, nil, compat.CheckOptions{Seed: 1})
		gate = append(gate, time.Since(start))
		pairs = res.Pairs
	}
	mc, mg := median(check), median(gate)
	fmt.Printf("catalog: %d types x %d versions, %d consumers (%d readers per type); GOMAXPROCS=%d\n", *types, *versions, *ncons, *readers, runtime.GOMAXPROCS(0))
	fmt.Printf("consumers check: %d readings (%d break), median %v of %d runs (min %v, max %v)\n", readings, breaks, mc.Round(time.Millisecond), *rounds, check[0].Round(time.Millisecond), check[len(check)-1].Round(time.Millisecond))
	fmt.Printf("compat check (baseline, same catalog): %d pairs, median %v (min %v, max %v)\n", pairs, mg.Round(time.Millisecond), gate[0].Round(time.Millisecond), gate[len(gate)-1].Round(time.Millisecond))
	fmt.Printf("ratio consumers check / compat check: %.2f\n", float64(mc)/float64(mg))
}

// median sorts ds and returns the middle one.
func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}
