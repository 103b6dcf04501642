// Command replay benchmarks the producing side of `evtool replay` (events
// streamed from a JSONL file, already validated, decoded, turned into Kafka
// records, run through the fault plan with duplicate and reorder on, and
// produced with franz-go) against a bare franz-go producer producing the
// same records (converted once, before timing) to the same broker, in the
// same run.
//
//	go run ./bench/replay                     # 1M events, 3 rounds
//	go run ./bench/replay -n 100000 -rounds 5
//
// The broker is franz-go's kfake (the embedded broker of evtool broker and
// evtool replay). By default it runs in a child process, so that the heap
// measured here is the harness's alone; -broker inprocess runs it in this
// process, as evtool replay does without --brokers.
//
// It prints events/s for both, their ratio (median of the rounds), and the
// harness's largest live heap (sampled after each GC) at a tenth of the
// events and at all of them: the harness streams, so the two should be
// about equal.
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/bench/internal/stats"
	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/replay"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-serve-broker" {
		serveBroker()
		return
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/replay:", err)
		os.Exit(1)
	}
}

// serveBroker is the child process: an embedded broker until stdin closes.
func serveBroker() {
	b, err := kafka.StartBroker(kafka.BrokerConfig{Partitions: 3})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(strings.Join(b.Addrs(), ","))
	signal.Ignore(os.Interrupt)
	_, _ = io.Copy(io.Discard, os.Stdin)
	b.Close()
}

var (
	cpuProfile string
	profile    *os.File
	lastCPU    time.Duration // CPU time of this process in the last phase
)

type config struct {
	n          int
	rounds     int
	events     string
	brokerMode string
	partitions int
	keep       bool
}

