// Command validate benchmarks `evtool validate` against bare
// santhosh-tekuri/jsonschema v6 validation (decode + validate) of the same
// data payloads, in the same run. See run.sh, which builds what it needs.
//
// Each round runs evtool as a subprocess (workers 1 and 2) and the bare
// loop in-process (1 and 2 goroutines) and prints medians and ratios. Peak
// memory of evtool comes from the child's rusage, so no GNU time is needed.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/evtool/evtool/registry"
)

func main() {
	var (
		evtool = flag.String("evtool", "", "evtool binary")
		dir    = flag.String("dir", "examples/orders", "catalog")
		events = flag.String("events", "", "JSONL events file")
		small  = flag.String("small", "", "a smaller events file, for the peak-memory comparison")
		rounds = flag.Int("rounds", 5, "rounds; medians are reported")
	)
	flag.Parse()
	if err := run(*evtool, *dir, *events, *small, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
}

type payload struct {
	schema *jsonschema.Schema
	data   []byte
}

func run(evtool, dir, events, small string, rounds int) error {
	cat, err := registry.Load(dir)
	if err != nil {
		return err
	}
	payloads, size, n, err := loadPayloads(cat, events)
	if err != nil {
		return err
	}
	fmt.Printf("input: %s, %d events, %.1f MB (data payloads %.1f MB)\n", events, n, float64(fileSize(events))/1e6, float64(size)/1e6)
	res := map[string][]float64{}
	var rss1, rss2 []float64
	for r := 0; r < rounds; r++ {
		for _, w := range []int{1, 2} {
			d, rss, err := runEvtool(evtool, dir, events, w)
			if err != nil {
				return err
			}
			res[fmt.Sprintf("evtool-%d", w)] = append(res[fmt.Sprintf("evtool-%d", w)], float64(n)/d.Seconds())
			if w == 2 {
				rss1 = append(rss1, rss)
			}
			bd, err := bare(payloads, w)
			if err != nil {
				return err
			}
			res[fmt.Sprintf("bare-%d", w)] = append(res[fmt.Sprintf("bare-%d", w)], float64(n)/bd.Seconds())
		}
		if small != "" {
			_, rss, err := runEvtool(evtool, dir, small, 2)
			if err != nil {
				return err
			}
			rss2 = append(rss2, rss)
		}
	}
	mb := float64(fileSize(events)) / float64(n) / 1e6
	fmt.Printf("\n| run | events/s (median of %d) | MB/s of input |\n|---|---|---|\n", rounds)
	for _, k := range []string{"bare-1", "evtool-1", "bare-2", "evtool-2"} {
		m := median(res[k])
		fmt.Printf("| %s | %.0f | %.1f |\n", k, m, m*mb)
	}
	fmt.Printf("\nratio evtool/bare, 1 core: %.2f\n", median(res["evtool-1"])/median(res["bare-1"]))
	fmt.Printf("ratio evtool/bare, 2 cores: %.2f\n", median(res["evtool-2"])/median(res["bare-2"]))
	fmt.Printf("scaling evtool 2 cores / 1 core: %.2f\n", median(res["evtool-2"])/median(res["evtool-1"]))
	fmt.Printf("peak RSS evtool (2 workers), %d events: %.1f MB\n", n, median(rss1))
	if small != "" {
		fmt.Printf("peak RSS evtool (2 workers), %s: %.1f MB\n", small, median(rss2))
	}
	return nil
}

func runEvtool(bin, dir, events string, workers int) (time.Duration, float64, error) {
	cmd := exec.Command(bin, "validate", "--dir", dir, "--workers", strconv.Itoa(workers), events)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("evtool validate: %v\n%s", err, tail(out.Bytes()))
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	rss := 0.0
	if ru != nil {
		rss = float64(ru.Maxrss) / 1024 // KiB on Linux
	}
	return d, rss, nil
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}

// loadPayloads extracts each event's data and the schema its dataschema
// names, so the bare loop does exactly decode + validate.
func loadPayloads(cat *registry.Catalog, file string) ([]payload, int, int, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var out []payload
	size := 0
	for sc.Scan() {
		var ev struct {
			DataSchema string          `json:"dataschema"`
			Data       json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, 0, 0, err
		}
		v, err := cat.Resolve(ev.DataSchema)
		if err != nil {
			return nil, 0, 0, err
		}
		out = append(out, payload{schema: v.Schema, data: ev.Data})
		size += len(ev.Data)
	}
	return out, size, len(out), sc.Err()
}

// bare is the baseline: decode each payload with santhosh's decoder and
// validate it, on `workers` goroutines.
func bare(ps []payload, workers int) (time.Duration, error) {
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(ps); i += workers {
				v, err := jsonschema.UnmarshalJSON(bytes.NewReader(ps[i].data))
				if err == nil {
					err = ps[i].schema.Validate(v)
				}
				if err != nil {
					errs[w] = err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func fileSize(name string) int64 {
	fi, err := os.Stat(name)
	if err != nil {
		return 0
	}
	return fi.Size()
}
