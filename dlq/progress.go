package dlq

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// Position is a record's place on the dead-letter topic.
type Position struct {
	Partition int32
	Offset    int64
}

// String is the form redrive and inspect print and ParsePosition reads.
func (p Position) String() string { return fmt.Sprintf("%d@%d", p.Partition, p.Offset) }

// MarshalText writes the String form (JSON: "0@17").
func (p Position) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// ParsePosition reads an --offset value: partition@offset as redrive and
// inspect print it (0@17), or partition:offset.
func ParsePosition(s string) (Position, error) {
	ps, offs, ok := strings.Cut(s, "@")
	if !ok {
		ps, offs, ok = strings.Cut(s, ":")
	}
	p, perr := strconv.ParseInt(ps, 10, 32)
	o, oerr := strconv.ParseInt(offs, 10, 64)
	if !ok || perr != nil || oerr != nil || p < 0 || o < 0 {
		return Position{}, fmt.Errorf("--offset %q: want partition@offset as redrive prints it, such as 0@17", s)
	}
	return Position{Partition: int32(p), Offset: o}, nil
}

// partitionProgress is what a redrive group keeps for one partition of
// the dead-letter topic: next, its committed offset (every record before
// it was decided), and passed, the records before next it passed over
// (refused or not selected), kept in the commit's metadata so that a
// later run can decide them again without sending anything it sent.
type partitionProgress struct {
	next   int64
	passed map[int64]bool
	// start is the partition's first offset when the progress was
	// read: the records before it were deleted, passed over or sent.
	start int64
	// meta is passed encoded, "" until needed and after a change.
	meta string
}

// decide records an outcome: the group is past the record, and it is
// passed over unless it was sent. undo takes the decision back.
func (p *partitionProgress) decide(o Outcome) (undo func()) {
	next, was := p.next, p.passed[o.Offset]
	p.next = max(p.next, o.Offset+1)
	p.pass(o.Offset, o.Action != ActionSend && o.Action != ActionSent)
	return func() {
		p.next = next
		p.pass(o.Offset, was)
	}
}

// pass puts the record at off on the passed-over list or takes it off.
func (p *partitionProgress) pass(off int64, passed bool) {
	if p.passed[off] == passed {
		return
	}
	p.meta = ""
	if passed {
		p.passed[off] = true
	} else {
		delete(p.passed, off)
	}
}

// metadata is the commit metadata of the partition's progress.
func (p *partitionProgress) metadata() string {
	if p.meta == "" {
		p.meta = encodePassed(p.passed)
	}
	return p.meta
}

// storable fails unless the passed-over records fit in a commit's
// metadata and a later run reads them back (parsePassed's bound): a list
// it could not read would stop every later run of the group.
func (p *partitionProgress) storable() error {
	if len(p.passed) > maxPassed {
		return fmt.Errorf("%d records passed over, more than the %d a run reads back", len(p.passed), maxPassed)
	}
	if n := len(p.metadata()); n > maxMetadata {
		return fmt.Errorf("the records passed over take %d bytes of commit metadata, more than Kafka's default limit of %d", n, maxMetadata)
	}
	return nil
}

// progress is a group's partitionProgress per partition.
type progress map[int32]*partitionProgress

// at returns the progress of partition p, new (nothing decided) if the
// group has none.
func (pr progress) at(p int32) *partitionProgress {
	if pr[p] == nil {
		pr[p] = &partitionProgress{passed: map[int64]bool{}}
	}
	return pr[p]
}

// passedPositions lists the records the group passes over, in order.
func (pr progress) passedPositions() []Position {
	var out []Position
	for _, p := range slices.Sorted(maps.Keys(pr)) {
		for _, off := range slices.Sorted(maps.Keys(pr[p].passed)) {
			out = append(out, Position{Partition: p, Offset: off})
		}
	}
	return out
}

// metadataPrefix marks the commit metadata redrive writes; a commit
// without it (another tool's, or an evtool that kept no list) passes
// nothing over that redrive could name.
const metadataPrefix = "evtool-redrive passed="

// maxMetadata is Kafka's default offset.metadata.max.bytes: a longer
// metadata is refused with OFFSET_METADATA_TOO_LARGE.
const maxMetadata = 4096

// maxPassed bounds the records a commit's metadata may pass over (they
// are held in memory).
const maxPassed = 1 << 20

// encodePassed writes the passed-over offsets as ascending ranges
// (4,7-9): a run of records not selected takes one range.
func encodePassed(passed map[int64]bool) string {
	var b strings.Builder
	b.WriteString(metadataPrefix)
	offs := slices.Sorted(maps.Keys(passed))
	for i := 0; i < len(offs); {
		j := i
		for j+1 < len(offs) && offs[j+1] == offs[j]+1 {
			j++
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(offs[i], 10))
		if j > i {
			b.WriteString("-" + strconv.FormatInt(offs[j], 10))
		}
		i = j + 1
	}
	return b.String()
}

