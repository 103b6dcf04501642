package downstream

import (
	"bufio"
	"cmp"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Guarantee is expect.effects: how often each effect must happen.
type Guarantee string

// Guarantees.
const (
	ExactlyOnce Guarantee = "exactly-once"
	AtLeastOnce Guarantee = "at-least-once"
	AtMostOnce  Guarantee = "at-most-once"
)

// Guarantees lists the guarantees expect.effects accepts.
var Guarantees = []Guarantee{ExactlyOnce, AtLeastOnce, AtMostOnce}

// Finding kinds.
const (
	DuplicateEffect          = "duplicate-effect"
	MissingEffect            = "missing-effect"
	TerminalRetried          = "terminal-retried"
	TerminalNotDeadLettered  = "terminal-not-dead-lettered"
	RetryTooSoon             = "retry-too-soon"
	RetryStorm               = "retry-storm"
	SynchronizedRetries      = "synchronized-retries"
	MaxAttemptsExceeded      = "max-attempts-exceeded"
	OverLimit                = "over-limit"
	EffectOrder              = "effect-order"
	FreshKeyPerAttemptDetail = "fresh-idempotency-key-per-attempt"
)

// The oracle's statistics (documented in docs/replay.md).
const (
	// RetryAfterSlack is how much earlier than the previous answer's
	// Retry-After a retry may come (clock granularity).
	RetryAfterSlack = 10 * time.Millisecond
	// MinEnvelopeSamples is the fewest gaps of one retry index (over
	// every effect) that make an envelope, and MinLateRetry the first
	// index judged late; BackoffFloor is the scheduling noise allowed for.
	MinEnvelopeSamples = 8
	MinLateRetry       = 4
	BackoffFloor       = 10 * time.Millisecond
	BackoffGrowth      = 1.25
	// StormFactor: a retry storm is a request rate during an outage above
	// StormFactor times the rate of the same span before it.
	StormFactor = 2.0
	// StormRetryRate: the rate StormFactor multiplies is at least
	// StormRetryRate requests per second for each effect retried during
	// the outage. After light traffic, a few effects retried with capped
	// exponential backoff (a handful of attempts in an outage's first
	// second) outnumber the requests before it without being a storm.
	StormRetryRate = 5.0
	// MinStormRequests is the fewest requests in an outage judged.
	MinStormRequests = 10
	// SyncWindow, SyncFraction, MinSyncRetries, MinSyncEffects: retries
	// are synchronized when, of at least MinSyncRetries retries (of at
	// least MinSyncEffects effects) during an outage and one outage
	// length after it, at least SyncFraction start within SyncWindow of a
	// retry of another effect. Retries so dense that more than
	// MaxSyncChance of them would have such a neighbour at random times
	// (1 - exp(-2 × SyncWindow × retries per unit of time)) are not
	// judged: that is a storm, not synchrony.
	SyncWindow     = 2 * time.Millisecond
	SyncFraction   = 0.8
	MaxSyncChance  = 0.4
	MinSyncRetries = 10
	MinSyncEffects = 3
	// maxTimeline bounds the steps a finding lists.
	maxTimeline = 20
)

// Event is an input event as the oracle names it.
type Event struct {
	ID        string `json:"id"`
	Key       string `json:"key,omitempty"`
	Topic     string `json:"topic,omitempty"`
	Partition int32  `json:"partition"`
	// Offset is -1 when unknown.
	Offset int64 `json:"offset"`
	// Index is the event's place in the input; Order its place in the
	// order the events were produced (on one partition: offset order),
	// the order effect-order judges.
	Index int64 `json:"index"`
	Order int64 `json:"-"`
	Line  int   `json:"line,omitempty"`
}

func (e Event) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "event %s", e.ID)
	var attrs []string
	if e.Key != "" {
		attrs = append(attrs, "key "+e.Key)
	}
	if e.Topic != "" {
		at := fmt.Sprintf("%s/%d", e.Topic, e.Partition)
		if e.Offset >= 0 {
			at += "@" + strconv.FormatInt(e.Offset, 10)
		}
		attrs = append(attrs, at)
	} else {
		attrs = append(attrs, "partition "+strconv.Itoa(int(e.Partition)))
	}
	attrs = append(attrs, "input event "+strconv.FormatInt(e.Index, 10))
	if e.Line > 0 {
		attrs = append(attrs, "line "+strconv.Itoa(e.Line))
	}
	fmt.Fprintf(&b, " (%s)", strings.Join(attrs, ", "))
	return b.String()
}