func run() error {
	var cfg config
	flag.IntVar(&cfg.n, "n", 1_000_000, "events")
	flag.IntVar(&cfg.rounds, "rounds", 3, "rounds (each: harness, then bare producer); medians are reported")
	flag.StringVar(&cfg.events, "events", "", "events file (default: generated with bench/genevents into a temporary directory)")
	flag.StringVar(&cfg.brokerMode, "broker", "process", "process: kfake in a child process; inprocess: kfake in this process")
	flag.IntVar(&cfg.partitions, "partitions", 3, "partitions")
	flag.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the harness's producing (first round)")
	gogc := flag.Int("gogc", replay.ProducerGCPercent, "GC percent for both producers (evtool replay's setting by default)")
	flag.Parse()
	debug.SetGCPercent(*gogc)
	ctx := context.Background()
	if cpuProfile != "" {
		pf, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer pf.Close()
		profile = pf
	}

	tmp, err := os.MkdirTemp("", "bench-replay-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	events := cfg.events
	if events == "" {
		events = filepath.Join(tmp, "events.jsonl")
		fmt.Fprintf(os.Stderr, "generating %d events...\n", cfg.n)
		gen := exec.Command("go", "run", "./bench/genevents", "-n", fmt.Sprint(cfg.n), "-orders", "5000", "-out", events)
		gen.Stdout, gen.Stderr = os.Stderr, os.Stderr
		if err := gen.Run(); err != nil {
			return fmt.Errorf("genevents (run from the repository root): %w", err)
		}
	}
	tenth := filepath.Join(tmp, "tenth.jsonl")
	if err := head(events, tenth, cfg.n/10); err != nil {
		return err
	}
	info, _ := os.Stat(events)

	brokers, stop, err := startBroker(cfg.brokerMode)
	if err != nil {
		return err
	}
	defer stop()

	// The records of the bare producer: converted once, before timing.
	recFile := filepath.Join(tmp, "records.bin")
	nrec, valueBytes, err := convertAll(ctx, events, recFile, cfg.partitions)
	if err != nil {
		return err
	}

	chaosYAML := "chaos: {seed: 1, duplicate: {rate: 0.1, max: 1, spread: 10}, reorder: {window: 32, scope: key, rate: 0.5}}\n"
	var harnessEPS, harnessRPS, bareEPS, harnessCPU, bareCPU []float64
	var peak, peakTenth uint64
	for round := 1; round <= cfg.rounds; round++ {
		res, hp, err := harnessRun(ctx, events, brokers, cfg.partitions, chaosYAML)
		if err != nil {
			return err
		}
		peak = max(peak, hp)
		secs := time.Duration(res.ProduceTime).Seconds()
		harnessEPS = append(harnessEPS, float64(res.Events)/secs)
		harnessRPS = append(harnessRPS, float64(res.Records)/secs)
		harnessCPU = append(harnessCPU, float64(lastCPU.Nanoseconds())/float64(res.Events)/1000)
		fmt.Fprintf(os.Stderr, "round %d: harness %d events (%d records, %v faults) in %s: %.0f events/s, %.2f µs CPU per event, max live heap %.1f MiB\n",
			round, res.Events, res.Records, res.Applied, res.ProduceTime, harnessEPS[len(harnessEPS)-1], harnessCPU[len(harnessCPU)-1], mib(hp))

		d, err := bareRun(ctx, recFile, brokers, cfg.partitions)
		if err != nil {
			return err
		}
		bareEPS = append(bareEPS, float64(nrec)/d.Seconds())
		bareCPU = append(bareCPU, float64(lastCPU.Nanoseconds())/float64(nrec)/1000)
		fmt.Fprintf(os.Stderr, "round %d: bare producer %d records in %s: %.0f records/s, %.2f µs CPU per record\n", round, nrec, d.Round(time.Millisecond), bareEPS[len(bareEPS)-1], bareCPU[len(bareCPU)-1])
	}
	_, peakTenth, err = harnessRun(ctx, tenth, brokers, cfg.partitions, chaosYAML)
	if err != nil {
		return err
	}

	h, b := stats.Median(harnessEPS), stats.Median(bareEPS)
	fmt.Printf("events: %d (%s, %.0f B per event as JSON, %.0f B record value on average)\n", nrec, filepath.Base(events), float64(info.Size())/float64(nrec), float64(valueBytes)/float64(nrec))
	fmt.Printf("broker: kfake (%s), %d partitions; GOMAXPROCS %d; %d rounds, medians\n", cfg.brokerMode, cfg.partitions, runtime.GOMAXPROCS(0), cfg.rounds)
	fmt.Printf("harness (validated file -> decode -> record -> duplicate 0.1 + reorder key/32 -> produce): %.0f events/s (%.0f records/s with the copies)\n", h, stats.Median(harnessRPS))
	fmt.Printf("bare franz-go producer, same records:                                          %.0f events/s\n", b)
	fmt.Printf("ratio harness/bare: %.2f\n", h/b)
	fmt.Printf("CPU of this process per event: harness %.2f µs, bare producer %.2f µs (the broker's CPU is not counted)\n", stats.Median(harnessCPU), stats.Median(bareCPU))
	fmt.Printf("harness max live heap: %.1f MiB at %d events, %.1f MiB at %d events\n", mib(peakTenth), cfg.n/10, mib(peak), nrec)
	return nil
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// cpuTime is this process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func head(src, dst string, n int) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	r := bufio.NewReaderSize(in, 1<<20)
	w := bufio.NewWriter(out)
	for i := 0; i < n; i++ {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			w.Write(line)
		}
		if err != nil {
			break
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return out.Close()
}

func startBroker(mode string) ([]string, func(), error) {
	switch mode {
	case "inprocess":
		b, err := kafka.StartBroker(kafka.BrokerConfig{Partitions: 3})
		if err != nil {
			return nil, nil, err
		}
		return b.Addrs(), b.Close, nil
	case "process":
		cmd := exec.Command(os.Args[0], "-serve-broker")
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return nil, nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, nil, err
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			return nil, nil, err
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			return nil, nil, fmt.Errorf("broker process: %w", err)
		}
		return strings.Split(strings.TrimSpace(line), ","), func() { stdin.Close(); _ = cmd.Wait() }, nil
	}
	return nil, nil, fmt.Errorf("-broker %q: use process or inprocess", mode)
}

// harnessRun produces the events through evtool replay's harness (the
// chaos run's producing half) and returns its result and peak heap.
func harnessRun(ctx context.Context, events string, brokers []string, partitions int, chaosYAML string) (*replay.RunResult, uint64, error) {
	dir, err := os.MkdirTemp("", "bench-replay-scenario-")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(dir)
	catalog, _ := filepath.Abs("examples/orders")
	abs, _ := filepath.Abs(events)
	text := fmt.Sprintf("catalog: %s\nevents: {file: %s}\nkafka: {partitions: %d}\nconsumer: {run: [none], state: {http: \"http://x\"}}\n%s", catalog, abs, partitions, chaosYAML)
	p := filepath.Join(dir, "scenario.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		return nil, 0, err
	}
	sc, err := replay.LoadScenario(p)
	if err != nil {
		return nil, 0, err
	}
	h, err := replay.NewHarness(sc, replay.Options{Brokers: brokers})
	if err != nil {
		return nil, 0, err
	}
	defer h.Close()
	if _, err := h.Validate(ctx); err != nil {
		return nil, 0, err
	}
	if err := h.Connect(ctx); err != nil {
		return nil, 0, err
	}
	runtime.GC()
	debug.FreeOSMemory()
	// The live heap (marked by the last GC), sampled: what the harness
	// holds, as opposed to the garbage the GC percent lets pile up.
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	if profile != nil {
		if err := pprof.StartCPUProfile(profile); err != nil {
			return nil, 0, err
		}
	}
	c0 := cpuTime()
	res, err := h.Produce(ctx, replay.RunSpec{Name: "chaos", Chaos: true})
	lastCPU = cpuTime() - c0
	if profile != nil {
		pprof.StopCPUProfile()
		profile = nil // the first round only: a profile file holds one profile
	}
	close(done)
	if err != nil {
		return nil, 0, err
	}
	h.DropRun(res)
	return res, peak.Load(), nil
}

// convertAll turns the events into records the way the harness does
// (binary mode, key /orderId, murmur2 partition) and writes them to a file
// the bare producer streams.
func convertAll(ctx context.Context, events, out string, partitions int) (n int64, valueBytes int64, err error) {
	in, err := os.Open(events)
	if err != nil {
		return 0, 0, err
	}
	defer in.Close()
	f, err := os.Create(out)
	if err != nil {
		return 0, 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := envelope.NewReader(in, 0)
	var buf []byte
	for {
		it, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, 0, err
		}
		d, _ := envelope.DecodeJSON(it.Raw)
		if d == nil {
			return 0, 0, fmt.Errorf("line %d: not an event", it.Line)
		}
		rec, err := envelope.ToRecord(ctx, &d.Event, envelope.ModeBinary, envelope.WithKeyFromData("/orderId"))
		if err != nil {
			return 0, 0, err
		}
		rec.Partition = chaos.PartitionOf(rec.Key, partitions)
		buf = encodeRecord(buf[:0], rec)
		if _, err := w.Write(buf); err != nil {
			return 0, 0, err
		}
		n++
		valueBytes += int64(len(rec.Value))
	}
	if err := w.Flush(); err != nil {
		return 0, 0, err
	}
	return n, valueBytes, f.Close()
}

func encodeRecord(b []byte, r *kgo.Record) []byte {
	b = binary.AppendUvarint(b, uint64(r.Partition))
	b = binary.AppendUvarint(b, uint64(len(r.Key)))
	b = append(b, r.Key...)
	b = binary.AppendUvarint(b, uint64(len(r.Headers)))
	for _, h := range r.Headers {
		b = binary.AppendUvarint(b, uint64(len(h.Key)))
		b = append(b, h.Key...)
		b = binary.AppendUvarint(b, uint64(len(h.Value)))
		b = append(b, h.Value...)
	}
	b = binary.AppendUvarint(b, uint64(len(r.Value)))
	return append(b, r.Value...)
}

type byteReader struct{ *bufio.Reader }

func (r byteReader) bytes() ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	b := make([]byte, n)
	_, err = io.ReadFull(r, b)
	return b, err
}

