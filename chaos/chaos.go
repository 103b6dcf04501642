// Package chaos plans and applies the faults of a replay: what at-least-once
// delivery does to a consumer, injected on purpose.
//
// A plan is a pure function of the configuration, a seed and the sequence of
// input events (their index, id, type, key and partition): the same inputs
// always give the same faults, numbered from 0 in the order they are
// planned. Each fault is one independent perturbation (one extra copy of an
// event, one event moved later), so any subset of a plan can be applied on its
// own: `--seed N --faults i,j,k` replays exactly those faults, and shrinking
// can search for the smallest failing subset.
//
// Plans are streamed. A Stream plans each event when it has seen the
// next reorder-window events of its scope (or its lookahead is full),
// delivers it (or holds it back), and releases held events and copies as
// the events they wait for go by, so its memory is bounded by the reorder
// lookahead and the duplicate spread, never by the number of events.
//
// Fault kinds:
//
//   - duplicate {rate, max, spread}: with probability rate, an event gets
//     1..max extra copies (same id, same key, same payload); each copy is
//     delivered right after input event i+d, d uniform in 0..spread (0:
//     right after the original). A copy is never delivered before its
//     original.
//   - reorder {window, scope, rate}: with probability rate, an event is held
//     back and delivered right after one of the next window events of its
//     scope (same key, same partition, or any event), within
//     ReorderLookahead input events. An event that another event was moved
//     behind is never moved itself, so moves do not chain and every event
//     is late by at most window events of its scope.
//   - skew {rate}: with probability rate, an event is re-emitted as another
//     version of its type: one of the versions in its Event.SkewTo (the
//     versions its data is valid under that the type's compatibility mode
//     says a consumer must accept, computed by the caller). Its payload is
//     rewritten by the Mutate hook; copies carry the rewritten payload.
//   - poison {rate, kinds}: with probability rate, a poison event (one of
//     kinds: invalid-data, undecodable, unknown-type, future-version) built
//     from an event by the Mutate hook is delivered right after it, with an
//     id of its own (Fault.PoisonID).
//   - crash {count, at}: count crash faults, planned before any event and
//     numbered first. Each carries the point of the run it strikes at
//     (Progress, a fraction of the run) and, for at: random, the phase of a
//     delivery it strikes in when the consumer runs in-process. The stream
//     only plans them: killing and restarting the consumer is the
//     harness's job (see CrashPlan).
//   - rebalance {count, kinds, stall, restart, at}: count faults on the
//     consumer's group (join, leave, kill, stall, eager), planned after the
//     crashes and before any event, each at a seeded point of the run, like
//     crashes (see RebalancePlan). Applying them is the harness's job.
//   - downstream.<name> {rate, kinds, outage}: faults of the requests the
//     consumer makes to a downstream stand-in (package downstream). Per
//     event and stand-in, attempt 1 of the event's effect gets a fault of
//     one of kinds (429, 500, 503, timeout, reset, slow) with probability
//     rate, and each faulted attempt's next one again, up to
//     MaxDownstreamAttempt; numbered after the event's poison fault.
//     outage {count, duration}: count outages per stand-in, planned after
//     the rebalance faults (see OutagePlan).
//
// Every kind draws from its own random stream, so enabling one kind does not
// change the faults of another for the same seed. Per event, faults are
// numbered duplicate, reorder, skew, poison; crash faults, then rebalance
// faults, come before all of them. Plans of scenarios without the newer
// kinds (skew, poison, crash, rebalance) are those of earlier versions of evtool, index for index, but for reorder
// with scope key or partition, whose window counts the events of the scope
// (it counted the events of the stream before).
package chaos

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Kind names a fault kind.
type Kind string

// Fault kinds.
const (
	Duplicate Kind = "duplicate"
	Reorder   Kind = "reorder"
	Skew      Kind = "skew"
	Poison    Kind = "poison"
	Crash     Kind = "crash"
	Rebalance Kind = "rebalance"
	// Outage and Downstream are faults of a consumer's dependencies
	// (downstream stand-ins): an outage of one, a fault of one request.
	Outage     Kind = "outage"
	Downstream Kind = "downstream"
)

