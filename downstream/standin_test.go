package downstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/internal/waitfor"
)

func post(t *testing.T, c *http.Client, url, body string, header ...string) (int, http.Header, string, error) {
	t.Helper()
	req, err := http.NewRequest("POST", url+"/send", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b), nil
}

func start(t *testing.T, cfg Config, plan *Plan) *StandIn {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "email"
	}
	if cfg.Effect == (Selector{}) {
		cfg.Effect = Selector{Pointer: "/receiptId"}
	}
	s, err := Start(cfg, plan)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL %s is not on 127.0.0.1", s.URL())
	}
	return s
}

func TestStandInAnswersAndLogs(t *testing.T) {
	s := start(t, Config{
		Idempotency: &Selector{Header: "Idempotency-Key"},
		Answer:      Answer{Status: 202, Body: []byte(`{"queued":true}`)},
		Terminal:    &Terminal{Pointer: "/to", When: regexp.MustCompile("invalid"), Status: 422},
	}, nil)
	c := &http.Client{}
	for _, tc := range []struct {
		body, idem string
		status     int
		answer     string
	}{
		{`{"receiptId":"r1","to":"a@x"}`, "k1", 202, `{"queued":true}`},
		{`{"receiptId":"r1","to":"a@x"}`, "k1", 202, `{"queued":true}`}, // replayed
		{`{"receiptId":"r1","to":"a@x"}`, "k2", 202, `{"queued":true}`}, // a fresh key: a second effect
		{`{"receiptId":"r2","to":"invalid"}`, "k3", 422, ""},
		{`{"to":"a@x"}`, "k4", 400, ""},
		{`not json`, "k5", 400, ""},
	} {
		st, _, body, err := post(t, c, s.URL(), tc.body, "Idempotency-Key", tc.idem)
		if err != nil || st != tc.status || (tc.answer != "" && body != tc.answer) {
			t.Errorf("%s %s: got %d %q %v, want %d %q", tc.body, tc.idem, st, body, err, tc.status, tc.answer)
		}
	}
	log := s.Log()
	var got []string
	for _, e := range log.Entries {
		got = append(got, string(e.Outcome)+":"+e.EffectKey+":"+e.IdempotencyKey)
	}
	want := "ok:r1:k1 replayed:r1:k1 ok:r1:k2 terminal:r2:k3 bad-request::k4 bad-request::k5"
	if strings.Join(got, " ") != want {
		t.Errorf("log %v, want %s", got, want)
	}
	if e := log.Entries[2]; e.Attempt != 3 || !e.Effect || e.Seq != 3 {
		t.Errorf("entry 3: %+v", e)
	}
}

// TestStandInFaults applies each fault kind to attempt 1 of an event and
// checks the answer, the effect and the log.
func TestStandInFaults(t *testing.T) {
	for _, tc := range []struct {
		kind   chaos.DownstreamKind
		status int // 0: connection error
		effect bool
		gaveUp bool
	}{
		{chaos.Status429, 429, false, false},
		{chaos.Status500, 500, false, false},
		{chaos.Status503, 503, false, false},
		{chaos.Reset, 0, false, false},
		{chaos.Timeout, 0, true, true},
		{chaos.Slow, 200, true, false},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			plan := NewPlan()
			plan.Add(chaos.Fault{Index: 7, Kind: chaos.Downstream, Event: chaos.Event{ID: "e1"}, Attempt: 1, Answer: tc.kind}, 10)
			s := start(t, Config{SlowDelay: 50 * time.Millisecond, Hold: 20 * time.Second}, plan)
			// Only a timeout needs the client to give up (the stand-in
			// holds until it does); every other answer gets all the time
			// a loaded machine needs.
			patient := &http.Client{Timeout: 30 * time.Second}
			c := patient
			if tc.kind == chaos.Timeout {
				c = &http.Client{Timeout: 300 * time.Millisecond}
			}
			t0 := time.Now()
			st, h, _, err := post(t, c, s.URL(), `{"receiptId":"r1"}`, EventHeader, "e1")
			if tc.status == 0 && err == nil || tc.status != 0 && st != tc.status {
				t.Fatalf("got %d, %v; want %d", st, err, tc.status)
			}
			if tc.kind == chaos.Status429 && h.Get("Retry-After") != "1" {
				t.Errorf("Retry-After %q", h.Get("Retry-After"))
			}
			if tc.kind == chaos.Slow && time.Since(t0) < 50*time.Millisecond {
				t.Errorf("a slow answer came after %v, before the 50ms delay", time.Since(t0))
			}
			if tc.kind == chaos.Timeout && time.Since(t0) > 10*time.Second {
				t.Errorf("a timeout held past the client's disconnect")
			}
			// Attempt 2 is healthy.
			if st, _, _, err := post(t, patient, s.URL(), `{"receiptId":"r1"}`, EventHeader, "e1"); err != nil || st != 200 {
				t.Fatalf("attempt 2: %d %v", st, err)
			}
			waitEntries(t, s, 2)
			e := s.Log().Entries
			var first Entry
			for _, x := range e {
				if x.Attempt == 1 {
					first = x
				}
			}
			if first.Fault != tc.kind || first.FaultIndex != 7 || first.Effect != tc.effect || first.GaveUp != tc.gaveUp || first.Status != tc.status {
				t.Errorf("entry %+v", first)
			}
		})
	}
}

