// Package bugs is the catalogue of consumer bugs that evtool replay must
// catch: small consumers of the orders example events (examples/orders),
// each with one classic at-least-once bug, and a correct one.
//
//	(a) non-idempotent     no dedupe: a duplicate applies twice
//	(b) wrong-dedupe-key   dedupe on the Kafka partition and offset, not the
//	                       event id: a duplicate is a new record, new offset
//	(c) memory-dedupe      dedupe kept in memory only: after a crash the
//	                       redelivered events apply twice
//	(d) last-write-wins    no version guard: a late event sets an order's
//	                       status back
//	(e) poison-crash       fails on an event it cannot read instead of
//	                       dead-lettering it: the partition stalls
//	(f) commit-first       commits offsets before applying the records:
//	                       a crash in between loses them
//	(g) correct            dedupe by event id in the same write as the
//	                       effect, version guard, dead letters, commit after
//
// The same logic runs in-process (replay/replaytest, through a handler)
// and as a real Kafka consumer (Run, in ./bugconsumer and in the replay
// package's test binary). Events are validated with the catalog's
// generated decoders (examples/orders/events), so every consumer reads
// every known version of a type (placed v1 and v2).
package bugs

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cloudevents/sdk-go/v2/event"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/examples/orders/events"
)

// Bug names a consumer of the catalogue.
type Bug string

// The catalogue.
const (
	NonIdempotent  Bug = "non-idempotent"
	WrongDedupeKey Bug = "wrong-dedupe-key"
	MemoryDedupe   Bug = "memory-dedupe"
	LastWriteWins  Bug = "last-write-wins"
	PoisonCrash    Bug = "poison-crash"
	CommitFirst    Bug = "commit-first"
	Correct        Bug = "correct"

	// Group bugs: they show only with several instances and rebalances
	// (through Kafka; see GroupCatalogue).
	ZombieNoFence Bug = "zombie-no-fence"
	RevokedCommit Bug = "revoked-commit"
	InstanceState Bug = "instance-state"
)

// Entry describes a consumer of the catalogue.
type Entry struct {
	Letter string
	Bug    Bug
	What   string
	// Exposes are the fault kinds that expose the bug: a minimal failing
	// set of faults has one of them (crash for memory-dedupe and
	// commit-first, which only a crash exposes).
	Exposes []chaos.Kind
}

// Catalogue lists the consumers, (a) to (g).
var Catalogue = []Entry{
	{"a", NonIdempotent, "non-idempotent effect: no dedupe", []chaos.Kind{chaos.Duplicate, chaos.Crash}},
	{"b", WrongDedupeKey, "dedupe keyed on the Kafka partition and offset instead of the event id", []chaos.Kind{chaos.Duplicate}},
	{"c", MemoryDedupe, "dedupe kept only in memory", []chaos.Kind{chaos.Crash}},
	{"d", LastWriteWins, "last write wins, no version guard", []chaos.Kind{chaos.Reorder}},
	{"e", PoisonCrash, "fails (crashes, stalls) on a poison event", []chaos.Kind{chaos.Poison}},
	{"f", CommitFirst, "commits before the effect", []chaos.Kind{chaos.Crash}},
	{"g", Correct, "correct", nil},
}

// GroupCatalogue lists the consumers whose bugs need several instances
// of one group and rebalance faults (consumer.instances,
// chaos.rebalance), through Kafka only: replaytest runs one consumer for
// the whole group. memory-dedupe is here too: a partition that moves
// after a kill reaches an instance whose memory lacks the ids.
//
//	(c) memory-dedupe    dedupe in the instance's memory: the next owner
//	                     applies the records the killed one did not commit
//	(h) zombie-no-fence  dedupe against a copy of the inbox taken when
//	                     partitions were assigned, no fencing: a stalled
//	                     instance resumes and applies its stale batch again
//	(i) revoked-commit   stops working on a revoked partition, but commits
//	                     its last offsets on a timer, revoked partitions
//	                     included: the group's offsets go back after the
//	                     new owner committed past them
//	(j) instance-state   keeps its orders in EVTOOL_INSTANCE_DIR: the next
//	                     owner of a partition lacks what the last one did
var GroupCatalogue = []Entry{
	{"c", MemoryDedupe, "dedupe kept per instance in memory", []chaos.Kind{chaos.Rebalance}},
	{"h", ZombieNoFence, "a zombie applies a stale batch: no fencing", []chaos.Kind{chaos.Rebalance}},
	{"i", RevokedCommit, "offsets of revoked partitions committed after the new owner started", []chaos.Kind{chaos.Rebalance}},
	{"j", InstanceState, "state kept per instance that the next owner lacks", []chaos.Kind{chaos.Rebalance}},
}

// Parse returns the bug named by a letter or a name.
func Parse(s string) (Bug, error) {
	for _, e := range slices.Concat(Catalogue, GroupCatalogue, DownstreamCatalogue, ContractCatalogue) {
		if s == e.Letter || s == string(e.Bug) {
			return e.Bug, nil
		}
	}
	var names []string
	for _, e := range slices.Concat(Catalogue, GroupCatalogue[1:], DownstreamCatalogue, ContractCatalogue) {
		names = append(names, e.Letter+"|"+string(e.Bug))
	}
	return "", fmt.Errorf("unknown bug %q (want one of %s)", s, strings.Join(names, ", "))
}

