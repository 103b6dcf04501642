// Command replaytime measures the time budget of issue 6: a replay of
// 1,000 events with 2 crashes of the consumer on the embedded broker,
// shrinking excluded, against the same replay without crashes, in the same
// run, alternating.
//
//	go run ./bench/replaytime              # 5 rounds
//	go run ./bench/replaytime -rounds 9
//	go run ./bench/replaytime -instances 3 -rebalance '{count: 3, kinds: [join, leave, kill, stall]}'
//
// It builds evtool and the example consumer once (so no round pays for
// `go run` compiling the consumer), writes two scenarios equal to
// examples/orders/replay.yaml with absolute paths (one without its crash
// line), runs `evtool replay SCENARIO --shrink-budget 0 --format json`
// for each, and prints per variant the median wall time of the whole
// command and of its runs (baseline, chaos) from the JSON report, and the
// ratios crash / no crash and chaos run / baseline run.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/replaytime:", err)
		os.Exit(1)
	}
}

type report struct {
	Verdict string `json:"verdict"`
	Runs    []struct {
		ID        string `json:"id"`
		TotalTime int64  `json:"totalTime"` // milliseconds
		Kills     []struct {
			Records int64 `json:"records"`
		} `json:"kills"`
		Rebalances []struct {
			Move string `json:"move"`
		} `json:"rebalances"`
	} `json:"runs"`
}

type sample struct {
	wall, baseline, chaos time.Duration
	kills, rebalances     int
}

func run() error {
	rounds := flag.Int("rounds", 5, "rounds (each runs both variants)")
	scenario := flag.String("scenario", "examples/orders/replay.yaml", "scenario with a crash line to time")
	instances := flag.Int("instances", 1, "consumer.instances of both variants")
	rebalance := flag.String("rebalance", "", "chaos.rebalance of the first variant, replacing its crash line, e.g. '{count: 3, kinds: [join, leave, kill, stall]}' (the second variant has neither)")
	flag.Parse()

	dir, err := os.MkdirTemp("", "evtool-replaytime-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	evtool, consumer := filepath.Join(dir, "evtool"), filepath.Join(dir, "consumer")
	for _, b := range [][2]string{{evtool, "./cmd/evtool"}, {consumer, "./examples/orders/consumer"}} {
		if out, err := exec.Command("go", "build", "-o", b[0], b[1]).CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", b[1], err, out)
		}
	}
	text, err := os.ReadFile(*scenario)
	if err != nil {
		return err
	}
	base, err := filepath.Abs(filepath.Dir(*scenario))
	if err != nil {
		return err
	}
	withCrash := strings.NewReplacer(
		"catalog: .\n", "catalog: "+base+"\n",
		"file: events.jsonl", "file: "+filepath.Join(base, "events.jsonl"),
		`run: ["${EVTOOL_BUILD}/consumer"]`, "run: ["+consumer+"]",
	).Replace(string(text))
	// The consumer is built above: no consumer.build.
	var unbuilt []string
	for _, l := range strings.Split(withCrash, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "build: [go, build") {
			unbuilt = append(unbuilt, l)
		}
	}
	withCrash = strings.Join(unbuilt, "\n")
	var noCrash []string
	for _, l := range strings.Split(withCrash, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "crash:") {
			noCrash = append(noCrash, l)
		}
	}
	if !strings.Contains(withCrash, "run: ["+consumer+"]") || len(noCrash) == strings.Count(withCrash, "\n")+1 {
		return fmt.Errorf("%s: expected the consumer line `run: [\"${EVTOOL_BUILD}/consumer\"]` and a crash line", *scenario)
	}
	variants := []struct{ name, path, text string }{
		{"2 crashes", filepath.Join(dir, "crash.yaml"), withCrash},
		{"no crash", filepath.Join(dir, "nocrash.yaml"), strings.Join(noCrash, "\n")},
	}
	if *instances > 1 || *rebalance != "" {
		// Both variants with the instances; the first with the
		// rebalance faults instead of the crashes.
		grouped := func(text string) string {
			return strings.Replace(text, "\nconsumer:\n", fmt.Sprintf("\nconsumer:\n  instances: %d\n", *instances), 1)
		}
		var withRebalance []string
		for _, l := range strings.Split(withCrash, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "crash:") {
				if *rebalance != "" {
					withRebalance = append(withRebalance, "  rebalance: "+*rebalance)
				}
				continue
			}
			withRebalance = append(withRebalance, l)
		}
		variants[0].name, variants[0].text = "rebalances", grouped(strings.Join(withRebalance, "\n"))
		variants[1].name, variants[1].text = "no rebalance", grouped(variants[1].text)
	}
	for _, v := range variants {
		if err := os.WriteFile(v.path, []byte(v.text), 0o644); err != nil {
			return err
		}
	}

	samples := make([][]sample, len(variants))
	for r := range *rounds {
		for i, v := range variants {
			s, err := once(evtool, v.path)
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", r+1, v.name, err)
			}
			samples[i] = append(samples[i], s)
			fmt.Fprintf(os.Stderr, "round %d %-9s wall %v baseline %v chaos %v kills %d rebalances %d\n", r+1, v.name, s.wall.Round(time.Millisecond), s.baseline, s.chaos, s.kills, s.rebalances)
		}
	}

	fmt.Printf("1,000 events (%s), %d instance(s), embedded broker, %d rounds, GOMAXPROCS %d, %s/%s %s; medians:\n\n", *scenario, *instances, *rounds, runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version())
	fmt.Println("| variant | evtool replay wall | baseline run | chaos run | chaos / baseline |")
	fmt.Println("|---|---:|---:|---:|---:|")
	med := make([]sample, len(variants))
	for i, v := range variants {
		med[i] = sample{
			wall:     median(samples[i], func(s sample) time.Duration { return s.wall }),
			baseline: median(samples[i], func(s sample) time.Duration { return s.baseline }),
			chaos:    median(samples[i], func(s sample) time.Duration { return s.chaos }),
		}
		fmt.Printf("| %s | %.2f s | %.2f s | %.2f s | %.2f |\n", v.name, med[i].wall.Seconds(), med[i].baseline.Seconds(), med[i].chaos.Seconds(), med[i].chaos.Seconds()/med[i].baseline.Seconds())
	}
	fmt.Printf("\nwall, %s / %s: %.2f\n", variants[0].name, variants[1].name, med[0].wall.Seconds()/med[1].wall.Seconds())
	return nil
}

// once runs one replay and reads its timings from the JSON report.
func once(evtool, scenario string) (sample, error) {
	var out, errOut bytes.Buffer
	cmd := exec.Command(evtool, "replay", scenario, "--shrink-budget", "0", "--format", "json")
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%v\n%s%s", err, out.Bytes(), errOut.Bytes())
	}
	var rep report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return sample{}, err
	}
	s := sample{wall: wall}
	for _, r := range rep.Runs {
		d := time.Duration(r.TotalTime) * time.Millisecond
		switch r.ID {
		case "baseline":
			s.baseline = d
		case "chaos":
			s.chaos, s.kills, s.rebalances = d, len(r.Kills), len(r.Rebalances)
		}
	}
	if rep.Verdict != "pass" || s.chaos == 0 {
		return sample{}, fmt.Errorf("verdict %s:\n%s", rep.Verdict, out.Bytes())
	}
	return s, nil
}

func median(ss []sample, f func(sample) time.Duration) time.Duration {
	ds := make([]time.Duration, len(ss))
	for i, s := range ss {
		ds[i] = f(s)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}
