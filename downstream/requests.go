package downstream

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"sync"
	"time"
	"unsafe"

	"github.com/evtool/evtool/chaos"
)

// A stand-in's log grows with the run, one request at a time, and is
// judged only at its end. So it keeps, per request, a fixed record of
// numbers (times as offsets from the stand-in's start, keys as indexes
// into a table of distinct keys, outcome and fault as codes: 64 bytes),
// in chunks that are never copied, and each distinct key once, its bytes
// in an arena. An Entry (about 220 bytes, and a string per key per
// request) is made only for whoever asks for one.

// keyTable numbers distinct strings: a key's bytes are kept once, in
// fixed chunks of an arena, and found by an open-addressing index of ids
// (4 bytes a slot, hashed from the arena's bytes): a map by string took
// about 55 bytes a key beside its bytes, and held a pointer a key for the
// collector to follow. Entries are only added: a view taken under the
// owner's lock (view) reads the ids below its length without the lock,
// since the bytes and refs it reads are never written again (a chunk is
// full-length from the start, and appends write past the view's end).
type keyTable struct {
	seed maphash.Seed
	// slots holds id+1 (0: empty), linear probing; len is a power of 2.
	slots []int32
	// refs: id -> chunk<<32 | offset of the key's uvarint length, in
	// full-length chunks of refChunk (neither grows by copying, nor
	// rewrites what a view reads).
	refs  [][]uint64
	n     int
	arena [][]byte
	used  int // bytes used of the last chunk
}

const (
	keyChunk = 64 << 10
	refChunk = 8192
)

func newKeyTable() *keyTable {
	t := &keyTable{seed: maphash.MakeSeed(), slots: make([]int32, 64)}
	t.intern("") // id 0: no key
	return t
}

// find returns the id of s, or the slot to put it in.
func (t *keyTable) find(s string) (int32, int, bool) {
	mask := len(t.slots) - 1
	i := int(maphash.String(t.seed, s)) & mask
	for {
		v := t.slots[i]
		if v == 0 {
			return 0, i, false
		}
		if t.str(v-1) == s {
			return v - 1, i, true
		}
		i = (i + 1) & mask
	}
}

// lookup returns the id of s.
func (t *keyTable) lookup(s string) (int32, bool) {
	id, _, ok := t.find(s)
	return id, ok
}

// intern returns the id of s, adding it if it is new.
func (t *keyTable) intern(s string) int32 {
	id, slot, ok := t.find(s)
	if ok {
		return id
	}
	need := binary.MaxVarintLen64 + len(s)
	if len(t.arena) == 0 || len(t.arena[len(t.arena)-1])-t.used < need {
		t.arena = append(t.arena, make([]byte, max(keyChunk, need)))
		t.used = 0
	}
	c := t.arena[len(t.arena)-1]
	at := t.used
	n := binary.PutUvarint(c[at:], uint64(len(s)))
	copy(c[at+n:], s)
	t.used += n + len(s)
	id = int32(t.n)
	if t.n%refChunk == 0 {
		t.refs = append(t.refs, make([]uint64, refChunk))
	}
	t.refs[t.n/refChunk][t.n%refChunk] = uint64(len(t.arena)-1)<<32 | uint64(at)
	t.n++
	t.slots[slot] = id + 1
	if 4*t.n > 3*len(t.slots) {
		t.rehash()
	}
	return id
}

// rehash doubles the index.
func (t *keyTable) rehash() {
	t.slots = make([]int32, 2*len(t.slots))
	mask := len(t.slots) - 1
	for id := range t.n {
		i := int(maphash.String(t.seed, t.str(int32(id)))) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = int32(id) + 1
	}
}

func (t *keyTable) str(id int32) string { return t.view().str(id) }

// keyView reads a keyTable's keys up to the length it was taken at (n).
type keyView struct {
	refs  [][]uint64
	n     int
	arena [][]byte
}

func (t *keyTable) view() keyView {
	return keyView{refs: t.refs[:len(t.refs):len(t.refs)], n: t.n, arena: t.arena[:len(t.arena):len(t.arena)]}
}

func (v keyView) str(id int32) string {
	r := v.refs[id/refChunk][id%refChunk]
	c := v.arena[r>>32][uint32(r):]
	l, n := binary.Uvarint(c)
	if l == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(c[n:]), int(l))
}

// rec is one request, compactly (see Entry for the fields).
type rec struct {
	// start, end and effectAt are nanoseconds from the log's base
	// (effectAt only with flagEffect); retryAfter is a duration.
	start, end, effectAt, retryAfter int64
	seq, attempt                     int32
	// key, idem and event are key ids (0: none).
	key, idem, event int32
	faultIndex       int32
	status           int16
	outcome, fault   uint8
	flags            uint8
}

const (
	flagEffect = 1 << iota
	flagGaveUp
)

// outcomes and faults number the values an Entry holds; an unknown one
// (an Entry built by hand) is numbered as it is met (names).
var (
	outcomes = []Outcome{"", OK, Replayed, InProgress, Terminated, Limited, InOutage, Faulted, BadRequest, Failed}
	faults   = append([]chaos.DownstreamKind{""}, chaos.DownstreamKinds...)
)

const recChunk = 4096

// reqLog is a log of requests in records.
type reqLog struct {
	base   time.Time
	keys   keyView
	chunks [][]rec
	n      int
	// lookup finds a key's id (false: not in the log); the stand-in's
	// looks under its lock.
	lookup func(string) (int32, bool)
	// more holds outcomes and faults beyond the known ones, by code.
	more []string
}

