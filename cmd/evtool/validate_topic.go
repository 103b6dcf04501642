package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/internal/pipeline"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/records"
	"github.com/evtool/evtool/report"
)

// topicFlags are validate's flags for reading Kafka instead of files.
type topicFlags struct {
	kafka  kafkaFlags
	topics []string
	from   string
	until  string
	group  string
	max    int
	// workers is validate's --workers.
	workers int
}

func addTopicFlags(fl *pflag.FlagSet, f *topicFlags) {
	addKafkaFlags(fl, &f.kafka, "with --topic: Kafka seed brokers host:port[,host:port]")
	fl.StringSliceVar(&f.topics, "topic", nil, "validate the records of these topics (T[,T...]) instead of files; needs --brokers")
	fl.StringVar(&f.from, "from", "earliest", "with --topic: where to start, earliest|latest|an RFC 3339 time")
	fl.StringVar(&f.until, "until", "end", "with --topic: end (stop at the end offsets seen at start) or follow (until interrupted)")
	fl.StringVar(&f.group, "group", "", "with --topic: resume from and commit to this consumer group's offsets (read as a simple consumer, never joining the group)")
	fl.IntVar(&f.max, "max", 0, "with --topic: stop after this many records (0: no limit)")
}

// given returns the topic-only flags given, for the usage check of a file
// validation.
func (f *topicFlags) given(fl *pflag.FlagSet) []string {
	var names []string
	for _, n := range []string{"brokers", "from", "until", "group", "max"} {
		if fl.Changed(n) {
			names = append(names, "--"+n)
		}
	}
	return names
}

// options checks the flags and returns what to read.
func (f *topicFlags) options() (kafka.ClientConfig, kafka.ReadOptions, error) {
	cc := f.kafka.config()
	if len(cc.Brokers) == 0 {
		return cc, kafka.ReadOptions{}, usagef("--topic needs --brokers host:port")
	}
	topics := splitList(f.topics)
	if len(topics) == 0 {
		return cc, kafka.ReadOptions{}, usagef("--topic: name at least one topic")
	}
	start, err := kafka.ParseStart(f.from)
	if err != nil {
		return cc, kafka.ReadOptions{}, usageError{err}
	}
	opts := kafka.ReadOptions{Topics: topics, From: start, Group: f.group}
	switch f.until {
	case "end":
	case "follow":
		opts.Follow = true
	default:
		return cc, opts, usagef("--until %q: want end or follow", f.until)
	}
	if f.max < 0 {
		return cc, opts, usagef("--max %d: want 0 (no limit) or a positive count", f.max)
	}
	return cc, opts, nil
}

// validateTopics reads records with the shared topic reader and prints
// the findings of each as it comes (following, they come until Ctrl-C).
func (a *app) validateTopics(ctx context.Context, cat *catalog.Catalog, f *topicFlags, p report.Printer) error {
	cc, opts, err := f.options()
	if err != nil {
		return err
	}
	r, err := kafka.OpenTopics(ctx, cc, opts)
	if err != nil {
		return err
	}
	defer r.Close()
	chk := records.NewChecker(cat)
	ids, err := catalog.LoadSchemaIDs(cat)
	if err != nil {
		return err
	}
	chk.UseSchemaIDs(ids)
	var checked, failing int
	last := lastRecords{}
	finish := func() error {
		for _, fd := range chk.Finish() {
			if err := p.Add(fd); err != nil {
				return err
			}
		}
		if err := p.Close(checked, "record"); err != nil {
			return err
		}
		return last.commit(ctx, r, opts.Group)
	}
	// Each record is checked on its own on all cores; the checks across
	// records (ids, keys, sequences) and the printing go in read order.
	// Following, records go one by one so a finding prints when it comes.
	batch := 0
	if opts.Follow {
		batch = 1
	}
	read := 0
	var readErr error
	next := func() (*kgo.Record, bool, error) {
		if f.max > 0 && read >= f.max {
			return nil, false, nil
		}
		rec, err := r.Next(ctx)
		if errors.Is(err, kafka.ErrEnd) || err != nil && ctx.Err() != nil && opts.Follow {
			return nil, false, nil // following ends with Ctrl-C: a normal end
		}
		if err != nil {
			readErr = err
			return nil, false, nil
		}
		read++
		return rec, true, nil
	}
	type decoded struct {
		rec *records.Record
		d   *envelope.Decoded
		raw *kgo.Record
	}
	work := func(rec *kgo.Record) decoded {
		out, d := chk.Decode(rec)
		return decoded{out, d, rec}
	}
	emit := func(x decoded) error {
		checked++
		chk.Relate(x.rec, x.d)
		bad := false
		for _, fd := range x.rec.Findings {
			if fd.Failing() {
				bad = true
			}
			if err := p.Add(fd); err != nil {
				return err
			}
		}
		if bad {
			failing++
		}
		last.add(x.raw)
		if opts.Follow && len(x.rec.Findings) > 0 {
			return report.Flush(p)
		}
		return nil
	}
	pctx := ctx
	if opts.Follow {
		pctx = context.WithoutCancel(ctx) // Ctrl-C ends the reading, not the printing
	}
	err = pipeline.Ordered(pctx, f.workers, batch, next, work, emit)
	if err != nil && ctx.Err() == nil {
		return err
	}
	if readErr != nil || err != nil {
		_ = finish()
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted while reading %s: %d record(s) checked", r.Position(), checked)
		}
		return readErr
	}
	if err := finish(); err != nil {
		return err
	}
	if failing > 0 {
		return errFindings
	}
	return nil
}

// lastRecords holds the last record read per topic and partition: what a
// group commits when a reader (validate --topic, consume) ends.
type lastRecords map[string]map[int32]*kgo.Record

func (l lastRecords) add(rec *kgo.Record) {
	if l[rec.Topic] == nil {
		l[rec.Topic] = map[int32]*kgo.Record{}
	}
	l[rec.Topic][rec.Partition] = rec
}

// commit commits the records to group (nothing without a group), also
// after an interruption: what was read stays read.
func (l lastRecords) commit(ctx context.Context, r *kafka.TopicReader, group string) error {
	if group == "" || len(l) == 0 {
		return nil
	}
	var recs []*kgo.Record
	for _, parts := range l {
		for _, rec := range parts {
			recs = append(recs, rec)
		}
	}
	return r.Commit(context.WithoutCancel(ctx), recs...)
}
