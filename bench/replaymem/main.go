// Command replaymem measures a whole `evtool replay` of generated
// examples/orders events (baseline twice, chaos once, no shrinking) for
// its memory: the peak resident set of evtool's own process (VmHWM, read
// from /proc while it runs; the consumer and the embedded broker's data on
// disk are not counted), its wall time and the wall time per event, for
// one or more evtool binaries side by side, alternating, in the same run,
// each with the example consumer built here or its own (-consumer); the
// consumer's CPU time is reported beside evtool's.
//
//	go build -o /tmp/evtool-before ./cmd/evtool     # at the baseline commit
//	go build -o /tmp/evtool-after ./cmd/evtool
//	go run ./bench/replaymem -evtool before=/tmp/evtool-before,after=/tmp/evtool-after -n 10000,100000 -rounds 3
//
// Events come from bench/genevents (-orders 5000) into -dir, reused when
// present. The scenario is examples/orders/replay.yaml without its
// downstream stand-in (whose rate limit would make the time the stand-in's)
// and without expect.state (written for the 50 orders of the example). Linux
// only (it reads /proc/PID/status).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/evtool/evtool/bench/internal/stats"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/replaymem:", err)
		os.Exit(1)
	}
}

type binary struct{ label, path, consumer string }

type sample struct {
	wall    time.Duration
	hwm     int64         // KiB
	cpu     time.Duration // evtool's own user+system time, its children not counted
	child   time.Duration // its waited-for children's (the consumer's runs)
	verdict string
}

