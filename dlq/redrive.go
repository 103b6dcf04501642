package dlq

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/report"
)

// DefaultMaxRedrives is --max-redrives' default: a record redriven this
// often is refused (the loop guard).
const DefaultMaxRedrives = 3

// DefaultGroup is the consumer group that keeps redrive's progress on a
// dead-letter topic when --group is not given.
func DefaultGroup(topic string) string { return "evtool-redrive-" + topic }

// RedriveOptions say what to redrive and where.
type RedriveOptions struct {
	Client kafka.ClientConfig
	Topic  string
	// To, when set, replaces the original topic the headers name.
	To string
	// The selection: records whose event id is one of IDs, whose event
	// type is Type, whose error (class: message) ErrorMatch matches; all
	// records when none is set.
	IDs        []string
	Type       string
	ErrorMatch *regexp.Regexp
	// Apply sends; without it redrive says what it would send.
	Apply bool
	// Force sends events the catalog rejects.
	Force       bool
	MaxRedrives int
	// Offsets, when set, select only the records at these positions
	// (with the other selections); those the group passed over in an
	// earlier run are decided again.
	Offsets []Position
	// Passed decides again every record the group passed over (refused
	// or not selected) in earlier runs.
	Passed bool
	// Group keeps the progress (default DefaultGroup(Topic)).
	Group   string
	Catalog *catalog.Catalog
	// AfterSend, when set, is called once a record's produce is
	// acknowledged and its progress added to the transaction, before the
	// transaction commits (tests stop there).
	AfterSend func(Outcome)
	// Notice, when set, is told why the run waits (a transaction of the
	// group pending on its offsets can hold it for minutes).
	Notice func(msg string)
}

// Action is what redrive did (or, in a dry run, would do) with a record.
type Action string

// The actions of an Outcome.
const (
	ActionSend    Action = "send"    // dry run: would send
	ActionSent    Action = "sent"    // sent and committed
	ActionRefused Action = "refused" // invalid, looping or without a target
	ActionSkipped Action = "skipped" // not selected
	ActionError   Action = "error"   // malformed dead-letter headers
)

// Outcome is one record's fate.
type Outcome struct {
	Entry
	Action Action `json:"action"`
	// Target is the topic it goes to.
	Target string `json:"target,omitempty"`
	// Reason says why it was refused, skipped or forced.
	Reason   string           `json:"reason,omitempty"`
	Findings []report.Finding `json:"findings,omitempty"`
}

// Redrive is a redrive run's result.
type Redrive struct {
	Topic    string    `json:"topic"`
	Group    string    `json:"group"`
	Apply    bool      `json:"apply"`
	Outcomes []Outcome `json:"records"`
	Counts   struct {
		Send    int `json:"send"`
		Sent    int `json:"sent"`
		Refused int `json:"refused"`
		Skipped int `json:"skipped"`
		Errors  int `json:"errors"`
	} `json:"counts"`
	// Passed lists the records the group passes over once the run is
	// done (would, in a dry run): refused or not selected, in this run
	// or an earlier one. --passed or --offset decides them again.
	Passed []Position `json:"passed"`
	// Interrupted says where a run stopped early; Err why it stopped.
	Interrupted string `json:"interrupted,omitempty"`
	Err         string `json:"error,omitempty"`
}

// Failed reports whether redrive must exit 2 (errors, interrupted) or 1
// (refused records).
func (r *Redrive) Failed() (errored, refused bool) {
	return r.Counts.Errors > 0 || r.Interrupted != "" || r.Err != "", r.Counts.Refused > 0
}

