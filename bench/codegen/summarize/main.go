// Command summarize reads `go test -bench` output of bench/codegen and
// prints the median of each benchmark and the ratios the targets are about
// (generated vs encoding/json, santhosh, go-jsonschema).
package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/evtool/evtool/bench/internal/stats"
)

func main() {
	metric := "cpu-ns/op"
	if len(os.Args) > 1 {
		metric = os.Args[1]
	}
	wall := map[string][]float64{}
	samples := map[string][]float64{}
	allocs := map[string]string{}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := strings.TrimPrefix(f[0], "BenchmarkDecode_")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i]
		}
		for i := 2; i+1 < len(f); i++ {
			switch f[i+1] {
			case metric, "ns/op":
				v, err := strconv.ParseFloat(f[i], 64)
				if err != nil {
					continue
				}
				if f[i+1] == metric {
					samples[name] = append(samples[name], v)
				}
				if f[i+1] == "ns/op" {
					wall[name] = append(wall[name], v)
				}
			case "allocs/op":
				allocs[name] = f[i]
			}
		}
	}
	med := map[string]float64{}
	wmed := map[string]float64{}
	var names []string
	for n, s := range samples {
		med[n] = stats.Median(s)
		wmed[n] = stats.Median(wall[n])
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return med[names[i]] < med[names[j]] })
	fmt.Printf("%-28s %16s %14s %8s %6s\n", "decoder", "median "+metric, "median ns/op", "allocs", "runs")
	for _, n := range names {
		fmt.Printf("%-28s %16.0f %14.0f %8s %6d\n", n, med[n], wmed[n], allocs[n], len(samples[n]))
	}
	fmt.Printf("\nratios of %s medians:\n", metric)
	g := med["Generated"]
	if g == 0 {
		return
	}
	fmt.Println()
	ratio := func(label, other string, want string) {
		if o, ok := med[other]; ok {
			fmt.Printf("%-52s %6.2f  (target %s)\n", label, g/o, want)
		}
	}
	ratio("generated ÷ encoding/json (lower is better)", "EncodingJSON", "<= 1.5")
	if o, ok := med["SanthoshThenEncodingJSON"]; ok {
		fmt.Printf("%-52s %6.2f  (target >= 3)\n", "santhosh+encoding/json ÷ generated (speedup)", o/g)
	}
	if o, ok := med["GoJSONSchema"]; ok {
		fmt.Printf("%-52s %6.2f  (target > 1)\n", "go-jsonschema ÷ generated (speedup)", o/g)
	}
	if v, ok := med["GeneratedViaJSONUnmarshal"]; ok && med["EncodingJSON"] > 0 {
		fmt.Printf("%-52s %6.2f  (encoding/json scans twice before calling UnmarshalJSON)\n", "generated via json.Unmarshal ÷ encoding/json", v/med["EncodingJSON"])
	}
}
