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
	"runtime"
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
	// Peak memory first, while this process is still small: a child's
	// ru_maxrss starts from the parent's size at fork on Linux.
	var rssBig, rssSmall []float64
	for r := 0; r < rounds; r++ {
		m, err := runEvtool(evtool, dir, events, 2)
		if err != nil {
			return err
		}
		rssBig = append(rssBig, m.rss)
		if small != "" {
			m, err := runEvtool(evtool, dir, small, 2)
			if err != nil {
				return err
			}
			rssSmall = append(rssSmall, m.rss)
		}
	}
	cat, err := registry.Load(dir)
	if err != nil {
		return err
	}
	payloads, size, n, err := loadPayloads(cat, events)
	if err != nil {
		return err
	}
	fmt.Printf("input: %s, %d events, %.1f MB (data payloads %.1f MB)\n", events, n, float64(fileSize(events))/1e6, float64(size)/1e6)
	wall := map[string][]float64{} // events per wall second
	cpu := map[string][]float64{}  // events per CPU second (user+system)
	for r := 0; r < rounds; r++ {
		for _, w := range []int{1, 2} {
			m, err := runEvtool(evtool, dir, events, w)
			if err != nil {
				return err
			}
			k := fmt.Sprintf("evtool-%d", w)
			wall[k] = append(wall[k], float64(n)/m.wall.Seconds())
			cpu[k] = append(cpu[k], float64(n)/m.cpu.Seconds())
			bm, err := bare(payloads, w)
			if err != nil {
				return err
			}
			k = fmt.Sprintf("bare-%d", w)
			wall[k] = append(wall[k], float64(n)/bm.wall.Seconds())
			cpu[k] = append(cpu[k], float64(n)/bm.cpu.Seconds())
		}
	}
	mb := float64(fileSize(events)) / float64(n) / 1e6
	fmt.Printf("\n| run | events/s wall | MB/s wall | events per CPU-second |\n|---|---|---|---|\n")
	for _, k := range []string{"bare-1", "evtool-1", "bare-2", "evtool-2"} {
		m := median(wall[k])
		fmt.Printf("| %s | %.0f | %.1f | %.0f |\n", k, m, m*mb, median(cpu[k]))
	}
	fmt.Printf("\n(medians of %d rounds)\n", rounds)
	fmt.Printf("ratio evtool/bare per CPU-second (per core): %.2f\n", median(cpu["evtool-2"])/median(cpu["bare-2"]))
	fmt.Printf("ratio evtool/bare wall, 1 worker: %.2f\n", median(wall["evtool-1"])/median(wall["bare-1"]))
	fmt.Printf("ratio evtool/bare wall, 2 workers: %.2f\n", median(wall["evtool-2"])/median(wall["bare-2"]))
	fmt.Printf("scaling evtool wall 2 workers / 1 worker: %.2f (bare: %.2f)\n",
		median(wall["evtool-2"])/median(wall["evtool-1"]), median(wall["bare-2"])/median(wall["bare-1"]))
	fmt.Printf("peak RSS evtool, %s (%d events): %.1f MB\n", events, n, median(rssBig))
	if small != "" {
		fmt.Printf("peak RSS evtool, %s: %.1f MB\n", small, median(rssSmall))
	}
	return nil
}

type measure struct {
	wall, cpu time.Duration
	rss       float64 // MB
}

func runEvtool(bin, dir, events string, workers int) (measure, error) {
	cmd := exec.Command(bin, "validate", "--dir", dir, "--workers", strconv.Itoa(workers), events)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	m := measure{wall: time.Since(start)}
	if err != nil {
		return m, fmt.Errorf("evtool validate: %v\n%s", err, tail(out.Bytes()))
	}
	m.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.rss = float64(ru.Maxrss) / 1024 // KiB on Linux
	}
	return m, nil
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
func bare(ps []payload, workers int) (measure, error) {
	runtime.GC()
	cpu0 := cpuTime()
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
	m := measure{wall: time.Since(start), cpu: cpuTime() - cpu0}
	for _, err := range errs {
		if err != nil {
			return m, err
		}
	}
	return m, nil
}

// cpuTime is this process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
