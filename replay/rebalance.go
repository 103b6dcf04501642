package replay

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/kafka"
)

// Generation is one settled generation of the consumer's group: when,
// why, who owned which partitions and what was committed when it began.
type Generation struct {
	// Number is the classic generation or the KIP-848 group epoch; for a
	// classic group on a real cluster, which does not tell its
	// generation, the count of the settled assignments seen (Polled).
	Number int32    `json:"generation"`
	Time   Duration `json:"time"`
	// Polled: seen by polling the admin API (a real cluster), so a
	// generation that began and ended between two polls is missed.
	Polled bool `json:"polled,omitempty"`
	// Cause is what the harness did since the previous generation (a
	// fault, the start), or "rejoin" when it did nothing.
	Cause  string  `json:"cause"`
	Owners []Owner `json:"owners"`
	// Committed is the group's committed offset per partition at the
	// switch (absent: none).
	Committed map[int32]int64 `json:"committed"`
}

// Owner is a member of a generation: the instance (-1 when the harness
// could not tell which process the member is: EVTOOL_INSTANCE of the
// process owning its connection, Linux) and its partitions.
type Owner struct {
	Instance int `json:"instance"`
	// Eager marks the harness's eager member (an eager fault).
	Eager      bool    `json:"eager,omitempty"`
	Member     string  `json:"member"`
	Partitions []int32 `json:"partitions"`
}

// StaleCommit is an offset commit of a member the group no longer knows,
// or of an older generation: the broker refuses it.
type StaleCommit struct {
	Time     Duration        `json:"time"`
	Instance int             `json:"instance"`
	Member   string          `json:"member"`
	Error    string          `json:"error"`
	Offsets  map[int32]int64 `json:"offsets"`
	Why      string          `json:"why"`
}

// Rewind is a commit the broker accepted that moved the group's committed
// offset of a partition back: typically an instance committing a
// partition it no longer owns after the new owner committed past it. The
// records in between are consumed again by the next owner, and while it
// stands the group cannot settle.
type Rewind struct {
	Time      Duration `json:"time"`
	Partition int32    `json:"partition"`
	From      int64    `json:"from"`
	To        int64    `json:"to"`
	// Instance sent the commit (-1: not known); Owner owns the partition
	// in the group's last settled generation (-1: none or not known).
	Instance int    `json:"instance"`
	Member   string `json:"member,omitempty"`
	Owner    int    `json:"owner"`
	// Foreign: the sender did not own the partition in the group's last
	// settled generation (a commit of a revoked partition).
	Foreign bool `json:"foreign"`
	// Polled: seen between two polls of the committed offsets (a real
	// cluster), so the sender is not known; Moved: the partition had
	// moved from another member (Former, -1: not known) that can still
	// commit it (in the group, or its instance back as another member),
	// so the former owner committing it is the likely cause.
	Polled bool `json:"polled,omitempty"`
	Moved  bool `json:"moved,omitempty"`
	Former int  `json:"former"`
}

func (r Rewind) String() string {
	if r.Polled {
		return r.polledString()
	}
	who := fmt.Sprintf("instance %d", r.Instance)
	if r.Instance < 0 {
		who = "a commit"
		if r.Member != "" {
			who = "member " + shortMember(r.Member)
		}
	}
	owner := "no instance known"
	if r.Owner >= 0 {
		owner = fmt.Sprintf("instance %d", r.Owner)
	}
	if !r.Foreign {
		return fmt.Sprintf("%s moved p%d back from %d to %d (its own partition)", who, r.Partition, r.From, r.To)
	}
	return fmt.Sprintf("%s moved p%d back from %d to %d, a partition it did not own (owner: %s)", who, r.Partition, r.From, r.To, owner)
}

func (r Rewind) polledString() string {
	inst := func(i int) string {
		if i < 0 {
			return "an instance not known"
		}
		return fmt.Sprintf("instance %d", i)
	}
	head := fmt.Sprintf("p%d went back from %d to %d between two polls (--brokers: a poll cannot tell who committed", r.Partition, r.From, r.To)
	if !r.Moved {
		return fmt.Sprintf("%s; owner: %s)", head, inst(r.Owner))
	}
	return fmt.Sprintf("%s; the partition had moved from %s to %s, so likely its former owner committing a partition revoked from it)", head, inst(r.Former), inst(r.Owner))
}

// maxRewinds bounds the rewinds a run lists (a timer committing stale
// offsets rewinds every few hundred milliseconds).
const maxRewinds = 50

// GroupProtocol is how the consumer's group is run: the classic protocol
// with the balancers its members offered, or KIP-848 (consumer) with its
// server assignor.
type GroupProtocol struct {
	Protocol  string   `json:"protocol"`
	Balancers []string `json:"balancers,omitempty"`
}

func (p GroupProtocol) String() string {
	if p.Protocol == "" {
		return "unknown"
	}
	if len(p.Balancers) == 0 {
		return p.Protocol
	}
	return p.Protocol + " (" + strings.Join(p.Balancers, ", ") + ")"
}

// Rebalance is a rebalance fault applied.
type Rebalance struct {
	Fault     int                 `json:"fault"`
	Rebalance int                 `json:"rebalance"`
	Move      chaos.RebalanceKind `json:"move"`
	Time      Duration            `json:"time"`
	// Instance is the instance struck (joined, for join; -1 for eager).
	Instance int    `json:"instance"`
	Pid      int    `json:"pid,omitempty"`
	Trigger  string `json:"trigger"`
	// Dropped is the commit a kill or stall stopped (partition → offset).
	Dropped map[int32]int64 `json:"droppedCommit,omitempty"`
	Evicted int             `json:"evicted,omitempty"`
	// Stalled is how long a stalled instance stayed stopped.
	Stalled    Duration `json:"stalled,omitempty"`
	RestartPid int      `json:"restartPid,omitempty"`
	Outcome    string   `json:"outcome"`
	Error      string   `json:"error,omitempty"`
}