func decodeRecord(r byteReader) (*kgo.Record, error) {
	p, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	rec := &kgo.Record{Partition: int32(p)}
	if rec.Key, err = r.bytes(); err != nil {
		return nil, err
	}
	nh, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	rec.Headers = make([]kgo.RecordHeader, nh)
	for i := range rec.Headers {
		k, err := r.bytes()
		if err != nil {
			return nil, err
		}
		v, err := r.bytes()
		if err != nil {
			return nil, err
		}
		rec.Headers[i] = kgo.RecordHeader{Key: string(k), Value: v}
	}
	rec.Value, err = r.bytes()
	return rec, err
}

// bareRun produces the converted records with a plain franz-go client,
// configured like the harness's producer, and returns the time from the
// first record to the end of the flush.
func bareRun(ctx context.Context, recFile string, brokers []string, partitions int) (time.Duration, error) {
	f, err := os.Open(recFile)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := byteReader{bufio.NewReaderSize(f, 1<<20)}
	opts, err := kafka.ClientConfig{Brokers: brokers}.Options()
	if err != nil {
		return 0, err
	}
	opts = append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.MaxBufferedRecords(10000))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	topic := fmt.Sprintf("bare-%d", time.Now().UnixNano())
	if _, err := adm.CreateTopic(ctx, int32(partitions), -1, nil, topic); err != nil {
		return 0, err
	}
	defer func() {
		_, _ = adm.DeleteTopics(context.Background(), topic)
	}()
	// Neither phase pays for the garbage of the other (an in-process
	// broker frees the previous topic's log).
	runtime.GC()
	debug.FreeOSMemory()
	var firstErr atomic.Pointer[error]
	c0 := cpuTime()
	start := time.Now()
	for {
		rec, err := decodeRecord(r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
		rec.Topic = topic
		cl.Produce(ctx, rec, func(_ *kgo.Record, err error) {
			if err != nil {
				firstErr.CompareAndSwap(nil, &err)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		return 0, err
	}
	d := time.Since(start)
	lastCPU = cpuTime() - c0
	if e := firstErr.Load(); e != nil {
		return 0, *e
	}
	return d, nil
}
