// Command validate benchmarks `evtool validate` against bare
// santhosh-tekuri/jsonschema v6 validation (decode + validate) of the same
// data payloads, in the same run. See run.sh, which builds what it needs.
//
// Both sides run as child processes that stream their input from a file:
// evtool reads the events, the baseline (this binary with -bare) reads the
// events' data payloads, extracted beforehand, one per line with the
// version they belong to. Both get the same GOGC, so neither has a heap or
// GC advantage. Throughput is reported per wall second and per CPU second
// (the children's user+system time), which stays meaningful when other
// work shares the machine. Peak memory comes from the child's rusage.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/evtool/evtool/bench/internal/stats"
	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

func main() {
	var (
		evtool  = flag.String("evtool", "", "evtool binary")
		dir     = flag.String("dir", "examples/orders", "catalog")
		events  = flag.String("events", "", "JSONL events file")
		small   = flag.String("small", "", "a smaller events file, for the peak-memory comparison")
		rounds  = flag.Int("rounds", 5, "rounds; medians are reported")
		bare    = flag.String("bare", "", "internal: validate this payload file and exit")
		workers = flag.Int("workers", 1, "internal: goroutines for -bare")
	)
	flag.Parse()
	var err error
	if *bare != "" {
		err = runBare(*dir, *bare, *workers)
	} else {
		err = run(*evtool, *dir, *events, *small, *rounds)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
}

func run(evtool, dir, events, small string, rounds int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	payloads := filepath.Join(filepath.Dir(events), "payloads.txt")
	n, size, err := extractPayloads(events, payloads)
	if err != nil {
		return err
	}
	fmt.Printf("input: %d events, %.1f MB (data payloads %.1f MB)\n", n, float64(fileSize(events))/1e6, float64(size)/1e6)

	wall := map[string][]float64{} // events per wall second
	cpu := map[string][]float64{}  // events per CPU second (user+system)
	var rssBig, rssSmall []float64
	for r := 0; r < rounds; r++ {
		for _, w := range []int{1, 2} {
			m, err := child(evtool, "validate", "--dir", dir, "--workers", strconv.Itoa(w), events)
			if err != nil {
				return err
			}
			k := fmt.Sprintf("evtool-%d", w)
			wall[k] = append(wall[k], float64(n)/m.wall.Seconds())
			cpu[k] = append(cpu[k], float64(n)/m.cpu.Seconds())
			if w == 2 {
				rssBig = append(rssBig, m.rss)
			}
			m, err = child(self, "-bare", payloads, "-dir", dir, "-workers", strconv.Itoa(w))
			if err != nil {
				return err
			}
			k = fmt.Sprintf("bare-%d", w)
			wall[k] = append(wall[k], float64(n)/m.wall.Seconds())
			cpu[k] = append(cpu[k], float64(n)/m.cpu.Seconds())
		}
		if small != "" {
			m, err := child(evtool, "validate", "--dir", dir, "--workers", "2", small)
			if err != nil {
				return err
			}
			rssSmall = append(rssSmall, m.rss)
		}
	}
	mb := float64(fileSize(events)) / float64(n) / 1e6
	fmt.Printf("\n| run | events/s (wall) | MB/s of events (wall) | events per CPU-second |\n|---|---|---|---|\n")
	for _, k := range []string{"bare-1", "evtool-1", "bare-2", "evtool-2"} {
		m := stats.Median(wall[k])
		fmt.Printf("| %s | %.0f | %.1f | %.0f |\n", k, m, m*mb, stats.Median(cpu[k]))
	}
	fmt.Printf("\n(medians of %d rounds; -N = N workers)\n", rounds)
	fmt.Printf("ratio evtool/bare per CPU-second (per core), 1 worker: %.2f\n", stats.Median(cpu["evtool-1"])/stats.Median(cpu["bare-1"]))
	fmt.Printf("ratio evtool/bare per CPU-second (per core), 2 workers: %.2f\n", stats.Median(cpu["evtool-2"])/stats.Median(cpu["bare-2"]))
	fmt.Printf("ratio evtool/bare wall, 1 worker: %.2f\n", stats.Median(wall["evtool-1"])/stats.Median(wall["bare-1"]))
	fmt.Printf("ratio evtool/bare wall, 2 workers: %.2f\n", stats.Median(wall["evtool-2"])/stats.Median(wall["bare-2"]))
	fmt.Printf("scaling wall 2 workers / 1 worker: evtool %.2f, bare %.2f\n",
		stats.Median(wall["evtool-2"])/stats.Median(wall["evtool-1"]), stats.Median(wall["bare-2"])/stats.Median(wall["bare-1"]))
	fmt.Printf("peak RSS evtool (2 workers), %d events: %.1f MB\n", n, stats.Median(rssBig))
	if small != "" {
		fmt.Printf("peak RSS evtool (2 workers), %s: %.1f MB\n", filepath.Base(small), stats.Median(rssSmall))
	}
	return nil
}

type measure struct {
	wall, cpu time.Duration
	rss       float64 // MB
}

func child(bin string, args ...string) (measure, error) {
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	m := measure{wall: time.Since(start)}
	if err != nil {
		return m, fmt.Errorf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, tail(out.Bytes()))
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

// extractPayloads writes "dataschema<TAB>data" per event.
func extractPayloads(events, out string) (n, size int, err error) {
	in, err := os.Open(events)
	if err != nil {
		return 0, 0, err
	}
	defer in.Close()
	f, err := os.Create(out)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct {
			DataSchema string          `json:"dataschema"`
			Data       json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return 0, 0, err
		}
		w.WriteString(ev.DataSchema)
		w.WriteByte('\t')
		w.Write(ev.Data)
		w.WriteByte('\n')
		n++
		size += len(ev.Data)
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	return n, size, w.Flush()
}

// runBare is the baseline: stream the payload file, decode each payload
// with santhosh's decoder and validate it, on `workers` goroutines. It uses
// the GC setting evtool validate uses.
func runBare(dir, file string, workers int) error {
	debug.SetGCPercent(400)
	cat, err := catalog.Load(dir)
	if err != nil {
		return err
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	type job struct {
		schema *jsonschema.Schema
		data   []byte
	}
	jobs := make(chan []job, 4*workers)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for batch := range jobs {
				for _, j := range batch {
					v, err := jsonschema.UnmarshalJSON(bytes.NewReader(j.data))
					if err == nil {
						err = j.schema.Validate(v)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	schemas := map[string]*jsonschema.Schema{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	batch := make([]job, 0, 64)
	for sc.Scan() {
		ds, data, _ := bytes.Cut(sc.Bytes(), []byte{'\t'})
		s, ok := schemas[string(ds)]
		if !ok {
			v, err := cat.Resolve(string(ds))
			if err != nil {
				return err
			}
			if js, ok := v.Compiled.(interface{ JSONSchema() *jsonschema.Schema }); ok {
				s = js.JSONSchema()
			}
			schemas[string(ds)] = s
		}
		batch = append(batch, job{s, append([]byte(nil), data...)})
		if len(batch) == cap(batch) {
			jobs <- batch
			batch = make([]job, 0, 64)
		}
	}
	jobs <- batch
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	return sc.Err()
}

func fileSize(name string) int64 {
	fi, err := os.Stat(name)
	if err != nil {
		return 0
	}
	return fi.Size()
}