// String describes the fault applied on one line.
func (r Rebalance) String() string {
	var b []byte
	who := fmt.Sprintf("instance %d", r.Instance)
	if r.Instance < 0 {
		who = "an eager member"
	}
	b = fmt.Appendf(b, "rebalance %d (%s, fault #%d) at %s: %s %s", r.Rebalance, r.Move, r.Fault, r.Time, who, r.Trigger)
	if len(r.Dropped) > 0 {
		b = fmt.Appendf(b, "; dropped the commit of %s", droppedText(r.Dropped))
	}
	if r.Outcome != "" {
		b = fmt.Appendf(b, "; %s", r.Outcome)
	}
	if r.Error != "" {
		b = fmt.Appendf(b, "; failed: %s", r.Error)
	}
	return string(b)
}

// groupWatch follows the consumer's group: its generations, the protocol
// its members speak, which instance each member is, rewinds of its
// committed offsets and, on the embedded broker, the commits the broker
// refuses as stale. On the embedded broker it reads the group's state and
// sees every group request and commit; on a real cluster it polls the
// admin API (DescribeGroups or ConsumerGroupDescribe, OffsetFetch).
type groupWatch struct {
	h     *Harness
	res   *RunResult
	cons  *consumer
	start time.Time

	// readMu orders the reads of the group's committed offsets with the
	// rewinds noted from them: a poll's older read must not follow a
	// commit's newer one (a false rewind).
	readMu  sync.Mutex
	mu      sync.Mutex
	members map[string]int    // member id → instance
	hosts   map[string]string // member id → client host
	removed map[string]string // member id → how it left the group
	epochs  map[string]int32  // KIP-848: member id → its last epoch
	eager   map[string]bool   // the harness's eager members
	syncGen int32             // highest generation members synced with
	// committed is the group's committed offsets at the last poll;
	// senders the members that last committed each offset of a
	// partition (who rewound it).
	committed map[int32]int64
	senders   map[int32]map[int64]string
	owners    map[int32]string // partition → member, last settled generation
	// lastOwner is the partition's last member in any generation
	// (one that left it unassigned included); former its member before.
	lastOwner map[int32]string
	former    map[int32]string
	present   map[string]bool // polled: the group's members at the last poll
	seen      int32           // settled generations recorded (polled numbering)
	readErr   error           // the last failed read of the group (a real cluster)
	rewinds   int
	foreign   *Rewind // the first rewind by a member that did not own the partition
	lastKey   string
	causes    []string
	protocol  GroupProtocol

	removes []func()
	cancel  context.CancelFunc
	done    chan struct{}
}

// watchGroup starts following the run's group.
func (h *Harness) watchGroup(ctx context.Context, res *RunResult) *groupWatch {
	ctx, cancel := context.WithCancel(ctx)
	w := &groupWatch{h: h, res: res, start: time.Now(), members: map[string]int{}, hosts: map[string]string{},
		removed: map[string]string{}, epochs: map[string]int32{}, eager: map[string]bool{}, causes: []string{"start"}, cancel: cancel, done: make(chan struct{}),
		senders: map[int32]map[int64]string{}, owners: map[int32]string{}, lastOwner: map[int32]string{}, former: map[int32]string{}}
	if h.embedded != nil {
		w.removes = append(w.removes,
			h.embedded.OnGroupRequest(res.Group, w.onRequest),
			h.embedded.OnGroupCommit(res.Group, w.onCommit))
	}
	go w.run(ctx)
	return w
}

// polledInterval is how often the group is read on a real cluster (two
// admin requests a read); the embedded broker's state is read every 20 ms.
const polledInterval = 50 * time.Millisecond

// polled reports whether the group is followed through the admin API.
func (w *groupWatch) polled() bool { return w.h.embedded == nil }

func (w *groupWatch) interval() time.Duration {
	if w.polled() {
		return polledInterval
	}
	return 20 * time.Millisecond
}

// read returns the group now (nil: no such group yet, or it could not be
// read), with its committed offsets when offsets is set; on a real
// cluster it notes the protocol the group runs.
func (w *groupWatch) read(ctx context.Context, offsets bool) *kafka.GroupState {
	st, proto, err := w.h.groupState(ctx, w.res.Group, w.res.Topic, w.res.topicID)
	if err == nil && st != nil && offsets && w.polled() {
		st.Committed, err = w.h.committed(ctx, w.res)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			w.readErr = err
		}
		return nil
	}
	if proto.Protocol != "" {
		w.protocol.Protocol = proto.Protocol
		for _, b := range proto.Balancers {
			if !slices.Contains(w.protocol.Balancers, b) {
				w.protocol.Balancers = append(w.protocol.Balancers, b)
			}
		}
	}
	return st
}

// unreadable says why the group could not be read ("" when it could).
func (w *groupWatch) unreadable() string {
	if w == nil {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.readErr == nil {
		return ""
	}
	return fmt.Sprintf(" (the group could not always be read: %v)", w.readErr)
}

func (w *groupWatch) onRequest(r kafka.GroupRequest) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch r.Kind {
	case "JoinGroup":
		w.protocol.Protocol = "classic"
		for _, p := range r.Protocols {
			if !slices.Contains(w.protocol.Balancers, p) {
				w.protocol.Balancers = append(w.protocol.Balancers, p)
			}
		}
	case "SyncGroup":
		w.syncGen = max(w.syncGen, r.Generation)
	case "LeaveGroup":
		for _, m := range r.Left {
			if _, ok := w.removed[m]; !ok {
				w.removed[m] = "it had left the group"
			}
		}
	case "ConsumerGroupHeartbeat":
		w.protocol.Protocol = "consumer (KIP-848)"
		a := r.Assignor
		if a == "" {
			a = "broker default assignor"
		}
		if !slices.Contains(w.protocol.Balancers, a) {
			w.protocol.Balancers = append(w.protocol.Balancers, a)
		}
		if r.Generation < 0 {
			w.removed[r.Member] = "it had left the group"
		} else if r.Member != "" {
			w.epochs[r.Member] = max(w.epochs[r.Member], r.Generation)
		}
	}
}