func waitEntries(t *testing.T, s *StandIn, n int) {
	t.Helper()
	// The entry is logged after the answer is written: the client can
	// see the answer first.
	waitfor.Must(t, 20*time.Second, fmt.Sprintf("the log has %d entries", n), func() bool { return len(s.Log().Entries) >= n })
}

func TestStandInOutage(t *testing.T) {
	plan := NewPlan()
	// Progress 0.3 of 10 events: from request 3.
	plan.Add(chaos.Fault{Index: 0, Kind: chaos.Outage, Progress: 0.3, Duration: time.Hour}, 10)
	s := start(t, Config{}, plan)
	var got []int
	for i := range 4 {
		st, _, _, err := post(t, http.DefaultClient, s.URL(), `{"receiptId":"r`+string(rune('a'+i))+`"}`)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, st)
	}
	if want := []int{200, 200, 503, 503}; !equalInts(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	if l := s.Log(); len(l.Outages) != 1 || l.Outages[0].Fault != 0 {
		t.Errorf("outages %+v", l.Outages)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestStandInLimits(t *testing.T) {
	t.Run("rate", func(t *testing.T) {
		s := start(t, Config{Limits: Limits{Rate: 3}}, nil)
		var got []int
		for i := range 5 {
			st, h, _, err := post(t, http.DefaultClient, s.URL(), `{"receiptId":"r`+string(rune('a'+i))+`"}`)
			if err != nil {
				t.Fatal(err)
			}
			if st == 429 && h.Get("Retry-After") != "1" {
				t.Errorf("429 without Retry-After")
			}
			got = append(got, st)
		}
		if want := []int{200, 200, 200, 429, 429}; !equalInts(got, want) {
			t.Errorf("statuses %v, want %v", got, want)
		}
	})
	t.Run("concurrency", func(t *testing.T) {
		plan := NewPlan()
		plan.Add(chaos.Fault{Kind: chaos.Downstream, Event: chaos.Event{ID: "held"}, Attempt: 1, Answer: chaos.Timeout}, 1)
		s := start(t, Config{Limits: Limits{Concurrency: 1}, Hold: 20 * time.Second}, plan)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			req, _ := http.NewRequestWithContext(ctx, "POST", s.URL(), strings.NewReader(`{"receiptId":"held"}`))
			_, _ = http.DefaultClient.Do(req)
		}()
		// The held request is in flight once its effect is applied.
		waitfor.Must(t, 20*time.Second, "the held request in flight", func() bool { return s.inFlightNow() > 0 })
		st, _, _, err := post(t, http.DefaultClient, s.URL(), `{"receiptId":"other"}`)
		if err != nil || st != 429 {
			t.Errorf("second request in flight: %d %v, want 429", st, err)
		}
		cancel()
		<-done
	})
}

func (s *StandIn) inFlightNow() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inFlight
}

