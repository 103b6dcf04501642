package downstream

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ms(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Millisecond))) }

// req builds a log entry: effect key, start and end (ms), status; ok
// statuses (2xx) apply the effect unless an outcome says otherwise.
func req(key string, start, end float64, status int, opts ...func(*Entry)) Entry {
	e := Entry{EffectKey: key, Start: ms(start), End: ms(end), Status: status, FaultIndex: -1, Outcome: OK}
	switch {
	case status/100 == 2:
		e.Effect, e.EffectAt = true, ms(start)
	case status == 0:
		e.Outcome = Faulted
	default:
		e.Outcome = Faulted
	}
	for _, o := range opts {
		o(&e)
	}
	return e
}

func idem(k string) func(*Entry)     { return func(e *Entry) { e.IdempotencyKey = k } }
func outcome(o Outcome) func(*Entry) { return func(e *Entry) { e.Outcome = o; e.Effect = o == OK } }
func retryAfter(d float64) func(*Entry) {
	return func(e *Entry) { e.RetryAfter = time.Duration(d * float64(time.Millisecond)) }
}

// numbered fills Seq and Attempt as a stand-in does.
func numbered(es ...Entry) []Entry {
	slices.SortStableFunc(es, func(a, b Entry) int { return a.Start.Compare(b.Start) })
	n := map[string]int{}
	for i := range es {
		n[es[i].EffectKey]++
		es[i].Seq, es[i].Attempt = i+1, n[es[i].EffectKey]
	}
	return es
}

// chain is one effect failing n times with the given retry gaps, then
// succeeding.
func chain(key string, start float64, gaps []float64) []Entry {
	var out []Entry
	at := start
	for _, g := range gaps {
		out = append(out, req(key, at, at+1, 503))
		at += 1 + g
	}
	return append(out, req(key, at, at+1, 200))
}

// fullJitter returns n retry gaps of capped exponential backoff with full
// jitter.
func fullJitter(rng *rand.Rand, n int, base, cap float64) []float64 {
	var out []float64
	for i := range n {
		out = append(out, rng.Float64()*min(cap, base*float64(int(1)<<i)))
	}
	return out
}

func kinds(fs []Finding) string {
	var out []string
	for _, f := range fs {
		k := f.Kind
		if f.Detail != "" {
			k += "/" + f.Detail
		}
		out = append(out, k)
	}
	return strings.Join(out, " ")
}

