// Package dlqtest writes dead-letter records the way evtool's example
// consumer, Spring Kafka, Kafka Connect and Kafka Streams write them, for
// tests of the dlq package and of the CLI.
package dlqtest

import (
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