func TestStandInProxy(t *testing.T) {
	var hits atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/v1/send" {
			http.Error(w, "path "+r.URL.Path, 404)
			return
		}
		w.WriteHeader(201)
		_, _ = w.Write([]byte(`{"id":"m1"}`))
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL + "/v1")
	plan := NewPlan()
	plan.Add(chaos.Fault{Kind: chaos.Downstream, Event: chaos.Event{ID: "r1"}, Attempt: 1, Answer: chaos.Status503}, 1)
	s := start(t, Config{Upstream: u}, plan)
	st, _, _, err := post(t, http.DefaultClient, s.URL(), `{"receiptId":"r1"}`)
	if err != nil || st != 503 || hits.Load() != 0 {
		t.Fatalf("fault: %d %v, upstream hits %d", st, err, hits.Load())
	}
	st, _, body, err := post(t, http.DefaultClient, s.URL(), `{"receiptId":"r1"}`)
	if err != nil || st != 201 || body != `{"id":"m1"}` || hits.Load() != 1 {
		t.Fatalf("forwarded: %d %q %v, upstream hits %d", st, body, err, hits.Load())
	}
	if e := s.Log().Entries[1]; !e.Effect || e.Outcome != OK {
		t.Errorf("entry %+v", e)
	}
}

func TestStandInCloseEndsHeldAnswers(t *testing.T) {
	plan := NewPlan()
	plan.Add(chaos.Fault{Kind: chaos.Downstream, Event: chaos.Event{ID: "r1"}, Attempt: 1, Answer: chaos.Timeout}, 1)
	s, err := Start(Config{Name: "x", Effect: Selector{Pointer: "/receiptId"}}, plan)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, _, _, err := post(t, http.DefaultClient, s.URL(), `{"receiptId":"r1"}`)
		errc <- err
	}()
	waitfor.Must(t, 20*time.Second, "the held request in flight", func() bool { return s.inFlightNow() > 0 })
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for a held answer")
	}
	if err := <-errc; err != nil && !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "EOF") && !strings.Contains(err.Error(), "reset") {
		t.Logf("client: %v", err)
	}
}

func TestCheckPointer(t *testing.T) {
	for p, ok := range map[string]bool{"/a": true, "/a/0/b~1c": true, "": false, "a": false, "/a~2": false, "/a~": false} {
		if err := CheckPointer(p); (err == nil) != ok {
			t.Errorf("CheckPointer(%q) = %v", p, err)
		}
	}
}

// TestStandInBoundsKeys: the log keeps every request's keys for the whole
// run, so a key longer than MaxKey is refused (400) and not kept: a
// consumer sending megabyte keys in a retry loop cannot exhaust memory.
func TestStandInBoundsKeys(t *testing.T) {
	s := start(t, Config{Idempotency: &Selector{Header: "Idempotency-Key"}}, nil)
	c := &http.Client{}
	long := strings.Repeat("k", MaxKey+1)
	for _, tc := range []struct {
		name, body, idem, event string
		status                  int
	}{
		{"effect key at the bound", `{"receiptId":"` + long[:MaxKey] + `"}`, "i1", "", 200},
		{"long effect key", `{"receiptId":"` + long + `"}`, "i2", "", 400},
		{"long idempotency key", `{"receiptId":"r3"}`, long, "", 400},
		{"long event id", `{"receiptId":"r4"}`, "i4", long, 400},
	} {
		st, _, body, err := post(t, c, s.URL(), tc.body, "Idempotency-Key", tc.idem, "Ce-Id", tc.event)
		if err != nil || st != tc.status {
			t.Errorf("%s: got %d %q %v, want %d", tc.name, st, body, err, tc.status)
		}
		if st == 400 && !strings.Contains(body, "longer than") {
			t.Errorf("%s: answer %q does not say why", tc.name, body)
		}
	}
	for _, e := range s.Log().Entries {
		if len(e.EffectKey) > MaxKey || len(e.IdempotencyKey) > MaxKey || len(e.EventID) > MaxKey {
			t.Errorf("entry %d keeps a key of %d/%d/%d bytes", e.Seq, len(e.EffectKey), len(e.IdempotencyKey), len(e.EventID))
		}
	}
}