func TestJudge(t *testing.T) {
	events := []Event{
		{ID: "e1", Key: "o1", Topic: "t", Partition: 0, Offset: 4, Index: 1, Order: 0},
		{ID: "e2", Key: "o1", Topic: "t", Partition: 0, Offset: 5, Index: 0, Order: 1},
		{ID: "e3", Key: "o2", Topic: "t", Partition: 1, Offset: -1, Index: 2, Order: 2},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var jittered, constant, syncd, unsyncd []Entry
	for i := range 10 {
		jittered = append(jittered, chain(fmt.Sprintf("j%d", i), float64(i)*3, fullJitter(rng, 6, 20, 2000))...)
		constant = append(constant, chain(fmt.Sprintf("c%d", i), float64(i)*3, []float64{5, 5, 5, 5, 5, 5})...)
	}
	outage := []Window{{Start: ms(1000), End: ms(2000)}}
	// Before the outage: 20 requests in the second before it.
	var pre []Entry
	for i := range 20 {
		pre = append(pre, req(fmt.Sprintf("p%d", i), 50*float64(i), 50*float64(i)+1, 200))
	}
	// 6 effects failing in the outage together, then retrying every 100 ms
	// in step (no jitter), or at jittered times.
	for i := range 6 {
		k := fmt.Sprintf("s%d", i)
		var gs []float64
		for a := range 4 {
			gs = append(gs, 99+float64(i)*0.1+float64(a)*0.01)
		}
		syncd = append(syncd, chain(k, 1010+float64(i)*0.2, gs)...)
		unsyncd = append(unsyncd, chain("u"+k, 1010+float64(i)*37, fullJitter(rng, 4, 100, 800))...)
	}
	var queued, dense []Entry
	for i := range 10 {
		queued = append(queued, chain(fmt.Sprintf("q%d", i), float64(i)*3, []float64{rng.Float64() * 40, rng.Float64() * 40, rng.Float64() * 40, rng.Float64() * 40, rng.Float64() * 40})...)
		for a := range 30 {
			at := 1000 + float64(a*10+i)*0.5
			dense = append(dense, req(fmt.Sprintf("d%d", i), at, at+0.1, 503, outcome(InOutage)))
		}
	}
	var storm []Entry
	for i := range 400 {
		storm = append(storm, req(fmt.Sprintf("st%d", i), 1000+2.5*float64(i), 1000+2.5*float64(i)+0.5, 503, outcome(InOutage)))
	}
	for _, tc := range []struct {
		name string
		in   Input
		want string
	}{
		{"exactly once", Input{Idempotent: true, Log: Log{Entries: []Entry{req("r1", 0, 1, 200, idem("k1")), req("r1", 5, 6, 200, idem("k1"), outcome(Replayed))}}}, ""},
		{"duplicate", Input{Log: Log{Entries: []Entry{req("r1", 0, 1, 200), req("r1", 5, 6, 200)}}, Expect: Expect{Effects: ExactlyOnce}}, "duplicate-effect"},
		{"duplicate allowed at least once", Input{Log: Log{Entries: []Entry{req("r1", 0, 1, 200), req("r1", 5, 6, 200)}}}, ""},
		{"fresh key per attempt", Input{Idempotent: true, Log: Log{Entries: []Entry{req("r1", 0, 1, 200, idem("a")), req("r1", 5, 6, 200, idem("b"))}}}, "duplicate-effect/fresh-idempotency-key-per-attempt"},
		{"missing", Input{Log: Log{Entries: []Entry{req("e1", 0, 1, 503), req("e1", 5, 6, 503)}}, Events: events, DLQKnown: true}, "missing-effect"},
		{"missing but dead-lettered", Input{Log: Log{Entries: []Entry{req("e1", 0, 1, 503)}}, Events: events, DLQKnown: true, DLQ: map[string]bool{"e1": true}}, ""},
		{"missing against the baseline", Input{Log: Log{Entries: []Entry{req("e1", 0, 1, 200)}}, Expected: []string{"e1", "e2"}, Events: events, DLQKnown: true}, "missing-effect"},
		{"missing at most once", Input{Log: Log{Entries: []Entry{req("e1", 0, 1, 503)}}, Events: events, DLQKnown: true, Expect: Expect{Effects: AtMostOnce}}, ""},
		{"terminal retried and not dead-lettered", Input{Log: Log{Entries: []Entry{req("e1", 0, 1, 422, outcome(Terminated)), req("e1", 5, 6, 422, outcome(Terminated))}}, Events: events, DLQKnown: true}, "terminal-retried terminal-not-dead-lettered"},
		{"terminal dead-lettered", Input{Log: Log{Entries: []Entry{req("e1", 0, 1, 422, outcome(Terminated))}}, Events: events, DLQKnown: true, DLQ: map[string]bool{"e1": true}}, ""},
		{"retry after respected", Input{Log: Log{Entries: []Entry{req("r1", 0, 1, 429, retryAfter(1000)), req("r1", 1001, 1002, 200)}}}, ""},
		{"retry after ignored", Input{Log: Log{Entries: []Entry{req("r1", 0, 1, 429, retryAfter(1000)), req("r1", 30, 31, 200)}}}, "retry-too-soon/retry-after"},
		{"full jitter passes", Input{Log: Log{Entries: jittered}}, ""},
		{"no backoff", Input{Log: Log{Entries: constant}}, "retry-too-soon/no-backoff"},
		{"max attempts kept", Input{Log: Log{Entries: chain("r1", 0, []float64{10, 20})}, Expect: Expect{MaxAttempts: 3}}, ""},
		{"max attempts exceeded", Input{Log: Log{Entries: chain("r1", 0, []float64{10, 20, 40})}, Expect: Expect{MaxAttempts: 3}}, "max-attempts-exceeded"},
		{"within limits", Input{Limits: Limits{Rate: 20, Concurrency: 1}, Log: Log{Entries: pre}}, ""},
		{"over limits", Input{Limits: Limits{Rate: 10, Concurrency: 1}, Log: Log{Entries: append(slices.Clone(pre), req("x", 10, 20, 200))}}, "over-limit"},
		{"in order", Input{Events: events, Expect: Expect{OrderPerKey: true}, Log: Log{Entries: []Entry{req("e1", 0, 1, 200), req("e2", 5, 6, 200)}}}, ""},
		{"out of order", Input{Events: events, Expect: Expect{OrderPerKey: true}, Log: Log{Entries: []Entry{req("e2", 0, 1, 200), req("e1", 5, 6, 200)}}}, "effect-order"},
		{"out of order across keys is fine", Input{Events: events, Expect: Expect{OrderPerKey: true}, Log: Log{Entries: []Entry{req("e3", 0, 1, 200), req("e1", 5, 6, 200)}}}, ""},
		{"retry storm", Input{Log: Log{Entries: append(slices.Clone(pre), storm...), Outages: outage}}, "retry-storm"},
		{"calm outage", Input{Log: Log{Entries: append(slices.Clone(pre), storm[:15]...), Outages: outage}}, ""},
		{"synchronized retries", Input{Log: Log{Entries: append(slices.Clone(pre), syncd...), Outages: outage}}, "synchronized-retries"},
		{"no backoff behind a queue", Input{Log: Log{Entries: queued}}, "retry-too-soon/no-backoff"},
		{"dense retries are no synchrony", Input{Log: Log{Entries: dense, Outages: outage}}, "retry-too-soon/no-backoff"},
		{"jittered retries", Input{Log: Log{Entries: append(slices.Clone(pre), unsyncd...), Outages: outage}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Log.Name = "email"
			tc.in.Log.Entries = numbered(tc.in.Log.Entries...)
			fs, _ := Judge(tc.in)
			if got := kinds(fs); got != tc.want {
				t.Errorf("findings %q, want %q", got, tc.want)
				for _, f := range fs {
					t.Log(f)
				}
			}
			for _, f := range fs {
				if f.Downstream != "email" || f.Message == "" || (f.EffectKey != "" && len(f.Timeline) == 0 && tc.in.Expected == nil) {
					t.Errorf("finding without its stand-in, message or timeline: %+v", f)
				}
			}
		})
	}
}

// TestJudgeFullJitterSeeds: full jitter passes the no-backoff judgement
// over many seeds, with and without a cap that is reached early.
func TestJudgeFullJitterSeeds(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 9))
		for _, cap := range []float64{160, 2000} {
			var es []Entry
			for i := range 10 {
				es = append(es, chain(fmt.Sprintf("k%d", i), float64(i), fullJitter(rng, 7, 20, cap))...)
			}
			fs, _ := Judge(Input{Log: Log{Name: "x", Entries: numbered(es...)}})
			if len(fs) > 0 {
				t.Fatalf("seed %d cap %g: %v", seed, cap, fs)
			}
		}
	}
}

