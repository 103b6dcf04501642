// Command compat-bench runs the labelled compatibility corpus
// (compat/testdata/corpus) through evtool's engine in this one process and
// through json-schema-diff (one node process, started here), then prints
// per pair the median time of each, the ratio, and every pair where the two
// disagree, with the corpus label saying which one is right. Both tools
// are asked the strict question (exact set inclusion), the only one
// json-schema-diff answers. Run it with bench/compat/run.sh.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/compat/jsoncompat"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

type pair struct {
	Name   string                       `json:"name"`
	Old    json.RawMessage              `json:"old"`
	New    json.RawMessage              `json:"new"`
	Expect map[string]map[string]string `json:"expect"`
}

type jsdResult struct {
	Name     string  `json:"name"`
	Backward string  `json:"backward"`
	Forward  string  `json:"forward"`
	Error    string  `json:"error"`
	Micros   float64 `json:"micros"`
}

func main() {
	corpus := flag.String("corpus", "compat/testdata/corpus", "directory of labelled pairs")
	rounds := flag.Int("rounds", 7, "runs per pair; the median is reported")
	driver := flag.String("driver", "bench/compat/driver.mjs", "node driver")
	jsdDir := flag.String("jsd", "", "directory where json-schema-diff is installed (node_modules parent)")
	samples := flag.Int("samples", 0, "evtool witness documents per direction (0: default)")
	flag.Parse()

	files, err := filepath.Glob(filepath.Join(*corpus, "*.json"))
	if err != nil || len(files) == 0 {
		log.Fatalf("no corpus in %s", *corpus)
	}
	var pairs []pair
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			log.Fatal(err)
		}
		var p pair
		if err := json.Unmarshal(data, &p); err != nil {
			log.Fatalf("%s: %v", f, err)
		}
		p.Name = strings.TrimSuffix(filepath.Base(f), ".json")
		pairs = append(pairs, p)
	}

	// json-schema-diff: one node process for every pair.
	tmp, err := os.MkdirTemp("", "compat-bench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	in, _ := json.Marshal(map[string]any{"pairs": pairs, "rounds": *rounds})
	inFile := filepath.Join(tmp, "pairs.json")
	if err := os.WriteFile(inFile, in, 0o644); err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command("node", *driver, inFile)
	cmd.Env = append(os.Environ(), "JSD_DIR="+*jsdDir)
	cmd.Stderr = os.Stderr
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("node driver: %v", err)
	}
	jsdWall := time.Since(start)
	jsd := map[string]jsdResult{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r jsdResult
		if err := json.Unmarshal(sc.Bytes(), &r); err == nil {
			jsd[r.Name] = r
		}
	}

	// evtool: this process.
	fmt.Printf("machine: %d cores, %s; %d pairs, median of %d runs each; strict profile, both directions per pair\n\n",
		runtime.NumCPU(), runtime.Version(), len(pairs), *rounds)
	fmt.Printf("%-42s %10s %10s %8s  %s\n", "pair", "evtool µs", "jsd µs", "ratio", "verdicts (B/F)  evtool | json-schema-diff | label")
	var ratios []float64
	var evTotal, jsdTotal float64
	var disagreements []string
	jsdWrong, evWrong, jsdErrors := 0, 0, 0
	for _, p := range pairs {
		old, nw := compile(p.Old), compile(p.New)
		var times []float64
		var verdict [2]string
		for r := 0; r < *rounds; r++ {
			oldSide, newSide := jsoncompat.NewSide(old, nil), jsoncompat.NewSide(nw, nil)
			t0 := time.Now()
			for i, d := range []engine.Direction{engine.Backward, engine.Forward} {
				fs := jsoncompat.Compare(oldSide, newSide, d, engine.Options{Profile: jsoncompat.ProfileStrict, Samples: *samples, Seed: 1})
				verdict[i] = "compatible"
				if !jsoncompat.Compatible(fs) {
					verdict[i] = "incompatible"
				}
			}
			times = append(times, float64(time.Since(t0).Microseconds()))
		}
		sort.Float64s(times)
		ev := times[len(times)/2]
		evTotal += ev
		j := jsd[p.Name]
		label := [2]string{p.Expect["backward"]["strict"], p.Expect["forward"]["strict"]}
		jv := "error"
		ratio := "-"
		if j.Error == "" && j.Backward != "" {
			jv = short(j.Backward) + "/" + short(j.Forward)
			if j.Micros > 0 {
				ratios = append(ratios, ev/j.Micros)
				ratio = fmt.Sprintf("%.2f", ev/j.Micros)
			}
			jsdTotal += j.Micros
			if j.Backward != label[0] || j.Forward != label[1] {
				jsdWrong++
			}
		} else {
			jsdErrors++
		}
		if verdict != label {
			evWrong++
		}
		fmt.Printf("%-42s %10.0f %10.0f %8s  %s | %s | %s\n", trim(p.Name, 42), ev, j.Micros, ratio,
			short(verdict[0])+"/"+short(verdict[1]), jv, short(label[0])+"/"+short(label[1]))
		if j.Error != "" {
			disagreements = append(disagreements, fmt.Sprintf("%s: json-schema-diff failed: %s", p.Name, j.Error))
		} else if j.Backward != verdict[0] || j.Forward != verdict[1] {
			disagreements = append(disagreements, fmt.Sprintf("%s: evtool %s/%s, json-schema-diff %s/%s, label %s/%s",
				p.Name, verdict[0], verdict[1], j.Backward, j.Forward, label[0], label[1]))
		}
	}
	sort.Float64s(ratios)
	med := 0.0
	if len(ratios) > 0 {
		med = ratios[len(ratios)/2]
	}
	fmt.Printf("\nper-pair time ratio evtool/json-schema-diff: median %.2f (over %d pairs json-schema-diff could run)\n", med, len(ratios))
	fmt.Printf("sum of medians: evtool %.1f ms, json-schema-diff %.1f ms (node process wall incl. startup: %v)\n", evTotal/1000, jsdTotal/1000, jsdWall.Round(time.Millisecond))
	fmt.Printf("verdicts against the corpus labels: evtool %d/%d pairs wrong; json-schema-diff %d/%d wrong, %d failed to run\n",
		evWrong, len(pairs), jsdWrong, len(pairs)-jsdErrors, jsdErrors)
	fmt.Printf("\ndisagreements (%d):\n", len(disagreements))
	for _, d := range disagreements {
		fmt.Println("  " + d)
	}
}

func compile(raw json.RawMessage) *jsonschema.Schema {
	doc, err := jsonstrict.Decode(raw)
	if err != nil {
		log.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	u := "file:///evtool-catalog/x.json"
	if err := c.AddResource(u, doc); err != nil {
		log.Fatal(err)
	}
	s, err := c.Compile(u)
	if err != nil {
		log.Fatal(err)
	}
	return s
}

func short(v string) string {
	switch v {
	case "compatible":
		return "ok"
	case "incompatible":
		return "BRK"
	}
	return "?"
}

func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