// onCommit notes a commit the broker will refuse: from a member that left
// or was evicted (UNKNOWN_MEMBER_ID; ILLEGAL_GENERATION once the group has
// no members), of an older generation than members have synced with
// (ILLEGAL_GENERATION) or an older member epoch
// (STALE_MEMBER_EPOCH, KIP-848). A commit refused for a reason the
// harness cannot see from the requests is not listed.
//
// It first reads the group's committed offsets, which hold every commit
// the broker handled before this one: a rewind is seen at the next commit
// however soon the partition's owner commits again (a poll every 20 ms
// missed a stale commit overwritten within the interval, every time when
// two members commit on timers of the same period).
func (w *groupWatch) onCommit(c kafka.Commit) bool {
	w.readMu.Lock()
	defer w.readMu.Unlock()
	st := w.h.embedded.Group(w.res.Group, w.res.Topic)
	w.mu.Lock()
	defer w.mu.Unlock()
	if st != nil {
		w.noteRewinds(st.Committed)
	}
	var offs map[int32]int64
	for _, t := range c.Topics {
		if t.Name == w.res.Topic || t.Name == "" && t.ID == w.res.topicID {
			offs = t.Offsets
		}
	}
	if offs == nil {
		return false
	}
	for p, o := range offs {
		if w.senders[p] == nil || len(w.senders[p]) > 64 {
			w.senders[p] = map[int64]string{}
		}
		w.senders[p][o] = c.Member
	}
	sc := StaleCommit{Time: Duration(time.Since(w.start)), Instance: w.instanceLocked(c.Member), Member: c.Member, Offsets: maps.Clone(offs)}
	switch why, gone := w.removed[c.Member]; {
	case gone && w.protocol.Protocol == "classic" && c.Generation >= 0 && st != nil && len(st.Members) == 0:
		// The broker looks a member up only in a group that has
		// members: an emptied group refuses a generation's commit as
		// ILLEGAL_GENERATION (a lone instance evicted).
		sc.Error, sc.Why = "ILLEGAL_GENERATION", "the member is no longer in the group, which has no members: "+why
	case gone:
		sc.Error, sc.Why = "UNKNOWN_MEMBER_ID", "the member is no longer in the group: "+why
	case w.protocol.Protocol == "classic" && c.Generation >= 0 && c.Generation < w.syncGen:
		sc.Error, sc.Why = "ILLEGAL_GENERATION", fmt.Sprintf("generation %d, the group is at %d", c.Generation, w.syncGen)
	case w.protocol.Protocol != "classic" && c.Generation >= 0 && c.Generation < w.epochs[c.Member]:
		sc.Error, sc.Why = "STALE_MEMBER_EPOCH", fmt.Sprintf("member epoch %d, the member is at %d", c.Generation, w.epochs[c.Member])
	default:
		return false
	}
	w.res.StaleCommits = append(w.res.StaleCommits, sc)
	return false
}

// note records what the harness did, the cause of the next generation.
func (w *groupWatch) note(cause string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.causes = append(w.causes, cause)
}

// evicted marks members the harness removed from the group.
func (w *groupWatch) evicted(members []string, why string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range members {
		w.removed[m] = why
	}
}

// kip848 reports whether the members speak KIP-848 (consumer groups).
func (w *groupWatch) kip848() bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.protocol.Protocol != "" && w.protocol.Protocol != "classic"
}

// isRemoved reports whether a member left or was evicted.
func (w *groupWatch) isRemoved(member string) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, gone := w.removed[member]
	return gone
}

// instanceOf returns the instance a member is (-1: not known yet).
func (w *groupWatch) instanceOf(member string) int {
	if w == nil {
		return -1
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.instanceLocked(member)
}

func (w *groupWatch) instanceLocked(member string) int {
	if i, ok := w.members[member]; ok {
		return i
	}
	return -1
}

// membersOf returns the group's members that are instance i. When none
// is known to be i, it returns the members not known to be any instance
// (nor the eager member): evicting a live one of them costs a rejoin,
// keeping the dead one in the group stalls it for a session timeout.
func (w *groupWatch) membersOf(ctx context.Context, i int) []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	var out []string
	for m, in := range w.members {
		if in == i {
			if _, gone := w.removed[m]; !gone {
				out = append(out, m)
			}
		}
	}
	w.mu.Unlock()
	if len(out) == 0 {
		if st := w.read(ctx, false); st != nil {
			w.mu.Lock()
			for _, m := range st.Members {
				_, known := w.members[m.ID]
				_, gone := w.removed[m.ID]
				if !known && !gone && !w.eager[m.ID] {
					out = append(out, m.ID)
				}
			}
			w.mu.Unlock()
		}
	}
	sort.Strings(out)
	return out
}

// guessedEviction says, for the members a kill or stall of instance i
// evicted, when none of them was known to be i ("" otherwise): membersOf
// then evicts every member not known as an instance (a broker whose
// member hosts carry no port, Apache Kafka), live ones included.
func (w *groupWatch) guessedEviction(i int, members []string) string {
	if w == nil || len(members) == 0 {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range members {
		if w.instanceLocked(m) == i {
			return ""
		}
	}
	return fmt.Sprintf("; instance %d's member was not known: the %d member(s) not known as an instance were evicted, live ones included (the whole group rebalanced)", i, len(members))
}

func (w *groupWatch) run(ctx context.Context) {
	defer close(w.done)
	tick := time.NewTicker(w.interval())
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			// The last generation (a real cluster is read once more,
			// briefly, after the run's context ended).
			last, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			w.poll(last)
			cancel()
			return
		case <-tick.C:
			w.poll(ctx)
		}
	}
}

// poll reads the group, names its new members and records a generation
// when a new one has settled (Stable).
func (w *groupWatch) poll(ctx context.Context) {
	w.readMu.Lock()
	defer w.readMu.Unlock()
	if st := w.read(ctx, true); st != nil {
		w.observe(st)
	}
}