// RunRedrive reads the dead-letter topic from where the group stopped
// (its start for a new group) to its end when reading started, decides
// for every record, and with Apply sends the ones to send, one at a time,
// each in a transaction that also commits the group past the record (and
// past the refused and skipped records before it). A record is decided
// once per group and sent once.
//
// The group passes over refused and skipped records, so that a rerun
// resumes after them and never lists them again, but it remembers them:
// the commit of each partition carries the offsets it passed over before
// the committed one (in the commit's metadata, updated in the same
// transaction as the produce). With Passed, or Offsets naming them, a
// later run reads those records again and decides them anew (after the
// catalog was fixed, or with Force); one sent leaves the list with the
// transaction that sends it. A record the group sent is never on it, so
// no selection sends it twice.
func RunRedrive(ctx context.Context, o RedriveOptions) (*Redrive, error) {
	if o.Group == "" {
		o.Group = DefaultGroup(o.Topic)
	}
	if o.MaxRedrives <= 0 {
		o.MaxRedrives = DefaultMaxRedrives
	}
	if o.Catalog == nil {
		return nil, errors.New("redrive validates events against a catalog: none given")
	}
	var cl *kgo.Client
	if o.Apply {
		// The producer comes first: registering its transactional ID
		// aborts a crashed run's open transaction before the group's
		// progress is read.
		var err error
		if cl, err = newProducer(ctx, o); err != nil {
			return nil, err
		}
	} else {
		base, err := o.Client.Options()
		if err != nil {
			return nil, err
		}
		if cl, err = kgo.NewClient(base...); err != nil {
			return nil, err
		}
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	prog, err := fetchProgress(ctx, adm, o.Group, o.Topic, o.Notice)
	if err != nil {
		return nil, err
	}
	named := map[Position]bool{}
	for _, pos := range o.Offsets {
		named[pos] = true
		// Before the start, the record is gone (sent or passed over).
		if pp, ok := prog[pos.Partition]; ok && pos.Offset >= pp.start && pos.Offset < pp.next && !pp.passed[pos.Offset] {
			return nil, fmt.Errorf("--offset %s: group %s decided %s/%s in an earlier run and did not pass it over: it sent it (to send it again, use another --group)", pos, o.Group, o.Topic, pos)
		}
	}
	// again says whether a record the group passed over is decided anew.
	again := func(pos Position) bool { return o.Passed || named[pos] }
	starts := map[int32]int64{}
	for p, pp := range prog {
		starts[p] = pp.next
		for off := range pp.passed {
			if again(Position{p, off}) {
				starts[p] = min(starts[p], off)
			}
		}
	}
	r, err := kafka.OpenTopics(ctx, o.Client, kafka.ReadOptions{Topics: []string{o.Topic}, Offsets: map[string]map[int32]int64{o.Topic: starts}})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for _, p := range slices.Sorted(maps.Keys(prog)) {
		// Past the end, the group's offsets are of another topic of the
		// name (deleted and created again, or truncated): the records
		// there now would be skipped unseen.
		if end, ok := r.Ends()[o.Topic][p]; ok && prog[p].next > end {
			return nil, fmt.Errorf("group %s committed offset %d on %s/%d, past its end %d: the topic was deleted and created again, or truncated; redrive it with another --group (it reads from the start)", o.Group, prog[p].next, o.Topic, p, end)
		}
	}
	res := &Redrive{Topic: o.Topic, Group: o.Group, Apply: o.Apply, Outcomes: []Outcome{}, Passed: []Position{}}
	v := &envelope.Validator{Catalog: o.Catalog}
	seen := map[Position]bool{}
	for {
		rec, err := r.Next(ctx)
		if errors.Is(err, kafka.ErrEnd) {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				res.Interrupted = fmt.Sprintf("while reading, at %s; nothing sent", r.Position())
				return res, nil
			}
			return nil, err
		}
		pos := Position{rec.Partition, rec.Offset}
		if pp, ok := prog[rec.Partition]; ok && rec.Offset < pp.next && (!pp.passed[rec.Offset] || !again(pos)) {
			continue // sent by the group, or passed over and not asked for
		}
		seen[pos] = true
		res.Outcomes = append(res.Outcomes, decide(v, NewEntry(rec, o.Catalog), o))
	}
	for _, pos := range o.Offsets {
		if seen[pos] {
			continue
		}
		end, ok := r.Ends()[o.Topic][pos.Partition]
		if !ok {
			return nil, fmt.Errorf("--offset %s: %s holds no record there (it has no partition %d)", pos, o.Topic, pos.Partition)
		}
		if pp, ok := prog[pos.Partition]; ok && pos.Offset < pp.start {
			return nil, fmt.Errorf("--offset %s: %s holds no record there (partition %d starts at %d: the records before were deleted)", pos, o.Topic, pos.Partition, pp.start)
		}
		return nil, fmt.Errorf("--offset %s: %s holds no record there (partition %d ends at %d)", pos, o.Topic, pos.Partition, end)
	}
	sort.SliceStable(res.Outcomes, func(i, j int) bool {
		a, b := res.Outcomes[i], res.Outcomes[j]
		if a.Partition != b.Partition {
			return a.Partition < b.Partition
		}
		return a.Offset < b.Offset
	})
	if o.Apply {
		err = send(ctx, cl, adm, o, res, prog)
	} else {
		_, err = checkTargets(ctx, adm, res)
		for _, out := range res.Outcomes {
			if out.Action == ActionError {
				break // --apply stops before it
			}
			pp := prog.at(out.Partition)
			pp.decide(out)
			// --apply stops at its next commit of the partition.
			if serr := pp.storable(); serr != nil && err == nil {
				err = fmt.Errorf("%s/%d@%d passed over: group %s, %s/%d: %w: --apply would stop at its next commit; decide them again (--passed) or use another --group", o.Topic, out.Partition, out.Offset, o.Group, o.Topic, out.Partition, serr)
				break
			}
		}
	}
	if err != nil {
		res.Err = err.Error()
	}
	res.Passed = append(res.Passed, prog.passedPositions()...)
	res.count()
	return res, nil
}

