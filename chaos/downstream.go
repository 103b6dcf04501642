package chaos

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// DownstreamKind is what a downstream fault does to one request a consumer
// makes to a stand-in (package downstream applies it).
type DownstreamKind string

// Downstream fault kinds. They differ in whether the request's effect
// happens, because that is what makes duplicates.
const (
	// Status429, Status500 and Status503 answer with that status and
	// apply no effect (a 429 carries Retry-After).
	Status429 DownstreamKind = "429"
	Status500 DownstreamKind = "500"
	Status503 DownstreamKind = "503"
	// Reset closes the connection before answering: no effect.
	Reset DownstreamKind = "reset"
	// Timeout applies the effect and answers only once the client has
	// given up (or a bound has passed).
	Timeout DownstreamKind = "timeout"
	// Slow applies the effect and answers late, but in time.
	Slow DownstreamKind = "slow"
)

// DownstreamKinds lists the kinds, the default of chaos.downstream.<name>.kinds.
var DownstreamKinds = []DownstreamKind{Status429, Status500, Status503, Timeout, Reset, Slow}

// AppliesEffect reports whether a request that gets the fault has its
// effect applied.
func (k DownstreamKind) AppliesEffect() bool { return k == Timeout || k == Slow }

// DownstreamConfig is chaos.downstream.<name>: faults of the requests to
// one stand-in.
type DownstreamConfig struct {
	// Rate is the probability that an event's first request to the
	// stand-in gets a fault; each faulted attempt's next attempt gets one
	// with the same probability, up to MaxDownstreamAttempt.
	Rate float64 `json:"rate"`
	// Kinds are drawn from, one per fault (default DownstreamKinds).
	Kinds []DownstreamKind `json:"kinds,omitempty"`
	// Outage, when set, plans Count outages (503 to every request) of
	// Duration each.
	Outage *OutageConfig `json:"outage,omitempty"`
}

// OutageConfig configures a stand-in's outages.
type OutageConfig struct {
	Count    int           `json:"count"`
	Duration time.Duration `json:"duration"`
}

// MaxDownstreamAttempt is the last attempt of one effect a fault is
// planned for: chains of faults stay short enough for a consumer with a
// handful of attempts to get through.
const MaxDownstreamAttempt = 3

// Random stream ids of the downstream kinds.
const (
	streamDownstream = 0x646f776e73747221 // "downstr!"
	streamOutage     = 0x6f75746167652121 // "outage!!"
)

func normalizeDownstream(c map[string]*DownstreamConfig) (map[string]*DownstreamConfig, []error) {
	if c == nil {
		return nil, nil
	}
	var errs []error
	out := make(map[string]*DownstreamConfig, len(c))
	for _, name := range slices.Sorted(maps.Keys(c)) {
		d := *c[name]
		if !(d.Rate >= 0 && d.Rate <= 1) {
			errs = append(errs, fmt.Errorf("chaos.downstream.%s.rate %v: must be between 0 and 1", name, d.Rate))
		}
		kinds := d.Kinds
		if len(kinds) == 0 {
			kinds = DownstreamKinds
		}
		var ks []DownstreamKind
		for _, k := range kinds {
			if !slices.Contains(DownstreamKinds, k) {
				errs = append(errs, fmt.Errorf("chaos.downstream.%s.kinds: %q is not a downstream fault kind (use 429, 500, 503, timeout, reset, slow)", name, k))
				continue
			}
			if !slices.Contains(ks, k) {
				ks = append(ks, k)
			}
		}
		d.Kinds = ks
		if o := d.Outage; o != nil {
			oo := *o
			if oo.Count == 0 {
				oo.Count = 1
			}
			if oo.Count < 1 || oo.Count > 100 {
				errs = append(errs, fmt.Errorf("chaos.downstream.%s.outage.count %d: must be between 1 and 100", name, oo.Count))
			}
			if oo.Duration <= 0 || oo.Duration > 10*time.Minute {
				errs = append(errs, fmt.Errorf("chaos.downstream.%s.outage.duration %s: must be positive and at most 10m", name, oo.Duration))
			}
			d.Outage = &oo
		}
		out[name] = &d
	}
	return out, errs
}

