// Package downstream stands in for the HTTP services a consumer calls (an
// email provider, a payment API), so that a replay can judge the
// consumer's external effects by what the service saw, never by what the
// consumer reports, and can make those services fail.
//
// A StandIn is a net/http server on 127.0.0.1. Each request is one attempt
// at an effect, named by the effect key (a JSON pointer into the request
// body, or a header). The stand-in answers healthy requests with the
// configured answer and records the effect; with idempotency it answers a
// repeated idempotency key with the first answer and records no new
// effect, as payment APIs do; requests matching the terminal rule get the
// terminal status; above its limits (requests per second, requests in
// flight) it answers 429 with Retry-After. Faults (see chaos.DownstreamKind)
// strike the requests a Plan names, so a run is deterministic from its
// seed, and outages answer 503 to everything for their duration.
//
// Every request is logged (Entry, kept as a fixed record of numbers and
// each distinct key once: see requests.go); the oracle (Judge) reads the
// log after the run.
package downstream

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/internal/jsonpos"
)

// Selector names a value of a request: a JSON pointer into its body, or a
// header.
type Selector struct {
	Pointer string `json:"pointer,omitempty"`
	Header  string `json:"header,omitempty"`
}

func (s Selector) String() string {
	if s.Header != "" {
		return "header " + s.Header
	}
	return "body " + s.Pointer
}

// Answer is what a healthy request gets.
type Answer struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	// Body is JSON (empty: none).
	Body json.RawMessage `json:"body,omitempty"`
}

// Terminal answers the requests whose body value at Pointer matches When
// with Status: requests that can never succeed (an invalid recipient).
type Terminal struct {
	Pointer string         `json:"pointer"`
	When    *regexp.Regexp `json:"-"`
	Status  int            `json:"status"`
}

// Limits bound what a stand-in takes; 0 is unlimited.
type Limits struct {
	// Rate is requests per second (any 1-second window).
	Rate int `json:"rate,omitempty"`
	// Concurrency is requests in flight.
	Concurrency int `json:"concurrency,omitempty"`
}

// Config configures one stand-in.
type Config struct {
	Name        string
	Effect      Selector
	Idempotency *Selector
	Answer      Answer
	Terminal    *Terminal
	Limits      Limits
	// Upstream, when set, is a real service (any http URL the scenario
	// names, typically a sandbox on 127.0.0.1) that healthy requests are
	// forwarded to (proxy mode): its answer is the answer, and a 2xx is the
	// effect.
	Upstream *url.URL
	// SlowDelay is how late a slow fault answers (default DefaultSlow);
	// Hold the longest a timeout fault waits for the client to give up
	// (default DefaultHold).
	SlowDelay, Hold time.Duration
}

// Defaults.
const (
	DefaultStatus = 200
	DefaultSlow   = 200 * time.Millisecond
	DefaultHold   = 30 * time.Second
	// RetryAfter is the Retry-After of a 429 (limits and 429 faults).
	RetryAfter = time.Second
	// maxBody bounds a request body.
	maxBody = 1 << 20
	// MaxKey bounds an effect key, idempotency key and event id: the log
	// keeps them for the whole run (a longer one is a 400).
	MaxKey = 1024
	// EventHeader carries the id of the event a request is for (the
	// CloudEvents HTTP binding's ce-id): a consumer that forwards it has
	// its requests matched to events exactly; otherwise an effect key
	// equal to an event id names the event.
	EventHeader = "Ce-Id"
)

// Outcome says how a request was answered.
type Outcome string

// Outcomes.
const (
	OK         Outcome = "ok"          // healthy: effect applied
	Replayed   Outcome = "replayed"    // a repeated idempotency key: the first answer, no effect
	InProgress Outcome = "in-progress" // the key's first request is still running: 409, retry later, no effect
	Terminated Outcome = "terminal"    // the terminal rule matched
	Limited    Outcome = "limited"     // above limits: 429 + Retry-After
	InOutage   Outcome = "outage"      // an outage: 503
	Faulted    Outcome = "fault"       // a planned fault (Entry.Fault)
	BadRequest Outcome = "bad-request" // no effect key: 400
	Failed     Outcome = "upstream"    // proxy mode: the upstream failed or answered non-2xx
)