// observe names the group's new members, notes rewinds of its committed
// offsets and records its generation if it is a new settled one.
func (w *groupWatch) observe(st *kafka.GroupState) {
	w.mu.Lock()
	var unknown []kafka.GroupMember
	for _, m := range st.Members {
		if _, ok := w.members[m.ID]; !ok {
			unknown = append(unknown, m)
		}
	}
	w.mu.Unlock()
	for _, m := range unknown {
		if i, ok := instanceOfConn(m.ClientHost, w.res.Workdir); ok {
			w.mu.Lock()
			w.members[m.ID], w.hosts[m.ID] = i, m.ClientHost
			w.mu.Unlock()
		} else if w.cons != nil && w.cons.count() == 1 {
			// One instance: every member is it (but the eager member).
			w.mu.Lock()
			if _, ok := w.members[m.ID]; !ok && !w.eager[m.ID] {
				w.members[m.ID] = 0
			}
			w.mu.Unlock()
		}
	}
	w.nameByElimination(st)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.present = map[string]bool{}
	for _, m := range st.Members {
		w.present[m.ID] = true
	}
	w.noteRewinds(st.Committed)
	if st.State != "Stable" || len(st.Members) == 0 {
		return
	}
	g := Generation{Number: st.Generation, Time: Duration(time.Since(w.start)), Committed: st.Committed, Polled: w.polled()}
	key := strconv.Itoa(int(st.Generation))
	for _, m := range st.Members {
		g.Owners = append(g.Owners, Owner{Instance: w.instanceLocked(m.ID), Eager: w.eager[m.ID], Member: m.ID, Partitions: m.Partitions})
		key += fmt.Sprintf("|%s:%v", m.ID, m.Partitions)
	}
	if key == w.lastKey {
		return
	}
	w.lastKey = key
	w.seen++
	if g.Number < 0 {
		g.Number = w.seen
	}
	owners := map[int32]string{}
	for _, m := range st.Members {
		for _, p := range m.Partitions {
			owners[p] = m.ID
			if was, ok := w.lastOwner[p]; ok && was != m.ID {
				w.former[p] = was
			}
			w.lastOwner[p] = m.ID
		}
	}
	w.owners = owners
	sort.Slice(g.Owners, func(a, b int) bool {
		if g.Owners[a].Instance != g.Owners[b].Instance {
			return g.Owners[a].Instance < g.Owners[b].Instance
		}
		return g.Owners[a].Member < g.Owners[b].Member
	})
	g.Cause = strings.Join(w.causes, "; ")
	if g.Cause == "" {
		g.Cause = "rejoin"
	}
	w.causes = nil
	w.res.Generations = append(w.res.Generations, g)
}

// noteRewinds records the partitions whose committed offset went back
// since the last poll, and who committed the lower offset (on a real
// cluster, whose commits are not seen: who owned the partition before).
func (w *groupWatch) noteRewinds(now map[int32]int64) {
	for p, to := range now {
		from, ok := w.committed[p]
		// A poll skips -1 (no offset), an OffsetFetch answer; on the
		// embedded broker it is a commit like any other.
		if !ok || to >= from || to < 0 && w.polled() {
			continue
		}
		w.rewinds++
		if len(w.res.Rewinds) >= maxRewinds {
			continue
		}
		rw := Rewind{Time: Duration(time.Since(w.start)), Partition: p, From: from, To: to, Instance: -1, Owner: -1, Former: -1}
		if m, ok := w.senders[p][to]; ok {
			rw.Member, rw.Instance = m, w.instanceLocked(m)
		}
		if m, ok := w.owners[p]; ok {
			rw.Owner = w.instanceLocked(m)
			rw.Foreign = rw.Member != "" && rw.Member != m
		}
		if w.polled() {
			rw.Polled = true
			if m, ok := w.former[p]; ok {
				rw.Former = w.instanceLocked(m)
				rw.Moved = w.couldCommitLocked(m, w.owners[p])
			}
		}
		// Polled, a rewind of a partition that moved stands for one of
		// a revoked partition: its sender cannot be seen.
		if (rw.Foreign || rw.Moved) && w.foreign == nil {
			first := rw
			w.foreign = &first
		}
		w.res.Rewinds = append(w.res.Rewinds, rw)
	}
	w.committed = maps.Clone(now)
}

// couldCommitLocked reports whether a partition's former member could
// have sent a polled rewind of it: it is still in the group (a classic
// broker takes its commits whatever it owns), or its instance rejoined as
// another member (a zombie back with what it had). A member killed or
// gone cannot commit, and an instance owning the partition again (a
// restart) is its owner, not a former one.
func (w *groupWatch) couldCommitLocked(former, owner string) bool {
	fi := w.instanceLocked(former)
	if fi >= 0 && fi == w.instanceLocked(owner) {
		return false
	}
	if w.present[former] {
		return true
	}
	if fi < 0 {
		return false
	}
	for m := range w.present {
		if m != owner && w.instanceLocked(m) == fi {
			return true
		}
	}
	return false
}

// groupSettleMax bounds how long a run whose offsets are at the end waits
// for its group to settle before the state is read.
const groupSettleMax = 10 * time.Second

// settled reports whether the group is stable with one member per running
// instance (the eager member aside), or never had a settled generation (a
// consumer that commits without joining).
func (w *groupWatch) settled(ctx context.Context, cons *consumer) bool {
	if w == nil {
		return true
	}
	st := w.read(ctx, false)
	running := len(cons.running())
	w.mu.Lock()
	defer w.mu.Unlock()
	if st == nil || len(w.res.Generations) == 0 {
		return true
	}
	n := 0
	for _, m := range st.Members {
		if !w.eager[m.ID] {
			n++
		}
	}
	return st.State == "Stable" && n == running
}

// foreignRewind returns the first commit that moved a partition's
// committed offset back from a member that did not own the partition (nil:
// none so far).
func (w *groupWatch) foreignRewind() *Rewind {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.foreign
}