func downstreamString(c map[string]*DownstreamConfig) []string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(c)) {
		d := c[name]
		kinds := make([]string, len(d.Kinds))
		for i, k := range d.Kinds {
			kinds[i] = string(k)
		}
		s := fmt.Sprintf("downstream.%s{rate %g, kinds %s", name, d.Rate, strings.Join(kinds, ","))
		if o := d.Outage; o != nil {
			s += fmt.Sprintf(", outage %d×%s", o.Count, o.Duration)
		}
		parts = append(parts, s+"}")
	}
	return parts
}

// OutagePlan returns the outage faults of a plan (cfg normalized), numbered
// after the crash and rebalance faults as a Stream numbers them: per
// stand-in (by name), outage k starts with the stand-in's request number
// Progress × events (Progress in ((k-1+0.15)/count, (k-1+0.85)/count) of
// the run), and lasts its Duration.
func OutagePlan(cfg Config, seed uint64) []Fault {
	next := len(GroupPlan(cfg, seed))
	var out []Fault
	for _, name := range slices.Sorted(maps.Keys(cfg.Downstream)) {
		o := cfg.Downstream[name].Outage
		if o == nil {
			continue
		}
		rng := rand.New(rand.NewPCG(seed^hashName(name), streamOutage))
		for k := range o.Count {
			f := Fault{Index: next, Kind: Outage, Downstream: name, Outage: k + 1, Duration: o.Duration}
			f.Progress = (float64(k) + 0.15 + 0.7*rng.Float64()) / float64(o.Count)
			next++
			out = append(out, f)
		}
	}
	return out
}

// PrePlan returns the faults a plan numbers before any event: crashes,
// rebalances, outages.
func PrePlan(cfg Config, seed uint64) []Fault {
	return append(GroupPlan(cfg, seed), OutagePlan(cfg, seed)...)
}

// hashName gives each stand-in's outages a stream of their own (FNV-1a).
func hashName(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// planDownstream numbers the downstream faults of one event: per stand-in
// (by name), attempt 1 gets a fault with probability rate, and each
// faulted attempt's next one again, up to MaxDownstreamAttempt.
func (s *Stream[T]) planDownstream(ev Event) {
	for _, name := range slices.Sorted(maps.Keys(s.cfg.Downstream)) {
		d := s.cfg.Downstream[name]
		if len(d.Kinds) == 0 {
			continue
		}
		for attempt := 1; attempt <= MaxDownstreamAttempt; attempt++ {
			if s.downRNG.Float64() >= d.Rate {
				break
			}
			f := s.newFault(Downstream, ev)
			f.After, f.Downstream, f.Attempt = ev.Index, name, attempt
			f.Answer = d.Kinds[s.downRNG.IntN(len(d.Kinds))]
			s.record(f)
		}
	}
}

func (f Fault) describeDownstream() string {
	if f.Kind == Outage {
		pct := int(f.Progress*100 + 0.5)
		return fmt.Sprintf("#%d outage %d of downstream %s: every request answered 503 for %s, from its request number %d%% of the events", f.Index, f.Outage, f.Downstream, f.Duration, pct)
	}
	what := map[DownstreamKind]string{
		Status429: "answered 429 with Retry-After (no effect)",
		Status500: "answered 500 (no effect)",
		Status503: "answered 503 (no effect)",
		Reset:     "connection closed before an answer (no effect)",
		Timeout:   "effect applied, answered only after the client gave up",
		Slow:      "effect applied, answered late but in time",
	}[f.Answer]
	return fmt.Sprintf("#%d downstream %s %s: attempt %d of the effect of %s: %s", f.Index, f.Downstream, f.Answer, f.Attempt, f.Event.describe(), what)
}