// Kinds lists the fault kinds in the order a plan numbers them: crashes
// first, rebalances, outages, then per event duplicate, reorder, skew,
// poison, downstream.
var Kinds = []Kind{Crash, Rebalance, Outage, Duplicate, Reorder, Skew, Poison, Downstream}

// PoisonKind says how a poison event breaks the catalog.
type PoisonKind string

// Poison kinds.
const (
	// InvalidData: a known type and version whose data fails the
	// version's schema.
	InvalidData PoisonKind = "invalid-data"
	// Undecodable: bytes that are not a readable event (data that is not
	// JSON; in structured mode a truncated envelope).
	Undecodable PoisonKind = "undecodable"
	// UnknownType: a type the catalog does not have.
	UnknownType PoisonKind = "unknown-type"
	// FutureVersion: a version of the type newer than any in the catalog
	// (a producer ahead of the consumer).
	FutureVersion PoisonKind = "future-version"
	// UnknownSchemaID: the data Confluent-framed under a schema id no
	// registry version has (what a Confluent deserializer cannot look
	// up). Only on request: it is not in the default kinds, so that
	// existing seeds keep their plans.
	UnknownSchemaID PoisonKind = "unknown-schema-id"
)

// PoisonKinds lists the default poison kinds (the default of
// poison.kinds).
var PoisonKinds = []PoisonKind{InvalidData, Undecodable, UnknownType, FutureVersion}

// AllPoisonKinds lists every poison kind poison.kinds accepts.
var AllPoisonKinds = append(append([]PoisonKind(nil), PoisonKinds...), UnknownSchemaID)

// CrashAt says where crash faults strike.
type CrashAt string

// Crash points.
const (
	// CrashAfterEffect kills the consumer when its group commits past the
	// fault's point of the run: after the effect of the records it is
	// committing (for a consumer that commits after its effects), before
	// the commit is stored, so those records are redelivered.
	CrashAfterEffect CrashAt = "after-effect"
	// CrashAfterCommit kills the consumer when its group commits past the
	// fault's point, once the commit is stored and before the consumer
	// hears back: for a consumer that commits before its effects, those
	// records are lost.
	CrashAfterCommit CrashAt = "after-commit"
	// CrashRandom kills the consumer at a random time within the run.
	CrashRandom CrashAt = "random"
)

// CrashPhase is where, in the handling of one delivery, an in-process
// crash strikes (replaytest; a process is killed at a point in time).
type CrashPhase string

// Crash phases.
const (
	// PhaseBefore: before the delivery is handled (only memory is lost).
	PhaseBefore CrashPhase = "before"
	// PhaseAfterEffect: after the handler's effect, before its commit is
	// stored: the delivery comes again.
	PhaseAfterEffect CrashPhase = "after-effect"
	// PhaseAfterCommit: once the commit is stored (for a consumer that
	// commits before its effect: before the effect).
	PhaseAfterCommit CrashPhase = "after-commit"
)

// MaxVersion is the highest version a VersionSet holds.
const MaxVersion = 64

// PoisonIDPrefix starts every poison event's id (Fault.PoisonID):
// evtool-poison-SEED-FAULT, so that a poison id can be found in a record
// by its prefix.
const PoisonIDPrefix = "evtool-poison-"

// MaxPoisonIDLen bounds a poison id's length: the prefix, then the seed
// and the event's index as decimal integers of at most 20 digits and a
// sign each, with a dash between.
const MaxPoisonIDLen = len(PoisonIDPrefix) + 2*21 + 1

// VersionSet is a set of versions 1..MaxVersion of an event type.
type VersionSet uint64

// Add returns the set with version n added (n out of range: unchanged).
func (s VersionSet) Add(n int) VersionSet {
	if n < 1 || n > MaxVersion {
		return s
	}
	return s | 1<<(n-1)
}

// Has reports whether version n is in the set.
func (s VersionSet) Has(n int) bool { return n >= 1 && n <= MaxVersion && s&(1<<(n-1)) != 0 }

// List returns the versions in increasing order.
func (s VersionSet) List() []int {
	var out []int
	for n := 1; n <= MaxVersion; n++ {
		if s.Has(n) {
			out = append(out, n)
		}
	}
	return out
}

// Scope says which events may overtake each other under reorder.
type Scope string