// Expect is what the scenario promises about one stand-in.
type Expect struct {
	// Effects is the guarantee ("": exactly-once for a stand-in with
	// idempotency, at-least-once otherwise).
	Effects Guarantee
	// MaxAttempts is expect.retries.<name>.max_attempts (0: unchecked).
	MaxAttempts int
	// OrderPerKey is expect.effects_order: per-key.
	OrderPerKey bool
}

// Input is what Judge reads: a stand-in's log and what the run knows of
// the events.
type Input struct {
	Log        Log
	Idempotent bool
	Limits     Limits
	Expect     Expect
	// Events are the run's input events (for naming them, matching
	// requests to events and effect-order); Index, when set, finds them
	// instead (an EventTable).
	Events []Event
	Index  EventIndex
	// DLQ holds the ids of the events on the run's DLQ; DLQKnown says it
	// was read (without it terminal-not-dead-lettered is not judged and
	// an effect whose event may be on it is not missing).
	DLQ      map[string]bool
	DLQKnown bool
	// Expected holds the effect keys that must have an effect (the
	// baseline run's effects); the effect keys of this run's requests
	// are expected too.
	Expected []string
	// ExpectedFile, when set, holds more expected effect keys, one quoted
	// string a line, each once (WriteKeys): a baseline's effects kept on
	// disk rather than in memory for the whole replay.
	ExpectedFile string
}

// Step is one request of a finding's timeline.
type Step struct {
	Seq     int    `json:"seq"`
	Attempt int    `json:"attempt"`
	AtMS    int64  `json:"atMs"` // since the stand-in's first request
	Answer  string `json:"answer"`
}

func (s Step) String() string {
	return fmt.Sprintf("attempt %d at %dms: %s", s.Attempt, s.AtMS, s.Answer)
}

// Finding is one violation the oracle found.
type Finding struct {
	Kind       string `json:"kind"`
	Downstream string `json:"downstream"`
	EffectKey  string `json:"effectKey,omitempty"`
	Event      *Event `json:"event,omitempty"`
	// Detail narrows the kind (FreshKeyPerAttemptDetail).
	Detail   string `json:"detail,omitempty"`
	Message  string `json:"message"`
	Timeline []Step `json:"timeline,omitempty"`
	// More counts the timeline's steps not listed.
	More int `json:"more,omitempty"`
}

func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", f.Kind)
	if f.Detail != "" {
		fmt.Fprintf(&b, " (%s)", f.Detail)
	}
	fmt.Fprintf(&b, ": downstream %s", f.Downstream)
	if f.EffectKey != "" {
		fmt.Fprintf(&b, ", effect %q", shorten(f.EffectKey))
	}
	if f.Event != nil {
		fmt.Fprintf(&b, ", %s", f.Event)
	}
	fmt.Fprintf(&b, ": %s", f.Message)
	return b.String()
}