// Order is the read model of one order.
type Order struct {
	Status  string `json:"status"`
	Version int64  `json:"version"`
	Paid    int64  `json:"paid"`
	Parcels int64  `json:"parcels"`
	// Customer is undeclared-read's copy of the placed event's customer.
	Customer string `json:"customer,omitempty"`
	// Events counts the events applied: any event applied twice shows.
	Events int `json:"events"`
}

// Store is a consumer's durable state: what survives a crash (a file in
// EVTOOL_WORKDIR, written atomically with each batch's effects).
type Store struct {
	Orders map[string]*Order `json:"orders"`
	// Inbox holds the ids of the events applied (the dedupe of correct
	// consumers, written with the effect).
	Inbox map[string]bool `json:"inbox,omitempty"`
	// Offsets holds partition/offset pairs (wrong-dedupe-key's dedupe).
	Offsets map[string]bool `json:"offsets,omitempty"`
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{Orders: map[string]*Order{}, Inbox: map[string]bool{}, Offsets: map[string]bool{}}
}

// Consumer is one process of a catalogue consumer: its durable store
// and what it keeps in memory.
type Consumer struct {
	Bug   Bug
	Store *Store
	seen  map[string]bool // memory-dedupe's dedupe
	// assigned is zombie-no-fence's copy of the inbox, taken when it was
	// assigned partitions (Assigned).
	assigned map[string]bool
}

// Assigned tells the consumer it was assigned partitions (its store is
// fresh): zombie-no-fence takes its copy of the inbox then.
func (c *Consumer) Assigned() { c.assigned = maps.Clone(c.Store.Inbox) }

// New returns a consumer (a process) over a store.
func New(bug Bug, st *Store) *Consumer {
	return &Consumer{Bug: bug, Store: st, seen: map[string]bool{}}
}

// Input is what a consumer uses of a valid event.
type Input struct {
	ID, Type     string
	OrderID      string
	OrderVersion int64
	Amount       int64
	Parcels      int64
	CustomerID   string
}

// ErrUnreadable wraps the reason an event cannot be applied.
var ErrUnreadable = errors.New("cannot apply the event")

// Decode validates an event with the catalog's generated decoders (type,
// version by dataschema, data against that version's schema).
func Decode(e event.Event) (Input, error) {
	d, err := events.Decode(e)
	if err != nil {
		return Input{}, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	in := Input{ID: e.ID(), Type: e.Type()}
	switch v := d.(type) {
	case *events.OrderPlacedV1:
		in.OrderID, in.OrderVersion, in.CustomerID = v.OrderID, v.OrderVersion, v.CustomerID
	case *events.OrderPlacedV2:
		in.OrderID, in.OrderVersion, in.CustomerID = v.OrderID, v.OrderVersion, v.CustomerID
	case *events.OrderPaidV1:
		in.OrderID, in.OrderVersion, in.Amount = v.OrderID, v.OrderVersion, v.Amount.AmountMinor
	case *events.OrderShippedV1:
		in.OrderID, in.OrderVersion, in.Parcels = v.OrderID, v.OrderVersion, v.Parcels
	default:
		return Input{}, fmt.Errorf("%w: event %q: %T is not handled", ErrUnreadable, e.ID(), d)
	}
	return in, nil
}

// Apply applies one valid event delivered at partition/offset. It
// reports whether the event had an effect (false: deduped).
func (c *Consumer) Apply(in Input, partition int32, offset int64) bool {
	st := c.Store
	switch c.Bug {
	case NonIdempotent:
	case WrongDedupeKey:
		k := fmt.Sprintf("%d/%d", partition, offset)
		if st.Offsets[k] {
			return false
		}
		st.Offsets[k] = true
	case MemoryDedupe:
		if c.seen[in.ID] {
			return false
		}
		c.seen[in.ID] = true
	case ZombieNoFence:
		if c.assigned == nil {
			c.Assigned()
		}
		if c.assigned[in.ID] {
			return false
		}
		c.assigned[in.ID] = true
		st.Inbox[in.ID] = true
	default:
		if st.Inbox[in.ID] {
			return false
		}
		st.Inbox[in.ID] = true
	}
	o := st.Orders[in.OrderID]
	if o == nil {
		o = &Order{}
		st.Orders[in.OrderID] = o
	}
	o.Events++
	o.Paid += in.Amount
	o.Parcels += in.Parcels
	if c.Bug == UndeclaredRead && in.CustomerID != "" {
		o.Customer = in.CustomerID
	}
	if c.Bug == LastWriteWins || in.OrderVersion > o.Version {
		o.Version, o.Status = in.OrderVersion, strings.TrimPrefix(in.Type, "com.example.order.")
	}
	return true
}

// State is what the consumer serves as its state: the orders.
func (c *Consumer) State() any { return map[string]any{"orders": c.Store.Orders} }

// CommitsFirst reports whether the consumer commits before its effects.
func (c *Consumer) CommitsFirst() bool { return c.Bug == CommitFirst }

// CrashesOnPoison reports whether the consumer fails on an unreadable
// event instead of dead-lettering it.
func (c *Consumer) CrashesOnPoison() bool { return c.Bug == PoisonCrash }

// RestartsWhenFenced reports whether the consumer, when the group refuses
// a commit because it is no longer a member, drops the rest of its batch
// and starts a new client (Run): zombie-no-fence goes on with its stale
// batch.
func (c *Consumer) RestartsWhenFenced() bool { return c.Bug != ZombieNoFence }
