package callout

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/downstream"
)

// TestCallAgainstStandIn calls a stand-in whose first attempts fail with
// each fault kind: the correct caller gets every effect exactly once,
// the fresh-key caller duplicates the effect a timeout applied.
func TestCallAgainstStandIn(t *testing.T) {
	for _, tc := range []struct {
		name    string
		faults  Faults
		kind    chaos.DownstreamKind
		to      string
		wantErr error
		effects int
		finding string
	}{
		{"timeout", Faults{}, chaos.Timeout, "a", nil, 1, ""},
		{"429", Faults{}, chaos.Status429, "a", nil, 1, ""},
		{"reset", Faults{}, chaos.Reset, "a", nil, 1, ""},
		{"fresh key under timeout", Faults{FreshKey: true}, chaos.Timeout, "a", nil, 2, "duplicate-effect"},
		{"terminal", Faults{}, chaos.Status503, "invalid", ErrTerminal, 0, ""},
		{"terminal retried", Faults{RetryTerminal: true}, chaos.Status503, "invalid", ErrTerminal, 0, "terminal-retried"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := downstream.NewPlan()
			plan.Add(chaos.Fault{Kind: chaos.Downstream, Event: chaos.Event{ID: "e1"}, Attempt: 1, Answer: tc.kind, Index: 3}, 1)
			s, err := downstream.Start(downstream.Config{Name: "email", Effect: downstream.Selector{Pointer: "/receiptId"},
				Idempotency: &downstream.Selector{Header: "Idempotency-Key"}, Answer: downstream.Answer{Status: 202},
				Terminal: &downstream.Terminal{Pointer: "/to", When: regexp.MustCompile("invalid"), Status: 422}}, plan)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			c := New(Config{URL: s.URL(), Timeout: 200 * time.Millisecond, Base: 5 * time.Millisecond, Cap: 20 * time.Millisecond, MaxAttempts: 4, Faults: tc.faults})
			_, err = c.Call(context.Background(), Request{Path: "/send", Body: map[string]string{"receiptId": "r1", "to": tc.to}, Key: "e1", EventID: "e1"})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			s.Close()
			log := s.Log()
			fs, sum := downstream.Judge(downstream.Input{Log: log, Idempotent: true})
			if sum.Effects != tc.effects {
				t.Errorf("%d effects, want %d: %+v", sum.Effects, tc.effects, log.Entries)
			}
			got := ""
			if len(fs) > 0 {
				got = fs[0].Kind
			}
			if got != tc.finding {
				t.Errorf("findings %v, want %s", fs, tc.finding)
			}
		})
	}
}

func TestRetryAfterAndBackoff(t *testing.T) {
	c := New(Config{URL: "http://127.0.0.1:1", Base: 10 * time.Millisecond, Cap: 80 * time.Millisecond})
	for n := range 10 {
		for range 100 {
			if d := c.backoff(n); d < 0 || d > min(80*time.Millisecond, 10*time.Millisecond<<n) {
				t.Fatalf("backoff(%d) = %s", n, d)
			}
		}
	}
	plan := downstream.NewPlan()
	plan.Add(chaos.Fault{Kind: chaos.Downstream, Event: chaos.Event{ID: "r1"}, Attempt: 1, Answer: chaos.Status429}, 1)
	s, err := downstream.Start(downstream.Config{Name: "x", Effect: downstream.Selector{Pointer: "/receiptId"}}, plan)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c = New(Config{URL: s.URL(), Base: time.Millisecond})
	if _, err := c.Call(context.Background(), Request{Body: map[string]string{"receiptId": "r1"}}); err != nil {
		t.Fatal(err)
	}
	if fs, _ := downstream.Judge(downstream.Input{Log: s.Log()}); len(fs) != 0 {
		t.Errorf("Retry-After not honoured: %v", fs)
	}
}

// 409 (the idempotency key's first request is in progress) is retried
// like a 429, not dead-lettered.
func TestConflictRetried(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	c := New(Config{URL: srv.URL, Timeout: time.Second, Base: time.Millisecond, Cap: 5 * time.Millisecond, MaxAttempts: 3})
	res, err := c.Call(context.Background(), Request{Path: "/send", Body: map[string]string{"receiptId": "r1"}, Key: "e1", EventID: "e1"})
	if err != nil || res.Attempts != 2 {
		t.Fatalf("%+v %v", res, err)
	}
}