// shorten cuts a key from a request body for messages (the finding keeps
// it whole).
func shorten(s string) string {
	const most = 120
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Summary is what a stand-in saw in one run, always reported.
type Summary struct {
	Name string `json:"name"`
	// Requests counts every request; Effects the effects applied and
	// EffectKeys the distinct effect keys requested.
	Requests   int `json:"requests"`
	Effects    int `json:"effects"`
	EffectKeys int `json:"effectKeys"`
	// MaxAttempts and P50Attempts are over the effect keys' request
	// counts.
	MaxAttempts int `json:"maxAttempts"`
	P50Attempts int `json:"p50Attempts"`
	// PeakConcurrency is the most requests in flight; PeakRate the most
	// requests that started within one second.
	PeakConcurrency int `json:"peakConcurrency"`
	PeakRate        int `json:"peakRate"`
	// Outages counts the outages and OutageRetries the requests during
	// them of effects already requested before.
	Outages       int `json:"outages"`
	OutageRetries int `json:"outageRetries"`
	// ByOutcome counts the requests by outcome.
	ByOutcome map[Outcome]int `json:"byOutcome,omitempty"`
}

func (s Summary) String() string {
	return fmt.Sprintf("downstream %s: %d request(s), %d effect(s) of %d key(s), attempts per effect max %d p50 %d, peak concurrency %d, peak rate %d/s, %d outage(s) with %d retries during them",
		s.Name, s.Requests, s.Effects, s.EffectKeys, s.MaxAttempts, s.P50Attempts, s.PeakConcurrency, s.PeakRate, s.Outages, s.OutageRetries)
}

// judge holds one Judge call's indexes: numbers into the log's records,
// no copy of them.
type judge struct {
	in   Input
	l    *reqLog
	t0   int64 // the first request's start
	byID EventIndex
	// order numbers the records by start (ties in log order); grouped
	// numbers them by effect key, each key's by start: a key's are
	// grouped[lo[k] : lo[k]+n[k]], by key id.
	order, grouped []int32
	lo, n          []int32
	keys           []int32  // effect keys in order of first request
	events         []*Event // by key id: an effect key's event (when known)
	out            []Finding
}

// Judge reads a stand-in's log and returns its findings and summary.
func Judge(in Input) ([]Finding, Summary) {
	l := in.Log.records()
	j := &judge{in: in, l: l, byID: in.Index}
	if j.byID == nil {
		j.byID = indexEvents(in.Events)
	}
	j.order = make([]int32, l.n)
	for i := range j.order {
		j.order[i] = int32(i)
	}
	slices.SortStableFunc(j.order, func(a, b int32) int { return cmp.Compare(l.at(a).start, l.at(b).start) })
	if len(j.order) > 0 {
		j.t0 = l.at(j.order[0]).start
	}
	nk := l.keys.n
	j.lo, j.n, j.events = make([]int32, nk), make([]int32, nk), make([]*Event, nk)
	for _, i := range j.order {
		if k := l.at(i).key; k != 0 {
			if j.n[k] == 0 {
				j.keys = append(j.keys, k)
			}
			j.n[k]++
		}
	}
	at := int32(0)
	for _, k := range j.keys {
		j.lo[k] = at
		at += j.n[k]
		j.n[k] = 0
	}
	j.grouped = make([]int32, at)
	for _, i := range j.order {
		r := l.at(i)
		k := r.key
		if k == 0 {
			continue
		}
		j.grouped[j.lo[k]+j.n[k]] = i
		j.n[k]++
		if j.events[k] == nil {
			if ev, ok := j.byID.Event(l.keys.str(r.event)); ok {
				j.events[k] = ev
			} else if ev, ok := j.byID.Event(l.keys.str(k)); ok {
				j.events[k] = ev
			}
		}
	}
	guarantee := in.Expect.Effects
	if guarantee == "" {
		guarantee = AtLeastOnce
		if in.Idempotent {
			guarantee = ExactlyOnce
		}
	}
	if guarantee != AtLeastOnce {
		j.duplicates()
	}
	if guarantee != AtMostOnce {
		j.missing()
	}
	j.terminal()
	j.retryTooSoon()
	j.outages()
	if in.Expect.MaxAttempts > 0 {
		j.maxAttempts()
	}
	sum := j.summary()
	j.overLimit(sum)
	if in.Expect.OrderPerKey {
		j.effectOrder()
	}
	return j.out, sum
}

// group is the records of an effect key (id 0: none), by start.
func (j *judge) group(k int32) []int32 {
	if k == 0 {
		return nil
	}
	return j.grouped[j.lo[k] : j.lo[k]+j.n[k]]
}

func (j *judge) key(k int32) string { return j.l.keys.str(k) }

// add adds a finding about the effect key k (0: none, or key, never
// requested).
func (j *judge) add(kind string, k int32, key, detail, msg string) {
	if k != 0 {
		// A copy: the log's keys share chunks of an arena, which a
		// finding kept for the report would hold whole.
		key = strings.Clone(j.key(k))
	}
	f := Finding{Kind: kind, Downstream: j.in.Log.Name, EffectKey: key, Detail: detail, Message: msg}
	if k != 0 && j.events[k] != nil {
		e := *j.events[k]
		f.Event = &e
	}
	if key != "" {
		f.Timeline, f.More = j.timeline(j.group(k))
	}
	j.out = append(j.out, f)
}

func (j *judge) timeline(es []int32) ([]Step, int) {
	var out []Step
	for i, x := range es {
		if i == maxTimeline {
			return out, len(es) - i
		}
		r := j.l.at(x)
		out = append(out, Step{Seq: int(r.seq), Attempt: int(r.attempt), AtMS: span(r.start, j.t0).Milliseconds(), Answer: j.answerText(r)})
	}
	return out, 0
}

// answerText describes what a request got.
func (j *judge) answerText(r *rec) string {
	var s string
	switch {
	case r.status == 0:
		s = "connection reset, no answer"
	default:
		s = strconv.Itoa(int(r.status))
	}
	var notes []string
	switch o := j.l.outcome(r); o {
	case Faulted:
		notes = append(notes, "fault "+string(j.l.fault(r)))
	case OK:
	default:
		notes = append(notes, string(o))
	}
	if r.flags&flagEffect != 0 {
		notes = append(notes, "effect applied")
	}
	if r.flags&flagGaveUp != 0 {
		notes = append(notes, "client gave up")
	}
	if r.retryAfter > 0 {
		notes = append(notes, "Retry-After "+time.Duration(r.retryAfter).String())
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, ", ") + ")"
	}
	return s
}