// Entry is one request in a stand-in's log.
type Entry struct {
	// Seq numbers the requests from 1 in arrival order.
	Seq   int       `json:"seq"`
	Start time.Time `json:"start"`
	// End is when the answer was written (or the connection closed).
	End            time.Time `json:"end"`
	EffectKey      string    `json:"effectKey"`
	IdempotencyKey string    `json:"idempotencyKey,omitempty"`
	// EventID is the request's EventHeader.
	EventID string `json:"eventId,omitempty"`
	// Attempt numbers the requests of one effect key from 1.
	Attempt int     `json:"attempt"`
	Outcome Outcome `json:"outcome"`
	// Status is the answer's status; 0 when the connection was closed
	// without one (reset).
	Status int `json:"status"`
	// Fault is the planned fault that struck the request and FaultIndex
	// its index in the plan (-1: none).
	Fault      chaos.DownstreamKind `json:"fault,omitempty"`
	FaultIndex int                  `json:"faultIndex"`
	// Effect says the request's effect was applied, at EffectAt.
	Effect   bool      `json:"effect"`
	EffectAt time.Time `json:"effectAt,omzero"`
	// GaveUp: the client went away before the answer.
	GaveUp bool `json:"gaveUp,omitempty"`
	// RetryAfter is the answer's Retry-After (0: none).
	RetryAfter time.Duration `json:"retryAfter,omitempty"`
}

// Window is a span of time (an outage).
type Window struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Fault is the outage fault's index.
	Fault int `json:"fault"`
}

// Log is what a stand-in saw: its requests are Entries, or, in a log a
// stand-in handed over (TakeLog), compact records that Each and Len read.
type Log struct {
	Name    string   `json:"name"`
	Entries []Entry  `json:"entries"`
	Outages []Window `json:"outages,omitempty"`
	reqs    *reqLog
}

// Plan is the faults a stand-in applies in one run.
type Plan struct {
	mu sync.Mutex
	// requests: by event id, then attempt.
	requests map[string]map[int]planned
	outages  []plannedOutage
}

type planned struct {
	kind  chaos.DownstreamKind
	index int
}

type plannedOutage struct {
	atRequest int
	duration  time.Duration
	index     int
}

// NewPlan returns an empty plan.
func NewPlan() *Plan { return &Plan{requests: map[string]map[int]planned{}} }

// Add adds a fault of the chaos plan: a downstream fault (its event's id
// and attempt) or an outage, whose start is its Progress times events
// (the stand-in's request number). Faults of other kinds are ignored. Add
// may be called while the stand-in serves.
func (p *Plan) Add(f chaos.Fault, events int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch f.Kind {
	case chaos.Downstream:
		m := p.requests[f.ID]
		if m == nil {
			m = map[int]planned{}
			p.requests[strings.Clone(f.ID)] = m
		}
		m[f.Attempt] = planned{f.Answer, f.Index}
	case chaos.Outage:
		at := max(int(f.Progress*float64(events)+0.5), 1)
		p.outages = append(p.outages, plannedOutage{atRequest: at, duration: f.Duration, index: f.Index})
	}
}

