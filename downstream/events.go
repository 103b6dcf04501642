package downstream

import (
	"strings"
	"unsafe"
)

// EventIndex finds a run's input events by id: the last event added with
// the id.
type EventIndex interface {
	Event(id string) (*Event, bool)
}

// EventTable holds a run's input events compactly, for the oracle: a
// fixed record per event in chunks (a growing slice would copy, and for a
// moment hold twice, every record), ids and keys in an arena of byte
// chunks, and an index by id whose keys alias the arena. About 90 bytes
// and the id and key per event, where a []Event with an index built
// beside it took about 180 and the strings. It is not safe for concurrent
// use.
type EventTable struct {
	topic string
	recs  [][]eventRec
	arena []byte
	byID  map[string]int32
	n     int
}

type eventRec struct {
	id, key         string
	index, offset   int64
	partition, line int32
}

const (
	eventChunk = 8192
	arenaChunk = 64 << 10
)

// NewEventTable returns an empty table of the events of topic.
func NewEventTable(topic string) *EventTable {
	return &EventTable{topic: topic, byID: map[string]int32{}}
}

// Add appends an event (offset unknown) and returns its place, the order
// it was produced in.
func (t *EventTable) Add(id, key string, partition int32, index int64, line int) int {
	i := t.n
	if i%eventChunk == 0 {
		t.recs = append(t.recs, make([]eventRec, 0, eventChunk))
	}
	r := eventRec{id: t.intern(id), key: t.intern(key), index: index, offset: -1, partition: partition, line: int32(line)}
	c := &t.recs[i/eventChunk]
	*c = append(*c, r)
	t.byID[r.id] = int32(i)
	t.n++
	return i
}

// intern copies s into the arena: the copy shares a chunk with its
// neighbours instead of taking an allocation of its own, and holds
// nothing s was a slice of (an event's text).
func (t *EventTable) intern(s string) string {
	switch {
	case s == "":
		return ""
	case len(s) > arenaChunk/8:
		return strings.Clone(s)
	}
	if cap(t.arena)-len(t.arena) < len(s) {
		t.arena = make([]byte, 0, arenaChunk)
	}
	start := len(t.arena)
	t.arena = append(t.arena, s...)
	// The bytes are never written again: a chunk is replaced, not
	// reused, once full.
	return unsafe.String(&t.arena[start], len(s))
}

// SetOffset records the partition and offset event i was written at.
func (t *EventTable) SetOffset(i int, partition int32, offset int64) {
	if i < 0 || i >= t.n {
		return
	}
	r := &t.recs[i/eventChunk][i%eventChunk]
	r.partition, r.offset = partition, offset
}

// Len is the number of events.
func (t *EventTable) Len() int { return t.n }

// At returns event i.
func (t *EventTable) At(i int) Event {
	r := t.recs[i/eventChunk][i%eventChunk]
	return Event{ID: r.id, Key: r.key, Topic: t.topic, Partition: r.partition, Offset: r.offset, Index: r.index, Order: int64(i), Line: int(r.line)}
}

// Event returns the last event added with the id.
func (t *EventTable) Event(id string) (*Event, bool) {
	i, ok := t.byID[id]
	if !ok {
		return nil, false
	}
	e := t.At(int(i))
	return &e, true
}

// eventList indexes a slice of events (Input.Events).
type eventList map[string]*Event

func (l eventList) Event(id string) (*Event, bool) {
	e, ok := l[id]
	return e, ok
}

func indexEvents(events []Event) eventList {
	l := eventList{}
	for i := range events {
		l[events[i].ID] = &events[i]
	}
	return l
}
