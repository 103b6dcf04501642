package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cloudevents/sdk-go/v2/binding"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/report"
)

func (a *app) consumeCommand() *cobra.Command {
	var (
		dir, format string
		tf          topicFlags
	)
	c := &cobra.Command{
		Use:   "consume --topic T",
		Short: "Print the records of topics as CloudEvents",
		Long: `Read records with the reader validate --topic and dlq use and print each one
as a CloudEvent in the JSON format (binary or structured mode, per record),
with its topic, partition, offset, timestamp, key and headers. Avro and
Protobuf data is printed in its JSON form (Avro's JSON encoding, the
Protobuf JSON mapping), Confluent frames taken off and their schema id
shown; the printed event can be given back to evtool produce.

A record that is no CloudEvent, or whose data does not decode, is printed
raw (value, or value_base64 when it is not UTF-8) with the reason; it is
never dropped. A decoded event the catalog rejects is printed with its
findings. Use validate --topic to gate on them: consume exits 0 once it read
what it was asked to, 2 when it cannot read.

--format jsonl prints one JSON object per record; --format text prints a
few lines per record for people, with every byte from the topic escaped.`,
		Example: `  evtool consume --brokers 127.0.0.1:9092 --topic orders
  evtool consume --brokers 127.0.0.1:9092 --topic orders --from latest --until follow --format text`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "jsonl" && format != "text" {
				return usagef("--format %q: want jsonl or text", format)
			}
			if err := brokersOrEnv(&tf.kafka, "consume"); err != nil {
				return err
			}
			cc, opts, err := tf.options()
			if err != nil {
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
			return a.consume(cmd.Context(), cat, ids, cc, opts, tf.max, format == "text")
		},
	}
	dirFlag(c, &dir)
	c.Flags().StringVar(&format, "format", "jsonl", "output format: jsonl|text")
	completeValues(c, "format", "jsonl", "text")
	fl := c.Flags()
	addKafkaFlags(fl, &tf.kafka, "Kafka seed brokers host:port[,host:port] (default: $EVTOOL_BROKERS)")
	fl.StringSliceVar(&tf.topics, "topic", nil, "topics to read (T[,T...]; required)")
	fl.StringVar(&tf.from, "from", "earliest", "where to start: earliest|latest|an RFC 3339 time")
	fl.StringVar(&tf.until, "until", "end", "end (stop at the end offsets seen at start) or follow (until interrupted)")
	fl.StringVar(&tf.group, "group", "", "resume from and commit to this consumer group's offsets (read as a simple consumer, never joining the group)")
	fl.IntVar(&tf.max, "max", 0, "stop after this many records (0: no limit)")
	return c
}

// consumed is one record as consume prints it.
type consumed struct {
	Topic       string           `json:"topic"`
	Partition   int32            `json:"partition"`
	Offset      int64            `json:"offset"`
	Timestamp   string           `json:"timestamp"`
	Key         *string          `json:"key,omitempty"`
	KeyBase64   string           `json:"key_base64,omitempty"`
	Headers     []consumedHeader `json:"headers"`
	Mode        string           `json:"mode,omitempty"`
	ContentType string           `json:"wire_datacontenttype,omitempty"`
	SchemaID    *uint32          `json:"schema_id,omitempty"`
	Event       json.RawMessage  `json:"event,omitempty"`
	Findings    []string         `json:"findings,omitempty"`
	Error       string           `json:"error,omitempty"`
	Value       *string          `json:"value,omitempty"`
	ValueBase64 string           `json:"value_base64,omitempty"`
}

type consumedHeader struct {
	Key         string  `json:"key"`
	Value       *string `json:"value,omitempty"`
	ValueBase64 string  `json:"value_base64,omitempty"`
}

// bytesField is b as text when it is UTF-8, else as base64.
func bytesField(b []byte) (*string, string) {
	if utf8.Valid(b) {
		s := string(b)
		return &s, ""
	}
	return nil, base64.StdEncoding.EncodeToString(b)
}

