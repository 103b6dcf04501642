package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/report"
)

// envBrokers names the seed brokers when --brokers is not given: what
// `evtool broker` prints, and what replay gives a consumer.
const envBrokers = "EVTOOL_BROKERS"

// brokersOrEnv fills the config's brokers from EVTOOL_BROKERS when the
// flag gave none.
func brokersOrEnv(cc *kafkaFlags, command string) (err error) {
	if len(cc.brokers) == 0 {
		if env := os.Getenv(envBrokers); env != "" {
			cc.brokers = []string{env}
		}
	}
	if len(splitList(cc.brokers)) == 0 {
		return usagef("%s needs --brokers host:port (or %s; `evtool broker` starts a local one and prints it)", command, envBrokers)
	}
	return nil
}

func (a *app) produceCommand() *cobra.Command {
	var (
		dir, format, mode string
		topic, typ        string
		version           int
		source            string
		maxBytes          int
		kf                kafkaFlags
	)
	c := &cobra.Command{
		Use:   "produce --topic T [FILE|-]...",
		Short: "Validate CloudEvents against the catalog and produce them to a topic",
		Long: `Read CloudEvents in the JSON format (a single event, a JSON array batch, or
JSONL; from files, or standard input with no FILE or -), validate each one
against the catalog as validate does, encode its data as the catalog says
and produce it to --topic: Avro and Protobuf data in JSON form becomes the
binary encoding, Confluent-framed under the version's registry id when the
type's kafka.framing is confluent (JSON data only when kafka.framing:
confluent is set), in binary (ce_ headers) or structured --mode. The record
key is the value at the type's partitionkey (event.yaml), else the event's
partitionkey extension, else none.

With --type T, each input value is the data of one event of type T
(--version N, default the latest): evtool adds id, source (--source), time,
dataschema and datacontenttype.

Nothing is sent unless every event is valid: unreadable input exits 2
naming the file and line, an invalid event prints its findings and exits 1.
Every event is held in memory until it is sent.`,
		Example: `  evtool produce --brokers 127.0.0.1:9092 --topic orders events.jsonl
  echo '{"orderId":"A-1","total":3}' | evtool produce --brokers 127.0.0.1:9092 --topic orders --type com.example.order.placed`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := parseFormat(format, report.BasicFormats)
			if err != nil {
				return err
			}
			m, err := envelope.ParseMode(mode)
			if err != nil {
				return usagef("--mode: %v", err)
			}
			if topic == "" {
				return usagef("--topic is required")
			}
			if maxBytes <= 0 {
				return usagef("--max-event-size must be positive")
			}
			if typ == "" && (cmd.Flags().Changed("version") || cmd.Flags().Changed("source")) {
				return usagef("--version and --source only with --type")
			}
			if err := brokersOrEnv(&kf, "produce"); err != nil {
				return err
			}
			cat, err := loadCatalog(cmd.Context(), dir)
			if err != nil {
				return err
			}
			ids, err := catalog.LoadSchemaIDs(cat)
			if err != nil {
				return err
			}
			var wrap func([]byte) []byte
			if typ != "" {
				if wrap, err = plainDataWrapper(cat, typ, version, source); err != nil {
					return err
				}
			}
			if len(args) == 0 {
				args = []string{"-"}
			}
			p, err := report.NewPrinter(a.stdout, f, "produce")
			if err != nil {
				return err
			}
			pr := &producer{cat: cat, ids: ids, mode: m}
			v := &envelope.Validator{Catalog: cat, IDs: ids}
			var total validateStats
			for _, name := range args {
				st, err := a.validateInput(cmd.Context(), v, name, maxBytes, 1, p, inputHooks{wrap: wrap, keep: pr.keep(cmd.Context(), p)})
				total.add(st)
				if err != nil {
					_ = p.Close(total.events, "event")
					return err
				}
			}
			total.invalid += pr.invalid
			if err := p.Close(total.events, "event"); err != nil {
				return err
			}
			if total.inputErrors > 0 {
				return fmt.Errorf("%d input error(s): nothing was produced", total.inputErrors)
			}
			if total.invalid > 0 {
				fmt.Fprintf(a.stderr, "evtool produce: %d invalid event(s): nothing was produced\n", total.invalid)
				return errFindings
			}
			if len(pr.records) == 0 {
				return errors.New("no events to produce")
			}
			return a.sendRecords(cmd.Context(), kf.config(), report.Escape(topic), topic, pr.records)
		},
	}
	dirFlag(c, &dir)
	formatFlag(c, &format, report.BasicFormats)
	c.Flags().StringVar(&topic, "topic", "", "topic to produce to (required)")
	c.Flags().StringVar(&mode, "mode", "binary", "CloudEvents Kafka content mode: binary|structured")
	completeValues(c, "mode", "binary", "structured")
	c.Flags().StringVar(&typ, "type", "", "read plain data of this event type instead of CloudEvents")
	c.Flags().IntVar(&version, "version", 0, "with --type: the version of the data (default: the latest)")
	c.Flags().StringVar(&source, "source", "", "with --type: the events' source (default: the type's source pattern when it is a literal, else /evtool/produce)")
	c.Flags().IntVar(&maxBytes, "max-event-size", envelope.DefaultMaxEventBytes, "largest event accepted, in bytes")
	addKafkaFlags(c.Flags(), &kf, "Kafka seed brokers host:port[,host:port] (default: $EVTOOL_BROKERS)")
	return c
}