func (l *reqLog) add(r rec) {
	if l.n%recChunk == 0 {
		l.chunks = append(l.chunks, make([]rec, 0, recChunk))
	}
	c := &l.chunks[l.n/recChunk]
	*c = append(*c, r)
	l.n++
}

func (l *reqLog) at(i int32) *rec { return &l.chunks[i/recChunk][i%recChunk] }

// off is t as an offset from the base, saturated as time.Sub saturates.
func (l *reqLog) off(t time.Time) int64 { return int64(t.Sub(l.base)) }

func (l *reqLog) time(off int64) time.Time { return l.base.Add(time.Duration(off)) }

// span is a - b, saturated as time.Sub saturates.
func span(a, b int64) time.Duration {
	d := a - b
	switch {
	case b < 0 && a > math.MaxInt64+b:
		return math.MaxInt64
	case b > 0 && a < math.MinInt64+b:
		return math.MinInt64
	}
	return time.Duration(d)
}

func (l *reqLog) code(s string, known []string) uint8 {
	for i, k := range known {
		if k == s {
			return uint8(i)
		}
	}
	for i, k := range l.more {
		if k == s {
			return uint8(len(known) + i)
		}
	}
	l.more = append(l.more, s)
	return uint8(len(known) + len(l.more) - 1)
}

func (l *reqLog) name(c uint8, known []string) string {
	if int(c) < len(known) {
		return known[c]
	}
	return l.more[int(c)-len(known)]
}

var (
	outcomeNames = func() []string {
		out := make([]string, len(outcomes))
		for i, o := range outcomes {
			out[i] = string(o)
		}
		return out
	}()
	faultNames = func() []string {
		out := make([]string, len(faults))
		for i, f := range faults {
			out[i] = string(f)
		}
		return out
	}()
)

func (l *reqLog) outcome(r *rec) Outcome { return Outcome(l.name(r.outcome, outcomeNames)) }

func (l *reqLog) fault(r *rec) chaos.DownstreamKind {
	return chaos.DownstreamKind(l.name(r.fault, faultNames))
}

// record makes e a record, its keys numbered by ids.
func (l *reqLog) record(e *Entry, key, idem, event int32) rec {
	r := rec{start: l.off(e.Start), end: l.off(e.End), retryAfter: int64(e.RetryAfter),
		seq: int32(e.Seq), attempt: int32(e.Attempt), key: key, idem: idem, event: event,
		faultIndex: int32(e.FaultIndex), status: int16(e.Status),
		outcome: l.code(string(e.Outcome), outcomeNames), fault: l.code(string(e.Fault), faultNames)}
	if e.Effect {
		r.flags |= flagEffect
		r.effectAt = l.off(e.EffectAt)
	}
	if e.GaveUp {
		r.flags |= flagGaveUp
	}
	return r
}

// entry makes a record an Entry again.
func (l *reqLog) entry(r *rec) Entry {
	e := Entry{Seq: int(r.seq), Start: l.time(r.start), End: l.time(r.end),
		EffectKey: l.keys.str(r.key), IdempotencyKey: l.keys.str(r.idem), EventID: l.keys.str(r.event),
		Attempt: int(r.attempt), Outcome: l.outcome(r), Status: int(r.status),
		Fault: l.fault(r), FaultIndex: int(r.faultIndex), RetryAfter: time.Duration(r.retryAfter),
		Effect: r.flags&flagEffect != 0, GaveUp: r.flags&flagGaveUp != 0}
	if e.Effect {
		e.EffectAt = l.time(r.effectAt)
	}
	return e
}

// logOf makes entries a log of records (for Judge: a log built by hand,
// or read back).
func logOf(entries []Entry) *reqLog {
	l := &reqLog{}
	for i, e := range entries {
		if i == 0 || e.Start.Before(l.base) {
			l.base = e.Start
		}
	}
	tab := newKeyTable()
	for i := range entries {
		e := &entries[i]
		l.add(l.record(e, tab.intern(e.EffectKey), tab.intern(e.IdempotencyKey), tab.intern(e.EventID)))
	}
	l.keys = tab.view()
	l.lookup = tab.lookup
	return l
}

// standInLog is a stand-in's log: its records and a view of its key
// table, whose index it reads under the stand-in's lock.
func standInLog(base time.Time, tab *keyTable, mu *sync.Mutex) *reqLog {
	l := &reqLog{base: base}
	l.lookup = func(s string) (int32, bool) {
		mu.Lock()
		defer mu.Unlock()
		id, ok := tab.lookup(s)
		return id, ok && int(id) < l.keys.n
	}
	return l
}

// Len is the number of requests in the log.
func (l Log) Len() int {
	if l.reqs != nil {
		return l.reqs.n
	}
	return len(l.Entries)
}

// Each calls f with each request of the log in the order they ended
// (the Entry is f's for the call only; its keys share chunks of the
// log's arena: copy one to keep it).
func (l Log) Each(f func(*Entry)) {
	if l.reqs == nil {
		for i := range l.Entries {
			f(&l.Entries[i])
		}
		return
	}
	for i := range l.reqs.n {
		e := l.reqs.entry(l.reqs.at(int32(i)))
		f(&e)
	}
}

func (l Log) records() *reqLog {
	if l.reqs != nil {
		return l.reqs
	}
	return logOf(l.Entries)
}