// describeRecord decodes a record for printing: the event with its data
// in JSON form, or the raw value with why it could not be decoded.
func describeRecord(cat *catalog.Catalog, v *envelope.Validator, r *kgo.Record) consumed {
	out := consumed{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Timestamp: r.Timestamp.UTC().Format(time.RFC3339Nano), Headers: []consumedHeader{}}
	if r.Key != nil {
		out.Key, out.KeyBase64 = bytesField(r.Key)
	}
	for _, h := range r.Headers {
		ch := consumedHeader{Key: h.Key}
		ch.Value, ch.ValueBase64 = bytesField(h.Value)
		out.Headers = append(out.Headers, ch)
	}
	raw := func(reason string) consumed {
		out.Error = reason
		out.Event, out.Findings = nil, nil
		out.Value, out.ValueBase64 = bytesField(r.Value)
		return out
	}
	if m, err := envelope.NewMessage(r); err == nil {
		out.Mode = "binary"
		if m.ReadEncoding() == binding.EncodingStructured {
			out.Mode = "structured"
		}
	}
	d, ver, fs, err := v.CheckRecord(r)
	if err != nil {
		return raw(err.Error())
	}
	var findings []string
	for _, f := range fs {
		if f.Severity != report.SeverityError {
			continue
		}
		msg := f.Rule + ": " + f.Message
		if f.Pointer != "" {
			msg = f.Rule + ": " + f.Pointer + ": " + f.Message
		}
		findings = append(findings, msg)
	}
	if d == nil {
		return raw(strings.Join(findings, "; "))
	}
	out.Findings = findings
	e := d.Event.Clone()
	if ct := e.DataContentType(); ct != "" {
		out.ContentType = ct
	}
	if d.JSONFramed {
		id := d.JSONFrameID
		out.SchemaID = &id
	}
	if ver != nil && d.HasData {
		framing := cat.Framing(cat.Lookup(ver.Type))
		if _, id, framed := envelope.DataFrame(ver.Compiled, framing, d.RawData); framed && !d.JSONFramed {
			out.SchemaID = &id
		}
		data, err := d.DataJSON(ver, framing)
		if err != nil {
			return raw("data does not decode: " + err.Error())
		}
		if string(data) != string(d.RawData) || e.DataBase64 {
			e.DataEncoded, e.DataBase64 = data, false
			if err := e.Context.SetDataContentType("application/json"); err != nil {
				return raw(err.Error())
			}
		}
	}
	b, err := envelope.MarshalJSON(&e)
	if err != nil {
		return raw("not printable as a CloudEvent: " + err.Error())
	}
	out.Event = b
	return out
}

// consume reads the topics and prints each record.
func (a *app) consume(ctx context.Context, cat *catalog.Catalog, ids *catalog.SchemaIDs, cc kafka.ClientConfig, opts kafka.ReadOptions, max int, text bool) error {
	r, err := kafka.OpenTopics(ctx, cc, opts)
	if err != nil {
		return err
	}
	defer r.Close()
	v := &envelope.Validator{Catalog: cat, IDs: ids}
	w := bufio.NewWriter(a.stdout)
	last := lastRecords{}
	read := 0
	var readErr error
	for max == 0 || read < max {
		rec, err := r.Next(ctx)
		if errors.Is(err, kafka.ErrEnd) || err != nil && ctx.Err() != nil && opts.Follow {
			break // following ends with Ctrl-C: a normal end
		}
		if err != nil {
			readErr = err
			break
		}
		read++
		c := describeRecord(cat, v, rec)
		if text {
			writeConsumedText(w, c)
		} else {
			b, err := json.Marshal(c)
			if err != nil {
				return err
			}
			w.Write(report.JSONSafe(b))
			w.WriteByte('\n')
		}
		if opts.Follow {
			if err := w.Flush(); err != nil {
				return err
			}
		}
		last.add(rec)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := last.commit(ctx, r, opts.Group); err != nil {
		return err
	}
	if readErr != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted while reading %s: %d record(s) printed", r.Position(), read)
		}
		return readErr
	}
	return nil
}

// writeConsumedText prints a record for people: a heading line, then one
// line per header, the event or the raw value, and the findings. Every
// byte from the topic goes through report.Escape.
func writeConsumedText(w io.Writer, c consumed) {
	key := "(no key)"
	switch {
	case c.Key != nil:
		key = `key "` + report.Escape(*c.Key) + `"`
	case c.KeyBase64 != "":
		key = "key (base64) " + c.KeyBase64
	}
	fmt.Fprintf(w, "%s/%d@%d %s %s", report.SafeLine(report.Escape(c.Topic)), c.Partition, c.Offset, c.Timestamp, key)
	if c.Mode != "" {
		fmt.Fprintf(w, " %s", c.Mode)
	}
	if c.SchemaID != nil {
		fmt.Fprintf(w, " schema id %d", *c.SchemaID)
	}
	fmt.Fprintln(w)
	for _, h := range c.Headers {
		if h.Value != nil {
			fmt.Fprintf(w, "  header %s: %s\n", report.Escape(h.Key), report.Escape(*h.Value))
		} else {
			fmt.Fprintf(w, "  header %s (base64): %s\n", report.Escape(h.Key), h.ValueBase64)
		}
	}
	if c.Event != nil {
		fmt.Fprintf(w, "  event %s\n", report.Escape(string(c.Event)))
	}
	for _, f := range c.Findings {
		fmt.Fprintf(w, "  invalid: %s\n", report.Escape(f))
	}
	if c.Error != "" {
		fmt.Fprintf(w, "  undecodable: %s\n", report.Escape(c.Error))
		if c.Value != nil {
			fmt.Fprintf(w, "  value: %s\n", report.Escape(*c.Value))
		} else {
			fmt.Fprintf(w, "  value (base64): %s\n", c.ValueBase64)
		}
	}
}