// TestStandInProxyPassesRedirects: in proxy mode the upstream's answer is
// the answer, a redirect too: following it would send the consumer's
// POST somewhere else (as a GET after a 303) and hide the 3xx from it.
func TestStandInProxyPassesRedirects(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
	}))
	defer other.Close()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/moved", http.StatusSeeOther)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	s := start(t, Config{Upstream: u}, NewPlan())
	st, h, _, err := post(t, &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, s.URL(), `{"receiptId":"r1"}`)
	if err != nil || st != http.StatusSeeOther || h.Get("Location") != other.URL+"/moved" || elsewhere.Load() != 0 {
		t.Fatalf("got %d %v (Location %q), %d request(s) elsewhere", st, err, h.Get("Location"), elsewhere.Load())
	}
	if e := s.Log().Entries[0]; e.Effect || e.Outcome != Failed {
		t.Errorf("entry %+v", e)
	}
}

// TestStandInProxyLogsRetryAfter: an upstream's 429 carries its
// Retry-After into the log, so retry-too-soon judges the consumer against
// the real service's as against the stand-in's own.
func TestStandInProxyLogsRetryAfter(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	s := start(t, Config{Upstream: u}, NewPlan())
	st, h, _, err := post(t, http.DefaultClient, s.URL(), `{"receiptId":"r1"}`)
	if err != nil || st != 429 || h.Get("Retry-After") != "2" {
		t.Fatalf("got %d %v, Retry-After %q", st, err, h.Get("Retry-After"))
	}
	if e := s.Log().Entries[0]; e.RetryAfter != 2*time.Second || e.Effect {
		t.Errorf("entry %+v", e)
	}
}

// A repeated idempotency key while its first request is still being
// answered gets 409 and no effect; once answered, the first answer.
func TestStandInKeyInProgress(t *testing.T) {
	var hits atomic.Int32
	arrived, release := make(chan struct{}), make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			close(arrived)
			<-release
		}
		w.WriteHeader(201)
		_, _ = w.Write([]byte(`{"id":"m1"}`))
	}))
	defer up.Close()
	var released sync.Once
	unblock := func() { released.Do(func() { close(release) }) }
	defer unblock() // a failure must not leave the upstream holding
	u, _ := url.Parse(up.URL)
	s := start(t, Config{Upstream: u, Idempotency: &Selector{Header: "Idempotency-Key"}}, NewPlan())
	first := make(chan int, 1)
	go func() {
		st, _, _, err := post(t, http.DefaultClient, s.URL(), `{"receiptId":"r1"}`, "Idempotency-Key", "k1")
		if err != nil {
			t.Error(err)
		}
		first <- st
	}()
	<-arrived
	st, _, _, err := post(t, http.DefaultClient, s.URL(), `{"receiptId":"r1"}`, "Idempotency-Key", "k1")
	if err != nil || st != http.StatusConflict {
		t.Fatalf("concurrent same key: %d %v", st, err)
	}
	unblock()
	if st := <-first; st != 201 {
		t.Fatalf("first request: %d", st)
	}
	st, _, body, err := post(t, http.DefaultClient, s.URL(), `{"receiptId":"r1"}`, "Idempotency-Key", "k1")
	if err != nil || st != 201 || body != `{"id":"m1"}` {
		t.Fatalf("after the first answer: %d %q %v", st, body, err)
	}
	if hits.Load() != 1 {
		t.Errorf("upstream saw %d requests, want 1", hits.Load())
	}
	var outcomes []Outcome
	effects := 0
	for _, e := range s.Log().Entries {
		outcomes = append(outcomes, e.Outcome)
		if e.Effect {
			effects++
		}
	}
	if effects != 1 || !slices.Contains(outcomes, InProgress) || !slices.Contains(outcomes, Replayed) {
		t.Errorf("outcomes %v, %d effects", outcomes, effects)
	}
}
