package kafka

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Start says where a TopicReader starts in each partition.
type Start struct {
	kind  startKind
	at    time.Time
	given string
}

type startKind int

const (
	startEarliest startKind = iota
	startLatest
	startTime
)

// Earliest and Latest are the two named starts; the zero Start is Earliest.
var (
	Earliest = Start{kind: startEarliest, given: "earliest"}
	Latest   = Start{kind: startLatest, given: "latest"}
)

// StartAt starts at the first record whose timestamp is at or after t.
func StartAt(t time.Time) Start {
	return Start{kind: startTime, at: t, given: t.Format(time.RFC3339Nano)}
}

// ParseStart reads a --from value: earliest, latest, or an RFC 3339 time.
func ParseStart(s string) (Start, error) {
	switch strings.TrimSpace(s) {
	case "", "earliest":
		return Earliest, nil
	case "latest":
		return Latest, nil
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		return Start{}, fmt.Errorf("--from %q: want earliest, latest or an RFC 3339 time such as 2026-12-01T09:00:00Z", s)
	}
	return StartAt(t), nil
}

// String is the value ParseStart reads back.
func (s Start) String() string {
	if s.given == "" {
		return "earliest"
	}
	return s.given
}

// ReadOptions say what a TopicReader reads.
type ReadOptions struct {
	Topics []string
	// From is where reading starts in partitions the group has no
	// committed offset for (all partitions when Group is empty).
	From Start
	// Offsets, when set, move the start in the partitions they name
	// forward to these offsets (never before where From starts, never
	// past the end; the group's committed offsets still win): to read
	// only what was appended after a known point.
	Offsets map[string]map[int32]int64
	// Follow keeps reading past the end offsets seen at start, until the
	// context ends. Without it, Next returns io.EOF-like ErrEnd once every
	// partition reached the end offset it had when the reader opened.
	Follow bool
	// Group, when set, resumes from the offsets the group committed (see
	// TopicReader.Commit). The reader does not join the group: it reads
	// and commits as a "simple" consumer (generation -1), which is how a
	// resumable tool keeps its place without taking partitions from a
	// running consumer group of the same name.
	Group string
	// Stall bounds how long reading may make no progress towards the end
	// offsets before Next gives up (default 30s; unused when following).
	Stall time.Duration
}

// ErrEnd is returned by TopicReader.Next when every partition has been
// read up to the end offset it had when the reader opened.
var ErrEnd = errors.New("end of the topics as they were when reading started")

// TopicReader reads records of existing topics from a start to the end
// offsets seen when it opened (or on, when following). It is the one reader
// of every command that reads topics: it never creates a topic, reads
// committed records only, and keeps the topic, partition and offset of
// every record for the findings about it.
type TopicReader struct {
	cl    *kgo.Client
	admCl *kgo.Client
	adm   *kadm.Client
	opts  ReadOptions
	start map[string]map[int32]int64
	end   map[string]map[int32]int64
	// pending are the partitions not yet read up to their end.
	pending  map[string]map[int32]bool
	buf      []*kgo.Record
	progress time.Time
	// probed is when probeAborted last ran.
	probed time.Time
}

// probeAfter is how long reading makes no progress before probeAborted
// looks at what remains.
const probeAfter = time.Second

// probeAborted ends the partitions whose remaining offsets before their end
// hold aborted transactions' records only. A committed read never returns
// those records, and the abort marker that would show the reader moving
// past them can lie beyond the end: the end of a partition with an open
// transaction is its last stable offset, which an aborted transaction that
// began before and ended after the open one's start straddles. The probe
// fetches from the next offset as the reader does, and
// kgo.ProcessFetchPartition says how far the batches go, aborted ones
// included.
func (r *TopicReader) probeAborted(ctx context.Context) {
	var topics []string
	for t, parts := range r.pending {
		if len(parts) > 0 {
			topics = append(topics, t)
		}
	}
	if len(topics) == 0 {
		return
	}
	details, err := r.adm.ListTopics(ctx, topics...)
	if err != nil {
		return // reading goes on; a real stall still fails at Stall
	}
	for _, t := range topics {
		d := details[t]
		for p := range r.pending[t] {
			pd, ok := d.Partitions[p]
			if !ok || pd.Err != nil {
				continue
			}
			if r.onlyAbortedBefore(ctx, pd.Leader, t, d.ID, p, r.start[t][p], r.end[t][p]) {
				delete(r.pending[t], p)
			}
		}
	}
}

