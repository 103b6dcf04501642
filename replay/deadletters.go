package replay

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/dlq"
	"github.com/evtool/evtool/kafka"
)

// poisonRef is what the DLQ checks need of a poison fault: its kind and
// the input event it replaced. A chaos.Fault is ten times larger, and its
// strings alias the event's text.
type poisonRef struct {
	Kind  chaos.PoisonKind
	Event int64
}

// poisonIDs holds a run's applied poison faults by poison id.
type poisonIDs map[string]poisonRef

func (p poisonIDs) add(f chaos.Fault) {
	p[strings.Clone(f.PoisonID)] = poisonRef{Kind: f.Poison, Event: f.Event.Index}
}

// deadLetter is a record of the run's DLQ topic as the checks need it:
// what it carries (DLQRecord), the origin its headers name and a digest of
// its key and value, not the record (whose value is an event, or more).
type deadLetter struct {
	DLQRecord
	// origin is nil when the headers name none; originErr is the error
	// of headers dlq.Decode rejects.
	origin    *dlq.Origin
	originErr string
	sum       [sha256.Size]byte
}

// newDeadLetter describes r; poison is the run's poison set.
func newDeadLetter(r *kgo.Record, poison poisonIDs) deadLetter {
	id := dlqID(r, poison)
	d := deadLetter{DLQRecord: DLQRecord{Partition: r.Partition, Offset: r.Offset, ID: id, Error: errorHeader(r)}, sum: recordSum(r)}
	if p, ok := poison[id]; ok {
		d.Poison = p.Kind
	}
	switch l, err := dlq.Decode(r); {
	case err != nil:
		d.originErr = err.Error()
	case l.Origin != nil:
		o := *l.Origin
		o.Topic = strings.Clone(o.Topic)
		d.origin = &o
	}
	return d
}

// recordSum digests a record's key and value: two records with the same
// digest carry the same key and value.
func recordSum(r *kgo.Record) [sha256.Size]byte {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(r.Key)))])
	h.Write(r.Key)
	h.Write(r.Value)
	var s [sha256.Size]byte
	h.Sum(s[:0])
	return s
}

// collectDeadLetters describes the records next returns until
// kafka.ErrEnd, holding none of them.
func collectDeadLetters(next func() (*kgo.Record, error), poison poisonIDs) ([]deadLetter, error) {
	var out []deadLetter
	for {
		rec, err := next()
		if errors.Is(err, kafka.ErrEnd) {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("%d record(s): %w", len(out), err)
		}
		out = append(out, newDeadLetter(rec, poison))
	}
}

// readDeadLetters reads the records the run wrote to the DLQ topic, up to
// the end offsets it has now, as dead letters. A consumer that
// dead-letters with a transactional producer leaves commit markers, which
// take offsets but are no records: the reader passes them.
func (h *Harness) readDeadLetters(ctx context.Context, d *dlqRun, poison poisonIDs) ([]deadLetter, error) {
	cc := h.opts.Client
	cc.Brokers = h.brokers
	r, err := kafka.OpenTopics(ctx, cc, kafka.ReadOptions{Topics: []string{d.topic}, Offsets: map[string]map[int32]int64{d.topic: d.start}})
	if err != nil {
		return nil, fmt.Errorf("reading the DLQ topic %s: %w", d.topic, err)
	}
	defer r.Close()
	out, err := collectDeadLetters(func() (*kgo.Record, error) { return r.Next(ctx) }, poison)
	if err != nil {
		return out, fmt.Errorf("reading the DLQ topic %s: %w", d.topic, err)
	}
	return out, nil
}

// dlqRecords are the descriptions of a run's dead letters.
func dlqRecords(dead []deadLetter) []DLQRecord {
	out := make([]DLQRecord, len(dead))
	for i, d := range dead {
		out[i] = d.DLQRecord
	}
	return out
}
