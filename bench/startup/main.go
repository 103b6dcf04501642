// Command startup measures how long an evtool command (by default
// `evtool version`) takes from exec to exit, against two floors built and
// run in the same session: a Go program that does nothing, and one that
// links every package evtool links from outside the repository (the
// standard library and the third-party modules) and does nothing, so runs
// their package initialisation and nothing of evtool's. The difference is
// what evtool's size and package initialisation cost every invocation (a
// CI gate calls evtool many times).
//
//	go run ./bench/startup -runs 200
//	go run ./bench/startup -runs 100 -before /tmp/evtool.old -evtool /tmp/evtool.new -- compat check --dir examples/orders
//
// It builds what it is not given into a temporary directory and runs the
// programs interleaved (so load affects all alike). For each it prints the
// median and minimum wall time and the median CPU time (user+sys) and
// minor page faults of the process (rusage: these mean something on a
// loaded machine, wall time does not), and for each evtool binary the
// allocations of package initialisation (GODEBUG=inittrace=1). With
// -where it also runs each program once under perf and says where its
// page faults are: the binary's text, its other sections, the Go heap,
// or the mappings above it (on this kind of VM a fault is most of the
// cost of a start).
package main

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/evtool/evtool/bench/internal/stats"
)

func main() {
	runs := flag.Int("runs", 200, "runs of each program")
	bin := flag.String("evtool", "", "an evtool binary to measure (default: build ./cmd/evtool)")
	before := flag.String("before", "", "another evtool binary to measure alongside, with the same arguments (a baseline)")
	where := flag.Bool("where", false, "also say where each program's page faults are (one run each under perf record; needs perf)")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		args = []string{"version"}
	}
	if err := run(*runs, *bin, *before, *where, args); err != nil {
		fmt.Fprintln(os.Stderr, "startup:", err)
		os.Exit(2)
	}
}

// program is one binary and its command line, with its measurements.
type program struct {
	name          string
	argv          []string
	inittrace     bool
	wall, cpu, pf []float64
}

func run(runs int, bin, before string, where bool, args []string) error {
	dir, err := os.MkdirTemp("", "evtool-startup")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if bin == "" {
		bin = filepath.Join(dir, "evtool")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/evtool").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	nothing := filepath.Join(dir, "nothing")
	if err := os.WriteFile(filepath.Join(dir, "nothing.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-o", nothing, "nothing.go")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build baseline: %v\n%s", err, out)
	}
	deps, err := buildDepsOnly(dir)
	if err != nil {
		return err
	}
	progs := []*program{{name: "evtool " + strings.Join(args, " "), argv: append([]string{bin}, args...), inittrace: true}}
	if before != "" {
		progs = append(progs, &program{name: "before: same", argv: append([]string{before}, args...), inittrace: true})
	}
	progs = append(progs,
		&program{name: "evtool's dependencies, nothing done", argv: []string{deps}, inittrace: true},
		&program{name: "empty program", argv: []string{nothing}})
	for range runs {
		for _, p := range progs {
			c := exec.Command(p.argv[0], p.argv[1:]...)
			start := time.Now()
			out, err := c.CombinedOutput()
			wall := time.Since(start)
			// Findings (exit 1) are a result, not a failure.
			if err != nil && c.ProcessState.ExitCode() != 1 {
				return fmt.Errorf("%s: %v\n%s", strings.Join(p.argv, " "), err, out)
			}
			ru := c.ProcessState.SysUsage().(*syscall.Rusage)
			p.wall = append(p.wall, float64(wall.Microseconds())/1000)
			p.cpu = append(p.cpu, float64((time.Duration(ru.Utime.Nano())+time.Duration(ru.Stime.Nano())).Microseconds())/1000)
			p.pf = append(p.pf, float64(ru.Minflt))
		}
	}
	fmt.Printf("%d runs each, interleaved\n", runs)
	fmt.Printf("%-40s %12s %12s %12s %12s\n", "", "wall median", "wall min", "CPU median", "page faults")
	for _, p := range progs {
		fmt.Printf("%-40s %9.2f ms %9.2f ms %9.2f ms %12.0f\n", p.name, stats.Median(p.wall), slices.Min(p.wall), stats.Median(p.cpu), stats.Median(p.pf))
	}
	first, last := progs[0], progs[len(progs)-1]
	fmt.Printf("ratio to the empty program (median wall) %.1fx, difference %.2f ms\n", stats.Median(first.wall)/stats.Median(last.wall), stats.Median(first.wall)-stats.Median(last.wall))
	if before != "" {
		b := progs[1]
		fmt.Printf("evtool / before (medians): wall %.2f, CPU %.2f, page faults %.2f\n",
			stats.Median(first.wall)/stats.Median(b.wall), stats.Median(first.cpu)/stats.Median(b.cpu), stats.Median(first.pf)/stats.Median(b.pf))
	}
	for _, p := range progs {
		if !p.inittrace {
			continue
		}
		allocs, nbytes, err := initCost(p.argv)
		if err != nil {
			return err
		}
		fmt.Printf("package init of %q: %d allocations, %d bytes\n", p.argv[0], allocs, nbytes)
	}
	if where {
		for _, p := range progs {
			line, err := faultsWhere(dir, p.argv)
			if err != nil {
				return err
			}
			fmt.Printf("page faults of %s: %s\n", p.name, line)
		}
	}
	return nil
}

// faultsWhere runs argv once under `perf record -e page-faults -d` and
// counts its page faults by what the faulting address lies in: a section
// of the binary, the Go heap's arenas, or the mappings above them
// (shared libraries, the runtime's off-heap metadata, thread stacks).
func faultsWhere(dir string, argv []string) (string, error) {
	data := filepath.Join(dir, "faults.data")
	rec := exec.Command("perf", append([]string{"record", "-q", "-e", "page-faults", "-c", "1", "-d", "-o", data, "--"}, argv...)...)
	if out, err := rec.CombinedOutput(); err != nil && rec.ProcessState.ExitCode() != 1 {
		return "", fmt.Errorf("perf record: %v\n%s", err, out)
	}
	out, err := exec.Command("perf", "script", "-i", data, "-F", "addr").Output()
	if err != nil {
		return "", fmt.Errorf("perf script: %v", err)
	}
	f, err := elf.Open(argv[0])
	if err != nil {
		return "", err
	}
	defer f.Close()
	kind := func(a uint64) string {
		for _, s := range f.Sections {
			if s.Addr == 0 || a < s.Addr || a >= s.Addr+s.Size {
				continue
			}
			switch s.Name {
			case ".text":
				return "binary text"
			case ".data", ".bss", ".noptrdata", ".noptrbss":
				return "binary data/bss"
			}
			return "binary rodata, pclntab, itabs"
		}
		switch {
		case a >= 0x7e0000000000:
			return "libraries, off-heap runtime, stacks"
		case a >= 1<<32:
			// linux/amd64 places (and go1.26 randomises) the heap
			// arenas between the binary and the shared libraries.
			return "Go heap"
		}
		return "other"
	}
	counts := map[string]int{}
	total := 0
	for _, w := range strings.Fields(string(out)) {
		a, err := strconv.ParseUint(w, 16, 64)
		if err != nil {
			return "", fmt.Errorf("perf script: address %q: %v", w, err)
		}
		counts[kind(a)]++
		total++
	}
	names := slices.Sorted(maps.Keys(counts))
	slices.SortStableFunc(names, func(x, y string) int { return counts[y] - counts[x] })
	parts := []string{fmt.Sprintf("%d in all", total)}
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d", n, counts[n]))
	}
	return strings.Join(parts, "; "), nil
}