func run() error {
	bins := flag.String("evtool", "", "evtool binaries to compare, label=path,... (default: built from ./cmd/evtool)")
	ns := flag.String("n", "10000,100000", "event counts, comma-separated")
	rounds := flag.Int("rounds", 3, "rounds per binary and count (alternating binaries); medians are reported")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "evtool-replaymem"), "directory for the events, the consumer and the scenarios (kept)")
	skip := flag.String("skip", "", "label:n pairs not to run, comma-separated (e.g. before:1000000: a binary that would not fit in memory)")
	consumers := flag.String("consumer", "", "prebuilt example consumers per evtool label, label=path,... (default: built from ./examples/orders/consumer, for every label)")
	progress := flag.Duration("progress", 0, "if set, run evtool with -v, copy its stderr here and print its peak RSS and CPU time at this interval (a long run in the background)")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	var binaries []binary
	if *bins == "" {
		p := filepath.Join(*dir, "evtool")
		if err := gobuild(p, "./cmd/evtool"); err != nil {
			return err
		}
		binaries = []binary{{label: "evtool", path: p}}
	}
	for _, b := range strings.Split(*bins, ",") {
		if b == "" {
			continue
		}
		label, path, ok := strings.Cut(b, "=")
		if !ok {
			return fmt.Errorf("-evtool %q: want label=path", b)
		}
		binaries = append(binaries, binary{label: label, path: path})
	}
	consumer := filepath.Join(*dir, "consumer")
	if err := gobuild(consumer, "./examples/orders/consumer"); err != nil {
		return err
	}
	for i := range binaries {
		binaries[i].consumer = consumer
	}
	for _, c := range strings.Split(*consumers, ",") {
		if c == "" {
			continue
		}
		label, path, ok := strings.Cut(c, "=")
		found := false
		for i := range binaries {
			if binaries[i].label == label {
				binaries[i].consumer, found = path, true
			}
		}
		if !ok || !found {
			return fmt.Errorf("-consumer %q: want label=path with a label of -evtool", c)
		}
	}
	catalog, err := filepath.Abs("examples/orders")
	if err != nil {
		return err
	}
	skipped := map[string]bool{}
	for _, s := range strings.Split(*skip, ",") {
		skipped[s] = true
	}
	type key struct {
		label string
		n     int
	}
	results := map[key][]sample{}
	var counts []int
	for _, s := range strings.Split(*ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return fmt.Errorf("-n %q: want positive counts", *ns)
		}
		counts = append(counts, n)
		events := filepath.Join(*dir, fmt.Sprintf("events-%d.jsonl", n))
		if _, err := os.Stat(events); err != nil {
			fmt.Fprintf(os.Stderr, "generating %d events...\n", n)
			gen := exec.Command("go", "run", "./bench/genevents", "-n", strconv.Itoa(n), "-orders", "5000", "-out", events)
			gen.Stdout, gen.Stderr = os.Stderr, os.Stderr
			if err := gen.Run(); err != nil {
				return fmt.Errorf("genevents (run from the repository root): %w", err)
			}
		}
		for r := 1; r <= *rounds; r++ {
			for _, b := range binaries {
				if skipped[fmt.Sprintf("%s:%d", b.label, n)] {
					continue
				}
				scenario := filepath.Join(*dir, fmt.Sprintf("scenario-%d.yaml", n))
				if b.consumer != consumer {
					scenario = filepath.Join(*dir, fmt.Sprintf("scenario-%d-%s.yaml", n, b.label))
				}
				if err := os.WriteFile(scenario, []byte(scenarioText(catalog, events, b.consumer, n)), 0o644); err != nil {
					return err
				}
				s, err := measure(b.path, scenario, *progress)
				if err != nil {
					// A replay that failed (a consumer too slow to
					// answer on a loaded machine) is reported, not
					// counted.
					fmt.Fprintf(os.Stderr, "round %d %s n=%d: failed after %.1f s (CPU %.1f s, peak RSS %.0f MiB): %v\n", r, b.label, n, s.wall.Seconds(), s.cpu.Seconds(), float64(s.hwm)/1024, err)
					continue
				}
				results[key{b.label, n}] = append(results[key{b.label, n}], s)
				fmt.Fprintf(os.Stderr, "round %d %s n=%d: wall %.1f s, CPU %.1f s (consumer %.1f s), peak RSS %.0f MiB, %s\n", r, b.label, n, s.wall.Seconds(), s.cpu.Seconds(), s.child.Seconds(), float64(s.hwm)/1024, s.verdict)
			}
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("machine: %d CPUs (GOMAXPROCS of evtool), load average at the end: %s", numCPU(), load)
	// CPU seconds are evtool's own: on a loaded machine its wall time is
	// mostly waiting, for the CPU and for the consumer.
	fmt.Printf("%-10s %10s %10s %12s %10s %12s %14s %14s %8s\n", "evtool", "events", "wall s", "wall µs/ev", "CPU s", "CPU µs/ev", "consumer CPU s", "peak RSS MiB", "runs")
	for _, n := range counts {
		for _, b := range binaries {
			ss := results[key{b.label, n}]
			if len(ss) == 0 {
				fmt.Printf("%-10s %10d %10s %12s %10s %12s %14s %14s %8d\n", b.label, n, "-", "-", "-", "-", "-", "-", 0)
				continue
			}
			var walls, cpus, childs, hwms []float64
			for _, s := range ss {
				walls = append(walls, s.wall.Seconds())
				cpus = append(cpus, s.cpu.Seconds())
				childs = append(childs, s.child.Seconds())
				hwms = append(hwms, float64(s.hwm)/1024)
			}
			w, c := stats.Median(walls), stats.Median(cpus)
			fmt.Printf("%-10s %10d %10.1f %12.1f %10.1f %12.1f %14.1f %14.0f %8d\n", b.label, n, w, w/float64(n)*1e6, c, c/float64(n)*1e6, stats.Median(childs), stats.Median(hwms), len(ss))
		}
	}
	return nil
}

func numCPU() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return bytes.Count(b, []byte("\nprocessor")) + 1
}

func gobuild(out, pkg string) error {
	if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}

