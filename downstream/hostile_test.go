package downstream

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStandInConcurrentKeysJudgedAlike: requests from many goroutines
// with keys new and repeated, of 1 byte to MaxKey, enough to grow the key
// index and the arena several times, while the log is copied meanwhile
// (run with -race); after them, the records taken (TakeLog) and the same
// requests as Entries (Log) give the same findings and summary.
func TestStandInConcurrentKeysJudgedAlike(t *testing.T) {
	s := start(t, Config{Idempotency: &Selector{Header: "Idempotency-Key"}, Limits: Limits{Concurrency: 6}}, nil)
	c := &http.Client{}
	const workers, each = 6, 60
	key := func(w, i int) string {
		n := (w*each + i) % 40 // repeated keys
		if i%3 == 0 {
			n = 1000 + w*each + i // new ones
		}
		return fmt.Sprintf("%0*d", 1+(n*37)%MaxKey, n)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var readers sync.WaitGroup
	readers.Add(1)
	go func() {
		defer readers.Done()
		for {
			select {
			case <-stop:
				return
			default:
				Judge(Input{Log: s.Log()})
			}
		}
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				k := key(w, i)
				if _, _, _, err := post(t, c, s.URL(), `{"receiptId":"`+k+`"}`, "Idempotency-Key", "i"+k, "Ce-Id", "e"+k); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	entries := s.Log()
	if entries.Len() != workers*each {
		t.Fatalf("log of %d requests, want %d", entries.Len(), workers*each)
	}
	taken := s.TakeLog()
	events := []Event{}
	seen := map[string]bool{}
	for w := range workers {
		for i := range each {
			if k := key(w, i); !seen[k] {
				seen[k] = true
				events = append(events, Event{ID: "e" + k, Key: k, Offset: int64(len(events)), Index: int64(len(events)), Order: int64(len(events))})
			}
		}
	}
	// Findings to compare: too many attempts, expected effects missing,
	// events in the DLQ that took effect.
	in := func(l Log) Input {
		return Input{Log: l, Idempotent: true, Events: events, Expect: Expect{Effects: ExactlyOnce, MaxAttempts: 2, OrderPerKey: true},
			Expected: []string{"", "missing", strings.Repeat("m", MaxKey)}, DLQ: map[string]bool{"e" + key(0, 1): true}, DLQKnown: true}
	}
	fa, sa := Judge(in(entries))
	fb, sb := Judge(in(taken))
	t.Logf("%d finding(s); %s", len(fa), sa)
	if d := cmp.Diff(fa, fb); d != "" {
		t.Errorf("findings from Entries and from records differ (-entries +records):\n%s", d)
	}
	if d := cmp.Diff(sa, sb); d != "" {
		t.Errorf("summaries differ (-entries +records):\n%s", d)
	}
	n := 0
	taken.Each(func(e *Entry) {
		if !strings.HasSuffix(e.IdempotencyKey, e.EffectKey) || e.EventID != "e"+e.EffectKey {
			t.Errorf("request %d: keys %q %q %q do not belong together", e.Seq, e.EffectKey, e.IdempotencyKey, e.EventID)
		}
		n++
	})
	if n != workers*each {
		t.Errorf("Each saw %d requests", n)
	}
}