// Reorder scopes.
const (
	// ScopeKey reorders events of the same key only: what a consumer sees
	// when producers of one entity race, or a partition is replayed out of
	// order.
	ScopeKey Scope = "key"
	// ScopePartition reorders events of the same partition.
	ScopePartition Scope = "partition"
	// ScopeGlobal reorders any events.
	ScopeGlobal Scope = "global"
)

// Config is the chaos section of a scenario. A nil kind is off.
type Config struct {
	Duplicate *DuplicateConfig `json:"duplicate,omitempty"`
	Reorder   *ReorderConfig   `json:"reorder,omitempty"`
	Crash     *CrashConfig     `json:"crash,omitempty"`
	Poison    *PoisonConfig    `json:"poison,omitempty"`
	Skew      *SkewConfig      `json:"skew,omitempty"`
	Rebalance *RebalanceConfig `json:"rebalance,omitempty"`
	// Downstream holds the faults of each downstream stand-in, by name.
	Downstream map[string]*DownstreamConfig `json:"downstream,omitempty"`
}

// CrashConfig configures crash faults.
type CrashConfig struct {
	// Count is the number of kills (default 1).
	Count int `json:"count"`
	// At is after-effect (default), after-commit or random.
	At CrashAt `json:"at,omitempty"`
}

// PoisonConfig configures poison faults.
type PoisonConfig struct {
	// Rate is the probability that an event is followed by a poison event.
	Rate float64 `json:"rate"`
	// Kinds are the poison kinds to draw from (default all).
	Kinds []PoisonKind `json:"kinds,omitempty"`
}

// SkewConfig configures skew faults.
type SkewConfig struct {
	// Rate is the probability that an event with another acceptable
	// version is re-emitted as one of them.
	Rate float64 `json:"rate"`
}

// DuplicateConfig configures duplicate faults.
type DuplicateConfig struct {
	// Rate is the probability that an event gets extra copies.
	Rate float64 `json:"rate"`
	// Max is the most extra copies of one event (default 1).
	Max int `json:"max,omitempty"`
	// Spread: a copy is delivered 0..Spread input events after its
	// original (default 0: right after it).
	Spread int `json:"spread,omitempty"`
}

// ReorderConfig configures reorder faults.
type ReorderConfig struct {
	// Window: an event may be delivered after one of the next Window
	// events of its scope (same key, same partition, or any event for
	// global), looking at most ReorderLookahead input events ahead.
	Window int `json:"window"`
	// Scope is key (default), partition or global.
	Scope Scope `json:"scope,omitempty"`
	// Rate is the probability that an event that can move is moved
	// (default 0.5).
	Rate float64 `json:"rate,omitempty"`
}

// Defaults of the optional settings.
const (
	DefaultDuplicateMax = 1
	DefaultReorderRate  = 0.5
	DefaultReorderScope = ScopeKey
	DefaultCrashCount   = 1
	DefaultCrashAt      = CrashAfterEffect
)