// rewound describes the commits that moved the group's offsets back so
// far ("" when none), for a run that did not settle.
func (w *groupWatch) rewound() string {
	if w == nil {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.rewinds == 0 {
		return ""
	}
	return fmt.Sprintf("; %d commit(s) moved the group's committed offsets back (commits of partitions revoked from their sender?), the first: %s", w.rewinds, w.res.Rewinds[0])
}

// nameByElimination names the one member whose connection could not be
// traced (it reconnected since it joined, say) when exactly one running
// instance has no member.
func (w *groupWatch) nameByElimination(st *kafka.GroupState) {
	if w.cons == nil {
		return
	}
	running := w.cons.running()
	w.mu.Lock()
	defer w.mu.Unlock()
	var unnamed []string
	named := map[int]bool{}
	for _, m := range st.Members {
		if i, ok := w.members[m.ID]; ok {
			named[i] = true
		} else {
			unnamed = append(unnamed, m.ID)
		}
	}
	var free []int
	for _, i := range running {
		if !named[i] {
			free = append(free, i)
		}
	}
	if len(unnamed) == 1 && len(free) == 1 && !w.eagerLocked(unnamed[0]) {
		w.members[unnamed[0]] = free[0]
	}
}

// eagerLocked reports whether a member is the harness's eager member.
func (w *groupWatch) eagerLocked(member string) bool { return w.eager[member] }

// stable waits until the group has settled in a generation where ok
// holds, at most d; it reports whether it did.
func (w *groupWatch) stable(ctx context.Context, d time.Duration, ok func(st *kafka.GroupState) bool) bool {
	if w == nil {
		select {
		case <-ctx.Done():
		case <-time.After(min(d, time.Second)):
		}
		return false
	}
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		st := w.read(ctx, false)
		if st != nil && st.State == "Stable" && ok(st) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(w.interval()):
		}
	}
	return false
}

func (w *groupWatch) stop() {
	if w == nil {
		return
	}
	for _, r := range w.removes {
		r()
	}
	w.cancel()
	<-w.done
	w.mu.Lock()
	w.res.Protocol = w.protocol
	w.mu.Unlock()
}

// rebalancer applies the rebalance faults of a chaos run.
type rebalancer struct {
	h      *Harness
	res    *RunResult
	cons   *consumer
	gw     *groupWatch
	cfg    chaos.RebalanceConfig
	faults []chaos.Fault
	events int64
	clean  time.Duration

	mu    sync.Mutex
	next  int
	armed bool
	known map[int32]int64
	trig  chan rebalanceTrigger

	cancel context.CancelFunc
	done   chan struct{}
	remove func()
}

type rebalanceTrigger struct {
	fault   chaos.Fault
	inst    int
	pid     int
	at      time.Time
	what    string
	dropped map[int32]int64
}

func (h *Harness) startRebalancer(ctx context.Context, res *RunResult, cons *consumer, gw *groupWatch, faults []chaos.Fault) *rebalancer {
	if len(faults) == 0 || h.sc.Chaos.Rebalance == nil {
		return nil
	}
	h.mu.Lock()
	clean := h.cleanConsume
	h.mu.Unlock()
	if clean <= 0 {
		clean = DefaultCleanConsume
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &rebalancer{h: h, res: res, cons: cons, gw: gw, cfg: *h.sc.Chaos.Rebalance, faults: faults, events: h.inv.Events, clean: clean,
		armed: true, known: map[int32]int64{}, trig: make(chan rebalanceTrigger, len(faults)), cancel: cancel, done: make(chan struct{})}
	if h.embedded != nil && r.cfg.At != chaos.CrashRandom {
		r.remove = h.embedded.OnGroupCommit(res.Group, r.onCommit)
	}
	go r.run(ctx)
	return r
}

func (r *rebalancer) threshold(f chaos.Fault) int64 {
	return max(1, int64(math.Ceil(f.Progress*float64(r.events))))
}

// onCommit runs on the embedded broker's loop for every commit of the
// group: at the commit that passes the next fault's point it strikes the
// instance that sent it (kill, stall: the commit is dropped) or hands the
// fault to run (join, leave, eager).
func (r *rebalancer) onCommit(c kafka.Commit) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	var mine map[int32]int64
	for _, t := range c.Topics {
		if t.Name == r.res.Topic || t.Name == "" && t.ID == r.res.topicID {
			mine = t.Offsets
		}
	}
	if mine == nil || r.gw.isRemoved(c.Member) {
		return false // a zombie's commit: the broker refuses it
	}
	merged := maps.Clone(r.known)
	maps.Copy(merged, mine)
	total := committedRecords(merged)
	if !r.armed || r.next >= len(r.faults) || total < r.threshold(r.faults[r.next]) {
		r.known = merged
		return false
	}
	f := r.faults[r.next]
	what := fmt.Sprintf("at the commit that took the group to %d committed records (point: %d, %d%% of %d events)", total, r.threshold(f), pct(f), r.events)
	if f.Move != chaos.Kill && f.Move != chaos.Stall {
		r.armed = false
		r.next++
		r.known = merged
		r.trig <- rebalanceTrigger{fault: f, inst: -1, at: time.Now(), what: what}
		return false
	}
	inst := r.gw.instanceOf(c.Member)
	if inst < 0 || !slices.Contains(r.cons.running(), inst) {
		// Not known as an instance yet (just joined): strike at a
		// later commit.
		r.known = merged
		return false
	}
	r.armed = false
	r.next++
	t := rebalanceTrigger{fault: f, inst: inst, at: time.Now(), dropped: mine}
	if f.Move == chaos.Kill {
		t.pid = r.cons.killInstance(inst)
		t.what = "killed (SIGKILL) " + what + ", its commit dropped"
	} else {
		t.pid = r.cons.pauseInstance(inst)
		t.what = "stalled (SIGSTOP) " + what + ", its commit dropped"
	}
	r.trig <- t
	return true
}

