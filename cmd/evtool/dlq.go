package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/spf13/cobra"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/dlq"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/report"
)

func (a *app) dlqCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "dlq",
		Short: "Dead-letter topics: inspect them, redrive their records after a fix",
		Long: `Read dead-letter topics written with the headers of evtool (dlq.error,
dlq.source.*), Spring Kafka (kafka_dlt-*), Kafka Connect (__connect.errors.*)
or Kafka Streams (__streams.errors.*), and send their records back.`,
	}
	c.AddCommand(a.dlqInspectCommand(), a.dlqRedriveCommand())
	return c
}

// dlqClient is the client config of a dlq command, which needs both
// --brokers and --topic.
func dlqClient(f *kafkaFlags, topic string) (kafka.ClientConfig, error) {
	cc := f.config()
	if len(cc.Brokers) == 0 {
		return cc, usagef("--brokers is required: the cluster holding the dead-letter topic")
	}
	if topic == "" {
		return cc, usagef("--topic is required: the dead-letter topic")
	}
	return cc, nil
}

func (a *app) dlqInspectCommand() *cobra.Command {
	var (
		kf            kafkaFlags
		topic, format string
		dir           string
		groupBy       []string
	)
	c := &cobra.Command{
		Use:   "inspect",
		Short: "List a dead-letter topic's records: origin, error, event, redrive count; a summary by error and type",
		Long: `Read the dead-letter topic from its start to the end it had when reading
started, and print per record its partition, offset and timestamp, the
original topic, partition and offset, the error (class and message), the
CloudEvent's id, type and version, how often evtool redrove it, and which
header convention it follows (evtool, spring, connect, streams, none). The
summary counts the records by error and by type (--group-by), with the
oldest record's age.

With a catalog in --dir (evtool.yaml), dataschemas resolve to versions.

Exit 0, or 2 when the topic cannot be read or a record's dead-letter
headers are malformed (it is listed with the problem).`,
		Example: `  evtool dlq inspect --brokers 127.0.0.1:9092 --topic orders.dlq
  evtool dlq inspect --brokers 127.0.0.1:9092 --topic orders.dlq --format json --group-by origin`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := parseFormat(format, report.BasicFormats)
			if err != nil {
				return err
			}
			cc, err := dlqClient(&kf, topic)
			if err != nil {
				return err
			}
			opts := dlq.InspectOptions{Client: cc, Topic: topic}
			for _, g := range groupBy {
				by, err := dlq.ParseGroupBy(g)
				if err != nil {
					return usageError{err}
				}
				opts.GroupBy = append(opts.GroupBy, by)
			}
			if opts.Catalog, err = optionalCatalog(cmd, dir); err != nil {
				return err
			}
			ins, err := dlq.Inspect(cmd.Context(), opts)
			if err != nil {
				return err
			}
			if err := dlq.WriteInspection(a.stdout, f, ins); err != nil {
				return err
			}
			if ins.Summary.Malformed > 0 {
				return fmt.Errorf("%d record(s) of %s with malformed dead-letter headers (listed above)", ins.Summary.Malformed, topic)
			}
			return nil
		},
	}
	addKafkaFlags(c.Flags(), &kf, "Kafka seed brokers host:port[,host:port] (required)")
	c.Flags().StringVar(&topic, "topic", "", "dead-letter topic (required)")
	dirFlag(c, &dir)
	formatFlag(c, &format, report.BasicFormats)
	c.Flags().StringSliceVar(&groupBy, "group-by", nil, "group the summary by error, type or origin (repeatable; default error and type)")
	completeValues(c, "group-by", string(dlq.ByError), string(dlq.ByType), string(dlq.ByOrigin))
	return c
}

// optionalCatalog loads the catalog in dir when it has one; a --dir given
// explicitly must hold one.
func optionalCatalog(cmd *cobra.Command, dir string) (*catalog.Catalog, error) {
	if _, err := os.Stat(filepath.Join(dir, "evtool.yaml")); errors.Is(err, os.ErrNotExist) && !cmd.Flags().Changed("dir") {
		return nil, nil
	}
	return loadCatalog(cmd.Context(), dir)
}