// scenarioText is the scenario for n events. Its settle limit grows with
// them (3 ms an event, at least 30 minutes): on a loaded machine the
// consumer took 27 minutes to settle 1,000,000 events once, and more than
// 30 the second time.
func scenarioText(catalog, events, consumer string, n int) string {
	settle := max(30*time.Minute, time.Duration(n)*3*time.Millisecond)
	return fmt.Sprintf(`catalog: %s
events: {file: %s}
kafka: {topic: orders, partitions: 3, mode: binary}
consumer:
  run: [%s]
  state: {http: "http://${EVTOOL_ADDR}/state"}
  ignore: [/orders/*/updatedAt]
  settle_timeout: %s
  quiet: 500ms
chaos:
  seed: 42
  duplicate: {rate: 0.2, max: 2, spread: 20}
  reorder: {window: 40, scope: key, rate: 0.5}
  skew: {rate: 0.5}
  poison: {rate: 0.01}
  crash: {count: 2, at: after-effect}
expect:
  dlq: {count: poison}
`, catalog, events, consumer, settle)
}

// measure runs one replay and samples evtool's VmHWM and CPU time until
// it exits. With progress set it logs both at that interval.
func measure(evtool, scenario string, progress time.Duration) (sample, error) {
	args := []string{"replay", scenario, "--shrink-budget", "0", "--format", "json"}
	if progress > 0 {
		args = append(args, "-v")
	}
	cmd := exec.Command(evtool, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if progress > 0 {
		cmd.Stderr = io.MultiWriter(&errb, os.Stderr)
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	done := make(chan struct{})
	type peaks struct {
		hwm        int64
		cpu, child time.Duration
	}
	got := make(chan peaks, 1)
	go func() {
		var p peaks
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		last := time.Now()
		for {
			if v := vmHWM(cmd.Process.Pid); v > p.hwm {
				p.hwm = v
			}
			// The last reading before exit: at most one tick short.
			if v, c := cpuTime(cmd.Process.Pid); v > p.cpu || c > p.child {
				p.cpu, p.child = max(p.cpu, v), max(p.child, c)
			}
			if progress > 0 && time.Since(last) >= progress {
				last = time.Now()
				fmt.Fprintf(os.Stderr, "replaymem: %s: %.0f s, CPU %.1f s, peak RSS %.0f MiB\n", time.Now().UTC().Format(time.TimeOnly), time.Since(t0).Seconds(), p.cpu.Seconds(), float64(p.hwm)/1024)
			}
			select {
			case <-done:
				got <- p
				return
			case <-t.C:
			}
		}
	}()
	err := cmd.Wait()
	wall := time.Since(t0)
	close(done)
	p := <-got
	s := sample{wall: wall, hwm: p.hwm, cpu: p.cpu, child: p.child}
	var rep struct {
		Verdict string `json:"verdict"`
		Summary string `json:"summary"`
	}
	_ = json.Unmarshal(out.Bytes(), &rep)
	s.verdict = rep.Verdict
	if err != nil {
		return s, fmt.Errorf("%v: %s %s", err, rep.Summary, lastLines(errb.String(), 5))
	}
	return s, nil
}

// vmHWM is the peak resident set of a process (KiB), 0 once it is gone.
// It is read while the process runs: a zombie's status has no VmHWM.
func vmHWM(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// cpuTime is a process's own user and system time (utime and stime of
// /proc/PID/stat) and its waited-for children's (cutime and cstime: the
// consumer's runs, once each ended), 0 once it is gone.
func cpuTime(pid int) (own, children time.Duration) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime, stime, cutime and cstime are
	// fields 14 to 17.
	if len(f) < 15 {
		return 0, 0
	}
	var v [4]int64
	for i := range v {
		v[i], _ = strconv.ParseInt(f[11+i], 10, 64)
	}
	// USER_HZ is 100 on every Linux this runs on.
	return time.Duration(v[0]+v[1]) * (time.Second / 100), time.Duration(v[2]+v[3]) * (time.Second / 100)
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}