func TestJudgeNamesEventAndTimeline(t *testing.T) {
	ev := Event{ID: "e1", Key: "o1", Topic: "orders", Partition: 2, Offset: 17, Index: 4, Line: 5}
	es := numbered(req("r-1", 0, 1, 503), req("r-1", 10, 11, 503))
	es[0].EventID, es[1].EventID = "e1", "e1"
	fs, sum := Judge(Input{Log: Log{Name: "email", Entries: es}, Events: []Event{ev}, DLQKnown: true})
	if len(fs) != 1 {
		t.Fatalf("findings %v", fs)
	}
	got := fs[0].String()
	for _, want := range []string{"missing-effect", `effect "r-1"`, "event e1", "key o1", "orders/2@17", "input event 4", "line 5"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if tl := fs[0].Timeline; len(tl) != 2 || tl[1].String() != "attempt 2 at 10ms: 503 (fault )" && tl[1].Answer == "" {
		t.Errorf("timeline %v", tl)
	}
	if sum.Requests != 2 || sum.Effects != 0 || sum.MaxAttempts != 2 || sum.P50Attempts != 2 || sum.PeakConcurrency != 1 || sum.PeakRate != 2 {
		t.Errorf("summary %+v", sum)
	}
}

func TestSummaryPeaks(t *testing.T) {
	es := numbered(req("a", 0, 100, 200), req("b", 10, 50, 200), req("c", 20, 30, 200), req("d", 100, 120, 200), req("e", 1500, 1501, 200))
	_, s := Judge(Input{Log: Log{Name: "x", Entries: es}})
	if s.PeakConcurrency != 3 || s.PeakRate != 4 || s.Effects != 5 || s.EffectKeys != 5 || s.P50Attempts != 1 {
		t.Errorf("summary %+v", s)
	}
}

// A key from a request body is cut in messages, never in the finding.
func TestFindingShortensKeys(t *testing.T) {
	long := strings.Repeat("é", 200)
	fs, _ := Judge(Input{Log: Log{Name: "x", Entries: numbered(req(long, 0, 1, 200), req(long, 5, 6, 200))}, Expect: Expect{Effects: ExactlyOnce}})
	if len(fs) != 1 || fs[0].EffectKey != long {
		t.Fatalf("findings %v", fs)
	}
	if s := fs[0].String(); len(s) > 300 || !strings.Contains(s, "…") || !utf8.ValidString(s) {
		t.Errorf("message %q", s)
	}
}

// TestJudgeStormAfterQuiet: a correct consumer (capped exponential backoff
// with full jitter) whose traffic before an outage was light is no storm:
// its retries outnumber the few requests before the outage, but each
// effect is retried a handful of times a second. A client that retries
// at once is a storm however busy it was before.
func TestJudgeStormAfterQuiet(t *testing.T) {
	outage := []Window{{Start: ms(1000), End: ms(4000)}}
	// Two requests in the second before the outage.
	quiet := []Entry{req("p0", 0, 1, 200), req("p1", 500, 501, 200)}
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 3))
		jittered := slices.Clone(quiet)
		hammer := slices.Clone(quiet)
		for i := range 8 {
			k := fmt.Sprintf("k%d", i)
			start := 1000 + float64(i)*20
			for _, e := range chain(k, start, fullJitter(rng, 9, 50, 1000)) {
				if e.Start.Before(ms(4000)) {
					e.Outcome, e.Status, e.Effect = InOutage, 503, false
				}
				jittered = append(jittered, e)
			}
			hammer = append(hammer, chain("h"+k, start, slices.Repeat([]float64{20}, 100))...)
		}
		for _, tc := range []struct {
			name string
			es   []Entry
			want bool
		}{{"full jitter", jittered, false}, {"no backoff", hammer, true}} {
			fs, _ := Judge(Input{Log: Log{Name: "email", Entries: numbered(tc.es...), Outages: outage}})
			storm := strings.Contains(kinds(fs), RetryStorm)
			if storm != tc.want {
				t.Errorf("seed %d, %s: retry-storm %v, want %v: %v", seed, tc.name, storm, tc.want, fs)
			}
		}
	}
}