// onlyAbortedBefore reports whether a committed read of t/p from offset
// from to end returns no record (control records aside).
func (r *TopicReader) onlyAbortedBefore(ctx context.Context, leader int32, t string, id kadm.TopicID, p int32, from, end int64) bool {
	for from < end {
		req := kmsg.NewPtrFetchRequest()
		req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.MaxBytes = -1, 0, 1, 1<<20
		req.IsolationLevel, req.SessionEpoch = 1, -1
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic, rt.TopicID = t, id
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = p, from, 1<<20
		rp.CurrentLeaderEpoch, rp.LastFetchedEpoch, rp.LogStartOffset = -1, -1, -1
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, r.admCl.Broker(int(leader)))
		if err != nil || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			return false
		}
		fp, last := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{
			KeepControlRecords: true, Offset: from, IsolationLevel: kgo.ReadCommitted(), Topic: t, Partition: p,
		}, &resp.Topics[0].Partitions[0], kgo.DefaultDecompressor(), nil)
		if fp.Err != nil {
			return false
		}
		for _, rec := range fp.Records {
			if rec.Offset < end && !rec.Attrs.IsControl() {
				return false // a record to read: the consumer brings it
			}
		}
		if last < from {
			return false // no batch at all: not (yet) there
		}
		from = last + 1
	}
	return true
}

// OpenTopics checks the topics exist, notes their start and end offsets,
// and returns a reader positioned at the start.
func OpenTopics(ctx context.Context, cc ClientConfig, opts ReadOptions) (*TopicReader, error) {
	if len(opts.Topics) == 0 {
		return nil, errors.New("no topic to read")
	}
	if opts.Stall <= 0 {
		opts.Stall = 30 * time.Second
	}
	base, err := cc.Options()
	if err != nil {
		return nil, err
	}
	admCl, err := kgo.NewClient(base...)
	if err != nil {
		return nil, err
	}
	adm := kadm.NewClient(admCl)
	fail := func(err error) (*TopicReader, error) {
		admCl.Close()
		return nil, err
	}
	details, err := adm.ListTopics(ctx, opts.Topics...)
	if err != nil {
		return fail(fmt.Errorf("listing topics %s: %w", strings.Join(opts.Topics, ","), err))
	}
	for _, t := range opts.Topics {
		d, ok := details[t]
		if !ok || d.Err != nil {
			why := "it does not exist"
			if ok && d.Err != nil {
				why = d.Err.Error()
			}
			return fail(fmt.Errorf("cannot read topic %s: %s (evtool never creates a topic it reads)", t, why))
		}
	}
	ends, err := adm.ListCommittedOffsets(ctx, opts.Topics...)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return fail(fmt.Errorf("listing end offsets of %s: %w", strings.Join(opts.Topics, ","), err))
	}
	var starts kadm.ListedOffsets
	switch opts.From.kind {
	case startLatest:
		starts = ends
	case startTime:
		starts, err = adm.ListOffsetsAfterMilli(ctx, opts.From.at.UnixMilli(), opts.Topics...)
	default:
		starts, err = adm.ListStartOffsets(ctx, opts.Topics...)
	}
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return fail(fmt.Errorf("listing start offsets of %s: %w", strings.Join(opts.Topics, ","), err))
	}
	r := &TopicReader{admCl: admCl, adm: adm, opts: opts, start: map[string]map[int32]int64{}, end: map[string]map[int32]int64{}, pending: map[string]map[int32]bool{}}
	ends.Each(func(o kadm.ListedOffset) { put(r.end, o.Topic, o.Partition, o.Offset) })
	starts.Each(func(o kadm.ListedOffset) {
		off := o.Offset
		if off < 0 { // a time after the last record: nothing to read before the end
			off = r.end[o.Topic][o.Partition]
		}
		if at, ok := opts.Offsets[o.Topic][o.Partition]; ok && at > off {
			off = min(at, r.end[o.Topic][o.Partition])
		}
		put(r.start, o.Topic, o.Partition, off)
	})
	if opts.Group != "" {
		committed, err := adm.FetchOffsets(ctx, opts.Group)
		if err == nil {
			err = committed.Error()
		}
		// A group that never committed is new, not an error (kfake says
		// GROUP_ID_NOT_FOUND where Kafka returns no offsets).
		if err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
			return fail(fmt.Errorf("fetching the offsets of group %s: %w", opts.Group, err))
		}
		committed.Each(func(o kadm.OffsetResponse) {
			if _, ok := r.end[o.Topic][o.Partition]; ok && o.At >= 0 {
				put(r.start, o.Topic, o.Partition, o.At)
			}
		})
	}
	consume := map[string]map[int32]kgo.Offset{}
	for t, parts := range r.start {
		for p, s := range parts {
			if !opts.Follow && s >= r.end[t][p] {
				continue
			}
			if consume[t] == nil {
				consume[t] = map[int32]kgo.Offset{}
				r.pending[t] = map[int32]bool{}
			}
			consume[t][p] = kgo.NewOffset().At(s)
			r.pending[t][p] = true
		}
	}
	if len(consume) > 0 {
		r.cl, err = kgo.NewClient(append(base,
			kgo.ConsumePartitions(consume),
			kgo.FetchIsolationLevel(kgo.ReadCommitted()),
			// Control records (transaction markers) take offsets; keeping
			// them is how the reader sees a partition reach its end.
			kgo.KeepControlRecords(),
		)...)
		if err != nil {
			return fail(err)
		}
	}
	r.progress = time.Now()
	return r, nil
}

