// Command startup measures how long `evtool version` takes from exec to
// exit, against a Go program that does nothing, built and run in the same
// session: the difference is what evtool's size and package
// initialisation cost every invocation (a CI gate calls evtool many
// times).
//
//	go run ./bench/startup -runs 200
//
// It builds evtool and the baseline into a temporary directory, runs
// them interleaved (so load affects both alike), and prints the median
// and minimum wall time of each, their ratio, and the allocations of
// package initialisation (GODEBUG=inittrace=1).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evtool/evtool/bench/internal/stats"
)

func main() {
	runs := flag.Int("runs", 200, "runs of each program")
	bin := flag.String("evtool", "", "an evtool binary to measure (default: build ./cmd/evtool)")
	flag.Parse()
	if err := run(*runs, *bin); err != nil {
		fmt.Fprintln(os.Stderr, "startup:", err)
		os.Exit(2)
	}
}

func run(runs int, bin string) error {
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
	base := filepath.Join(dir, "nothing")
	if err := os.WriteFile(filepath.Join(dir, "nothing.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-o", base, "nothing.go")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build baseline: %v\n%s", err, out)
	}
	var ev, nothing []float64
	for range runs {
		for _, p := range []struct {
			args []string
			into *[]float64
		}{{[]string{bin, "version"}, &ev}, {[]string{base}, &nothing}} {
			start := time.Now()
			if out, err := exec.Command(p.args[0], p.args[1:]...).CombinedOutput(); err != nil {
				return fmt.Errorf("%s: %v\n%s", p.args[0], err, out)
			}
			*p.into = append(*p.into, float64(time.Since(start).Microseconds())/1000)
		}
	}
	allocs, bytes, err := initCost(bin)
	if err != nil {
		return err
	}
	fmt.Printf("evtool version   median %6.2f ms  min %6.2f ms\n", stats.Median(ev), slices.Min(ev))
	fmt.Printf("empty program    median %6.2f ms  min %6.2f ms\n", stats.Median(nothing), slices.Min(nothing))
	fmt.Printf("ratio (median)   %.1fx   difference %.2f ms\n", stats.Median(ev)/stats.Median(nothing), stats.Median(ev)-stats.Median(nothing))
	fmt.Printf("package init     %d allocations, %d bytes\n", allocs, bytes)
	return nil
}

// initCost sums GODEBUG=inittrace=1's allocations over every package.
func initCost(bin string) (allocs, nbytes int, err error) {
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
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
