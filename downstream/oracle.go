package downstream

import (
	"bufio"
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

// judge holds one Judge call's indexes.
type judge struct {
	in     Input
	t0     time.Time
	byID   EventIndex
	byKey  map[string][]Entry // effect key -> entries by start
	keys   []string           // effect keys in order of first request
	events map[string]*Event  // effect key -> its event (when known)
	out    []Finding
}

// Judge reads a stand-in's log and returns its findings and summary. It
// sorts in.Log.Entries by start, in place (a run's log grows with its
// events: it is not copied).
func Judge(in Input) ([]Finding, Summary) {
	entries := in.Log.Entries
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Start.Before(entries[j].Start) })
	j := &judge{in: in, byID: in.Index, byKey: map[string][]Entry{}, events: map[string]*Event{}}
	if j.byID == nil {
		j.byID = indexEvents(in.Events)
	}
	if len(entries) > 0 {
		j.t0 = entries[0].Start
	}
	// Each effect key's entries, by start, are a part of one array: one
	// copy of the log, not a slice (and its spare room) per key.
	count := map[string]int32{}
	for _, e := range entries {
		if e.EffectKey == "" {
			continue
		}
		if _, ok := count[e.EffectKey]; !ok {
			j.keys = append(j.keys, e.EffectKey)
		}
		count[e.EffectKey]++
	}
	grouped := make([]Entry, 0, len(entries))
	at := make(map[string]int32, len(j.keys))
	for _, k := range j.keys {
		at[k] = int32(len(grouped))
		grouped = grouped[:len(grouped)+int(count[k])]
	}
	clear(count)
	for _, e := range entries {
		if e.EffectKey == "" {
			continue
		}
		lo := int(at[e.EffectKey])
		grouped[lo+int(count[e.EffectKey])] = e
		count[e.EffectKey]++
	}
	for _, e := range entries {
		if e.EffectKey == "" {
			continue
		}
		if _, ok := j.byKey[e.EffectKey]; !ok {
			lo := int(at[e.EffectKey])
			hi := lo + int(count[e.EffectKey])
			j.byKey[e.EffectKey] = grouped[lo:hi:hi]
		}
		if j.events[e.EffectKey] == nil {
			if ev, ok := j.byID.Event(e.EventID); ok {
				j.events[e.EffectKey] = ev
			} else if ev, ok := j.byID.Event(e.EffectKey); ok {
				j.events[e.EffectKey] = ev
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

func (j *judge) add(kind, key, detail, msg string) {
	f := Finding{Kind: kind, Downstream: j.in.Log.Name, EffectKey: key, Detail: detail, Message: msg}
	if ev := j.events[key]; ev != nil {
		e := *ev
		f.Event = &e
	}
	if key != "" {
		f.Timeline, f.More = j.timeline(j.byKey[key])
	}
	j.out = append(j.out, f)
}

func (j *judge) timeline(es []Entry) ([]Step, int) {
	var out []Step
	for i, e := range es {
		if i == maxTimeline {
			return out, len(es) - i
		}
		out = append(out, Step{Seq: e.Seq, Attempt: e.Attempt, AtMS: e.Start.Sub(j.t0).Milliseconds(), Answer: answerText(e)})
	}
	return out, 0
}

// answerText describes what a request got.
func answerText(e Entry) string {
	var s string
	switch {
	case e.Status == 0:
		s = "connection reset, no answer"
	default:
		s = strconv.Itoa(e.Status)
	}
	var notes []string
	switch e.Outcome {
	case Faulted:
		notes = append(notes, "fault "+string(e.Fault))
	case OK:
	default:
		notes = append(notes, string(e.Outcome))
	}
	if e.Effect {
		notes = append(notes, "effect applied")
	}
	if e.GaveUp {
		notes = append(notes, "client gave up")
	}
	if e.RetryAfter > 0 {
		notes = append(notes, "Retry-After "+e.RetryAfter.String())
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, ", ") + ")"
	}
	return s
}

func (j *judge) duplicates() {
	for _, k := range j.keys {
		var effects []Entry
		for _, e := range j.byKey[k] {
			if e.Effect {
				effects = append(effects, e)
			}
		}
		if len(effects) < 2 {
			continue
		}
		idem := map[string]bool{}
		for _, e := range effects {
			idem[e.IdempotencyKey] = true
		}
		if j.in.Idempotent && len(idem) > 1 {
			j.add(DuplicateEffect, k, FreshKeyPerAttemptDetail, fmt.Sprintf("the effect happened %d times, under %d different idempotency keys: a fresh idempotency key per attempt (derive the key from the event, and reuse it on every attempt)", len(effects), len(idem)))
			continue
		}
		j.add(DuplicateEffect, k, "", fmt.Sprintf("the effect happened %d times", len(effects)))
	}
}

func (j *judge) onDLQ(key string) bool {
	ev := j.events[key]
	return ev != nil && j.in.DLQ[ev.ID]
}

func (j *judge) missing() {
	seen := map[string]bool{}
	keys := append([]string(nil), j.keys...)
	for _, k := range j.in.Expected {
		if _, ok := j.byKey[k]; !ok && !seen[k] {
			keys = append(keys, k)
		}
		seen[k] = true
	}
	if j.in.ExpectedFile != "" {
		// Each key is once in the file: only those missing from this
		// run's requests are kept.
		err := ReadKeys(j.in.ExpectedFile, func(k string) {
			if _, ok := j.byKey[k]; !ok && !seen[k] {
				keys = append(keys, k)
				seen[k] = true
			}
		})
		if err != nil {
			j.add(MissingEffect, "", "", fmt.Sprintf("cannot read the baseline's effects: %v", err))
		}
	}
	for _, k := range keys {
		es := j.byKey[k]
		if slices.ContainsFunc(es, func(e Entry) bool { return e.Effect || e.Outcome == Replayed || e.Outcome == Terminated }) {
			continue
		}
		if j.onDLQ(k) {
			continue
		}
		if !j.in.DLQKnown && j.events[k] == nil && len(es) > 0 {
			// Its event cannot be looked up on a DLQ that was not read.
			continue
		}
		if len(es) == 0 {
			j.add(MissingEffect, k, "", "the baseline run applied this effect; this run never requested it, and its event is not on the DLQ")
			continue
		}
		j.add(MissingEffect, k, "", fmt.Sprintf("%d request(s), none applied the effect, and the event is not on the DLQ", len(es)))
	}
}

func (j *judge) terminal() {
	for _, k := range j.keys {
		es := j.byKey[k]
		first := slices.IndexFunc(es, func(e Entry) bool { return e.Outcome == Terminated })
		if first < 0 {
			continue
		}
		if n := len(es) - first - 1; n > 0 {
			j.add(TerminalRetried, k, "", fmt.Sprintf("%d request(s) after a terminal answer (%d): a terminal error never succeeds, dead-letter the event instead", n, es[first].Status))
		}
		if j.in.DLQKnown && j.events[k] != nil && !j.onDLQ(k) {
			j.add(TerminalNotDeadLettered, k, "", fmt.Sprintf("the request got a terminal answer (%d) and the event is not on the DLQ", es[first].Status))
		}
	}
}

// retryable reports whether a request failed in a way a client retries.
func retryable(e Entry) bool {
	if e.Effect && !e.GaveUp {
		return false
	}
	return e.Status == 0 || e.Status == 429 || e.Status >= 500 || e.GaveUp
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
	longest := map[int]string{}
	longestGap := map[int]time.Duration{}
	for _, k := range j.keys {
		es := j.byKey[k]
		reported := false
		n := 0
		for i := 1; i < len(es); i++ {
			prev, cur := es[i-1], es[i]
			if !retryable(prev) {
				n = 0
				continue
			}
			n++
			gap := cur.Start.Sub(prev.End)
			if prev.RetryAfter > 0 {
				if gap < prev.RetryAfter-RetryAfterSlack && !reported {
					reported = true
					j.add(RetryTooSoon, k, "retry-after", fmt.Sprintf("attempt %d came %s after an answer with Retry-After %s", cur.Attempt, gap.Round(time.Millisecond), prev.RetryAfter))
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
		j.add(RetryTooSoon, longest[last], "no-backoff", fmt.Sprintf("no backoff: the upper quartile of %d gaps before retry %d is %s, of %d before retry 1 %s; backing off, it reaches at least %g times that (full jitter passes)",
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
	es := j.in.Log.Entries
	for _, o := range j.in.Log.Outages {
		d := o.End.Sub(o.Start)
		if d <= 0 || len(es) == 0 {
			continue
		}
		// retry-storm: the outage's request rate against the same span
		// before it (from the first request on).
		preStart := o.Start.Add(-d)
		if preStart.Before(j.t0) {
			preStart = j.t0
		}
		var pre, during int
		most := map[string]int{}
		retried := map[string]bool{}
		for _, e := range es {
			switch {
			case !e.Start.Before(preStart) && e.Start.Before(o.Start):
				pre++
			case !e.Start.Before(o.Start) && e.Start.Before(o.End):
				during++
				most[e.EffectKey]++
				if e.Attempt > 1 {
					retried[e.EffectKey] = true
				}
			}
		}
		preSpan := o.Start.Sub(preStart)
		if during >= MinStormRequests && pre > 0 && preSpan >= 100*time.Millisecond {
			rIn := float64(during) / d.Seconds()
			rPre := max(float64(pre)/preSpan.Seconds(), StormRetryRate*float64(len(retried)))
			if rIn > StormFactor*rPre {
				worst := ""
				for _, k := range j.keys {
					if most[k] > most[worst] {
						worst = k
					}
				}
				j.add(RetryStorm, worst, "", fmt.Sprintf("%.0f requests/s during the outage from %dms (%s), %.1f times the greater of the %.0f/s before it and %g/s for each of the %d effect(s) retried in it (a storm is above %g times)",
					rIn, o.Start.Sub(j.t0).Milliseconds(), d, rIn/rPre, float64(pre)/preSpan.Seconds(), StormRetryRate, len(retried), StormFactor))
			}
		}
		// synchronized-retries: retries during the outage and one
		// outage length after it whose previous attempt failed in it.
		type retry struct {
			at  time.Time
			key string
		}
		var rs []retry
		for _, k := range j.keys {
			ks := j.byKey[k]
			for i := 1; i < len(ks); i++ {
				p := ks[i-1]
				if p.Start.Before(o.Start) || !p.Start.Before(o.End) || !retryable(p) {
					continue
				}
				if ks[i].Start.Before(o.End.Add(d)) {
					rs = append(rs, retry{ks[i].Start, k})
				}
			}
		}
		sort.Slice(rs, func(a, b int) bool { return rs[a].at.Before(rs[b].at) })
		effects := map[string]bool{}
		for _, r := range rs {
			effects[r.key] = true
		}
		if len(rs) < MinSyncRetries || len(effects) < MinSyncEffects {
			continue
		}
		if span := rs[len(rs)-1].at.Sub(rs[0].at); span > 0 {
			rate := float64(len(rs)-1) / float64(span)
			if 1-math.Exp(-2*float64(SyncWindow)*rate) > MaxSyncChance {
				continue
			}
		}
		bunched := 0
		counts := map[string]int{}
		for i, r := range rs {
			near := false
			for a := i - 1; a >= 0 && r.at.Sub(rs[a].at) <= SyncWindow && !near; a-- {
				near = rs[a].key != r.key
			}
			for b := i + 1; b < len(rs) && rs[b].at.Sub(r.at) <= SyncWindow && !near; b++ {
				near = rs[b].key != r.key
			}
			if near {
				bunched++
				counts[r.key]++
			}
		}
		if frac := float64(bunched) / float64(len(rs)); frac >= SyncFraction {
			worst := ""
			for _, k := range j.keys {
				if counts[k] > counts[worst] {
					worst = k
				}
			}
			j.add(SynchronizedRetries, worst, "", fmt.Sprintf("%d of %d retries of %d effects around the outage from %dms started within %s of a retry of another effect (synchronized when at least %.0f%%): add jitter to the backoff",
				bunched, len(rs), len(effects), o.Start.Sub(j.t0).Milliseconds(), SyncWindow, SyncFraction*100))
		}
	}
}

// attemptsUntilDone counts the requests of an effect up to its first
// success or terminal answer (later requests are redeliveries, judged as
// duplicates).
func attemptsUntilDone(es []Entry) int {
	for i, e := range es {
		if e.Effect || e.Outcome == Replayed || e.Outcome == Terminated {
			return i + 1
		}
	}
	return len(es)
}

func (j *judge) maxAttempts() {
	for _, k := range j.keys {
		if n := attemptsUntilDone(j.byKey[k]); n > j.in.Expect.MaxAttempts {
			j.add(MaxAttemptsExceeded, k, "", fmt.Sprintf("%d attempts, more than expect.retries' max_attempts %d", n, j.in.Expect.MaxAttempts))
		}
	}
}

func (j *judge) summary() Summary {
	es := j.in.Log.Entries
	s := Summary{Name: j.in.Log.Name, Requests: len(es), EffectKeys: len(j.keys), Outages: len(j.in.Log.Outages), ByOutcome: map[Outcome]int{}}
	var counts []int
	for _, k := range j.keys {
		n := len(j.byKey[k])
		counts = append(counts, n)
		s.MaxAttempts = max(s.MaxAttempts, n)
	}
	if len(counts) > 0 {
		sort.Ints(counts)
		s.P50Attempts = counts[(len(counts)-1)/2]
	}
	type edge struct {
		at time.Time
		d  int
	}
	edges := make([]edge, 0, 2*len(es))
	for _, e := range es {
		s.ByOutcome[e.Outcome]++
		if e.Effect {
			s.Effects++
		}
		edges = append(edges, edge{e.Start, 1}, edge{e.End, -1})
		if e.Attempt > 1 {
			for _, o := range j.in.Log.Outages {
				if !e.Start.Before(o.Start) && e.Start.Before(o.End) {
					s.OutageRetries++
					break
				}
			}
		}
	}
	// Ends before starts at the same instant: an answer and the next
	// request are not both in flight.
	sort.Slice(edges, func(a, b int) bool {
		if edges[a].at.Equal(edges[b].at) {
			return edges[a].d < edges[b].d
		}
		return edges[a].at.Before(edges[b].at)
	})
	cur := 0
	for _, e := range edges {
		cur += e.d
		s.PeakConcurrency = max(s.PeakConcurrency, cur)
	}
	lo := 0
	for hi := range es {
		for es[hi].Start.Sub(es[lo].Start) >= time.Second {
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
		j.add(OverLimit, "", "", strings.Join(over, "; ")+": bound the consumer's concurrency and rate by what the service takes")
	}
}

// effectOrder finds effects of one partition key applied out of the
// order of their events.
func (j *judge) effectOrder() {
	type applied struct {
		at  time.Time
		ev  *Event
		key string
	}
	byPK := map[string][]applied{}
	var pks []string
	for _, k := range j.keys {
		ev := j.events[k]
		if ev == nil || ev.Key == "" {
			continue
		}
		i := slices.IndexFunc(j.byKey[k], func(e Entry) bool { return e.Effect })
		if i < 0 {
			continue
		}
		if _, ok := byPK[ev.Key]; !ok {
			pks = append(pks, ev.Key)
		}
		byPK[ev.Key] = append(byPK[ev.Key], applied{j.byKey[k][i].EffectAt, ev, k})
	}
	for _, pk := range pks {
		as := byPK[pk]
		sort.SliceStable(as, func(a, b int) bool { return as[a].ev.Order < as[b].ev.Order })
		for i := 1; i < len(as); i++ {
			if as[i].at.Before(as[i-1].at) {
				j.add(EffectOrder, as[i].key, "", fmt.Sprintf("applied %dms before the effect %q of the earlier event %s of the same key",
					as[i-1].at.Sub(as[i].at).Milliseconds(), shorten(as[i-1].key), shorten(as[i-1].ev.ID)))
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
