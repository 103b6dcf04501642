// Command validatetopic benchmarks `evtool validate --topic` against
// `evtool validate FILE` on the same events, in the same run: the events of
// a JSONL file are produced once to an embedded broker (structured mode,
// the record value is the event's JSON line, keyed by data.orderId), then
// both commands run as child processes, alternating, for several rounds.
// It prints each side's median events per wall second and per CPU second of
// the child (user+system; the broker runs in this process, as a cluster
// would elsewhere), and their ratios: per CPU second stays meaningful when
// other work shares the machine.
// See run.sh, which builds what it needs.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/kafka"
)

func main() {
	evtool := flag.String("evtool", "", "evtool binary")
	dir := flag.String("dir", "examples/orders", "catalog")
	events := flag.String("events", "", "JSONL events file")
	rounds := flag.Int("rounds", 5, "rounds; medians are reported")
	flag.Parse()
	if err := run(*evtool, *dir, *events, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "validatetopic:", err)
		os.Exit(2)
	}
}

func run(evtool, dir, events string, rounds int) error {
	b, err := kafka.StartBroker(kafka.BrokerConfig{Partitions: 3, Topics: []string{"bench"}})
	if err != nil {
		return err
	}
	defer b.Close()
	n, err := produce(b.Addrs(), events)
	if err != nil {
		return err
	}
	brokers := strings.Join(b.Addrs(), ",")
	sides := []struct {
		name string
		args []string
	}{
		{"validate FILE", []string{"validate", "--dir", dir, events}},
		{"validate --topic", []string{"validate", "--dir", dir, "--brokers", brokers, "--topic", "bench"}},
	}
	rates := make([][]float64, len(sides))
	cpuRates := make([][]float64, len(sides))
	for r := 0; r < rounds; r++ {
		for i, s := range sides {
			start := time.Now()
			cmd := exec.Command(evtool, s.args...)
			out, _ := cmd.Output()
			el := time.Since(start)
			cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			cpuRates[i] = append(cpuRates[i], float64(n)/cpu.Seconds())
			if !bytes.Contains(out, []byte(fmt.Sprintf("%d ", n))) {
				return fmt.Errorf("%s did not check %d events: %s", s.name, n, lastLine(out))
			}
			rates[i] = append(rates[i], float64(n)/el.Seconds())
		}
	}
	fmt.Printf("%d events, %d rounds, medians\n", n, rounds)
	med := make([]float64, len(sides))
	cpuMed := make([]float64, len(sides))
	for i, s := range sides {
		med[i], cpuMed[i] = median(rates[i]), median(cpuRates[i])
		fmt.Printf("%-18s %10.0f events/s wall %10.0f events/CPU-s\n", s.name, med[i], cpuMed[i])
	}
	fmt.Printf("ratio topic/file   %10.2f wall      %10.2f CPU\n", med[1]/med[0], cpuMed[1]/cpuMed[0])
	return nil
}

func produce(addrs []string, events string) (int, error) {
	f, err := os.Open(events)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.DefaultProduceTopic("bench"))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	ctx := context.Background()
	n := 0
	var firstErr error
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		var e struct {
			Data struct {
				OrderID string `json:"orderId"`
			} `json:"data"`
		}
		_ = json.Unmarshal(line, &e)
		cl.Produce(ctx, &kgo.Record{Key: []byte(e.Data.OrderID), Value: line,
			Headers: []kgo.RecordHeader{{Key: "content-type", Value: []byte("application/cloudevents+json")}}},
			func(_ *kgo.Record, err error) {
				if err != nil && firstErr == nil {
					firstErr = err
				}
			})
		n++
	}
	if err := cl.Flush(ctx); err != nil {
		return 0, err
	}
	if firstErr != nil {
		return 0, firstErr
	}
	return n, sc.Err()
}

func median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