func (j *judge) duplicates() {
	for _, k := range j.keys {
		effects := 0
		idem := map[int32]bool{}
		for _, x := range j.group(k) {
			if r := j.l.at(x); r.flags&flagEffect != 0 {
				effects++
				idem[r.idem] = true
			}
		}
		if effects < 2 {
			continue
		}
		if j.in.Idempotent && len(idem) > 1 {
			j.add(DuplicateEffect, k, "", FreshKeyPerAttemptDetail, fmt.Sprintf("the effect happened %d times, under %d different idempotency keys: a fresh idempotency key per attempt (derive the key from the event, and reuse it on every attempt)", effects, len(idem)))
			continue
		}
		j.add(DuplicateEffect, k, "", "", fmt.Sprintf("the effect happened %d times", effects))
	}
}

func (j *judge) onDLQ(k int32) bool {
	ev := j.events[k]
	return ev != nil && j.in.DLQ[ev.ID]
}

// requested returns the id of an effect key this run requested.
func (j *judge) requested(key string) (int32, bool) {
	k, ok := j.l.lookup(key)
	if !ok || k == 0 || j.n[k] == 0 {
		return 0, false
	}
	return k, true
}

// done reports whether a request applied its effect, or ended it.
func (j *judge) done(r *rec) bool {
	o := j.l.outcome(r)
	return r.flags&flagEffect != 0 || o == Replayed || o == Terminated
}

func (j *judge) missing() {
	// The keys requested, then those expected and never requested.
	seen := map[string]bool{}
	var never []string
	for _, k := range j.in.Expected {
		if _, ok := j.requested(k); !ok && !seen[k] {
			never = append(never, k)
		}
		seen[k] = true
	}
	if j.in.ExpectedFile != "" {
		// Each key is once in the file: only those missing from this
		// run's requests are kept.
		err := ReadKeys(j.in.ExpectedFile, func(k string) {
			if _, ok := j.requested(k); !ok && !seen[k] {
				never = append(never, k)
				seen[k] = true
			}
		})
		if err != nil {
			j.add(MissingEffect, 0, "", "", fmt.Sprintf("cannot read the baseline's effects: %v", err))
		}
	}
	for _, k := range j.keys {
		es := j.group(k)
		if slices.ContainsFunc(es, func(x int32) bool { return j.done(j.l.at(x)) }) || j.onDLQ(k) {
			continue
		}
		if !j.in.DLQKnown && j.events[k] == nil {
			// Its event cannot be looked up on a DLQ that was not read.
			continue
		}
		j.add(MissingEffect, k, "", "", fmt.Sprintf("%d request(s), none applied the effect, and the event is not on the DLQ", len(es)))
	}
	for _, key := range never {
		j.add(MissingEffect, 0, key, "", "the baseline run applied this effect; this run never requested it, and its event is not on the DLQ")
	}
}

func (j *judge) terminal() {
	for _, k := range j.keys {
		es := j.group(k)
		first := slices.IndexFunc(es, func(x int32) bool { return j.l.outcome(j.l.at(x)) == Terminated })
		if first < 0 {
			continue
		}
		status := j.l.at(es[first]).status
		if n := len(es) - first - 1; n > 0 {
			j.add(TerminalRetried, k, "", "", fmt.Sprintf("%d request(s) after a terminal answer (%d): a terminal error never succeeds, dead-letter the event instead", n, status))
		}
		if j.in.DLQKnown && j.events[k] != nil && !j.onDLQ(k) {
			j.add(TerminalNotDeadLettered, k, "", "", fmt.Sprintf("the request got a terminal answer (%d) and the event is not on the DLQ", status))
		}
	}
}

