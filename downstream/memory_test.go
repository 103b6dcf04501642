package downstream

import (
	"fmt"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/evtool/evtool/internal/heapwatch"
)

// peakHeapGrowth returns how far the live heap rose above its level
// before f while f ran.
func peakHeapGrowth(t *testing.T, f func()) uint64 {
	t.Helper()
	return heapwatch.PeakGrowth(f)
}

// TestEventTableMemoryBounded guards the design: a run's events, kept for
// the oracle, take a fixed record each and their id and key bytes, and
// judging finds them in the table's own index. 200,000 events stay under
// 120 bytes each beyond their ids and keys; a []Event with the index the
// oracle built beside it took about 180.
func TestEventTableMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("keeps 200,000 events")
	}
	const n = 200000
	var idBytes int
	var tab *EventTable
	var found int
	grew := peakHeapGrowth(t, func() {
		tab = NewEventTable("orders")
		for i := range n {
			// The id and key as a run has them: slices of the event's text.
			text := fmt.Sprintf(`{"id":"evt-%010d","key":"k-%06d"}`, i, i%5000)
			id, key := text[7:21], text[30:38]
			idBytes += len(id) + len(key)
			tab.Add(id, key, int32(i%3), int64(i), i+1)
		}
		log := Log{Name: "email"}
		for i := 0; i < n; i += 1000 {
			id := fmt.Sprintf("evt-%010d", i)
			log.Entries = append(log.Entries, Entry{Seq: len(log.Entries) + 1, Start: time.Unix(int64(i), 0), EffectKey: id, EventID: id, Attempt: 1, Outcome: OK, Status: 200, FaultIndex: -1, Effect: true})
		}
		Judge(Input{Log: log, Index: tab})
		for i := 0; i < n; i += 997 {
			if e, ok := tab.Event(fmt.Sprintf("evt-%010d", i)); ok && e.Index == int64(i) && e.Line == i+1 && e.Topic == "orders" {
				found++
			}
		}
	})
	runtime.KeepAlive(tab)
	if want := (n + 996) / 997; found != want {
		t.Fatalf("found %d events by id, want %d", found, want)
	}
	per := (float64(grew) - float64(idBytes)) / n
	t.Logf("%.0f bytes per event beyond its id and key", per)
	if per > 120 {
		t.Errorf("%d events took %.0f bytes each beyond their ids and keys (%.1f MiB in all); the bound is 120", n, per, float64(grew)/(1<<20))
	}
}

// TestJudgeMemoryBounded guards the design: judging a log of Entries
// (one built by hand; a stand-in's is records already) makes it records
// once (64 bytes each) and orders and groups record numbers, not once
// for the order by start and again, with spare room, for each key.
// Judging a log of 100,000 requests raises the live heap by at most twice
// its own size (about 0.7 times here; 1.5 times with one grouped copy of
// the entries, 2.5 times before that).
func TestJudgeMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("judges 100,000 requests")
	}
	const keys, attempts = 50000, 2
	log := Log{Name: "email"}
	t0 := time.Unix(1700000000, 0)
	for a := range attempts {
		for k := range keys {
			id := fmt.Sprintf("evt-%010d", k)
			e := Entry{Seq: len(log.Entries) + 1, Start: t0.Add(time.Duration(a*keys+k) * time.Millisecond), EffectKey: id, EventID: id, Attempt: a + 1, FaultIndex: -1}
			e.End = e.Start.Add(time.Millisecond)
			if a == attempts-1 {
				e.Outcome, e.Status, e.Effect, e.EffectAt = OK, 200, true, e.End
			} else {
				e.Outcome, e.Status = InOutage, 503
			}
			log.Entries = append(log.Entries, e)
		}
	}
	size := uint64(len(log.Entries)) * uint64(unsafe.Sizeof(Entry{}))
	var sum Summary
	grew := peakHeapGrowth(t, func() {
		_, sum = Judge(Input{Log: log})
	})
	if sum.Requests != keys*attempts || sum.Effects != keys || sum.EffectKeys != keys {
		t.Fatalf("summary %+v", sum)
	}
	t.Logf("judging raised the live heap by %.2f times the log", float64(grew)/float64(size))
	if bound := size * 2; grew > bound {
		t.Errorf("judging a log of %d requests (%.1f MiB) raised the live heap by %.1f MiB; the bound is %.1f MiB", len(log.Entries), float64(size)/(1<<20), float64(grew)/(1<<20), float64(bound)/(1<<20))
	}
}

