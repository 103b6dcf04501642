package kafka

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestOnProduce: each fault does what it says to the first produce
// request, seen from the log: a dropped or refused request is appended once
// by the client's retry, an unanswered append is appended again by a
// client without idempotence and deduplicated for an idempotent one; then
// runs at the fault.
func TestOnProduce(t *testing.T) {
	for _, tc := range []struct {
		name       string
		fault      ProduceFault
		idempotent bool
		want       int64
	}{
		{"drop", ProduceDrop, true, 1},
		{"retriable", ProduceRetriable, true, 1},
		{"lost-ack idempotent", ProduceLostAck, true, 1},
		{"lost-ack plain", ProduceLostAck, false, 2},
		{"append", ProduceAppend, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := StartBroker(BrokerConfig{Partitions: 1, Topics: []string{"t"}})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			var calls, thens atomic.Int32
			remove := b.OnProduce(func(r ProduceRequest) (ProduceFault, func(error)) {
				if calls.Add(1) > 1 {
					return ProduceAppend, nil
				}
				if r.Records != 1 {
					t.Errorf("request of %d records, want 1", r.Records)
				}
				return tc.fault, func(err error) {
					thens.Add(1)
					if err != nil {
						t.Errorf("then got %v, want nil", err)
					}
				}
			})
			defer remove()
			opts, _ := ClientConfig{Brokers: b.Addrs()}.Options()
			opts = append(opts, kgo.RequestRetries(20), kgo.MetadataMinAge(50*time.Millisecond), kgo.RetryBackoffFn(func(int) time.Duration { return 20 * time.Millisecond }))
			if !tc.idempotent {
				opts = append(opts, kgo.DisableIdempotentWrite(), kgo.RequiredAcks(kgo.AllISRAcks()))
			}
			cl, err := kgo.NewClient(opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			start := time.Now()
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Value: []byte("v")}).FirstErr(); err != nil {
				t.Fatal(err)
			}
			t.Logf("produced in %s", time.Since(start))
			r, err := OpenTopics(ctx, ClientConfig{Brokers: b.Addrs()}, ReadOptions{Topics: []string{"t"}})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if got := r.Ends()["t"][0]; got != tc.want {
				t.Errorf("log holds %d records, want %d", got, tc.want)
			}
			if thens.Load() != 1 && tc.fault != ProduceAppend {
				t.Errorf("then ran %d times", thens.Load())
			}
		})
	}
}

// TestOnProduceYield: a held produce request lets the next one, from
// another client, append first: two relays producing at once land in the
// reverse order, every time.
func TestOnProduceYield(t *testing.T) {
	b, err := StartBroker(BrokerConfig{Partitions: 1, Topics: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	held := make(chan struct{}, 2)
	remove := b.OnProduce(func(ProduceRequest) (ProduceFault, func(error)) {
		return ProduceYield, func(error) { held <- struct{}{} }
	})
	defer remove()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := func() *kgo.Client {
		opts, _ := ClientConfig{Brokers: b.Addrs()}.Options()
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			t.Fatal(err)
		}
		return cl
	}
	first, second := client(), client()
	defer first.Close()
	defer second.Close()
	done := make(chan error, 1)
	go func() { done <- first.ProduceSync(ctx, &kgo.Record{Topic: "t", Value: []byte("first")}).FirstErr() }()
	<-held // the first request is held at the broker
	if err := second.ProduceSync(ctx, &kgo.Record{Topic: "t", Value: []byte("second")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r, err := OpenTopics(ctx, ClientConfig{Brokers: b.Addrs()}, ReadOptions{Topics: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for {
		rec, err := r.Next(ctx)
		if err != nil {
			break
		}
		got = append(got, string(rec.Value))
	}
	if fmt.Sprint(got) != "[second first]" {
		t.Errorf("log %v, want [second first]", got)
	}
}

// TestOnProduceLostAckNotAppended: when the broker does not append the
// records of a lost-ack request (here: a partition the topic lacks), then
// learns it, with the fault and the partition, instead of a fault that
// silently did not happen.
func TestOnProduceLostAckNotAppended(t *testing.T) {
	b, err := StartBroker(BrokerConfig{Partitions: 1, Topics: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got := make(chan error, 1)
	remove := b.OnProduce(func(ProduceRequest) (ProduceFault, func(error)) {
		return ProduceLostAck, func(err error) { got <- err }
	})
	defer remove()
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrProduceRequest()
	req.Acks, req.TimeoutMillis = -1, 5000
	rt := kmsg.NewProduceRequestTopic()
	// Produce v13, what clients send now, names the topic by id only.
	rt.Topic, rt.TopicID = "", b.cluster.TopicInfo("t").TopicID
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition = 7
	rp.Records = oneRecordBatch()
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _ = cl.Request(ctx, req) // the connection closes: a lost ack
	var err2 error
	select {
	case err2 = <-got:
	case <-ctx.Done():
		t.Fatal("then never ran")
	}
	var fe *ProduceFaultError
	if !errors.As(err2, &fe) {
		t.Fatalf("then got %v, want a *ProduceFaultError", err2)
	}
	if fe.Fault != ProduceLostAck || !slices.Equal(fe.Partitions, []string{"t/7"}) || !errors.Is(err2, kerr.UnknownTopicOrPartition) {
		t.Errorf("got %+v", fe)
	}
	if msg := err2.Error(); msg != "lost-ack fault on t/7: the broker did not append the held request: "+kerr.UnknownTopicOrPartition.Error() {
		t.Errorf("message %q", msg)
	}
}

// oneRecordBatch is a v2 record batch of one record (no key, value "v").
func oneRecordBatch() []byte {
	// length 7, attributes, timestamp delta, offset delta, key -1, value
	// of 1 byte, no headers (varints zigzag-encoded).
	rec := []byte{14, 0, 0, 0, 1, 2, 'v', 0}
	batch := kmsg.RecordBatch{Length: int32(49 + len(rec)), Magic: 2, ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: 1, Records: rec}
	out := batch.AppendTo(nil)
	crc := crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli))
	out[17], out[18], out[19], out[20] = byte(crc>>24), byte(crc>>16), byte(crc>>8), byte(crc)
	return out
}

// TestProduceForwardErrorNoAnswer: a forwarded copy that got no answer (a
// timeout on a loaded machine) may still have landed: the error says the
// append is unknown, not that the broker did not append.
func TestProduceForwardErrorNoAnswer(t *testing.T) {
	req := kmsg.NewPtrProduceRequest()
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = "t"
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition = 2
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	err := produceForwardError(req, nil, context.DeadlineExceeded, true, func(topic string, id [16]byte) string { return topicLabel(topic, id, "") })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	want := "lost-ack fault on t/2: the forwarded copy of the held request got no answer, so whether the broker appended it is unknown: context deadline exceeded"
	if err.Error() != want {
		t.Errorf("message %q\nwant %q", err, want)
	}
}