// retryable reports whether a request failed in a way a client retries.
func retryable(r *rec) bool {
	gaveUp := r.flags&flagGaveUp != 0
	if r.flags&flagEffect != 0 && !gaveUp {
		return false
	}
	return r.status == 0 || r.status == 429 || r.status >= 500 || gaveUp
}

// retryTooSoon finds retries before the previous answer's Retry-After,
// and consumers that do not back off. A gap is the time from a failed
// attempt's answer to the next attempt (gaps after a Retry-After are not
// counted); the envelope of retry n is the upper quartile of the n-th
// gaps over every effect. No backoff: the envelope of the latest retry
// index L >= MinLateRetry with at least MinEnvelopeSamples gaps is below
// BackoffGrowth times the envelope of the first retry plus BackoffFloor.
// A quartile of each index, not the longest gap of all the late ones,
// keeps a consumer whose gaps are set by queueing for its concurrency or
// rate (the same at every index) from looking like one that backs off,
// and a few chains restarted by a crash (the client's count starts over,
// the stand-in's goes on) from hiding a backoff.
// Full jitter (a delay uniform in [0, min(cap, base × 2^n)]) passes: its
// envelope doubles with n until the cap: with a cap at least 4 times
// the second delay's bound and MinLateGaps late gaps, a false finding
// has a chance below 1 in a million (every late gap below 5/16 of the
// cap).
func (j *judge) retryTooSoon() {
	var gaps [][]time.Duration // by retry index - 1
	longest := map[int]int32{}
	longestGap := map[int]time.Duration{}
	for _, k := range j.keys {
		es := j.group(k)
		reported := false
		n := 0
		for i := 1; i < len(es); i++ {
			prev, cur := j.l.at(es[i-1]), j.l.at(es[i])
			if !retryable(prev) {
				n = 0
				continue
			}
			n++
			gap := span(cur.start, prev.end)
			if ra := time.Duration(prev.retryAfter); ra > 0 {
				if gap < ra-RetryAfterSlack && !reported {
					reported = true
					j.add(RetryTooSoon, k, "", "retry-after", fmt.Sprintf("attempt %d came %s after an answer with Retry-After %s", cur.attempt, gap.Round(time.Millisecond), ra))
				}
				continue
			}
			for len(gaps) < n {
				gaps = append(gaps, nil)
			}
			gaps[n-1] = append(gaps[n-1], gap)
			if gap >= longestGap[n] {
				longestGap[n], longest[n] = gap, k
			}
		}
	}
	last := 0
	for i := MinLateRetry; i <= len(gaps); i++ {
		if len(gaps[i-1]) >= MinEnvelopeSamples {
			last = i
		}
	}
	if last == 0 {
		return
	}
	late, first := upperQuartile(gaps[last-1]), upperQuartile(gaps[0])
	if float64(late) < BackoffGrowth*float64(first)+float64(BackoffFloor) {
		j.add(RetryTooSoon, longest[last], "", "no-backoff", fmt.Sprintf("no backoff: the upper quartile of %d gaps before retry %d is %s, of %d before retry 1 %s; backing off, it reaches at least %g times that (full jitter passes)",
			len(gaps[last-1]), last, late.Round(time.Millisecond), len(gaps[0]), first.Round(time.Millisecond), BackoffGrowth))
	}
}

// upperQuartile is the 75th percentile (nearest rank) of ds.
func upperQuartile(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(3*len(s)+3)/4-1]
}