// buildDepsOnly builds a program that imports, for their side effects,
// every package ./cmd/evtool links from outside this module and whose
// import is allowed from here (and internal/protofeatures), and does nothing: the same package
// initialisation as evtool's, less evtool's own. The program is added to
// the module under a path no file has, through an overlay (-overlay), so
// it resolves the module's dependency versions without touching the tree.
func buildDepsOnly(dir string) (string, error) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Module}}{{.ImportPath}}{{else if ne .Module.Path \"github.com/evtool/evtool\"}}{{.ImportPath}}{{end}}", "./cmd/evtool").Output()
	if err != nil {
		return "", fmt.Errorf("go list: %v", err)
	}
	var src strings.Builder
	src.WriteString("package main\n\nimport (\n")
	for _, p := range strings.Fields(string(out)) {
		// Internal and vendored packages come in through the packages
		// that import them; main packages cannot be imported.
		if p == "C" || p == "unsafe" || strings.HasPrefix(p, "vendor/") || strings.Contains(p, "/internal/") || strings.HasPrefix(p, "internal/") || strings.HasSuffix(p, "/internal") || strings.Contains(p, "/cmd/") {
			continue
		}
		fmt.Fprintf(&src, "\t_ %q\n", p)
	}
	// Generated code standing in for a package protobuf-go lacks: it
	// spares protocompile's init most of its work (see its package).
	src.WriteString("\t_ \"github.com/evtool/evtool/internal/protofeatures\"\n")
	src.WriteString(")\n\nfunc main() {}\n")
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, "deps.go")
	if err := os.WriteFile(file, []byte(src.String()), 0o644); err != nil {
		return "", err
	}
	overlay, err := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(wd, "bench", "startup", "depsonly_overlay", "main.go"): file}})
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "overlay.json"), overlay, 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "depsonly")
	if out, err := exec.Command("go", "build", "-overlay", filepath.Join(dir, "overlay.json"), "-o", bin, "./bench/startup/depsonly_overlay").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build of the dependencies-only program: %v\n%s", err, out)
	}
	return bin, nil
}

// initCost sums GODEBUG=inittrace=1's allocations over every package.
func initCost(argv []string) (allocs, nbytes int, err error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() != 1 {
		return 0, 0, err
	}
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" {
			continue
		}
		b, _ := strconv.Atoi(f[len(f)-4])
		a, _ := strconv.Atoi(f[len(f)-2])
		nbytes += b
		allocs += a
	}
	return allocs, nbytes, sc.Err()
}