// Normalize returns the config with defaults filled in, or an error naming
// the first bad setting.
func (c Config) Normalize() (Config, error) {
	var errs []error
	if d := c.Duplicate; d != nil {
		dd := *d
		if dd.Max == 0 {
			dd.Max = DefaultDuplicateMax
		}
		if !(dd.Rate >= 0 && dd.Rate <= 1) {
			errs = append(errs, fmt.Errorf("chaos.duplicate.rate %v: must be between 0 and 1", dd.Rate))
		}
		if dd.Max < 1 || dd.Max > 100 {
			errs = append(errs, fmt.Errorf("chaos.duplicate.max %d: must be between 1 and 100", dd.Max))
		}
		if dd.Spread < 0 || dd.Spread > 100000 {
			errs = append(errs, fmt.Errorf("chaos.duplicate.spread %d: must be between 0 and 100000", dd.Spread))
		}
		c.Duplicate = &dd
	}
	if r := c.Reorder; r != nil {
		rr := *r
		if rr.Scope == "" {
			rr.Scope = DefaultReorderScope
		}
		if rr.Rate == 0 {
			rr.Rate = DefaultReorderRate
		}
		if rr.Window < 1 || rr.Window > 100000 {
			errs = append(errs, fmt.Errorf("chaos.reorder.window %d: must be between 1 and 100000", rr.Window))
		}
		switch rr.Scope {
		case ScopeKey, ScopePartition, ScopeGlobal:
		default:
			errs = append(errs, fmt.Errorf("chaos.reorder.scope %q: use key, partition or global", rr.Scope))
		}
		if !(rr.Rate > 0 && rr.Rate <= 1) {
			errs = append(errs, fmt.Errorf("chaos.reorder.rate %v: must be above 0 and at most 1", rr.Rate))
		}
		c.Reorder = &rr
	}
	if k := c.Crash; k != nil {
		kk := *k
		if kk.Count == 0 {
			kk.Count = DefaultCrashCount
		}
		if kk.At == "" {
			kk.At = DefaultCrashAt
		}
		if kk.Count < 1 || kk.Count > 100 {
			errs = append(errs, fmt.Errorf("chaos.crash.count %d: must be between 1 and 100", kk.Count))
		}
		switch kk.At {
		case CrashAfterEffect, CrashAfterCommit, CrashRandom:
		default:
			errs = append(errs, fmt.Errorf("chaos.crash.at %q: use after-effect, after-commit or random", kk.At))
		}
		c.Crash = &kk
	}
	if p := c.Poison; p != nil {
		pp := *p
		if !(pp.Rate >= 0 && pp.Rate <= 1) {
			errs = append(errs, fmt.Errorf("chaos.poison.rate %v: must be between 0 and 1", pp.Rate))
		}
		if len(pp.Kinds) == 0 {
			pp.Kinds = append([]PoisonKind(nil), PoisonKinds...)
		} else {
			seen := map[PoisonKind]bool{}
			var kinds []PoisonKind
			for _, k := range pp.Kinds {
				if !slices.Contains(AllPoisonKinds, k) {
					errs = append(errs, fmt.Errorf("chaos.poison.kinds: %q is not a poison kind (use invalid-data, undecodable, unknown-type, future-version, unknown-schema-id)", k))
					continue
				}
				if !seen[k] {
					seen[k] = true
					kinds = append(kinds, k)
				}
			}
			pp.Kinds = kinds
		}
		c.Poison = &pp
	}
	if k := c.Skew; k != nil {
		kk := *k
		if !(kk.Rate >= 0 && kk.Rate <= 1) {
			errs = append(errs, fmt.Errorf("chaos.skew.rate %v: must be between 0 and 1", kk.Rate))
		}
		c.Skew = &kk
	}
	if r := c.Rebalance; r != nil {
		rr := *r
		errs = append(errs, rr.normalize()...)
		c.Rebalance = &rr
	}
	d, derrs := normalizeDownstream(c.Downstream)
	c.Downstream = d
	errs = append(errs, derrs...)
	return c, errors.Join(errs...)
}

// Enabled reports whether any fault kind is on.
func (c Config) Enabled() bool {
	return c.Duplicate != nil || c.Reorder != nil || c.Crash != nil || c.Poison != nil || c.Skew != nil || c.Rebalance != nil || len(c.Downstream) > 0
}

// Kinds returns the fault kinds the config turns on, in Kinds order.
func (c Config) Kinds() []Kind {
	on := map[Kind]bool{Crash: c.Crash != nil, Rebalance: c.Rebalance != nil, Duplicate: c.Duplicate != nil,
		Reorder: c.Reorder != nil, Skew: c.Skew != nil, Poison: c.Poison != nil}
	for _, d := range c.Downstream {
		on[Downstream] = on[Downstream] || len(d.Kinds) > 0 && d.Rate > 0
		on[Outage] = on[Outage] || d.Outage != nil
	}
	var out []Kind
	for _, k := range Kinds {
		if on[k] {
			out = append(out, k)
		}
	}
	return out
}