// parsePassed reads what encodePassed wrote, for a commit at offset next:
// every offset must lie before it, ranges ascending and apart.
func parsePassed(meta string, next int64) (map[int64]bool, error) {
	passed := map[int64]bool{}
	list, ok := strings.CutPrefix(meta, metadataPrefix)
	if !ok || list == "" {
		return passed, nil
	}
	last := int64(-2)
	for _, r := range strings.Split(list, ",") {
		los, his, isRange := strings.Cut(r, "-")
		lo, err := strconv.ParseInt(los, 10, 64)
		hi := lo
		if err == nil && isRange {
			hi, err = strconv.ParseInt(his, 10, 64)
		}
		switch {
		case err != nil || lo < 0 || hi < lo:
			return nil, fmt.Errorf("passed-over range %q: want offset or first-last", r)
		case lo <= last+1:
			return nil, fmt.Errorf("passed-over range %q: not after the previous one", r)
		case hi >= next:
			return nil, fmt.Errorf("passed-over range %q: not before the committed offset %d", r, next)
		case int64(len(passed))+hi-lo >= maxPassed:
			return nil, fmt.Errorf("passed-over range %q: more than %d records in all", r, maxPassed)
		}
		for o := lo; o <= hi; o++ {
			passed[o] = true
		}
		last = hi
	}
	return passed, nil
}

// stableWait bounds how long fetching a group's progress waits for an
// open transaction holding a commit of it: a run of the group in progress
// ends its transaction within produceTimeout, one that died is aborted by
// the broker after the producer's transaction timeout (40 s by default,
// plus the broker's check interval).
const stableWait = 2 * time.Minute

// fetchProgress reads the group's committed offsets on topic as Kafka
// holds them once no transaction is pending (RequireStable): a dry run
// next to a run of the group, or right after one that was interrupted
// while committing, sees what --apply would see, not the offsets before
// a transaction that is about to commit.
// notice, when set, is told once that the fetch waits, and why.
func fetchProgress(ctx context.Context, adm *kadm.Client, group, topic string, notice func(string)) (progress, error) {
	deadline := time.Now().Add(stableWait)
	for told := false; ; {
		resps, err := adm.FetchOffsets(kadm.RequireStable(ctx), group)
		if err == nil {
			err = resps.Error()
		}
		// A group that never committed is new, not an error (kfake says
		// GROUP_ID_NOT_FOUND where Kafka returns no offsets).
		if errors.Is(err, kerr.GroupIDNotFound) {
			return progress{}, nil
		}
		if errors.Is(err, kerr.UnstableOffsetCommit) && time.Now().Before(deadline) && ctx.Err() == nil {
			if !told && notice != nil {
				notice(fmt.Sprintf("group %s has a transaction pending on its offsets (a redrive of the group still running, or one that died, which Kafka aborts after its transaction timeout); waiting up to %s for it to end", group, stableWait))
			}
			told = true
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		if errors.Is(err, kerr.UnstableOffsetCommit) {
			return nil, fmt.Errorf("fetching the offsets of group %s: a transaction of the group stayed open for %s (a redrive of the group still running, or one that died less than its transaction timeout ago): %w", group, stableWait, err)
		}
		if err != nil {
			return nil, fmt.Errorf("fetching the offsets of group %s: %w", group, err)
		}
		// Records deleted (retention, DeleteRecords) cannot be decided
		// again: they leave the list.
		starts, err := adm.ListStartOffsets(ctx, topic)
		if err == nil {
			err = starts.Error()
		}
		if err != nil {
			return nil, fmt.Errorf("listing the start offsets of %s: %w", topic, err)
		}
		pr := progress{}
		var bad error
		resps.Each(func(o kadm.OffsetResponse) {
			if o.Topic != topic || o.At < 0 || bad != nil {
				return
			}
			passed, err := parsePassed(o.Metadata, o.At)
			if err != nil {
				bad = fmt.Errorf("group %s, %s/%d: commit metadata %q: %w", group, topic, o.Partition, o.Metadata, err)
				return
			}
			pp := &partitionProgress{next: o.At, passed: passed}
			if start, ok := starts.Lookup(topic, o.Partition); ok {
				pp.start = start.Offset
				maps.DeleteFunc(passed, func(off int64, _ bool) bool { return off < start.Offset })
			}
			pr[o.Partition] = pp
		})
		return pr, bad
	}
}