func (a *app) dlqRedriveCommand() *cobra.Command {
	var (
		kf                 kafkaFlags
		topic, format, dir string
		o                  dlq.RedriveOptions
		errorMatch         string
		offsets            []string
	)
	c := &cobra.Command{
		Use:   "redrive",
		Short: "Send a dead-letter topic's records back to their original topics (a dry run unless --apply)",
		Long: `Read the dead-letter topic from where the consumer group --group stopped
(default evtool-redrive-<topic>) to its end, and decide for every record:

  skipped   not selected by --id, --type, --error-match or --offset
  refused   its event is invalid against the catalog in --dir (same checks as
            evtool validate; --force sends it anyway), it was redriven
            --max-redrives times already (the loop guard), or its headers
            name no original topic and there is no --to
  send      its original key, value and non-dead-letter headers go to the
            original topic (from its headers, or --to), with
            evtool-redrive-count one higher

Without --apply nothing is sent or committed: it prints what it would send
where. With --apply each record is produced and the group committed past it
in one Kafka transaction (transactional ID evtool-redrive-<group>), so a
rerun resumes after the last record sent and never sends one twice; a
crash mid-transaction leaves it to be aborted by the rerun (consumers
reading with isolation.level=read_committed never see that copy). Refused and
skipped records are passed over for the group, which remembers them (in its
commits' metadata): once their cause is fixed, --passed decides them all
again and --offset P@O those named, and nothing the group sent is sent
again. An interrupted run (Ctrl-C) stops between records and says where.
Target topics must exist (the dry run checks too): redrive never creates
one. The dry run reads the group's offsets as --apply does, once no
transaction of the group is pending on them.

Exit 0 when done, 1 when records were refused, 2 on errors (malformed
dead-letter headers, a broker error, an interrupted run, an --offset naming
a record the group sent or no record).`,
		Example: `  evtool dlq redrive --brokers 127.0.0.1:9092 --topic orders.dlq
  evtool dlq redrive --brokers 127.0.0.1:9092 --topic orders.dlq --type com.example.order.placed --apply
  evtool dlq redrive --brokers 127.0.0.1:9092 --topic orders.dlq --id 42 --to orders-retry --apply
  evtool dlq redrive --brokers 127.0.0.1:9092 --topic orders.dlq --passed --apply
  evtool dlq redrive --brokers 127.0.0.1:9092 --topic orders.dlq --offset 0@4 --offset 2@17 --apply`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := parseFormat(format, report.BasicFormats)
			if err != nil {
				return err
			}
			if o.Client, err = dlqClient(&kf, topic); err != nil {
				return err
			}
			if o.MaxRedrives < 1 {
				return usagef("--max-redrives %d: must be at least 1", o.MaxRedrives)
			}
			if errorMatch != "" {
				if o.ErrorMatch, err = regexp.Compile(errorMatch); err != nil {
					return usagef("--error-match: %v", err)
				}
			}
			for _, s := range offsets {
				pos, err := dlq.ParsePosition(s)
				if err != nil {
					return usageError{err}
				}
				o.Offsets = append(o.Offsets, pos)
			}
			if o.To != "" && o.To == topic {
				return usagef("--to %s is the dead-letter topic itself", o.To)
			}
			if o.Catalog, err = loadCatalog(cmd.Context(), dir); err != nil {
				return err
			}
			o.Topic = topic
			o.Notice = func(msg string) { fmt.Fprintf(a.stderr, "evtool: note: %s\n", report.SafeLines(msg)) }
			res, err := dlq.RunRedrive(cmd.Context(), o)
			if err != nil {
				return err
			}
			if err := dlq.WriteRedrive(a.stdout, f, res); err != nil {
				return err
			}
			errored, refused := res.Failed()
			switch {
			case res.Err != "":
				return errors.New(res.Err)
			case res.Interrupted != "":
				return fmt.Errorf("interrupted %s", res.Interrupted)
			case errored:
				return fmt.Errorf("%d record(s) of %s with malformed dead-letter headers", res.Counts.Errors, topic)
			case refused:
				return errFindings
			}
			return nil
		},
	}
	addKafkaFlags(c.Flags(), &kf, "Kafka seed brokers host:port[,host:port] (required)")
	fl := c.Flags()
	fl.StringVar(&topic, "topic", "", "dead-letter topic (required)")
	dirFlag(c, &dir)
	formatFlag(c, &format, report.BasicFormats)
	fl.StringVar(&o.To, "to", "", "send to this topic instead of the original one")
	fl.StringSliceVar(&o.IDs, "id", nil, "select records whose event id is one of these (repeatable)")
	fl.StringVar(&o.Type, "type", "", "select records whose event type is this")
	fl.StringVar(&errorMatch, "error-match", "", "select records whose error (class: message) matches this regular expression")
	fl.StringSliceVar(&offsets, "offset", nil, "select the records at these positions, partition@offset as redrive prints them (repeatable); those the group passed over are decided again")
	fl.BoolVar(&o.Passed, "passed", false, "decide again the records the group passed over (refused or not selected) in earlier runs")
	fl.BoolVar(&o.Apply, "apply", false, "send (default: a dry run)")
	fl.BoolVar(&o.Force, "force", false, "send events the catalog rejects")
	fl.IntVar(&o.MaxRedrives, "max-redrives", dlq.DefaultMaxRedrives, "refuse a record redriven this often already (the loop guard)")
	fl.StringVar(&o.Group, "group", "", "consumer group keeping the progress on the dead-letter topic (default evtool-redrive-<topic>)")
	return c
}
