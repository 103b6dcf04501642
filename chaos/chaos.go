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
// following reorder-window events, delivers it (or holds it back), and
// releases held events and copies as the events they wait for go by, so its
// memory is bounded by the reorder window and the duplicate spread, never by
// the number of events.
//
// Fault kinds:
//
//   - duplicate {rate, max, spread}: with probability rate, an event gets
//     1..max extra copies (same id, same key, same payload); each copy is
//     delivered right after input event i+d, d uniform in 0..spread (0:
//     right after the original). A copy is never delivered before its
//     original.
//   - reorder {window, scope, rate}: with probability rate, an event is held
//     back and delivered right after a later event of its scope (same key,
//     same partition, or any event) among the next window input events. An
//     event that another event was moved behind is never moved itself, so
//     moves do not chain and every event is late by at most window events.
//
// Every kind draws from its own random stream, so enabling one kind does not
// change the faults of another for the same seed.
package chaos

import (
	"errors"
	"fmt"
	"strings"
)

// Kind names a fault kind.
type Kind string

// Fault kinds.
const (
	Duplicate Kind = "duplicate"
	Reorder   Kind = "reorder"
)

// Kinds lists the fault kinds in the order a plan numbers them for one
// event.
var Kinds = []Kind{Duplicate, Reorder}

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
	// Window: an event may be delivered after an event of its scope among
	// the next Window input events.
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
	return c, errors.Join(errs...)
}

// Enabled reports whether any fault kind is on.
func (c Config) Enabled() bool { return c.Duplicate != nil || c.Reorder != nil }

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
	// the input means at the end.
	After int64 `json:"after"`
}

// String describes the fault on one line.
func (f Fault) String() string {
	switch f.Kind {
	case Duplicate:
		if f.After == f.Event.Index {
			return fmt.Sprintf("#%d duplicate: copy %d of %s, right after the original", f.Index, f.Copy, f.Event.describe())
		}
		return fmt.Sprintf("#%d duplicate: copy %d of %s, delivered after event %d", f.Index, f.Copy, f.Event.describe(), f.After)
	case Reorder:
		return fmt.Sprintf("#%d reorder: %s delivered after event %d", f.Index, f.Event.describe(), f.After)
	}
	return fmt.Sprintf("#%d %s: %s", f.Index, f.Kind, f.Event.describe())
}
