// Package dlqtest writes dead-letter records the way evtool's example
// consumer, Spring Kafka, Kafka Connect and Kafka Streams write them, for
// tests of the dlq package and of the CLI.
package dlqtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/dlq"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/kafka"
)

// DeadLetter is the record a consumer following conv writes to dlqTopic
// for orig (a record it consumed, with its topic, partition and offset):
// orig's key, value and headers plus the convention's headers, integers
// encoded as that convention's producer encodes them.
func DeadLetter(orig *kgo.Record, dlqTopic string, conv dlq.Convention, class, msg string) *kgo.Record {
	hs := append([]kgo.RecordHeader(nil), orig.Headers...)
	add := func(k string, v []byte) { hs = append(hs, kgo.RecordHeader{Key: k, Value: v}) }
	dec := func(n int64) []byte { return []byte(strconv.FormatInt(n, 10)) }
	switch conv {
	case dlq.ConventionEvtool:
		add("dlq.error", []byte(msg))
		add("dlq.error.kind", []byte(class))
		add("dlq.source.topic", []byte(orig.Topic))
		add("dlq.source.partition", dec(int64(orig.Partition)))
		add("dlq.source.offset", dec(orig.Offset))
	case dlq.ConventionSpring:
		var p [4]byte
		var o, ts [8]byte
		binary.BigEndian.PutUint32(p[:], uint32(orig.Partition))
		binary.BigEndian.PutUint64(o[:], uint64(orig.Offset))
		binary.BigEndian.PutUint64(ts[:], uint64(orig.Timestamp.UnixMilli()))
		add("kafka_dlt-original-topic", []byte(orig.Topic))
		add("kafka_dlt-original-partition", p[:])
		add("kafka_dlt-original-offset", o[:])
		add("kafka_dlt-original-timestamp", ts[:])
		add("kafka_dlt-original-timestamp-type", []byte("CreateTime"))
		add("kafka_dlt-exception-fqcn", []byte(class))
		add("kafka_dlt-exception-message", []byte(msg))
		add("kafka_dlt-exception-stacktrace", []byte(class+": "+msg+"\n\tat com.example.Listener.listen(Listener.java:42)"))
	case dlq.ConventionConnect:
		add("__connect.errors.topic", []byte(orig.Topic))
		add("__connect.errors.partition", dec(int64(orig.Partition)))
		add("__connect.errors.offset", dec(orig.Offset))
		add("__connect.errors.connector.name", []byte("orders-sink"))
		add("__connect.errors.task.id", []byte("0"))
		add("__connect.errors.stage", []byte("VALUE_CONVERTER"))
		add("__connect.errors.exception.class.name", []byte(class))
		add("__connect.errors.exception.message", []byte(msg))
	case dlq.ConventionStreams:
		add("__streams.errors.exception", []byte(class+": "+msg))
		add("__streams.errors.message", []byte(msg))
		add("__streams.errors.stacktrace", []byte(class+": "+msg+"\n\tat org.apache.kafka.streams.processor.internals.ProcessorNode.process"))
		add("__streams.errors.topic", []byte(orig.Topic))
		add("__streams.errors.partition", dec(int64(orig.Partition)))
		add("__streams.errors.offset", dec(orig.Offset))
	case dlq.ConventionNone:
	default:
		panic(fmt.Sprintf("dlqtest: unknown convention %q", conv))
	}
	return &kgo.Record{Topic: dlqTopic, Partition: 0, Key: orig.Key, Value: orig.Value, Headers: hs, Timestamp: orig.Timestamp}
}

// EventRecord is a binary-mode record of a CloudEvent in the JSON format,
// keyed by its subject, for topic.
func EventRecord(ctx context.Context, event []byte, topic string) (*kgo.Record, error) {
	d, fs := envelope.DecodeJSON(event)
	if d == nil {
		return nil, fmt.Errorf("event: %v", fs)
	}
	r, err := envelope.ToRecord(ctx, &d.Event, envelope.ModeBinary, envelope.WithKeyFromSubject())
	if err != nil {
		return nil, err
	}
	r.Topic = topic
	return r, nil
}

// Produce writes records synchronously to the partitions they name (their
// Partition fields), keeping their timestamps when set, and fills in
// their offsets.
func Produce(ctx context.Context, cc kafka.ClientConfig, recs ...*kgo.Record) error {
	o, err := cc.Options()
	if err != nil {
		return err
	}
	cl, err := kgo.NewClient(append(o, kgo.RecordPartitioner(kgo.ManualPartitioner()))...)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for _, r := range recs {
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			return fmt.Errorf("producing to %s/%d: %w", r.Topic, r.Partition, err)
		}
	}
	return nil
}

// Base is the timestamp of the first record Seed writes.
var Base = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// Seed writes to topic orders the first four events of the JSONL file
// events (examples/orders/events.jsonl) and an invalid copy of the first
// (its first item's quantity "three", its id starting bad0), one minute
// apart from Base, and to orders.dlq a dead letter of each: evtool,
// Spring, Connect, Streams and evtool conventions; then a record of no
// convention that is no event, with an "error" header. extra more dead
// letters of the first event (evtool convention) follow. It returns the
// records written to orders.
func Seed(ctx context.Context, cc kafka.ClientConfig, events []byte, extra int) ([]*kgo.Record, error) {
	lines := bytes.SplitN(events, []byte("\n"), 5)
	if len(lines) < 5 {
		return nil, fmt.Errorf("want at least 4 events, got %d", len(lines)-1)
	}
	evs := lines[:4]
	invalid := bytes.Replace(evs[0], []byte(`"quantity":3`), []byte(`"quantity":"three"`), 1)
	invalid = bytes.Replace(invalid, []byte(`"id":"a247fb24`), []byte(`"id":"bad0fb24`), 1)
	evs = append(evs, invalid)
	var orig []*kgo.Record
	for i, ev := range evs {
		r, err := EventRecord(ctx, ev, "orders")
		if err != nil {
			return nil, err
		}
		r.Partition = int32(i % 3)
		r.Timestamp = Base.Add(time.Duration(i) * time.Minute)
		orig = append(orig, r)
	}
	if err := Produce(ctx, cc, orig...); err != nil {
		return nil, err
	}
	letters := []*kgo.Record{
		DeadLetter(orig[0], "orders.dlq", dlq.ConventionEvtool, "unknown-version", "com.example.order.placed v1 is not known to this consumer"),
		DeadLetter(orig[1], "orders.dlq", dlq.ConventionSpring, "org.springframework.kafka.listener.ListenerExecutionFailedException", "Listener method threw"),
		DeadLetter(orig[2], "orders.dlq", dlq.ConventionConnect, "org.apache.kafka.connect.errors.DataException", "Converting byte[] to Kafka Connect data failed"),
		DeadLetter(orig[3], "orders.dlq", dlq.ConventionStreams, "org.apache.kafka.common.errors.SerializationException", "Size of data received is not 8"),
		DeadLetter(orig[4], "orders.dlq", dlq.ConventionEvtool, "invalid", "data: /items/0/quantity: want integer"),
		{Topic: "orders.dlq", Value: []byte("not an event"), Headers: []kgo.RecordHeader{{Key: "error", Value: []byte("boom")}}, Timestamp: Base.Add(10 * time.Minute)},
	}
	for i := 0; i < extra; i++ {
		letters = append(letters, DeadLetter(orig[0], "orders.dlq", dlq.ConventionEvtool, "unknown-version", fmt.Sprintf("copy %d", i)))
	}
	return orig, Produce(ctx, cc, letters...)
}