// run applies the faults: those onCommit struck or handed over, else (a
// real cluster, at: random) when the committed records pass each point or
// at its time of the consumption.
func (r *rebalancer) run(ctx context.Context) {
	defer close(r.done)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var first, passed time.Time
	for applied := 0; applied < len(r.faults); {
		select {
		case <-ctx.Done():
			return
		case t := <-r.trig:
			passed = time.Time{}
			if !r.apply(ctx, t) {
				return
			}
			applied++
			r.mu.Lock()
			r.armed = true
			r.mu.Unlock()
		case <-tick.C:
			offs, err := r.h.committed(ctx, r.res)
			if err != nil {
				continue
			}
			total := committedRecords(offs)
			if total > 0 && first.IsZero() {
				first = time.Now()
			}
			r.mu.Lock()
			if !r.armed || r.next >= len(r.faults) {
				r.mu.Unlock()
				continue
			}
			f := r.faults[r.next]
			due := total >= r.threshold(f)
			what := fmt.Sprintf("when the group had committed %d records (point: %d, %d%% of %d events; polled, no commit to intercept)", total, r.threshold(f), pct(f), r.events)
			if r.cfg.At == chaos.CrashRandom {
				due = !first.IsZero() && time.Since(first) >= time.Duration(f.Progress*float64(r.clean))
				what = fmt.Sprintf("at %d%% of the consumption time (%s in the clean run)", pct(f), roundDuration(r.clean))
			}
			if !due {
				passed = time.Time{}
				r.mu.Unlock()
				continue
			}
			// With commits intercepted, a point passed while the
			// previous fault was applied (or by a commit the hook did
			// not see) strikes once the offsets stayed past it a while.
			if r.remove != nil {
				if passed.IsZero() {
					passed = time.Now()
				}
				if time.Since(passed) < 250*time.Millisecond {
					r.mu.Unlock()
					continue
				}
			}
			r.mu.Unlock()
			if !r.h.groupJoined(ctx, r.res.Group) {
				continue
			}
			run := r.cons.running()
			if (f.Move == chaos.Kill || f.Move == chaos.Stall) && len(run) == 0 {
				continue
			}
			r.mu.Lock()
			if !r.armed || r.next >= len(r.faults) || r.faults[r.next].Index != f.Index {
				r.mu.Unlock()
				continue // onCommit struck meanwhile
			}
			r.armed = false
			r.next++
			r.mu.Unlock()
			passed = time.Time{}
			t := rebalanceTrigger{fault: f, inst: -1, at: time.Now(), what: what}
			if f.Move == chaos.Kill || f.Move == chaos.Stall {
				t.inst = run[f.Instance%len(run)]
				if f.Move == chaos.Kill {
					t.pid = r.cons.killInstance(t.inst)
					t.what = "killed (SIGKILL) " + what
				} else {
					t.pid = r.cons.pauseInstance(t.inst)
					t.what = "stalled (SIGSTOP) " + what
				}
			}
			if !r.apply(ctx, t) {
				return
			}
			applied++
			r.mu.Lock()
			r.armed = true
			r.mu.Unlock()
		}
	}
}

// moveWait bounds how long a fault waits for the group to move partitions.
const moveWait = 15 * time.Second

// joinSpread bounds how long a join waits, once the group took the new
// member in, for partitions to move to it (a cooperative balancer's
// second rebalance follows the members' next heartbeat: 3 s by default in
// franz-go).
const joinSpread = 4 * time.Second

// apply carries a fault out and records it; false: stop (the run is over).
func (r *rebalancer) apply(ctx context.Context, t rebalanceTrigger) bool {
	f := t.fault
	rb := Rebalance{Fault: f.Index, Rebalance: f.Rebalance, Move: f.Move, Time: Duration(t.at.Sub(r.cons.started)),
		Instance: t.inst, Pid: t.pid, Trigger: t.what, Dropped: t.dropped}
	label := fmt.Sprintf("rebalance %d (%s)", f.Rebalance, f.Move)
	without := func(members []string) func(*kafka.GroupState) bool {
		return func(st *kafka.GroupState) bool {
			for _, m := range st.Members {
				if slices.Contains(members, m.ID) {
					return false
				}
			}
			return len(st.Members) > 0 || len(r.cons.running()) == 0
		}
	}
	switch f.Move {
	case chaos.Join:
		before := r.gw.membersOfAll(ctx)
		i, err := r.cons.join()
		rb.Instance = i
		r.gw.note(fmt.Sprintf("%s: instance %d joined", label, i))
		if err != nil {
			rb.Error = err.Error()
			break
		}
		rb.Pid = r.cons.pid(i)
		rb.Trigger = "started " + t.what
		// The partitions the new member owns (a cooperative group
		// settles once with it owning none, then gives it some).
		var got []int32
		members := 0
		joined := func(st *kafka.GroupState) bool {
			got, members = nil, len(st.Members)
			n := 0
			for _, m := range st.Members {
				if !slices.Contains(before, m.ID) {
					n++
					got = append(got, m.Partitions...)
				}
			}
			return n > 0
		}
		switch {
		case !r.gw.stable(ctx, moveWait, joined):
			rb.Outcome = "the group had not taken it in within " + moveWait.String() + r.gw.unreadable()
		case len(got) > 0 || members <= r.h.sc.Kafka.Partitions && r.gw.stable(ctx, joinSpread, func(st *kafka.GroupState) bool { return joined(st) && len(got) > 0 }):
			slices.Sort(got)
			rb.Outcome = fmt.Sprintf("the group took it in; partitions %v moved to it", got)
		case members > r.h.sc.Kafka.Partitions:
			rb.Outcome = fmt.Sprintf("the group took it in but gave it no partition (%d members for %d partitions)", members, r.h.sc.Kafka.Partitions)
		default:
			rb.Outcome = fmt.Sprintf("the group took it in but gave it no partition within %s (the balancer kept every partition with its owner: as many instances as partitions?)", joinSpread)
		}
	case chaos.Leave:
		run := r.cons.running()
		if len(run) == 0 {
			rb.Outcome = "no instance running"
			break
		}
		i := run[f.Instance%len(run)]
		rb.Instance, rb.Pid = i, r.cons.pid(i)
		members := r.gw.membersOf(ctx, i)
		how := r.cons.leaveInstance(i, r.h.opts.StopGrace)
		r.gw.evicted(members, "it had left the group (SIGTERM)")
		r.gw.note(fmt.Sprintf("%s: instance %d left", label, i))
		rb.Trigger = "stopped (SIGTERM) " + t.what + " (" + how + ")"
		r.gw.stable(ctx, moveWait, without(members))
		r.restartOrRetire(&rb, i)
	case chaos.Kill:
		members := r.gw.membersOf(ctx, t.inst)
		rb.Evicted = r.h.evictMember(ctx, r.res.Group, members, r.gw.kip848())
		r.gw.evicted(members, "it was killed and evicted (its session would have timed out)")
		r.gw.note(fmt.Sprintf("%s: instance %d killed", label, t.inst))
		r.gw.stable(ctx, moveWait, without(members))
		r.restartOrRetire(&rb, t.inst)
		rb.Outcome += r.gw.guessedEviction(t.inst, members)
	case chaos.Stall:
		members := r.gw.membersOf(ctx, t.inst)
		t0 := time.Now()
		rb.Evicted = r.h.evictMember(ctx, r.res.Group, members, r.gw.kip848())
		r.gw.evicted(members, "it stalled past its session and was evicted")
		r.gw.note(fmt.Sprintf("%s: instance %d stalled", label, t.inst))
		// On a real cluster without a member to evict (the group
		// could not be read) the partitions move only once its session
		// times out: stalled for the whole of chaos.rebalance.stall.
		unseen := len(members) == 0 && r.gw.polled()
		moved := !unseen && r.gw.stable(ctx, r.cfg.Stall, without(members))
		if unseen {
			select {
			case <-ctx.Done():
			case <-time.After(r.cfg.Stall):
			}
		}
		processed := moved && r.waitCommitted(ctx, t.dropped, t0.Add(r.cfg.Stall))
		r.cons.resumeInstance(t.inst)
		rb.Stalled = Duration(time.Since(t0))
		r.gw.note(fmt.Sprintf("%s: instance %d resumed (a zombie)", label, t.inst))
		switch {
		case unseen:
			rb.Outcome = fmt.Sprintf("resumed (SIGCONT) after %s (chaos.rebalance.stall); no member of the group was found to evict%s: its partitions moved only if its session timed out meanwhile", rb.Stalled, r.gw.unreadable())
		case processed && len(t.dropped) == 0:
			rb.Outcome = fmt.Sprintf("its partitions moved; resumed (SIGCONT) after %s, a zombie (no commit was dropped: the point was polled)", rb.Stalled)
		case processed:
			rb.Outcome = fmt.Sprintf("its partitions moved and the new owner committed past its dropped commit; resumed (SIGCONT) after %s, a zombie", rb.Stalled)
		case moved:
			rb.Outcome = fmt.Sprintf("its partitions moved; resumed (SIGCONT) after %s (chaos.rebalance.stall) before the new owner committed past its dropped commit", rb.Stalled)
		default:
			rb.Outcome = fmt.Sprintf("resumed (SIGCONT) after %s; the group had not moved its partitions", rb.Stalled)
		}
		rb.Outcome += r.gw.guessedEviction(t.inst, members)
	case chaos.Eager:
		r.gw.note(label + ": an eager member joined")
		rb.Outcome, rb.Error = r.eagerMember(ctx)
		r.gw.note(label + ": the eager member left")
		rb.Trigger = "joined " + t.what
	}
	r.mu.Lock()
	r.res.Rebalances = append(r.res.Rebalances, rb)
	r.mu.Unlock()
	r.h.logf("%s: %s", r.res.Name, rb)
	return ctx.Err() == nil
}

