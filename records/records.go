// Package records checks what landed on Kafka topics: each record as a
// CloudEvent against the catalog (envelope, data, the type's partition key)
// and the records together (ids reused or repeated, a key spread over
// partitions, a type's sequence going backwards for one key). validate
// --topic prints its findings; verify judges a producer with them.
package records

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"sort"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/report"
)

// Rule ids of the record checks (the catalog checks keep their own).
const (
	RuleNotCloudEvent     = "record-not-cloudevent"
	RulePartitionKey      = "partition-key-mismatch"
	RuleIDReused          = "id-reused"
	RuleIDRepeated        = "id-repeated"
	RuleKeyPartitions     = "key-partitions"
	RuleSequenceBackwards = "sequence-backwards"
	// RuleRecordInvalid: a record that is not readable as an event for
	// another reason than carrying no CloudEvent.
	RuleRecordInvalid = "record-invalid"
)

// Record is what the checker learnt of one record.
type Record struct {
	At   report.RecordLocation
	Key  string
	ID   string
	Type string
	// Source is the event's source ("" when the record is no event).
	Source string
	// Seq is the value of the type's sequence pointer, when it has one
	// and the data holds a number there.
	Seq    float64
	HasSeq bool
	// Repeat reports that an earlier record had the same source and id.
	Repeat bool
	// Findings are this record's own (envelope, data, partition key,
	// id reused, sequence).
	Findings []report.Finding
}

// Invalid reports whether the record broke the contract (a failing finding
// other than a sequence going backwards, which is about order).
func (r *Record) Invalid() bool {
	for _, f := range r.Findings {
		if f.Failing() && f.Rule != RuleSequenceBackwards && f.Rule != RulePartitionKey {
			return true
		}
	}
	return false
}

// WrongKey reports whether the record key is not the type's partition key.
func (r *Record) WrongKey() bool { return r.has(RulePartitionKey) }

// Reused reports whether the record's id was used before for another event.
func (r *Record) Reused() bool { return r.has(RuleIDReused) }

// Backwards reports whether the record's sequence went backwards.
func (r *Record) Backwards() bool { return r.has(RuleSequenceBackwards) }