func (p *Plan) lookup(event string, attempt int) (planned, bool) {
	if p == nil {
		return planned{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	f, ok := p.requests[event][attempt]
	return f, ok
}

// StandIn is one running stand-in.
type StandIn struct {
	cfg   Config
	plan  *Plan
	srv   *http.Server
	ln    net.Listener
	url   string
	proxy *http.Client
	// stop ends held answers when the stand-in closes.
	stop   context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	base time.Time // the log's times are offsets from it
	log  *reqLog
	keys *keyTable
	// counts holds, by key id, what the stand-in counts per key, in
	// chunks of refChunk.
	counts    [][]keyCounts
	answers   answerSet
	running   map[string]bool // idempotency keys whose first request is being answered
	recent    []time.Time     // request starts in the last second
	inFlight  int
	seq       int
	outages   []Window
	outageIdx int // next planned outage to start
}

// keyCounts is what a stand-in keeps per distinct key: a fixed record
// (a map per kind of key before: about 80 bytes a key each, and every
// request's entry held its keys' strings again).
type keyCounts struct {
	// attempts: requests with it as effect key; events: requests for it
	// as event (header, or effect key without one).
	attempts, events int32
	// answer is 1 + the index in answers of the answer stored for it as
	// idempotency key (0: none).
	answer int32
}

type storedAnswer struct {
	status int
	header http.Header
	body   []byte
}

// answerSet keeps each distinct answer once: a stand-in replays the answer
// of an idempotency key's first request to its retries, and keeping it per
// key (a header map each) cost about 600 bytes a key where most keys share
// the one configured answer.
type answerSet struct {
	list  []storedAnswer
	index map[[sha256.Size]byte]int32
}

// add returns the index of the answer, adding it if it is new.
func (a *answerSet) add(status int, header http.Header, body []byte) int32 {
	h := sha256.New()
	fmt.Fprintf(h, "%d\n", status)
	keys := make([]string, 0, len(header))
	for k := range header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range header[k] {
			// Lengths first: no two headers hash alike by where they cut.
			fmt.Fprintf(h, "%d:%s%d:%s", len(k), k, len(v), v)
		}
	}
	fmt.Fprintf(h, "\n%d:", len(body))
	h.Write(body)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	if i, ok := a.index[sum]; ok {
		return i
	}
	if a.index == nil {
		a.index = map[[sha256.Size]byte]int32{}
	}
	i := int32(len(a.list))
	a.list = append(a.list, storedAnswer{status, header, body})
	a.index[sum] = i
	return i
}

// Start starts a stand-in on 127.0.0.1 (a random port) applying plan's
// faults (nil: none).
func Start(cfg Config, plan *Plan) (*StandIn, error) {
	if cfg.Answer.Status == 0 {
		cfg.Answer.Status = DefaultStatus
	}
	if cfg.SlowDelay == 0 {
		cfg.SlowDelay = DefaultSlow
	}
	if cfg.Hold == 0 {
		cfg.Hold = DefaultHold
	}
	if cfg.Effect.Pointer == "" && cfg.Effect.Header == "" {
		return nil, fmt.Errorf("downstream %s: no effect key", cfg.Name)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("downstream %s: %w", cfg.Name, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &StandIn{cfg: cfg, plan: plan, ln: ln, url: "http://" + ln.Addr().String(), stop: ctx, cancel: cancel,
		done: make(chan struct{}), base: time.Now(), keys: newKeyTable(), running: map[string]bool{}}
	s.log = standInLog(s.base, s.keys, &s.mu)
	if cfg.Upstream != nil {
		// The upstream's answer is the answer, a redirect too: following
		// it would send the request elsewhere (a 303 as a GET).
		s.proxy = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// URL is the stand-in's base URL (http://127.0.0.1:port).
func (s *StandIn) URL() string { return s.url }

// Close stops the stand-in: held answers end, connections close.
func (s *StandIn) Close() {
	s.cancel()
	_ = s.srv.Close()
	<-s.done
}

// Log returns a copy of what the stand-in saw so far, as Entries.
func (s *StandIn) Log() Log {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log.keys = s.keys.view()
	es := make([]Entry, 0, s.log.n)
	for i := range s.log.n {
		es = append(es, s.log.entry(s.log.at(int32(i))))
	}
	return Log{Name: s.cfg.Name, Entries: es, Outages: append([]Window(nil), s.outages...)}
}

// TakeLog returns what the stand-in saw and forgets it: after Close, the
// log for the oracle without a copy (a run's log grows with its events),
// its requests as records (Each, Len), not Entries. The stand-in goes on
// numbering attempts and replaying stored answers.
func (s *StandIn) TakeLog() Log {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log.keys = s.keys.view()
	l := Log{Name: s.cfg.Name, Outages: s.outages, reqs: s.log}
	s.log, s.outages = standInLog(s.base, s.keys, &s.mu), nil
	return l
}

// intern returns a key's id. s.mu is held.
func (s *StandIn) intern(k string) int32 {
	id := s.keys.intern(k)
	for int(id) >= len(s.counts)*refChunk {
		s.counts = append(s.counts, make([]keyCounts, refChunk))
	}
	return id
}

// count returns the counters of a key. s.mu is held.
func (s *StandIn) count(id int32) *keyCounts { return &s.counts[id/refChunk][id%refChunk] }

// ServeHTTP handles one attempt.
func (s *StandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e := Entry{Start: time.Now(), FaultIndex: -1, EventID: r.Header.Get(EventHeader)}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		http.Error(w, "cannot read the request body (at most 1 MiB)", http.StatusBadRequest)
		return
	}
	var doc any
	if len(bytes.TrimSpace(body)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if dec.Decode(&doc) != nil {
			doc = nil
		}
	}
	e.EffectKey, _ = s.value(s.cfg.Effect, r, doc)
	if s.cfg.Idempotency != nil {
		e.IdempotencyKey, _ = s.value(*s.cfg.Idempotency, r, doc)
	}
	long := ""
	for _, k := range []struct {
		what string
		v    string
	}{{"effect key", e.EffectKey}, {"idempotency key", e.IdempotencyKey}, {"event id (" + EventHeader + ")", e.EventID}} {
		if len(k.v) > MaxKey && long == "" {
			long = k.what
		}
	}
	if long != "" {
		e.EffectKey, e.IdempotencyKey, e.EventID = "", "", ""
	}

	s.mu.Lock()
	s.seq++
	e.Seq = s.seq
	s.inFlight++
	keyID, idemID, eventID := s.intern(e.EffectKey), s.intern(e.IdempotencyKey), s.intern(e.EventID)
	if e.EffectKey != "" {
		s.count(keyID).attempts++
		e.Attempt = int(s.count(keyID).attempts)
	}
	event, evID := e.EventID, eventID
	if event == "" {
		event, evID = e.EffectKey, keyID
	}
	eventAttempt := 0
	if event != "" {
		s.count(evID).events++
		eventAttempt = int(s.count(evID).events)
	}
	outage := s.inOutage(e.Start, e.Seq)
	// The window counts every request, rejected ones too: it is what the
	// service receives. It is kept only for a rate limit (at a high rate,
	// a second's requests are many).
	if s.cfg.Limits.Rate > 0 {
		cut := 0
		for cut < len(s.recent) && e.Start.Sub(s.recent[cut]) >= time.Second {
			cut++
		}
		s.recent = append(s.recent[cut:], e.Start)
	}
	limited := (s.cfg.Limits.Rate > 0 && len(s.recent) > s.cfg.Limits.Rate) ||
		(s.cfg.Limits.Concurrency > 0 && s.inFlight > s.cfg.Limits.Concurrency)
	// A key whose first request is still being answered gets 409, as
	// providers with idempotency keys answer (Stripe: idempotency key in
	// use): otherwise two concurrent deliveries of one event, both under
	// the right key, would both apply the effect and the oracle would
	// blame a consumer that did everything right.
	var replay *storedAnswer
	inProgress, owner := false, false
	if e.IdempotencyKey != "" {
		if i := s.count(idemID).answer; i > 0 {
			replay = &s.answers.list[i-1]
		} else if s.running[e.IdempotencyKey] {
			inProgress = true
		} else {
			s.running[e.IdempotencyKey], owner = true, true
		}
	}
	s.mu.Unlock()
	if owner {
		defer func() {
			s.mu.Lock()
			delete(s.running, e.IdempotencyKey)
			s.mu.Unlock()
		}()
	}
	// A request ends when its answer starts: a client that waits for
	// its answer before sending the next request is never seen with
	// both in flight.
	var ended sync.Once
	end := func() {
		ended.Do(func() {
			if e.End.IsZero() {
				e.End = time.Now()
			}
			s.mu.Lock()
			s.inFlight--
			s.mu.Unlock()
		})
	}
	orig := w
	w = &endOnAnswer{ResponseWriter: w, end: end}
	defer func() {
		end()
		s.mu.Lock()
		s.log.add(s.log.record(&e, keyID, idemID, eventID))
		s.mu.Unlock()
	}()

	switch {
	case long != "":
		e.Outcome, e.Status = BadRequest, http.StatusBadRequest
		http.Error(w, fmt.Sprintf("downstream %s: the request's %s is longer than %d bytes", s.cfg.Name, long, MaxKey), e.Status)
		return
	case e.EffectKey == "":
		e.Outcome, e.Status = BadRequest, http.StatusBadRequest
		http.Error(w, fmt.Sprintf("downstream %s: the request has no effect key (%s)", s.cfg.Name, s.cfg.Effect), e.Status)
		return
	case outage:
		e.Outcome, e.Status = InOutage, http.StatusServiceUnavailable
		http.Error(w, "outage", e.Status)
		return
	case limited:
		e.Outcome, e.Status, e.RetryAfter = Limited, http.StatusTooManyRequests, RetryAfter
		w.Header().Set("Retry-After", strconv.Itoa(int(RetryAfter/time.Second)))
		http.Error(w, "above the limits", e.Status)
		return
	case inProgress:
		e.Outcome, e.Status = InProgress, http.StatusConflict
		http.Error(w, "a request with this idempotency key is in progress: retry later", e.Status)
		return
	case replay != nil:
		e.Outcome, e.Status = Replayed, replay.status
		writeAnswer(w, replay.status, replay.header, replay.body)
		return
	}
	if t := s.cfg.Terminal; t != nil {
		if v, ok := lookup(doc, t.Pointer); ok && t.When.MatchString(v) {
			e.Outcome, e.Status = Terminated, t.Status
			http.Error(w, "terminal: can never succeed", t.Status)
			return
		}
	}
	f, faulted := s.plan.lookup(event, eventAttempt)
	if faulted {
		e.Outcome, e.Fault, e.FaultIndex = Faulted, f.kind, f.index
		switch f.kind {
		case chaos.Status429:
			e.Status, e.RetryAfter = http.StatusTooManyRequests, RetryAfter
			w.Header().Set("Retry-After", strconv.Itoa(int(RetryAfter/time.Second)))
			http.Error(w, "fault: 429", e.Status)
			return
		case chaos.Status500, chaos.Status503:
			e.Status, _ = strconv.Atoi(string(f.kind))
			http.Error(w, "fault: "+string(f.kind), e.Status)
			return
		case chaos.Reset:
			end()
			reset(orig)
			return
		}
	}
	status, header, answer := s.apply(r, body, &e)
	if e.Effect && e.IdempotencyKey != "" {
		s.mu.Lock()
		if s.count(idemID).answer == 0 {
			s.count(idemID).answer = s.answers.add(status, header, answer) + 1
		}
		s.mu.Unlock()
	}
	if faulted {
		switch f.kind {
		case chaos.Timeout:
			if e.GaveUp = s.hold(r, s.cfg.Hold); e.GaveUp {
				e.End = time.Now()
				return
			}
		case chaos.Slow:
			e.GaveUp = s.hold(r, s.cfg.SlowDelay)
		}
	}
	e.Status = status
	writeAnswer(w, status, header, answer)
	if r.Context().Err() != nil {
		e.GaveUp = true
	}
}

// hold waits d before an answer, or until the client gives up (true) or
// the stand-in closes.
func (s *StandIn) hold(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return true
	case <-s.stop.Done():
	case <-t.C:
	}
	return false
}

// apply performs the request's effect: records it, or forwards it to the
// upstream. It returns the answer.
func (s *StandIn) apply(r *http.Request, body []byte, e *Entry) (int, http.Header, []byte) {
	if s.proxy == nil {
		e.Effect, e.EffectAt = true, time.Now()
		if e.Fault == "" {
			e.Outcome = OK
		}
		h := http.Header{}
		for k, v := range s.cfg.Answer.Headers {
			h.Set(k, v)
		}
		if len(s.cfg.Answer.Body) > 0 {
			h.Set("Content-Type", "application/json")
		}
		return s.cfg.Answer.Status, h, s.cfg.Answer.Body
	}
	u := *s.cfg.Upstream
	u.Path = strings.TrimSuffix(u.Path, "/") + r.URL.Path
	u.RawQuery = r.URL.RawQuery
	req, err := http.NewRequestWithContext(s.stop, r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		e.Outcome = Failed
		return http.StatusBadGateway, nil, nil
	}
	for k, v := range r.Header {
		req.Header[k] = v
	}
	resp, err := s.proxy.Do(req)
	if err != nil {
		e.Outcome = Failed
		return http.StatusBadGateway, http.Header{}, []byte(fmt.Sprintf("upstream: %v", err))
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if resp.StatusCode/100 == 2 {
		if e.Fault == "" {
			e.Outcome = OK
		}
		e.Effect, e.EffectAt = true, time.Now()
	} else if e.Fault == "" {
		e.Outcome = Failed
	}
	// The real service's Retry-After binds the consumer as the stand-in's
	// does (delay-seconds; an HTTP date is not judged).
	if n, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && n > 0 && n <= 86400 && resp.StatusCode/100 != 2 {
		e.RetryAfter = time.Duration(n) * time.Second
	}
	return resp.StatusCode, resp.Header.Clone(), answer
}

// endOnAnswer ends its request when the answer starts.
type endOnAnswer struct {
	http.ResponseWriter
	end func()
}

func (w *endOnAnswer) WriteHeader(code int) {
	w.end()
	w.ResponseWriter.WriteHeader(code)
}

func (w *endOnAnswer) Write(b []byte) (int, error) {
	w.end()
	return w.ResponseWriter.Write(b)
}

func writeAnswer(w http.ResponseWriter, status int, h http.Header, body []byte) {
	for k, v := range h {
		w.Header()[k] = v
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// reset closes the connection without an answer.
func reset(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0) // an RST, as a crashed service sends
			}
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// inOutage reports whether a request (number seq, at t) falls in an
// outage, starting the next planned one when seq reaches its request
// number. s.mu is held.
func (s *StandIn) inOutage(t time.Time, seq int) bool {
	if s.plan != nil {
		s.plan.mu.Lock()
		for s.outageIdx < len(s.plan.outages) && seq >= s.plan.outages[s.outageIdx].atRequest {
			o := s.plan.outages[s.outageIdx]
			start := t
			if n := len(s.outages); n > 0 && s.outages[n-1].End.After(start) {
				start = s.outages[n-1].End // outages do not overlap
			}
			s.outages = append(s.outages, Window{Start: start, End: start.Add(o.duration), Fault: o.index})
			s.outageIdx++
		}
		s.plan.mu.Unlock()
	}
	for _, o := range s.outages {
		if !t.Before(o.Start) && t.Before(o.End) {
			return true
		}
	}
	return false
}

// value reads a selector's value from a request: a header, or a scalar at
// a JSON pointer of the body ("" when absent or not a scalar).
func (s *StandIn) value(sel Selector, r *http.Request, doc any) (string, bool) {
	if sel.Header != "" {
		v := r.Header.Get(sel.Header)
		return v, v != ""
	}
	return lookup(doc, sel.Pointer)
}

// lookup resolves a JSON pointer to a scalar's text.
func lookup(doc any, pointer string) (string, bool) {
	v := doc
	for _, tok := range jsonpos.Split(pointer) {
		switch x := v.(type) {
		case map[string]any:
			n, ok := x[tok]
			if !ok {
				return "", false
			}
			v = n
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return "", false
			}
			v = x[i]
		default:
			return "", false
		}
	}
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// ErrBadPointer is returned by CheckPointer.
var ErrBadPointer = errors.New("not a JSON pointer (want /name or /a/0/b)")

// CheckPointer checks the syntax of a JSON pointer.
func CheckPointer(p string) error {
	if p == "" || p[0] != '/' {
		return ErrBadPointer
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '~' && (i+1 >= len(p) || (p[i+1] != '0' && p[i+1] != '1')) {
			return fmt.Errorf("%q: ~ must be followed by 0 or 1", p)
		}
	}
	return nil
}