// restartOrRetire starts a killed or departed instance again (restart:
// true, instance 0, which serves the state, or the last instance), else
// retires it.
func (r *rebalancer) restartOrRetire(rb *Rebalance, i int) {
	if !r.cfg.Restarts() && i != 0 && len(r.cons.running()) > 0 {
		r.cons.retire(i)
		rb.Outcome = "not restarted (chaos.rebalance.restart: false)"
		return
	}
	p, err := r.cons.restartInstance(i)
	if err != nil {
		rb.Error = "restart: " + err.Error()
		return
	}
	rb.RestartPid = p.Pid()
	rb.Outcome = fmt.Sprintf("its partitions moved; restarted as pid %d", p.Pid())
}

// waitCommitted waits until the group's committed offsets reach the
// dropped ones on their partitions (the new owner processed them), at
// most until deadline.
func (r *rebalancer) waitCommitted(ctx context.Context, dropped map[int32]int64, deadline time.Time) bool {
	for time.Now().Before(deadline) {
		if offs, err := r.h.committed(ctx, r.res); err == nil {
			ok := true
			for p, o := range dropped {
				if offs[p] < o {
					ok = false
				}
			}
			if ok {
				return true
			}
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return false
}

// eagerMember joins the group with a client whose only balancer is eager
// (range), holds until a generation with it has settled, and leaves. It
// consumes nothing and commits nothing: its partitions wait for the
// consumers.
func (r *rebalancer) eagerMember(ctx context.Context) (outcome, errText string) {
	cc := r.h.opts.Client
	cc.Brokers = r.h.brokers
	o, err := cc.Options()
	if err != nil {
		return "", err.Error()
	}
	assigned := make(chan struct{}, 1)
	cl, err := kgo.NewClient(append(o,
		kgo.ConsumerGroup(r.res.Group),
		kgo.ConsumeTopics(r.res.Topic),
		kgo.Balancers(kgo.RangeBalancer()),
		kgo.DisableAutoCommit(),
		kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) {
			select {
			case assigned <- struct{}{}:
			default:
			}
		}),
	)...)
	if err != nil {
		return "", err.Error()
	}
	defer cl.Close()
	// The client joins once it polls; what it fetches is dropped.
	pctx, cancel := context.WithTimeout(ctx, moveWait)
	defer cancel()
	go func() {
		for pctx.Err() == nil {
			cl.PollRecords(pctx, 1)
		}
	}()
	select {
	case <-assigned:
		if m, _ := cl.GroupMetadata(); m != "" && r.gw != nil {
			r.gw.mu.Lock()
			r.gw.eager[m] = true
			r.gw.mu.Unlock()
		}
		chosen := "?"
		dctx, dcancel := context.WithTimeout(ctx, 5*time.Second)
		if d, err := r.h.adm.DescribeGroups(dctx, r.res.Group); err == nil {
			if g, ok := d[r.res.Group]; ok && g.Err == nil {
				chosen = g.Protocol
			}
		}
		dcancel()
		time.Sleep(200 * time.Millisecond)
		cancel()
		return fmt.Sprintf("the group rebalanced with it (balancer chosen: %s; an eager balancer revokes every partition) and it left", chosen), ""
	case <-pctx.Done():
		return "it was not admitted within " + moveWait.String() + " (the consumers offer no eager balancer: INCONSISTENT_GROUP_PROTOCOL)", ""
	}
}