// outages judges retry storms and synchronized retries per outage.
func (j *judge) outages() {
	es := j.order
	for _, o := range j.in.Log.Outages {
		d := o.End.Sub(o.Start)
		if d <= 0 || len(es) == 0 {
			continue
		}
		oStart, oEnd := j.l.off(o.Start), j.l.off(o.End)
		// retry-storm: the outage's request rate against the same span
		// before it (from the first request on).
		preStart := max(oStart-int64(d), j.t0)
		var pre, during int
		most := map[int32]int{}
		retried := map[int32]bool{}
		for _, x := range es {
			r := j.l.at(x)
			switch {
			case r.start >= preStart && r.start < oStart:
				pre++
			case r.start >= oStart && r.start < oEnd:
				during++
				most[r.key]++
				if r.attempt > 1 {
					retried[r.key] = true
				}
			}
		}
		preSpan := span(oStart, preStart)
		if during >= MinStormRequests && pre > 0 && preSpan >= 100*time.Millisecond {
			rIn := float64(during) / d.Seconds()
			rPre := max(float64(pre)/preSpan.Seconds(), StormRetryRate*float64(len(retried)))
			if rIn > StormFactor*rPre {
				worst := int32(0)
				for _, k := range j.keys {
					if most[k] > most[worst] {
						worst = k
					}
				}
				j.add(RetryStorm, worst, "", "", fmt.Sprintf("%.0f requests/s during the outage from %dms (%s), %.1f times the greater of the %.0f/s before it and %g/s for each of the %d effect(s) retried in it (a storm is above %g times)",
					rIn, span(oStart, j.t0).Milliseconds(), d, rIn/rPre, float64(pre)/preSpan.Seconds(), StormRetryRate, len(retried), StormFactor))
			}
		}
		// synchronized-retries: retries during the outage and one
		// outage length after it whose previous attempt failed in it.
		type retry struct {
			at  int64
			key int32
		}
		var rs []retry
		for _, k := range j.keys {
			ks := j.group(k)
			for i := 1; i < len(ks); i++ {
				p, cur := j.l.at(ks[i-1]), j.l.at(ks[i])
				if p.start < oStart || p.start >= oEnd || !retryable(p) {
					continue
				}
				if cur.start < oEnd+int64(d) {
					rs = append(rs, retry{cur.start, k})
				}
			}
		}
		sort.Slice(rs, func(a, b int) bool { return rs[a].at < rs[b].at })
		effects := map[int32]bool{}
		for _, r := range rs {
			effects[r.key] = true
		}
		if len(rs) < MinSyncRetries || len(effects) < MinSyncEffects {
			continue
		}
		if span := span(rs[len(rs)-1].at, rs[0].at); span > 0 {
			rate := float64(len(rs)-1) / float64(span)
			if 1-math.Exp(-2*float64(SyncWindow)*rate) > MaxSyncChance {
				continue
			}
		}
		bunched := 0
		counts := map[int32]int{}
		for i, r := range rs {
			near := false
			for a := i - 1; a >= 0 && span(r.at, rs[a].at) <= SyncWindow && !near; a-- {
				near = rs[a].key != r.key
			}
			for b := i + 1; b < len(rs) && span(rs[b].at, r.at) <= SyncWindow && !near; b++ {
				near = rs[b].key != r.key
			}
			if near {
				bunched++
				counts[r.key]++
			}
		}
		if frac := float64(bunched) / float64(len(rs)); frac >= SyncFraction {
			worst := int32(0)
			for _, k := range j.keys {
				if counts[k] > counts[worst] {
					worst = k
				}
			}
			j.add(SynchronizedRetries, worst, "", "", fmt.Sprintf("%d of %d retries of %d effects around the outage from %dms started within %s of a retry of another effect (synchronized when at least %.0f%%): add jitter to the backoff",
				bunched, len(rs), len(effects), span(oStart, j.t0).Milliseconds(), SyncWindow, SyncFraction*100))
		}
	}
}

// attemptsUntilDone counts the requests of an effect up to its first
// success or terminal answer (later requests are redeliveries, judged as
// duplicates).
func (j *judge) attemptsUntilDone(es []int32) int {
	for i, x := range es {
		if j.done(j.l.at(x)) {
			return i + 1
		}
	}
	return len(es)
}

func (j *judge) maxAttempts() {
	for _, k := range j.keys {
		if n := j.attemptsUntilDone(j.group(k)); n > j.in.Expect.MaxAttempts {
			j.add(MaxAttemptsExceeded, k, "", "", fmt.Sprintf("%d attempts, more than expect.retries' max_attempts %d", n, j.in.Expect.MaxAttempts))
		}
	}
}