func (r *Record) has(rule string) bool {
	for _, f := range r.Findings {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

// Checker checks records in the order they are read; it is not safe for
// concurrent use. Per-partition order is what the sequence check needs:
// records of one partition must reach Check in offset order.
type Checker struct {
	v   *envelope.Validator
	cat *catalog.Catalog

	// seed hashes an event's content to tell a repeat from a reuse
	// within one run (a 64-bit hash: a collision needs the same id too).
	seed   maphash.Seed
	ids    map[string]*idSeen
	spread map[string]*keySeen
	seqs   map[string]seqSeen
}

type idSeen struct {
	first report.RecordLocation
	sum   uint64
	count int
}

type keySeen struct {
	parts    map[int32]report.RecordLocation
	reported bool
}

type seqSeen struct {
	seq float64
	at  report.RecordLocation
}

// NewChecker returns a checker for the catalog.
func NewChecker(cat *catalog.Catalog) *Checker {
	return &Checker{
		v:      &envelope.Validator{Catalog: cat},
		cat:    cat,
		seed:   maphash.MakeSeed(),
		ids:    map[string]*idSeen{},
		spread: map[string]*keySeen{},
		seqs:   map[string]seqSeen{},
	}
}

// UseSchemaIDs makes the checker compare the schema id of framed Avro and
// Protobuf data with the catalog's registry ids, as validate of event
// files does (schema-id-unknown, schema-id-mismatch). Call it before the
// first Check.
func (c *Checker) UseSchemaIDs(ids *catalog.SchemaIDs) { c.v.IDs = ids }

// Check checks one record: Decode, then Relate.
func (c *Checker) Check(rec *kgo.Record) *Record {
	out, d := c.Decode(rec)
	c.Relate(out, d)
	return out
}

// Decode runs the checks of one record on its own (envelope, data,
// partition key). It keeps no state: several goroutines may call it at
// once, leaving Relate, which must see records in order, to one.
func (c *Checker) Decode(rec *kgo.Record) (*Record, *envelope.Decoded) {
	out := &Record{At: report.RecordLocation{Topic: rec.Topic, Partition: rec.Partition, Offset: rec.Offset}, Key: string(rec.Key)}
	add := func(rule string, sev report.Severity, ptr, format string, args ...any) {
		out.Findings = append(out.Findings, report.Finding{Rule: rule, Severity: sev, Pointer: ptr, Message: fmt.Sprintf(format, args...)})
	}
	d, ver, fs, err := c.v.CheckRecord(rec)
	if err != nil {
		rule := RuleRecordInvalid
		if errors.Is(err, envelope.ErrNotCloudEvent) {
			rule = RuleNotCloudEvent
		}
		add(rule, report.SeverityError, "", "%v", err)
		return out, nil
	}
	out.Findings = append(out.Findings, fs...)
	if d == nil {
		return out, nil
	}
	out.ID, out.Type, out.Source = d.Event.ID(), d.Event.Type(), d.Event.Source()
	t := c.cat.Lookup(out.Type)
	var dataErr error
	if t != nil && (strings.HasPrefix(t.Meta.PartitionKey, "/") || t.Meta.Sequence != "") {
		// Undecodable data is left unset: CheckRecord has reported it.
		dataErr = d.SetFormatData(ver, c.cat.Framing(t))
	}
	if t != nil && t.Meta.PartitionKey != "" {
		want, ok := d.PartitionKeyValue(t.Meta.PartitionKey)
		switch {
		case !ok && dataErr != nil && strings.HasPrefix(t.Meta.PartitionKey, "/"):
			// The data did not decode (reported): that it has no key is
			// not a second problem.
		case !ok:
			add(RulePartitionKey, report.SeverityError, "", "the event has no value at its type's partitionkey %s, so no record key can be checked (record key %q)", t.Meta.PartitionKey, out.Key)
		case want != out.Key:
			add(RulePartitionKey, report.SeverityError, "", "record key %q, but %s's partitionkey %s is %q", out.Key, out.Type, t.Meta.PartitionKey, want)
		}
	}
	if t != nil && t.Meta.Sequence != "" {
		if v, ok := d.DataValue(t.Meta.Sequence); ok {
			out.Seq, out.HasSeq = number(v)
		}
	}
	return out, d
}

// Relate runs the checks across records (ids, key spread, sequences) on a
// record from Decode, and sets the topic, partition and offset of all its
// findings. Records of one partition must come in offset order.
func (c *Checker) Relate(out *Record, d *envelope.Decoded) {
	defer c.locate(out)
	if d == nil {
		return
	}
	add := func(rule string, sev report.Severity, ptr, format string, args ...any) {
		out.Findings = append(out.Findings, report.Finding{Rule: rule, Severity: sev, Pointer: ptr, Message: fmt.Sprintf(format, args...)})
	}
	c.checkKeySpread(out, add)
	if out.ID != "" {
		var h maphash.Hash
		h.SetSeed(c.seed)
		h.WriteString(out.Type)
		h.WriteByte(0)
		h.WriteString(d.Event.Subject())
		h.WriteByte(0)
		h.Write(d.RawData)
		sum := h.Sum64()
		k := out.Source + "\x00" + out.ID
		switch seen := c.ids[k]; {
		case seen == nil:
			c.ids[k] = &idSeen{first: out.At, sum: sum, count: 1}
		case seen.sum != sum:
			// Not a copy: reported here, not counted as a repeat.
			out.Repeat = true
			add(RuleIDReused, report.SeverityError, "/id", "id %q (source %q) was first used at %s for a different event (type, subject or data differ)", out.ID, out.Source, seen.first)
		default:
			seen.count++
			out.Repeat = true
		}
	}
	if out.HasSeq && !out.Repeat {
		t := c.cat.Lookup(out.Type)
		n := out.Seq
		// The key's sequence, across its types: an aggregate's version
		// is carried by each of its event types.
		k := out.At.Topic + "\x00" + strconv.Itoa(int(out.At.Partition)) + "\x00" + out.Key
		if prev, ok := c.seqs[k]; ok && n < prev.seq {
			add(RuleSequenceBackwards, report.SeverityError, "/data"+t.Meta.Sequence, "sequence %s of key %q went backwards: %s at %s came first", fmtNum(n), out.Key, fmtNum(prev.seq), prev.at)
		} else {
			c.seqs[k] = seqSeen{seq: n, at: out.At}
		}
	}
}

func (c *Checker) checkKeySpread(out *Record, add func(rule string, sev report.Severity, ptr, format string, args ...any)) {
	if out.Key == "" {
		return
	}
	k := out.At.Topic + "\x00" + out.Key
	ks := c.spread[k]
	if ks == nil {
		ks = &keySeen{parts: map[int32]report.RecordLocation{}}
		c.spread[k] = ks
	}
	if _, ok := ks.parts[out.At.Partition]; !ok {
		ks.parts[out.At.Partition] = out.At
	}
	if len(ks.parts) > 1 && !ks.reported {
		ks.reported = true
		var where []string
		for _, at := range ks.parts {
			where = append(where, at.String())
		}
		sort.Strings(where)
		add(RuleKeyPartitions, report.SeverityWarning, "", "key %q is on %d partitions of %s (first records %v): its events lose their order", out.Key, len(ks.parts), out.At.Topic, where)
	}
}

func (c *Checker) locate(out *Record) {
	for i := range out.Findings {
		at := out.At
		out.Findings[i].Record = &at
	}
}

// Finish returns the findings about the records together: each id that
// was repeated with the same event, as one warning with its count.
func (c *Checker) Finish() []report.Finding {
	var out []report.Finding
	for k, s := range c.ids {
		if s.count < 2 {
			continue
		}
		src, id, _ := cut(k)
		at := s.first
		out = append(out, report.Finding{Rule: RuleIDRepeated, Severity: report.SeverityWarning, Pointer: "/id", Record: &at,
			Message: fmt.Sprintf("id %q (source %q) arrived %d times: consumers must deduplicate it", id, src, s.count)})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Record, out[j].Record
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		if a.Partition != b.Partition {
			return a.Partition < b.Partition
		}
		return a.Offset < b.Offset
	})
	return out
}

// Repeats counts the records that repeated an earlier record's event.
func (c *Checker) Repeats() int {
	n := 0
	for _, s := range c.ids {
		n += s.count - 1
	}
	return n
}

func cut(k string) (string, string, bool) {
	for i := 0; i < len(k); i++ {
		if k[i] == 0 {
			return k[:i], k[i+1:], true
		}
	}
	return k, "", false
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case float64:
		return v, true
	case string:
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil
	}
	return 0, false
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
