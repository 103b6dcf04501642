package records

import (
	"bufio"
	"os"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/envelope"
)

func loadLines(b *testing.B) [][]byte {
	f, err := os.Open("../examples/orders/events.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	return out
}

// BenchmarkFile is the baseline: the same events validated as a file's.
func BenchmarkFile(b *testing.B) {
	cat, _ := catalog.Load("../examples/orders")
	v := &envelope.Validator{Catalog: cat}
	lines := loadLines(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v.Validate(lines[i%len(lines)])
	}
}

// BenchmarkDecode is the part of a record's check that runs on all cores.
func BenchmarkDecode(b *testing.B) {
	cat, _ := catalog.Load("../examples/orders")
	c := NewChecker(cat)
	lines := loadLines(b)
	recs := make([]*kgo.Record, len(lines))
	for i, l := range lines {
		recs[i] = &kgo.Record{Topic: "t", Value: l, Headers: []kgo.RecordHeader{{Key: "content-type", Value: []byte("application/cloudevents+json")}}}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Decode(recs[i%len(recs)])
	}
}

// BenchmarkCheck is a record's whole check (Decode, then Relate).
func BenchmarkCheck(b *testing.B) {
	cat, _ := catalog.Load("../examples/orders")
	c := NewChecker(cat)
	lines := loadLines(b)
	recs := make([]*kgo.Record, len(lines))
	for i, l := range lines {
		recs[i] = &kgo.Record{Topic: "t", Value: l, Offset: int64(i), Headers: []kgo.RecordHeader{{Key: "content-type", Value: []byte("application/cloudevents+json")}}}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Check(recs[i%len(recs)])
	}
}
