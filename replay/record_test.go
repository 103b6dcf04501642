package replay

import (
	"bytes"
	"context"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/envelope"
)

func sortedHeaders(r *kgo.Record) []string {
	var out []string
	for _, h := range r.Headers {
		out = append(out, h.Key+"="+string(h.Value))
	}
	sort.Strings(out)
	return out
}

// The fast path makes the record envelope.ToRecord makes, or steps aside.
func TestFastRecordMatchesToRecord(t *testing.T) {
	data, err := os.ReadFile(examplesDir + "/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	// Variants the fast path must handle, or hand to the slow path.
	first := lines[0]
	lines = append(lines,
		strings.Replace(first, `"time":"2025-03-03T08:00:05Z"`, `"time":"2025-03-03T08:00:05.120+02:00"`, 1),
		strings.Replace(first, `"time":"2025-03-03T08:00:05Z"`, `"time":"2025-03-03t08:00:05z"`, 1),
		strings.Replace(first, `"subject":"ord-00023"`, `"subject":"ord-\u0030023","traceparent":"00-abc","count":3,"flag":true`, 1),
		strings.Replace(first, `"subject":"ord-00023"`, `"subject":null,"zext":"z","aext":"a"`, 1),
		strings.Replace(first, `"datacontenttype":"application/json"`, `"datacontenttype":"application/json; charset=utf-8"`, 1),
		strings.Replace(first, `"datacontenttype":"application/json",`, ``, 1),
		strings.Replace(first, `"source":"/orders-service"`, `"source":"/orders-service?x=%41"`, 1),
		"{\n  "+strings.ReplaceAll(first[1:], `,"`, ",\n  \""),
	)
	for _, mode := range []envelope.Mode{envelope.ModeBinary, envelope.ModeStructured} {
		sc := writeScenario(t, "catalog: "+examplesDir+"\nevents: {file: "+examplesDir+"/events.jsonl}\nconsumer: {run: [x], state: {http: \"http://x\"}}\nkafka: {mode: "+mode.String()+"}\n")
		h, err := NewHarness(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		fast := 0
		for i, l := range lines {
			raw := []byte(l)
			slow := h.slowRecord(context.Background(), rawEvent{Raw: raw, Line: i + 1}, "t")
			if slow.err != nil {
				// Only the variants may be invalid for the source pattern.
				continue
			}
			rec, m, err := h.fastRecord(raw, "t", true)
			if err != nil {
				continue
			}
			fast++
			m.Line = i + 1
			if m != slow.meta {
				t.Fatalf("line %d: meta %+v, want %+v", i+1, m, slow.meta)
			}
			if !bytes.Equal(rec.Key, slow.rec.Key) || rec.Partition != slow.rec.Partition || rec.Topic != slow.rec.Topic {
				t.Fatalf("line %d: key/partition %q/%d, want %q/%d", i+1, rec.Key, rec.Partition, slow.rec.Key, slow.rec.Partition)
			}
			switch mode {
			case envelope.ModeBinary:
				if diff := cmp.Diff(sortedHeaders(slow.rec), sortedHeaders(rec)); diff != "" || !bytes.Equal(rec.Value, slow.rec.Value) {
					t.Fatalf("line %d: headers (-ToRecord +fast):\n%s\nvalue %s\nwant  %s", i+1, diff, rec.Value, slow.rec.Value)
				}
			case envelope.ModeStructured:
				a, _, err := envelope.FromRecord(rec)
				if err != nil {
					t.Fatal(err)
				}
				b, _, _ := envelope.FromRecord(slow.rec)
				if a.Event.String() != b.Event.String() {
					t.Fatalf("line %d: event\n%s\nwant\n%s", i+1, a.Event.String(), b.Event.String())
				}
			}
		}
		if fast < 1000 {
			t.Fatalf("%s: the fast path took only %d of %d events", mode, fast, len(lines))
		}
		h.Close()
	}
}