// String summarises the config, e.g. "duplicate{rate 0.2, max 1, spread 0}
// reorder{window 8, scope key, rate 0.5}".
func (c Config) String() string {
	var parts []string
	if d := c.Duplicate; d != nil {
		parts = append(parts, fmt.Sprintf("duplicate{rate %g, max %d, spread %d}", d.Rate, d.Max, d.Spread))
	}
	if r := c.Reorder; r != nil {
		parts = append(parts, fmt.Sprintf("reorder{window %d, scope %s, rate %g}", r.Window, r.Scope, r.Rate))
	}
	if k := c.Skew; k != nil {
		parts = append(parts, fmt.Sprintf("skew{rate %g}", k.Rate))
	}
	if p := c.Poison; p != nil {
		kinds := make([]string, len(p.Kinds))
		for i, k := range p.Kinds {
			kinds[i] = string(k)
		}
		parts = append(parts, fmt.Sprintf("poison{rate %g, kinds %s}", p.Rate, strings.Join(kinds, ",")))
	}
	if k := c.Crash; k != nil {
		parts = append(parts, fmt.Sprintf("crash{count %d, at %s}", k.Count, k.At))
	}
	if r := c.Rebalance; r != nil {
		parts = append(parts, r.String())
	}
	parts = append(parts, downstreamString(c.Downstream)...)
	if len(parts) == 0 {
		return "no faults"
	}
	return strings.Join(parts, " ")
}

// Event is an input event as a plan sees it.
type Event struct {
	// Index is the event's position in the input, from 0.
	Index int64 `json:"event"`
	// Line is the event's line in its input file (0 when unknown).
	Line int    `json:"line,omitempty"`
	ID   string `json:"id"`
	Type string `json:"type"`
	// Key is the record key (the type's partition key); empty for none.
	Key       string `json:"key,omitempty"`
	Partition int32  `json:"partition"`
	// Version is the event's version of its type and SkewTo the other
	// versions it may be re-emitted as (skew faults); both are set by the
	// caller, and only when skew is on.
	Version int        `json:"-"`
	SkewTo  VersionSet `json:"-"`
}

func (e Event) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "event %d", e.Index)
	var attrs []string
	if e.Line > 0 {
		attrs = append(attrs, fmt.Sprintf("line %d", e.Line))
	}
	if e.Key != "" {
		attrs = append(attrs, "key "+e.Key)
	}
	attrs = append(attrs, e.Type, "id "+e.ID)
	fmt.Fprintf(&b, " (%s)", strings.Join(attrs, ", "))
	return b.String()
}

// Fault is one planned perturbation.
type Fault struct {
	// Index numbers the faults of a plan from 0, in plan order.
	Index int  `json:"index"`
	Kind  Kind `json:"kind"`
	// Event is the input event the fault applies to.
	Event
	// Copy numbers the copies of one event (duplicate only), from 1.
	Copy int `json:"copy,omitempty"`
	// After: the copy (duplicate) or the event itself (reorder) is
	// delivered right after input event After; an index past the end of
	// the input means at the end. Skew and poison faults apply in place:
	// After is the event's index.
	After int64 `json:"after"`

	// From and To are the versions of a skew fault.
	From int `json:"from,omitempty"`
	To   int `json:"to,omitempty"`
	// Poison is the kind of a poison fault and PoisonID the poison
	// event's id.
	Poison   PoisonKind `json:"poison,omitempty"`
	PoisonID string     `json:"poisonId,omitempty"`

	// Crash numbers the crash faults from 1; At, Progress and Phase say
	// where it strikes: Progress is the fraction of the run (of the
	// records committed for after-effect, of the time for random), Phase
	// the point of one delivery it strikes at in-process.
	Crash    int        `json:"crash,omitempty"`
	At       CrashAt    `json:"at,omitempty"`
	Progress float64    `json:"progress,omitempty"`
	Phase    CrashPhase `json:"phase,omitempty"`

	// Rebalance numbers the rebalance faults from 1, Move is what it does
	// and Instance the seeded instance it aims at (taken modulo the
	// instances running when it strikes); At and Progress as for crashes.
	Rebalance int           `json:"rebalance,omitempty"`
	Move      RebalanceKind `json:"move,omitempty"`
	Instance  int           `json:"instance,omitempty"`

	// Downstream names the stand-in of an outage or downstream fault.
	// A downstream fault strikes the Attempt-th request of its event's
	// effect with Answer; Outage numbers a stand-in's outages from 1,
	// which start at Progress and last Duration.
	Downstream string         `json:"downstream,omitempty"`
	Attempt    int            `json:"attempt,omitempty"`
	Answer     DownstreamKind `json:"answer,omitempty"`
	Outage     int            `json:"outage,omitempty"`
	Duration   time.Duration  `json:"duration,omitempty"`
}