func (j *judge) summary() Summary {
	es := j.order
	s := Summary{Name: j.in.Log.Name, Requests: len(es), EffectKeys: len(j.keys), Outages: len(j.in.Log.Outages), ByOutcome: map[Outcome]int{}}
	counts := make([]int, 0, len(j.keys))
	for _, k := range j.keys {
		n := int(j.n[k])
		counts = append(counts, n)
		s.MaxAttempts = max(s.MaxAttempts, n)
	}
	if len(counts) > 0 {
		sort.Ints(counts)
		s.P50Attempts = counts[(len(counts)-1)/2]
	}
	type window struct{ start, end int64 }
	outages := make([]window, len(j.in.Log.Outages))
	for i, o := range j.in.Log.Outages {
		outages[i] = window{j.l.off(o.Start), j.l.off(o.End)}
	}
	// Peak concurrency: each start against the ends up to it, ends
	// before starts at the same instant (an answer and the next request
	// are not both in flight); the starts are in order already.
	ends := make([]int64, 0, len(es))
	for _, x := range es {
		r := j.l.at(x)
		s.ByOutcome[j.l.outcome(r)]++
		if r.flags&flagEffect != 0 {
			s.Effects++
		}
		ends = append(ends, r.end)
		if r.attempt > 1 {
			for _, o := range outages {
				if r.start >= o.start && r.start < o.end {
					s.OutageRetries++
					break
				}
			}
		}
	}
	slices.Sort(ends)
	ended := 0
	for i, x := range es {
		start := j.l.at(x).start
		for ended < len(ends) && ends[ended] <= start {
			ended++
		}
		s.PeakConcurrency = max(s.PeakConcurrency, i+1-ended)
	}
	lo := 0
	for hi := range es {
		for span(j.l.at(es[hi]).start, j.l.at(es[lo]).start) >= time.Second {
			lo++
		}
		s.PeakRate = max(s.PeakRate, hi-lo+1)
	}
	return s
}

func (j *judge) overLimit(s Summary) {
	l := j.in.Limits
	var over []string
	if l.Concurrency > 0 && s.PeakConcurrency > l.Concurrency {
		over = append(over, fmt.Sprintf("peak concurrency %d above the limit %d", s.PeakConcurrency, l.Concurrency))
	}
	if l.Rate > 0 && s.PeakRate > l.Rate {
		over = append(over, fmt.Sprintf("peak rate %d requests/s above the limit %d/s", s.PeakRate, l.Rate))
	}
	if len(over) > 0 {
		j.add(OverLimit, 0, "", "", strings.Join(over, "; ")+": bound the consumer's concurrency and rate by what the service takes")
	}
}

// effectOrder finds effects of one partition key applied out of the
// order of their events.
func (j *judge) effectOrder() {
	type applied struct {
		at  int64
		ev  *Event
		key int32
	}
	byPK := map[string][]applied{}
	var pks []string
	for _, k := range j.keys {
		ev := j.events[k]
		if ev == nil || ev.Key == "" {
			continue
		}
		es := j.group(k)
		i := slices.IndexFunc(es, func(x int32) bool { return j.l.at(x).flags&flagEffect != 0 })
		if i < 0 {
			continue
		}
		if _, ok := byPK[ev.Key]; !ok {
			pks = append(pks, ev.Key)
		}
		byPK[ev.Key] = append(byPK[ev.Key], applied{j.l.at(es[i]).effectAt, ev, k})
	}
	for _, pk := range pks {
		as := byPK[pk]
		sort.SliceStable(as, func(a, b int) bool { return as[a].ev.Order < as[b].ev.Order })
		for i := 1; i < len(as); i++ {
			if as[i].at < as[i-1].at {
				j.add(EffectOrder, as[i].key, "", "", fmt.Sprintf("applied %dms before the effect %q of the earlier event %s of the same key",
					span(as[i-1].at, as[i].at).Milliseconds(), shorten(j.key(as[i-1].key)), shorten(as[i-1].ev.ID)))
				break
			}
		}
	}
}

// WriteKeys writes keys to a new file at path, one a line quoted as Go
// quotes them (keys may hold any byte: a header's need not be UTF-8,
// which JSON would not keep), for Input.ExpectedFile.
func WriteKeys(path string, keys []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, k := range keys {
		w.WriteString(strconv.Quote(k))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadKeys calls each with every key of a file WriteKeys wrote; a line
// that is not a quoted string is an error naming the file and line.
func ReadKeys(path string, each func(string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	// A key is at most MaxKey bytes; quoted, at most ten times that.
	sc.Buffer(make([]byte, 0, 64<<10), 10*MaxKey+16)
	for line := 1; sc.Scan(); line++ {
		k, err := strconv.Unquote(sc.Text())
		if err != nil {
			return fmt.Errorf("%s:%d: not a quoted string: %v", path, line, err)
		}
		each(k)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