func (r *Redrive) count() {
	r.Counts.Send, r.Counts.Sent, r.Counts.Refused, r.Counts.Skipped, r.Counts.Errors = 0, 0, 0, 0, 0
	for _, o := range r.Outcomes {
		switch o.Action {
		case ActionSend:
			r.Counts.Send++
		case ActionSent:
			r.Counts.Sent++
		case ActionRefused:
			r.Counts.Refused++
		case ActionSkipped:
			r.Counts.Skipped++
		case ActionError:
			r.Counts.Errors++
		}
	}
}

// decide says what to do with one record.
func decide(v *envelope.Validator, e Entry, o RedriveOptions) Outcome {
	out := Outcome{Entry: e}
	if e.Problem != "" {
		out.Action, out.Reason = ActionError, e.Problem
		return out
	}
	if !selected(e, o) {
		out.Action, out.Reason = ActionSkipped, "not selected"
		return out
	}
	out.Target = o.To
	if out.Target == "" && e.OriginalTopic != nil {
		out.Target = *e.OriginalTopic
	}
	switch {
	case out.Target == "":
		out.Action, out.Reason = ActionRefused, "its headers name no original topic: pass --to"
		return out
	case out.Target == o.Topic:
		out.Action, out.Reason = ActionRefused, "its target is the dead-letter topic itself"
		return out
	case e.RedriveCount >= o.MaxRedrives:
		out.Action, out.Reason = ActionRefused, fmt.Sprintf("loop guard: redriven %d time(s) already (--max-redrives %d)", e.RedriveCount, o.MaxRedrives)
		return out
	}
	if fs := validateEntry(v, e); len(fs) > 0 {
		out.Findings = fs
		if !o.Force {
			out.Action, out.Reason = ActionRefused, "invalid: "+fs[0].Message
			if len(fs) > 1 {
				out.Reason += fmt.Sprintf(" (and %d more)", len(fs)-1)
			}
			return out
		}
		out.Reason = fmt.Sprintf("forced: %d finding(s)", len(fs))
	}
	out.Action = ActionSend
	return out
}