// MarshalJSON renders a crash fault without the event fields it does not
// have; every other fault as its fields.
func (f Fault) MarshalJSON() ([]byte, error) {
	type plain Fault
	if f.Kind == Outage {
		return json.Marshal(struct {
			Index      int     `json:"index"`
			Kind       Kind    `json:"kind"`
			Downstream string  `json:"downstream"`
			Outage     int     `json:"outage"`
			Progress   float64 `json:"progress"`
			DurationMS int64   `json:"durationMs"`
		}{f.Index, f.Kind, f.Downstream, f.Outage, f.Progress, f.Duration.Milliseconds()})
	}
	if f.Kind == Rebalance {
		return json.Marshal(struct {
			Index     int           `json:"index"`
			Kind      Kind          `json:"kind"`
			Rebalance int           `json:"rebalance"`
			Move      RebalanceKind `json:"move"`
			At        CrashAt       `json:"at"`
			Progress  float64       `json:"progress"`
			Instance  int           `json:"instance"`
		}{f.Index, f.Kind, f.Rebalance, f.Move, f.At, f.Progress, f.Instance})
	}
	if f.Kind != Crash {
		return json.Marshal(plain(f))
	}
	return json.Marshal(struct {
		Index    int        `json:"index"`
		Kind     Kind       `json:"kind"`
		Crash    int        `json:"crash"`
		At       CrashAt    `json:"at"`
		Progress float64    `json:"progress"`
		Phase    CrashPhase `json:"phase,omitempty"`
	}{f.Index, f.Kind, f.Crash, f.At, f.Progress, f.Phase})
}

// String describes the fault on one line, as the embedded broker applies
// it (see Describe).
func (f Fault) String() string { return f.Describe(true) }

// Describe describes the fault on one line. commitsIntercepted says how a
// crash at after-effect strikes: true, at the commit, which is dropped
// (the embedded broker); false, once that commit is stored (a real
// cluster, whose commits a harness can only poll).
func (f Fault) Describe(commitsIntercepted bool) string {
	switch f.Kind {
	case Duplicate:
		if f.After == f.Event.Index {
			return fmt.Sprintf("#%d duplicate: copy %d of %s, right after the original", f.Index, f.Copy, f.Event.describe())
		}
		return fmt.Sprintf("#%d duplicate: copy %d of %s, delivered after event %d", f.Index, f.Copy, f.Event.describe(), f.After)
	case Reorder:
		return fmt.Sprintf("#%d reorder: %s delivered after event %d", f.Index, f.Event.describe(), f.After)
	case Skew:
		return fmt.Sprintf("#%d skew: %s re-emitted as v%d (was v%d)", f.Index, f.Event.describe(), f.To, f.From)
	case Poison:
		return fmt.Sprintf("#%d poison: %s event %s built from %s, delivered right after it", f.Index, f.Poison, f.PoisonID, f.Event.describe())
	case Rebalance:
		return f.describeRebalance(commitsIntercepted)
	case Outage, Downstream:
		return f.describeDownstream()
	case Crash:
		pct := int(f.Progress*100 + 0.5)
		if f.At == CrashRandom {
			return fmt.Sprintf("#%d crash %d (random): the consumer is killed at %d%% of its consumption time and restarted", f.Index, f.Crash, pct)
		}
		if f.At == CrashAfterCommit {
			return fmt.Sprintf("#%d crash %d (after-commit): the consumer is killed when its group's committed records pass %d%% of the events, once that commit is stored, and restarted", f.Index, f.Crash, pct)
		}
		if !commitsIntercepted {
			return fmt.Sprintf("#%d crash %d (after-effect): the consumer is killed once its group's committed records pass %d%% of the events and that commit is stored (a real cluster's commits cannot be intercepted), and restarted", f.Index, f.Crash, pct)
		}
		return fmt.Sprintf("#%d crash %d (after-effect): the consumer is killed when its group's committed records pass %d%% of the events, before that commit is stored (embedded broker), and restarted", f.Index, f.Crash, pct)
	}
	return fmt.Sprintf("#%d %s: %s", f.Index, f.Kind, f.Event.describe())
}