// A baseline's effects kept in a file (WriteKeys) are expected as
// Expected's are; a file that cannot be read is a finding naming it.
func TestExpectedFile(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.txt")
	if err := WriteKeys(keys, []string{"e1", "e2", "line\nbreak \"quoted\"", "not UTF-8 \xff"}); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("\"e1\"\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := func(k string) Entry { return req(k, 0, 1, 200) }
	for _, tc := range []struct {
		name    string
		entries []Entry
		file    string
		want    string // the missing keys' findings, or a message part
	}{
		{"all applied", []Entry{ok("e1"), ok("e2"), ok("line\nbreak \"quoted\""), ok("not UTF-8 \xff")}, keys, ""},
		{"one missing", []Entry{ok("e1"), ok("line\nbreak \"quoted\""), ok("not UTF-8 \xff")}, keys, "missing-effect e2"},
		{"missing with a newline", []Entry{ok("e1"), ok("e2"), ok("not UTF-8 \xff")}, keys, "missing-effect line\nbreak \"quoted\""},
		{"malformed", []Entry{ok("e1")}, bad, "bad.txt:2: not a quoted string"},
		{"absent", []Entry{ok("e1")}, filepath.Join(dir, "none.txt"), "none.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, _ := Judge(Input{Log: Log{Name: "email", Entries: tc.entries}, ExpectedFile: tc.file, DLQKnown: true})
			var got []string
			for _, f := range fs {
				got = append(got, f.Kind+" "+f.EffectKey+f.Message)
			}
			if tc.want == "" && len(fs) > 0 || tc.want != "" && (len(fs) != 1 || !strings.Contains(got[0], tc.want)) {
				t.Fatalf("findings %q, want one with %q", got, tc.want)
			}
		})
	}
}