func put(m map[string]map[int32]int64, t string, p int32, v int64) {
	if m[t] == nil {
		m[t] = map[int32]int64{}
	}
	m[t][p] = v
}

// Next returns the next record (never a control record), or ErrEnd.
func (r *TopicReader) Next(ctx context.Context) (*kgo.Record, error) {
	for {
		if len(r.buf) > 0 {
			rec := r.buf[0]
			r.buf = r.buf[1:]
			return rec, nil
		}
		if !r.opts.Follow && r.done() {
			return nil, ErrEnd
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !r.opts.Follow && time.Since(r.progress) > r.opts.Stall {
			return nil, fmt.Errorf("reading stalled for %s short of the end offsets: %s", r.opts.Stall, r.Position())
		}
		if !r.opts.Follow && time.Since(r.progress) > probeAfter && time.Since(r.probed) > probeAfter {
			r.probed = time.Now()
			r.probeAborted(ctx)
			if r.done() {
				return nil, ErrEnd
			}
		}
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		fs := r.cl.PollFetches(pctx)
		cancel()
		var fatal error
		fs.EachError(func(t string, p int32, err error) {
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
				return
			}
			if fatal == nil {
				fatal = fmt.Errorf("reading %s/%d: %w", t, p, err)
			}
		})
		if fatal != nil {
			return nil, fatal
		}
		fs.EachRecord(func(rec *kgo.Record) {
			if end, ok := r.end[rec.Topic][rec.Partition]; ok && !r.opts.Follow && rec.Offset >= end {
				return // appended after the reader opened
			}
			r.start[rec.Topic][rec.Partition] = rec.Offset + 1
			r.progress = time.Now()
			if rec.Offset+1 >= r.end[rec.Topic][rec.Partition] {
				delete(r.pending[rec.Topic], rec.Partition)
			}
			if !rec.Attrs.IsControl() {
				r.buf = append(r.buf, rec)
			}
		})
	}
}

func (r *TopicReader) done() bool {
	for _, parts := range r.pending {
		if len(parts) > 0 {
			return false
		}
	}
	return true
}

// Position says how far reading got: topic/partition at next-offset of
// end-offset, for an interrupted run to name where it stopped.
func (r *TopicReader) Position() string {
	var parts []string
	for t, ps := range r.start {
		for p, next := range ps {
			parts = append(parts, fmt.Sprintf("%s/%d at %d of %d", t, p, next, r.end[t][p]))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// Ends returns the end offsets seen when the reader opened.
func (r *TopicReader) Ends() map[string]map[int32]int64 { return r.end }

// Commit stores, for the reader's group, that every record up to and
// including recs has been handled: a later reader of the group starts
// after them.
func (r *TopicReader) Commit(ctx context.Context, recs ...*kgo.Record) error {
	if r.opts.Group == "" {
		return errors.New("commit without a group")
	}
	var offs kadm.Offsets
	for _, rec := range recs {
		offs.Add(kadm.Offset{Topic: rec.Topic, Partition: rec.Partition, At: rec.Offset + 1, LeaderEpoch: -1})
	}
	resp, err := r.adm.CommitOffsets(ctx, r.opts.Group, offs)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		return fmt.Errorf("committing the progress of group %s: %w", r.opts.Group, err)
	}
	return nil
}

// Close releases the reader's connections.
func (r *TopicReader) Close() {
	if r.cl != nil {
		r.cl.Close()
	}
	r.adm.Close()
}
