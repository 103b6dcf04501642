package replay

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/kafka"
)

// Kill is a crash fault applied: the consumer killed (SIGKILL to its
// process group) and restarted with the same environment.
type Kill struct {
	// Fault is the crash fault's index; Crash its number.
	Fault int           `json:"fault"`
	Crash int           `json:"crash"`
	At    chaos.CrashAt `json:"at"`
	// Time is when, since the consumer first started.
	Time Duration `json:"time"`
	Pid  int      `json:"pid"`
	// Trigger says what set it off.
	Trigger string `json:"trigger"`
	// Committed is the group's committed offsets when the consumer was
	// killed (Committed -1: nothing yet) with the end offsets and lag;
	// Records their sum.
	Committed []PartitionLag `json:"committed"`
	Records   int64          `json:"records"`
	// Dropped is the commit that an after-effect kill stopped (partition
	// → offset): the records below those offsets were handled but not
	// committed, and are redelivered.
	Dropped map[int32]int64 `json:"droppedCommit,omitempty"`
	// Evicted counts the dead process's group members the harness removed
	// (LeaveGroup) so the restarted consumer need not wait for their
	// session timeout.
	Evicted    int      `json:"evicted,omitempty"`
	RestartPid int      `json:"restartPid,omitempty"`
	Restart    Duration `json:"restart"`
	Error      string   `json:"error,omitempty"`
}

// String describes the kill on one line.
func (k Kill) String() string {
	var b []byte
	b = fmt.Appendf(b, "crash %d (fault #%d) at %s: killed pid %d, %s; committed %s (%d records)", k.Crash, k.Fault, k.Time, k.Pid, k.Trigger, offsetsText(k.Committed), k.Records)
	if len(k.Dropped) > 0 {
		b = fmt.Appendf(b, "; dropped the commit of %s", droppedText(k.Dropped))
	}
	if k.Error != "" {
		b = fmt.Appendf(b, "; restart failed: %s", k.Error)
	} else {
		b = fmt.Appendf(b, "; restarted as pid %d in %s", k.RestartPid, k.Restart)
	}
	return string(b)
}

func offsetsText(l []PartitionLag) string {
	if len(l) == 0 {
		return "nothing"
	}
	var b []byte
	for i, p := range l {
		if i > 0 {
			b = append(b, ' ')
		}
		if p.Committed < 0 {
			b = fmt.Appendf(b, "p%d=none", p.Partition)
		} else {
			b = fmt.Appendf(b, "p%d=%d", p.Partition, p.Committed)
		}
	}
	return string(b)
}