func selected(e Entry, o RedriveOptions) bool {
	if len(o.Offsets) > 0 && !slices.Contains(o.Offsets, Position{e.Partition, e.Offset}) {
		return false
	}
	if len(o.IDs) > 0 {
		found := false
		for _, id := range o.IDs {
			if e.ID != nil && *e.ID == id {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if o.Type != "" && (e.Type == nil || *e.Type != o.Type) {
		return false
	}
	if o.ErrorMatch != nil && !o.ErrorMatch.MatchString(e.errorHeaders()) {
		return false
	}
	return true
}

// redriveRecord is the record sent back: the original key and value, the
// headers that are not dead-letter headers, and the redrive count.
func redriveRecord(e Entry, target string) *kgo.Record {
	src := e.record
	var hs []kgo.RecordHeader
	for _, h := range src.Headers {
		if !IsDLQHeader(h.Key) {
			hs = append(hs, h)
		}
	}
	hs = append(hs, kgo.RecordHeader{Key: RedriveCountHeader, Value: []byte(strconv.Itoa(e.RedriveCount + 1))})
	return &kgo.Record{Topic: target, Key: src.Key, Value: src.Value, Headers: hs}
}

// produceTimeout bounds one produce and one commit: sending is not
// cancelled by an interrupt (a produce cut off midway may or may not have
// landed), the run stops between records instead.
const produceTimeout = 30 * time.Second

// transactionalID is the producer identity of a group's redrives: a rerun
// with the same group fences a run that died and aborts its open
// transaction.
func transactionalID(group string) string { return "evtool-redrive-" + group }

// newProducer opens the transactional producer of a run that applies and
// registers its transactional ID, which aborts the transaction a crashed
// run of the group left open, before the group's progress is read.
func newProducer(ctx context.Context, o RedriveOptions) (*kgo.Client, error) {
	base, err := o.Client.Options()
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(append(base,
		kgo.TransactionalID(transactionalID(o.Group)),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)),
	)...)
	if err != nil {
		return nil, err
	}
	if _, _, err := cl.ProducerID(ctx); err != nil {
		cl.Close()
		return nil, fmt.Errorf("initialising the transactional producer %s: %w", transactionalID(o.Group), err)
	}
	return cl, nil
}

// send produces each record to send in a transaction of its own that also
// commits the group past it (and past the refused and skipped records
// before it, remembering them as passed over): the record and the progress
// land together or not at all, so a run that dies between them leaves
// neither, and the rerun sends the record once. Consumers of the target
// that read committed records only (isolation.level=read_committed) never
// see a record twice.
func send(ctx context.Context, cl *kgo.Client, adm *kadm.Client, o RedriveOptions, res *Redrive, prog progress) error {
	if _, err := checkTargets(ctx, adm, res); err != nil {
		return err
	}
	// pending are the partitions whose progress moved since the last
	// commit (records passed over).
	pending := map[int32]bool{}
	// fits fails unless the passed-over records of the partitions can be
	// committed and read back.
	fits := func(parts map[int32]bool, where string) error {
		for p := range parts {
			if err := prog.at(p).storable(); err != nil {
				return fmt.Errorf("%s: group %s, %s/%d: %w: decide them again (--passed) or use another --group", where, o.Group, o.Topic, p, err)
			}
		}
		return nil
	}
	var topicID kadm.TopicID
	// commit commits the progress of the records passed over since the
	// last send, in a transaction of its own: a plain OffsetCommit is not
	// fenced, so a run that another run of the group took over would move
	// the group back before what that one sent, to be sent again. It is
	// the run's last use of the producer (see commitOffsetsOnly).
	commit := func() error {
		if len(pending) == 0 {
			return nil
		}
		if err := fits(pending, "committing the progress"); err != nil {
			return err
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), produceTimeout)
		defer cancel()
		if err := commitOffsetsOnly(cctx, cl, o.Group, o.Topic, topicID, prog, pending); err != nil {
			return err
		}
		clear(pending)
		return nil
	}
	if len(res.Outcomes) > 0 {
		details, err := adm.ListTopics(ctx, o.Topic)
		if err != nil {
			return fmt.Errorf("listing %s: %w", o.Topic, err)
		}
		topicID = details[o.Topic].ID
	}
	for i := range res.Outcomes {
		out := &res.Outcomes[i]
		where := fmt.Sprintf("%s/%d@%d", o.Topic, out.Partition, out.Offset)
		if ctx.Err() != nil {
			// A rerun without the flag would leave the rest of the
			// passed-over records passed over.
			how := "rerun"
			if o.Passed {
				how = "rerun with --passed"
			} else if left := namedLeft(o.Offsets, res.Outcomes[i:]); left != "" {
				// Not the same --offset: a named record sent
				// before the interruption is no longer passed
				// over, and naming it again is refused.
				how = "rerun with " + left
			}
			res.Interrupted = fmt.Sprintf("before %s; %s to resume", where, how)
			break
		}
		if out.Action == ActionError {
			// A record that cannot be read is not passed over: the
			// group stays before it in its partition.
			if err := commit(); err != nil {
				return err
			}
			return fmt.Errorf("%s: %s", where, out.Reason)
		}
		undo := prog.at(out.Partition).decide(*out)
		if out.Action != ActionSend {
			pending[out.Partition] = true
			continue
		}
		parts := maps.Clone(pending)
		parts[out.Partition] = true
		if err := fits(parts, "before "+where); err != nil {
			undo()
			if err := commit(); err != nil {
				return err
			}
			return err
		}
		if err := cl.BeginTransaction(); err != nil {
			undo()
			return fmt.Errorf("sending %s: %w", where, err)
		}
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), produceTimeout)
		err := cl.ProduceSync(tctx, redriveRecord(out.Entry, out.Target)).FirstErr()
		if err == nil {
			err = commitInTransaction(tctx, cl, o.Group, o.Topic, topicID, prog, parts)
		}
		if err == nil && o.AfterSend != nil {
			o.AfterSend(*out)
		}
		if err == nil {
			err = cl.EndTransaction(tctx, kgo.TryCommit)
		}
		if err != nil {
			_ = cl.EndTransaction(tctx, kgo.TryAbort)
			cancel()
			undo()
			return fmt.Errorf("sending %s to %s: %w (its transaction is aborted: a rerun sends it)", where, out.Target, err)
		}
		cancel()
		clear(pending)
		out.Action = ActionSent
	}
	return commit()
}