// plainDataWrapper returns what turns a data value of type typ, version
// n (0: the latest), into a CloudEvent of the JSON format.
func plainDataWrapper(cat *catalog.Catalog, typ string, n int, source string) (func([]byte) []byte, error) {
	t := cat.Lookup(typ)
	if t == nil {
		return nil, usagef("--type %q is not a type of the catalog", typ)
	}
	if source == "" {
		// A type whose source pattern is a literal source names it.
		source = "/evtool/produce"
		if t.Meta.Source != "" && t.SourceMatches(t.Meta.Source) {
			source = t.Meta.Source
		}
	}
	ver := t.Latest()
	if n != 0 {
		if ver = t.Version(n); ver == nil {
			return nil, usagef("--version %d: %s has versions 1..%d", n, typ, len(t.Versions))
		}
	}
	head := fmt.Sprintf(`{"specversion":"1.0","type":%s,"source":%s,"datacontenttype":"application/json","dataschema":%s`,
		strconv.Quote(typ), strconv.Quote(source), strconv.Quote(cat.DataSchema(typ, ver.Number)))
	return func(raw []byte) []byte {
		// The data goes first on its own line 1, so that the lines of
		// findings in it are the input's.
		b := make([]byte, 0, len(raw)+len(head)+96)
		b = append(b, `{"data":`...)
		b = append(b, raw...)
		b = append(b, ',')
		b = append(b, head[1:]...)
		b = append(b, `,"id":`...)
		b = strconv.AppendQuote(b, uuid.NewString())
		b = append(b, `,"time":`...)
		b = strconv.AppendQuote(b, time.Now().UTC().Format(time.RFC3339Nano))
		b = append(b, '}')
		return b
	}, nil
}

// producer turns the valid events read into records, in input order.
type producer struct {
	cat     *catalog.Catalog
	ids     *catalog.SchemaIDs
	mode    envelope.Mode
	records []*kgo.Record
	invalid int
}

// keep returns the inputHooks.keep of one run: it encodes each valid
// event and reports one it cannot encode (no value for the record key) as
// a finding, so that nothing is sent.
func (pr *producer) keep(ctx context.Context, p report.Printer) func(validated, string) error {
	return func(res validated, display string) error {
		if res.item.Err != nil || res.unusable || res.decoded == nil || res.version == nil {
			return nil
		}
		for _, f := range res.findings {
			if f.Severity == report.SeverityError {
				return nil
			}
		}
		d, ver := res.decoded, res.version
		rec, err := pr.record(ctx, d, ver)
		if err != nil {
			pr.invalid++
			return p.Add(report.Finding{Rule: envelope.RuleProduce, Severity: report.SeverityError, File: display,
				Subject: fmt.Sprintf("%s:%d", display, res.item.Line), Line: res.item.Line, Message: err.Error()})
		}
		pr.records = append(pr.records, rec)
		return nil
	}
}

// record encodes one valid event as the catalog says, keyed by its
// type's partitionkey.
func (pr *producer) record(ctx context.Context, d *envelope.Decoded, ver *catalog.Version) (*kgo.Record, error) {
	t := pr.cat.Lookup(ver.Type)
	framing := pr.cat.Framing(t)
	var opts []envelope.RecordOption
	var key string
	keyed := false
	if pk := t.Meta.PartitionKey; pk != "" {
		if err := d.SetFormatData(ver, framing); err != nil {
			return nil, err
		}
		k, ok := d.PartitionKeyValue(pk)
		if !ok {
			return nil, fmt.Errorf("no record key: the event has no string, number or bool at %s's partitionkey %s", t.Name, pk)
		}
		key, keyed = k, true
	} else if _, ok := d.Event.Extensions()["partitionkey"]; ok {
		opts = append(opts, envelope.WithKeyFromPartitionKey())
	}
	e := &d.Event
	if pr.mode == envelope.ModeBinary && e.DataContentType() == "" && !e.DataBase64 && len(e.DataEncoded) > 0 {
		// The input is the JSON format, where no datacontenttype means
		// application/json; a binary-mode record has no format to imply
		// it, and a reader without the catalog (the CloudEvents SDKs)
		// would take the value for opaque bytes.
		c := e.Clone()
		c.SetDataContentType(event.ApplicationJSON)
		e = &c
	}
	rec, err := envelope.ToWireRecord(ctx, e, ver, framing, envelope.WireID(pr.cat, pr.ids, ver), pr.mode, opts...)
	if err != nil {
		return nil, err
	}
	if keyed {
		rec.Key = []byte(key)
	}
	return rec, nil
}

// sendRecords produces the records in order and says where they went.
func (a *app) sendRecords(ctx context.Context, cc kafka.ClientConfig, shown, topic string, recs []*kgo.Record) error {
	cl, err := kafka.OpenProducer(ctx, cc, topic, 10*time.Second)
	if err != nil {
		return err
	}
	defer cl.Close()
	for _, r := range recs {
		r.Topic = topic
	}
	results := cl.ProduceSync(ctx, recs...)
	parts := map[int32]int{}
	var sent int
	var errs []string
	for _, res := range results {
		if res.Err != nil {
			msg := res.Err.Error()
			if errors.Is(res.Err, kerr.UnknownTopicOrPartition) {
				msg = fmt.Sprintf("topic %s does not exist and the cluster did not create it: create it first (%s)", shown, msg)
			}
			errs = append(errs, msg)
			continue
		}
		sent++
		parts[res.Record.Partition]++
	}
	fmt.Fprintf(a.stderr, "evtool produce: %d of %d event(s) produced to %s (%d partition(s))\n", sent, len(recs), shown, len(parts))
	if len(errs) > 0 {
		return fmt.Errorf("%d event(s) not produced: %s", len(errs), strings.Join(dedupe(errs), "; "))
	}
	return nil
}

// dedupe drops repeated messages, keeping the order.
func dedupe(msgs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range msgs {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}
