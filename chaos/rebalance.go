package chaos

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// RebalanceKind says what a rebalance fault does to the consumer's group.
type RebalanceKind string

// Rebalance kinds.
const (
	// Join starts one more instance: partitions move to it.
	Join RebalanceKind = "join"
	// Leave stops an instance with SIGTERM: it leaves the group cleanly.
	Leave RebalanceKind = "leave"
	// Kill SIGKILLs an instance (on the embedded broker at its offset
	// commit, which is dropped): its partitions move with records it
	// applied and did not commit.
	Kill RebalanceKind = "kill"
	// Stall SIGSTOPs an instance (on the embedded broker at its offset
	// commit, which is dropped) until the group has moved its partitions
	// and the new owner processed them, then SIGCONTs it: a zombie.
	Stall RebalanceKind = "stall"
	// Eager joins a member whose only balancer is eager (range) for a
	// while: a cooperative group revokes every partition.
	Eager RebalanceKind = "eager"
)

// RebalanceKinds lists the kinds; the first four are rebalance.kinds'
// default (eager only when asked for).
var RebalanceKinds = []RebalanceKind{Join, Leave, Kill, Stall, Eager}

// RebalanceConfig configures rebalance faults.
type RebalanceConfig struct {
	// Count is the number of faults (default 1).
	Count int `json:"count"`
	// Kinds are drawn from, one per fault (default join, leave, kill,
	// stall; Eager adds eager).
	Kinds []RebalanceKind `json:"kinds,omitempty"`
	// Eager adds the eager kind to Kinds.
	Eager bool `json:"eager,omitempty"`
	// Stall is the longest a stalled instance stays stopped (default 10s).
	Stall time.Duration `json:"stall,omitempty"`
	// Restart says whether a killed or departed instance is started again
	// once the group has moved its partitions (default true; the last
	// instance of the group is always restarted).
	Restart *bool `json:"restart,omitempty"`
	// At is after-effect (default: on the embedded broker kill and stall
	// strike at the instance's offset commit, which is dropped) or random
	// (at a seeded time of the consumption).
	At CrashAt `json:"at,omitempty"`
}

// Restarts reports whether killed and departed instances are restarted.
func (c RebalanceConfig) Restarts() bool { return c.Restart == nil || *c.Restart }

// DefaultRebalanceStall is rebalance.stall's default.
const DefaultRebalanceStall = 10 * time.Second

func (c *RebalanceConfig) normalize() []error {
	var errs []error
	if c.Count == 0 {
		c.Count = 1
	}
	if c.Count < 1 || c.Count > 100 {
		errs = append(errs, fmt.Errorf("chaos.rebalance.count %d: must be between 1 and 100", c.Count))
	}
	if c.At == "" {
		c.At = CrashAfterEffect
	}
	if c.At != CrashAfterEffect && c.At != CrashRandom {
		errs = append(errs, fmt.Errorf("chaos.rebalance.at %q: use after-effect or random", c.At))
	}
	if c.Stall == 0 {
		c.Stall = DefaultRebalanceStall
	}
	if c.Stall < 0 || c.Stall > 10*time.Minute {
		errs = append(errs, fmt.Errorf("chaos.rebalance.stall %s: must be positive and at most 10m", c.Stall))
	}
	kinds := c.Kinds
	if len(kinds) == 0 {
		kinds = []RebalanceKind{Join, Leave, Kill, Stall}
	}
	if c.Eager {
		kinds = append(slices.Clone(kinds), Eager)
	}
	var out []RebalanceKind
	for _, k := range kinds {
		if !slices.Contains(RebalanceKinds, k) {
			errs = append(errs, fmt.Errorf("chaos.rebalance.kinds: %q is not a rebalance kind (use join, leave, kill, stall, eager)", k))
			continue
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	c.Kinds, c.Eager = out, false
	return errs
}

func (c RebalanceConfig) String() string {
	kinds := make([]string, len(c.Kinds))
	for i, k := range c.Kinds {
		kinds[i] = string(k)
	}
	return fmt.Sprintf("rebalance{count %d, kinds %s, stall %s, restart %t, at %s}", c.Count, strings.Join(kinds, ","), c.Stall, c.Restarts(), c.At)
}

// RebalancePlan returns the rebalance faults of a plan (cfg normalized),
// in order of their point in the run, numbered after the crash faults as
// a Stream numbers them. Fault k strikes at Progress in
// ((k-1+0.15)/count, (k-1+0.85)/count); Instance is the seeded instance
// it aims at where the harness chooses (leave; kill and stall when commits
// cannot be intercepted: otherwise the instance whose commit passes the
// point is struck).
func RebalancePlan(cfg Config, seed uint64) []Fault {
	c := cfg.Rebalance
	if c == nil {
		return nil
	}
	first := 0
	if cfg.Crash != nil {
		first = cfg.Crash.Count
	}
	rng := rand.New(rand.NewPCG(seed, streamRebalance))
	out := make([]Fault, 0, c.Count)
	for k := range c.Count {
		f := Fault{Index: first + k, Kind: Rebalance, Rebalance: k + 1, At: c.At}
		f.Progress = (float64(k) + 0.15 + 0.7*rng.Float64()) / float64(c.Count)
		f.Move = c.Kinds[rng.IntN(len(c.Kinds))]
		f.Instance = rng.IntN(1 << 16)
		f.Phase = PhaseAfterEffect
		out = append(out, f)
	}
	return out
}

// GroupPlan returns the crash and rebalance faults of a plan, in index
// order: the faults the harness applies to the consumer's processes.
func GroupPlan(cfg Config, seed uint64) []Fault {
	return append(CrashPlan(cfg, seed), RebalancePlan(cfg, seed)...)
}

func (f Fault) describeRebalance(commitsIntercepted bool) string {
	pct := int(f.Progress*100 + 0.5)
	when := fmt.Sprintf("when the group's committed records pass %d%% of the events", pct)
	if f.At == CrashRandom {
		when = fmt.Sprintf("at %d%% of the consumption time", pct)
	}
	head := fmt.Sprintf("#%d rebalance %d (%s)", f.Index, f.Rebalance, f.Move)
	switch f.Move {
	case Join:
		return fmt.Sprintf("%s: one more instance starts %s", head, when)
	case Leave:
		return fmt.Sprintf("%s: an instance gets SIGTERM and leaves the group %s", head, when)
	case Eager:
		return fmt.Sprintf("%s: a member with an eager-only balancer (range) joins the group %s, then leaves", head, when)
	}
	how, then := "SIGKILLed", ""
	if f.Move == Stall {
		how, then = "SIGSTOPped", ", until its partitions moved and were processed, then SIGCONTed (a zombie)"
	}
	if f.At != CrashRandom && commitsIntercepted {
		return fmt.Sprintf("%s: the instance whose commit takes the group past %d%% of the events is %s at that commit, which is dropped (embedded broker)%s", head, pct, how, then)
	}
	return fmt.Sprintf("%s: an instance is %s %s%s", head, how, when, then)
}