// TestStoredAnswersMemoryBounded guards the design: what a stand-in keeps
// per idempotency key to answer a retry as it answered the first request
// is the key and the index of its answer, the answers themselves kept
// once each (a fixed answer: one). 50,000 keys stay under 300 bytes each
// beyond the keys' bytes (the key table's slots and counters for the
// effect and idempotency keys: about 80; the maps by effect key, event
// and idempotency key: about 140); an answer kept per key (its header
// map) took about 700.
func TestStoredAnswersMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 50,000 requests")
	}
	const n = 50000
	s := start(t, Config{
		Idempotency: &Selector{Header: "Idempotency-Key"},
		Answer:      Answer{Status: 202, Headers: map[string]string{"X-Queue": "mail"}, Body: []byte(`{"queued":true}`)},
	}, nil)
	keyBytes := 0
	var replayed string
	grew := peakHeapGrowth(t, func() {
		for i := range n {
			key := fmt.Sprintf("idem-%010d", i)
			body := fmt.Sprintf(`{"receiptId":"r-%010d"}`, i)
			keyBytes += len(key) + len(body) - len(`{"receiptId":""}`) // the idempotency and effect keys
			req := httptest.NewRequest("POST", "/send", strings.NewReader(body))
			req.Header.Set("Idempotency-Key", key)
			s.ServeHTTP(httptest.NewRecorder(), req)
			if i%1000 == 0 {
				s.TakeLog() // the log is bounded elsewhere (TestJudgeMemoryBounded): not counted here
			}
		}
		s.TakeLog()
		// A retry of the first key is answered as the first request was.
		req := httptest.NewRequest("POST", "/send", strings.NewReader(`{"receiptId":"r-0000000000"}`))
		req.Header.Set("Idempotency-Key", "idem-0000000000")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		replayed = fmt.Sprint(rec.Code, " ", rec.Header().Get("X-Queue"), " ", rec.Body.String())
		s.TakeLog()
	})
	if want := `202 mail {"queued":true}`; replayed != want {
		t.Fatalf("a retry was answered %q, want %q", replayed, want)
	}
	per := (float64(grew) - float64(keyBytes)) / n
	t.Logf("%.0f bytes a key beyond its bytes", per)
	if per > 300 {
		t.Errorf("a stand-in kept %.0f bytes per idempotency key beyond the keys' bytes (%d keys); the bound is 300", per, n)
	}
}

// serveKeys sends attempts requests for each of keys effect keys to s,
// each under an idempotency key and an event id of its own (ce-id), as
// ServeHTTP sees them; it returns the bytes of the three keys of each
// effect, summed.
func serveKeys(s *StandIn, keys, attempts int) int {
	keyBytes := 0
	for a := range attempts {
		for k := range keys {
			id := fmt.Sprintf("evt-%010d", k)
			idem := fmt.Sprintf("idem-%010d", k)
			body := fmt.Sprintf(`{"receiptId":"r-%010d"}`, k)
			if a == 0 {
				keyBytes += len(id) + len(idem) + len(body) - len(`{"receiptId":""}`)
			}
			req := httptest.NewRequest("POST", "/send", strings.NewReader(body))
			req.Header.Set("Idempotency-Key", idem)
			req.Header.Set(EventHeader, id)
			s.ServeHTTP(httptest.NewRecorder(), req)
		}
	}
	return keyBytes
}

// TestRequestLogMemoryBounded guards the design: what a stand-in keeps
// for the oracle is a fixed record per request (times as offsets, keys
// as numbers) and, per distinct key, its bytes once with a fixed record
// of counters, not an entry of strings and times per request beside a
// map per kind of key. Two stand-ins take the same 20,000 effects, one
// request each and four each (idempotency keys and event ids of their
// own); the difference is the cost of a request, the rest the cost of a
// key. Bounds: 100 bytes a request and 200 bytes a key beyond its bytes;
// judging the log, 80 bytes a request. See BENCHMARKS.md for the figures
// before and after.
func TestRequestLogMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 100,000 requests")
	}
	const keys, attempts = 20000, 4
	cfg := Config{Idempotency: &Selector{Header: "Idempotency-Key"}, Answer: Answer{Status: 202}}
	one, many := start(t, cfg, nil), start(t, cfg, nil)
	// What the stand-ins keep (their garbage, a request's, is not the
	// design's: the live heap after a collection, not its peak).
	var keyBytes int
	grewOne := heapwatch.Retained(func() any { keyBytes = serveKeys(one, keys, 1); return one })
	grewMany := heapwatch.Retained(func() any { serveKeys(many, keys, attempts); return many })
	l1, l4 := one.TakeLog(), many.TakeLog()
	if n := l1.Len(); n != keys {
		t.Fatalf("the first stand-in logged %d requests, want %d", n, keys)
	}
	if n := l4.Len(); n != keys*attempts {
		t.Fatalf("the second stand-in logged %d requests, want %d", n, keys*attempts)
	}
	var sum Summary
	grewJudge := peakHeapGrowth(t, func() { _, sum = Judge(Input{Log: l4, Idempotent: true}) })
	if sum.Effects != keys || sum.ByOutcome[Replayed] != keys*(attempts-1) || sum.EffectKeys != keys {
		t.Fatalf("summary %+v", sum)
	}
	perRequest := (float64(grewMany) - float64(grewOne)) / float64(keys*(attempts-1))
	perKey := (float64(grewOne) - perRequest*keys - float64(keyBytes)) / keys
	t.Logf("%.0f bytes a request, %.0f bytes a key beyond its bytes (%d and %d requests: %.1f and %.1f MiB)", perRequest, perKey, keys, keys*attempts, float64(grewOne)/(1<<20), float64(grewMany)/(1<<20))
	if perRequest > 100 {
		t.Errorf("a stand-in kept %.0f bytes per request; the bound is 100", perRequest)
	}
	if perKey > 200 {
		t.Errorf("a stand-in kept %.0f bytes per effect key (with its idempotency key and event id) beyond their bytes; the bound is 200", perKey)
	}
	// Judging the log numbers its records (by start, by key), it does not
	// copy them.
	perJudged := float64(grewJudge) / float64(keys*attempts)
	t.Logf("judging: %.0f bytes a request (%.1f MiB)", perJudged, float64(grewJudge)/(1<<20))
	if perJudged > 80 {
		t.Errorf("judging the log raised the live heap by %.0f bytes per request; the bound is 80", perJudged)
	}
}