// commitInTransaction commits the group's progress on the partitions
// parts as part of the producer's open transaction. The group is not joined (the
// generation is -1, as for a simple consumer), which franz-go's
// transaction sessions do not support, hence the two requests by hand.
func commitInTransaction(ctx context.Context, cl *kgo.Client, group, topic string, topicID kadm.TopicID, prog progress, parts map[int32]bool) error {
	id, epoch, err := cl.ProducerID(ctx)
	if err != nil {
		return err
	}
	txnID := transactionalID(group)
	add := kmsg.NewPtrAddOffsetsToTxnRequest()
	add.TransactionalID, add.ProducerID, add.ProducerEpoch, add.Group = txnID, id, epoch, group
	err = untilSettled(ctx, func() error {
		addResp, err := add.RequestWith(ctx, cl)
		if err == nil {
			err = kerr.ErrorForCode(addResp.ErrorCode)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("adding the progress of group %s to the transaction: %w", group, err)
	}
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = txnID, group, id, epoch
	req.Generation, req.MemberID = -1, ""
	t := kmsg.NewTxnOffsetCommitRequestTopic()
	t.Topic, t.TopicID = topic, topicID
	for p := range parts {
		pp := prog.at(p)
		tp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
		meta := pp.metadata()
		tp.Partition, tp.Offset, tp.LeaderEpoch, tp.Metadata = p, pp.next, -1, &meta
		t.Partitions = append(t.Partitions, tp)
	}
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err == nil {
		for _, rt := range resp.Topics {
			for _, rp := range rt.Partitions {
				if e := kerr.ErrorForCode(rp.ErrorCode); e != nil && err == nil {
					err = fmt.Errorf("%s/%d: %w", topic, rp.Partition, e)
				}
			}
		}
	}
	if err != nil {
		return fmt.Errorf("committing the progress of group %s in the transaction: %w", group, err)
	}
	return nil
}

// commitOffsetsOnly commits the group's progress on the partitions parts
// in a transaction without records, by hand: franz-go ends a transaction
// only when it produced in it. The broker bumps the producer's epoch at
// the end (KIP-890) without the client knowing, so the producer must not
// be used after it.
func commitOffsetsOnly(ctx context.Context, cl *kgo.Client, group, topic string, topicID kadm.TopicID, prog progress, parts map[int32]bool) error {
	if err := commitInTransaction(ctx, cl, group, topic, topicID, prog, parts); err != nil {
		return err
	}
	id, epoch, err := cl.ProducerID(ctx)
	if err != nil {
		return err
	}
	end := kmsg.NewPtrEndTxnRequest()
	end.TransactionalID, end.ProducerID, end.ProducerEpoch, end.Commit = transactionalID(group), id, epoch, true
	resp, err := end.RequestWith(ctx, cl)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	if err != nil {
		return fmt.Errorf("committing the progress of group %s: %w", group, err)
	}
	return nil
}

// untilSettled retries req while the broker answers that the previous
// transaction of the producer is still being completed.
func untilSettled(ctx context.Context, req func() error) error {
	for {
		err := req()
		if !errors.Is(err, kerr.ConcurrentTransactions) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// checkTargets fails unless every topic a record goes to exists (redrive
// never creates a topic), turning those records into errors; it returns
// how many target topics there are.
func checkTargets(ctx context.Context, adm *kadm.Client, res *Redrive) (int, error) {
	targets := map[string]bool{}
	for _, out := range res.Outcomes {
		if out.Action == ActionSend {
			targets[out.Target] = true
		}
	}
	if len(targets) == 0 {
		return 0, nil
	}
	names := make([]string, 0, len(targets))
	for t := range targets {
		names = append(names, t)
	}
	sort.Strings(names)
	err := func() error {
		details, err := adm.ListTopics(ctx, names...)
		if err != nil {
			return fmt.Errorf("listing the target topics %s: %w", strings.Join(names, ","), err)
		}
		var missing []string
		for _, t := range names {
			if d, ok := details[t]; !ok || d.Err != nil {
				missing = append(missing, t)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("target topic(s) %s do not exist (redrive never creates a topic; check the origin headers or pass --to)", strings.Join(missing, ", "))
		}
		return nil
	}()
	if err != nil {
		for i := range res.Outcomes {
			if res.Outcomes[i].Action == ActionSend {
				res.Outcomes[i].Action = ActionError
				res.Outcomes[i].Reason = err.Error()
			}
		}
	}
	return len(names), err
}

// maxListed bounds the passed-over records the text lists (JSON has all).
const maxListed = 20

// WriteRedrive prints a redrive run as text or JSON.
func WriteRedrive(w io.Writer, f report.Format, res *Redrive) error {
	if f == report.FormatJSON {
		return writeJSON(w, res)
	}
	var b strings.Builder
	mode := "dry run (pass --apply to send)"
	if res.Apply {
		mode = "applied"
	}
	fmt.Fprintf(&b, "redrive %s as group %s: %s\n", res.Topic, res.Group, mode)
	for _, o := range res.Outcomes {
		if o.Action == ActionSkipped || o.Action == ActionSend && res.Apply {
			continue // not selected; not sent, interrupted (counted below)
		}
		verb := map[Action]string{ActionSend: "would send", ActionSent: "sent", ActionRefused: "refused", ActionError: "error"}[o.Action]
		line := fmt.Sprintf("%-10s %d@%d  %s", verb, o.Partition, o.Offset, report.Escape(o.eventText()))
		if o.Target != "" && (o.Action == ActionSend || o.Action == ActionSent) {
			line += fmt.Sprintf("  to %s (redrive %d)", o.Target, o.RedriveCount+1)
		}
		if o.Reason != "" {
			line += ": " + report.Escape(o.Reason)
		}
		b.WriteString(line + "\n")
		if o.Action == ActionRefused {
			for _, fd := range o.Findings {
				fmt.Fprintf(&b, "    %s %s\n", report.Escape(fd.Pointer), report.Escape(fd.Message))
			}
		}
	}
	c := res.Counts
	if res.Apply {
		fmt.Fprintf(&b, "%d sent, %d refused, %d not selected, %d error(s)\n", c.Sent, c.Refused, c.Skipped, c.Errors)
		if c.Send > 0 {
			fmt.Fprintf(&b, "%d selected record(s) not sent\n", c.Send)
		}
	} else {
		fmt.Fprintf(&b, "%d to send, %d refused, %d not selected, %d error(s)\n", c.Send, c.Refused, c.Skipped, c.Errors)
	}
	if n := len(res.Passed); n > 0 {
		verb := "passes"
		if !res.Apply {
			verb = "would pass"
		}
		list := res.Passed[:min(n, maxListed)]
		fmt.Fprintf(&b, "group %s %s over %d record(s) (refused or not selected, now or before):", res.Group, verb, n)
		for _, pos := range list {
			b.WriteString(" " + pos.String())
		}
		if n > len(list) {
			fmt.Fprintf(&b, " and %d more", n-len(list))
		}
		b.WriteString("\nonce their cause is fixed, --passed decides them all again, --offset P@O (repeatable) only those; nothing the group sent is sent again\n")
	}
	if res.Interrupted != "" {
		fmt.Fprintf(&b, "interrupted %s\n", res.Interrupted)
	}
	_, err := io.WriteString(w, report.SafeLines(strings.TrimSuffix(b.String(), "\n"))+"\n")
	return err
}

// namedLeft is the --offset flags, in the run's order, of the named
// records among the outcomes not yet decided.
func namedLeft(named []Position, left []Outcome) string {
	var flags []string
	for _, pos := range named {
		for _, out := range left {
			if out.Partition == pos.Partition && out.Offset == pos.Offset {
				flags = append(flags, "--offset "+pos.String())
				break
			}
		}
	}
	return strings.Join(flags, " ")
}