func droppedText(m map[int32]int64) string {
	ps := make([]int32, 0, len(m))
	for p := range m {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	var b []byte
	for i, p := range ps {
		if i > 0 {
			b = append(b, ' ')
		}
		b = fmt.Appendf(b, "p%d=%d", p, m[p])
	}
	return string(b)
}

// DefaultCleanConsume is how long a random crash assumes the consumer
// takes to consume the events when no clean run has measured it.
const DefaultCleanConsume = time.Second

// crasher applies the selected crash faults of a chaos run: it kills the
// consumer at each fault's point and restarts it.
//
//   - after-effect, embedded broker: at the OffsetCommit request that
//     takes the group's committed records past the point, which is
//     dropped (the consumer killed first);
//   - after-commit, embedded broker: at the same request, which the broker
//     then stores (the consumer killed before the reply);
//   - both, other brokers: as soon as the committed offsets (kadm, polled)
//     are past the point; the commit is stored, so after-effect there is
//     only approximate (a consumer that keeps its dedupe in memory is
//     caught only if it applied more records before the kill);
//   - random: at the point's fraction of the clean run's consumption time
//     (first commit to last), counted while a process is consuming.
type crasher struct {
	h      *Harness
	res    *RunResult
	cons   *consumer
	faults []chaos.Fault
	events int64
	clean  time.Duration

	mu    sync.Mutex
	next  int  // the next fault to apply
	armed bool // the consumer runs: the next fault may strike
	known map[int32]int64
	trig  chan trigger

	cancel context.CancelFunc
	done   chan struct{}
	remove func()
	// note tells the group watch what a kill did (nil: no watch).
	note func(string)
}

type trigger struct {
	fault   chaos.Fault
	pid     int
	at      time.Time
	what    string
	dropped map[int32]int64
}

// startCrasher starts applying the crash faults (none: nil).
func (h *Harness) startCrasher(ctx context.Context, res *RunResult, cons *consumer, faults []chaos.Fault) *crasher {
	if len(faults) == 0 {
		return nil
	}
	h.mu.Lock()
	clean := h.cleanConsume
	h.mu.Unlock()
	if clean <= 0 {
		clean = DefaultCleanConsume
	}
	ctx, cancel := context.WithCancel(ctx)
	c := &crasher{h: h, res: res, cons: cons, faults: faults, events: h.inv.Events, clean: clean,
		armed: true, known: map[int32]int64{}, trig: make(chan trigger, len(faults)), cancel: cancel, done: make(chan struct{})}
	switch {
	case faults[0].At == chaos.CrashRandom:
		go c.runTimed(ctx)
	case h.embedded != nil:
		c.remove = h.embedded.OnCommit(res.Group, c.onCommit)
		go c.runTriggered(ctx)
	default:
		go c.runPolled(ctx)
	}
	return c
}

// threshold is the number of committed records at which f strikes.
func (c *crasher) threshold(f chaos.Fault) int64 {
	return max(1, int64(math.Ceil(f.Progress*float64(c.events))))
}

// onCommit runs on the embedded broker's loop for every commit of the
// run's group: it kills the consumer at the commit that passes the next
// fault's point, and drops that commit.
func (c *crasher) onCommit(topics []kafka.CommitTopic) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	var mine map[int32]int64
	for _, t := range topics {
		if t.Name == c.res.Topic || t.Name == "" && t.ID == c.res.topicID {
			mine = t.Offsets
		}
	}
	if mine == nil {
		return false
	}
	merged := make(map[int32]int64, len(c.known)+len(mine))
	for p, o := range c.known {
		merged[p] = o
	}
	for p, o := range mine {
		merged[p] = o
	}
	total := committedRecords(merged)
	if c.armed && c.next < len(c.faults) && total >= c.threshold(c.faults[c.next]) {
		f := c.faults[c.next]
		c.armed = false
		c.next++
		pid := c.cons.kill()
		t := trigger{fault: f, pid: pid, at: time.Now()}
		if f.At == chaos.CrashAfterCommit {
			// The broker stores the commit after this returns; the
			// consumer never hears back.
			c.known = merged
			t.what = fmt.Sprintf("at the commit that took the group to %d committed records (point: %d, %d%% of %d events), stored", total, c.threshold(f), pct(f), c.events)
			c.trig <- t
			return false
		}
		t.dropped = mine
		t.what = fmt.Sprintf("at the commit that took the group to %d committed records (point: %d, %d%% of %d events), dropped", total, c.threshold(f), pct(f), c.events)
		c.trig <- t
		return true
	}
	c.known = merged
	return false
}

func pct(f chaos.Fault) int { return int(f.Progress*100 + 0.5) }

// runTriggered records and restarts after the kills onCommit makes. It
// also polls the committed offsets: a point passed without a commit to
// intercept (offsets committed in a transaction, say) kills the consumer
// as runPolled would.
func (c *crasher) runTriggered(ctx context.Context) {
	defer close(c.done)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var passed time.Time
	for applied := 0; applied < len(c.faults); {
		select {
		case <-ctx.Done():
			return
		case t := <-c.trig:
			passed = time.Time{}
			if !c.restartAndRearm(ctx, t) {
				return
			}
			applied++
		case <-tick.C:
			offs, err := c.h.committed(ctx, c.res)
			if err != nil {
				continue
			}
			total := committedRecords(offs)
			c.mu.Lock()
			if !c.armed || c.next >= len(c.faults) || total < c.threshold(c.faults[c.next]) {
				passed = time.Time{}
				c.mu.Unlock()
				continue
			}
			c.mu.Unlock()
			if !c.h.groupJoined(ctx, c.res.Group) {
				continue // a restarted consumer not back yet
			}
			c.mu.Lock()
			if passed.IsZero() {
				passed = time.Now()
			}
			if time.Since(passed) < 250*time.Millisecond {
				c.mu.Unlock()
				continue
			}
			f := c.faults[c.next]
			c.armed = false
			c.next++
			c.mu.Unlock()
			pid := c.cons.kill()
			t := trigger{fault: f, pid: pid, at: time.Now(), what: fmt.Sprintf("when the group had committed %d records (point: %d, %d%% of %d events; no commit to intercept, the commit is stored)", total, c.threshold(f), pct(f), c.events)}
			passed = time.Time{}
			if !c.restartAndRearm(ctx, t) {
				return
			}
			applied++
		}
	}
}