// membersOfAll returns the group's known members.
func (w *groupWatch) membersOfAll(ctx context.Context) []string {
	if w == nil {
		return nil
	}
	st := w.read(ctx, false)
	if st == nil {
		return nil
	}
	var out []string
	for _, m := range st.Members {
		out = append(out, m.ID)
	}
	return out
}

func (r *rebalancer) finished() bool {
	if r == nil {
		return true
	}
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

func (r *rebalancer) pending() string {
	if r == nil {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.faults) - len(r.res.Rebalances); n > 0 {
		return fmt.Sprintf("; %d rebalance fault(s) still waiting for their point of the run", n)
	}
	return ""
}

func (r *rebalancer) stop() {
	if r == nil {
		return
	}
	if r.remove != nil {
		r.remove()
	}
	r.cancel()
	<-r.done
}

// evictMember removes members of the group with LeaveGroup, as the
// coordinator would once their session timed out (best effort); it
// returns how many it removed.
func (h *Harness) evictMember(ctx context.Context, group string, members []string, kip848 bool) int {
	if len(members) == 0 {
		return 0
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if kip848 {
		// A KIP-848 member leaves with a heartbeat of epoch -1.
		n := 0
		for _, m := range members {
			req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
			req.Group, req.MemberID, req.MemberEpoch = group, m, -1
			if resp, err := req.RequestWith(ctx, h.cl); err == nil && resp.ErrorCode == 0 {
				n++
			}
		}
		return n
	}
	leaving := make([]kmsg.LeaveGroupRequestMember, 0, len(members))
	for _, m := range members {
		lm := kmsg.NewLeaveGroupRequestMember()
		lm.MemberID = m
		leaving = append(leaving, lm)
	}
	return h.leaveGroup(ctx, group, leaving)
}

// leaveGroup sends one LeaveGroup for the members and returns how many the
// coordinator removed (0 when the request itself failed).
func (h *Harness) leaveGroup(ctx context.Context, group string, members []kmsg.LeaveGroupRequestMember) int {
	req := kmsg.NewPtrLeaveGroupRequest()
	req.Group = group
	req.Members = members
	resp, err := req.RequestWith(ctx, h.cl)
	if err != nil || resp.ErrorCode != 0 {
		return 0
	}
	n := 0
	for _, m := range resp.Members {
		if m.ErrorCode == 0 {
			n++
		}
	}
	return n
}

// waitMembers waits, before the first event is produced, until the group
// is stable with n members (every instance joined), so a clean run's
// partitions do not move while it consumes; at most timeout. It reports
// whether the group got there.
func (h *Harness) waitMembers(ctx context.Context, cons *consumer, group string, n int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		// Classic and KIP-848 groups alike.
		if st, _, err := h.groupState(ctx, group, "", [16]byte{}); err == nil && st != nil && st.State == "Stable" && len(st.Members) >= n {
			return true
		}
		if exited, _ := cons.exited(); exited {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return false
}

// timeline renders a run's group history in time order, one event a
// line: generations (owners, committed offsets at the switch), rebalance
// faults applied and stale commits.
func (r *RunResult) timeline() []string {
	if len(r.Generations) == 0 && len(r.Rebalances) == 0 && len(r.StaleCommits) == 0 && len(r.Rewinds) == 0 {
		return nil
	}
	type entry struct {
		at   Duration
		text string
	}
	var es []entry
	for _, g := range r.Generations {
		var owners []string
		for _, o := range g.Owners {
			who := "i" + strconv.Itoa(o.Instance)
			switch {
			case o.Eager:
				who = "eager"
			case o.Instance < 0:
				who = "?" + shortMember(o.Member)
			}
			owners = append(owners, fmt.Sprintf("%s%v", who, o.Partitions))
		}
		name := fmt.Sprintf("generation %d", g.Number)
		switch {
		case g.Polled && r.Protocol.Protocol == "classic":
			name = fmt.Sprintf("polled generation #%d", g.Number)
		case g.Polled:
			name += ", polled,"
		}
		es = append(es, entry{g.Time, fmt.Sprintf("%s (%s): %s; committed %s", name, g.Cause, strings.Join(owners, " "), committedText(g.Committed))})
	}
	for _, rb := range r.Rebalances {
		es = append(es, entry{rb.Time, rb.String()})
	}
	for _, s := range r.StaleCommits {
		who := fmt.Sprintf("instance %d", s.Instance)
		if s.Instance < 0 {
			who = "member " + shortMember(s.Member)
		}
		es = append(es, entry{s.Time, fmt.Sprintf("stale commit from %s (%s) refused: %s (%s)", who, droppedText(s.Offsets), s.Error, s.Why)})
	}
	for _, rw := range r.Rewinds {
		es = append(es, entry{rw.Time, "offsets rewound: " + rw.String()})
	}
	sort.SliceStable(es, func(a, b int) bool { return es[a].at < es[b].at })
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = fmt.Sprintf("%7s  %s", e.at, e.text)
	}
	return out
}

// polledGroupNote says, for a run on a real cluster, what the polled
// group history holds and what needs the embedded broker.
const polledGroupNote = "followed by polling the admin API (--brokers): a generation that began and ended between two polls is missed, " +
	"and a rewind cannot name its sender; stale-commit refusals, rewinds seen at the commit that made them, " +
	"and kill or stall at the instance's commit (dropped) need the embedded broker"

func committedText(m map[int32]int64) string {
	if len(m) == 0 {
		return "nothing"
	}
	return droppedText(m)
}

// shortMember abbreviates a member id for the timeline.
func shortMember(m string) string {
	if len(m) > 12 {
		return m[len(m)-12:]
	}
	return m
}
