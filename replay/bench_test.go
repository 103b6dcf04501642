package replay

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/internal/pipeline"
)

func BenchmarkConvert(b *testing.B) {
	data, err := os.ReadFile(examplesDir + "/events.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	sc := writeScenario(b, "catalog: "+examplesDir+"\nevents: {file: "+examplesDir+"/events.jsonl}\nconsumer: {run: [x], state: {http: \"http://x\"}}\n")
	h, err := NewHarness(sc, Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("DecodeJSON", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			envelope.DecodeJSON([]byte(lines[i%len(lines)]))
		}
	})
	b.Run("DecodeToRecord", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			d, _ := envelope.DecodeJSON([]byte(lines[i%len(lines)]))
			envelope.ToRecord(ctx, &d.Event, envelope.ModeBinary)
		}
	})
	b.Run("convert", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			c := h.convert(ctx, rawEvent{Raw: []byte(lines[i%len(lines)])}, "t")
			if c.err != nil {
				b.Fatal(c.err)
			}
		}
	})
}

// BenchmarkPipeline is the producer's pipeline without Kafka: read,
// convert, plan; the records are dropped.
func BenchmarkPipeline(b *testing.B) {
	file := os.Getenv("BENCH_EVENTS")
	if file == "" {
		b.Skip("BENCH_EVENTS not set")
	}
	sc := writeScenario(b, "catalog: "+examplesDir+"\nevents: {file: "+file+"}\nconsumer: {run: [x], state: {http: \"http://x\"}}\nchaos: {seed: 1, duplicate: {rate: 0.1, spread: 10}, reorder: {window: 32, rate: 0.5}}\n")
	h, err := NewHarness(sc, Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := h.Validate(ctx); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		src, _ := h.openSource()
		stream, _ := chaos.NewStream(h.sc.Chaos, 1, chaos.All(), func(d chaos.Delivery[*kgo.Record]) error { r := *d.Value; _ = r; return nil })
		n := 0
		err := pipeline.Ordered(ctx, 0, 128, func() (rawEvent, bool, error) { return src.next() },
			func(r rawEvent) converted { return h.convert(ctx, r, "t") },
			func(c converted) error { n++; return stream.Push(c.meta, c.rec) })
		if err != nil {
			b.Fatal(err)
		}
		stream.Close()
		src.close()
		b.ReportMetric(float64(n), "events/op")
	}
}

func BenchmarkFastRecord(b *testing.B) {
	data, err := os.ReadFile(examplesDir + "/events.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		lines = append(lines, []byte(l))
	}
	sc := writeScenario(b, "catalog: "+examplesDir+"\nevents: {file: "+examplesDir+"/events.jsonl}\nconsumer: {run: [x], state: {http: \"http://x\"}}\n")
	h, err := NewHarness(sc, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("fastRecord", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, _, err := h.fastRecord(lines[i%len(lines)], "t", true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("topMembers", func(b *testing.B) {
		var buf [16]member
		for i := 0; b.Loop(); i++ {
			topMembers(lines[i%len(lines)], buf[:0])
		}
	})
	b.Run("canonicalTime", func(b *testing.B) {
		t := []byte("2025-03-03T08:00:05Z")
		for b.Loop() {
			canonicalTime(t)
		}
	})
	b.Run("canonicalURI", func(b *testing.B) {
		u := []byte("https://schemas.example.com/com.example.order.paid/v1.json")
		for b.Loop() {
			canonicalURI(u)
		}
	})
}