// restartAndRearm records a kill, restarts the consumer and arms the next
// fault; false when the consumer could not be restarted.
func (c *crasher) restartAndRearm(ctx context.Context, t trigger) bool {
	if !c.recordAndRestart(ctx, t) {
		return false
	}
	c.mu.Lock()
	c.armed = true
	c.mu.Unlock()
	return true
}

// committedRecords is the number of records below the committed offsets
// (-1: none committed).
func committedRecords[K comparable](offs map[K]int64) int64 {
	var total int64
	for _, o := range offs {
		total += max(o, 0)
	}
	return total
}

// runPolled kills when the polled committed offsets pass each point.
func (c *crasher) runPolled(ctx context.Context) {
	defer close(c.done)
	for _, f := range c.faults {
		want := c.threshold(f)
		for {
			offs, err := c.h.committed(ctx, c.res)
			if err == nil {
				total := committedRecords(offs)
				// The point is passed and the consumer (restarted after
				// the previous crash, say) is back in its group.
				if total >= want && c.h.groupJoined(ctx, c.res.Group) {
					pid := c.cons.kill()
					t := trigger{fault: f, pid: pid, at: time.Now(), what: fmt.Sprintf("when the group had committed %d records (point: %d, %d%% of %d events; polled, the commit is stored)", total, want, pct(f), c.events)}
					if !c.recordAndRestart(ctx, t) {
						return
					}
					break
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
}

// runTimed kills at each point's fraction of the clean run's consumption
// time (from its first commit to its last). The clock runs only while a
// consumer process is consuming: from its first commit after it (re)started
// to its kill, so a kill never lands on a process that has not begun, and
// restarts do not eat into the run.
func (c *crasher) runTimed(ctx context.Context) {
	defer close(c.done)
	var active time.Duration
	var base int64 // committed records when the process (re)started
	for _, f := range c.faults {
		first, ok := c.firstCommitAfter(ctx, base)
		if !ok {
			return
		}
		wait := time.Duration(f.Progress*float64(c.clean)) - active
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(first.Add(wait))):
		}
		pid := c.cons.kill()
		now := time.Now()
		active += now.Sub(first)
		t := trigger{fault: f, pid: pid, at: now, what: fmt.Sprintf("at %d%% of the consumption time (%s in the clean run)", pct(f), roundDuration(c.clean))}
		if !c.recordAndRestart(ctx, t) {
			return
		}
		c.mu.Lock()
		base = c.res.Kills[len(c.res.Kills)-1].Records
		c.mu.Unlock()
	}
}

// firstCommitAfter waits until the group has committed more than base
// records (or everything there is), and returns when.
func (c *crasher) firstCommitAfter(ctx context.Context, base int64) (time.Time, bool) {
	for {
		if offs, err := c.h.committed(ctx, c.res); err == nil {
			total := committedRecords(offs)
			if total > base {
				return time.Now(), true
			}
			if ends, err := c.h.endOffsets(ctx, c.res.Topic); err == nil && total >= committedRecords(ends) && total > 0 {
				return time.Now(), true
			}
		}
		select {
		case <-ctx.Done():
			return time.Time{}, false
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// recordAndRestart notes the committed offsets of the killed consumer,
// evicts its group members and restarts it. false: stop (the restart
// failed, or the run is over).
func (c *crasher) recordAndRestart(ctx context.Context, t trigger) bool {
	k := Kill{Fault: t.fault.Index, Crash: t.fault.Crash, At: t.fault.At, Pid: t.pid, Trigger: t.what,
		Time: Duration(t.at.Sub(c.cons.started)), Dropped: t.dropped}
	ends, err := c.h.endOffsets(ctx, c.res.Topic)
	if err == nil {
		if lag, err := c.h.lag(ctx, c.res, ends); err == nil {
			k.Committed = lag
			k.Records = committedTotal(lag)
		}
	}
	k.Evicted = c.h.evictMembers(ctx, c.res.Group)
	t0 := time.Now()
	p, err := c.cons.restart()
	k.Restart = Duration(time.Since(t0))
	if err != nil {
		k.Error = err.Error()
	} else {
		k.RestartPid = p.Pid()
	}
	c.mu.Lock()
	c.res.Kills = append(c.res.Kills, k)
	c.mu.Unlock()
	c.h.logf("%s: crash %d: %s", c.res.Name, k.Crash, k)
	if c.note != nil {
		c.note(fmt.Sprintf("crash %d: every instance killed and restarted", k.Crash))
	}
	return err == nil && ctx.Err() == nil
}

// finished reports whether every crash fault was applied.
func (c *crasher) finished() bool {
	if c == nil {
		return true
	}
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// failure reports a restart that failed.
func (c *crasher) failure() *Failure {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range c.res.Kills {
		if k.Error != "" {
			return &Failure{Reason: "restart", Message: fmt.Sprintf("the consumer could not be restarted after crash %d: %s", k.Crash, k.Error)}
		}
	}
	return nil
}

// pending describes the crash faults not applied yet.
func (c *crasher) pending() string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.faults) - len(c.res.Kills)
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("; %d crash fault(s) still waiting for their point of the run", n)
}

// stop ends the crasher and waits for it.
func (c *crasher) stop() {
	if c == nil {
		return
	}
	if c.remove != nil {
		c.remove()
	}
	c.cancel()
	<-c.done
}

// committed returns the group's committed offsets on the run's topic.
func (h *Harness) committed(ctx context.Context, res *RunResult) (map[int32]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	offs, err := h.adm.FetchOffsets(ctx, res.Group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[int32]int64{}
	for p, o := range offs[res.Topic] {
		if o.Err == nil {
			out[p] = o.At
		}
	}
	return out, nil
}

// groupJoined reports whether the group has members (false on errors).
func (h *Harness) groupJoined(ctx context.Context, group string) bool {
	// Classic and KIP-848 groups alike.
	st, _, err := h.groupState(ctx, group, "", [16]byte{})
	return err == nil && st != nil && len(st.Members) > 0
}

// evictMembers removes the members of a group (those of a consumer just
// killed) with LeaveGroup, as the coordinator would after their session
// timed out: the restarted consumer joins at once instead of waiting for
// session.timeout.ms. It returns how many it removed (best effort).
func (h *Harness) evictMembers(ctx context.Context, group string) int {
	if h.embedded != nil {
		// The embedded broker lists KIP-848 members too; they leave
		// with a heartbeat, classic ones with LeaveGroup.
		st := h.embedded.Group(group, "")
		if st == nil {
			return 0
		}
		var ids []string
		for _, m := range st.Members {
			ids = append(ids, m.ID)
		}
		if n := h.evictMember(ctx, group, ids, false); n > 0 {
			return n
		}
		return h.evictMember(ctx, group, ids, true)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	described, err := h.adm.DescribeGroups(ctx, group)
	if err != nil {
		return 0
	}
	g, ok := described[group]
	if !ok || g.Err != nil || len(g.Members) == 0 {
		return 0
	}
	leaving := make([]kmsg.LeaveGroupRequestMember, 0, len(g.Members))
	for _, m := range g.Members {
		lm := kmsg.NewLeaveGroupRequestMember()
		lm.MemberID, lm.InstanceID = m.MemberID, m.InstanceID
		leaving = append(leaving, lm)
	}
	return h.leaveGroup(ctx, group, leaving)
}
