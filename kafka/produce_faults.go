package kafka

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ProduceFault says what the embedded broker does with one produce request.
type ProduceFault int

const (
	// ProduceAppend handles the request normally.
	ProduceAppend ProduceFault = iota
	// ProduceDrop appends nothing and closes the client's connection, as if
	// the request had never arrived.
	ProduceDrop
	// ProduceRetriable appends nothing and answers every partition with
	// NOT_ENOUGH_REPLICAS, an error a client retries.
	ProduceRetriable
	// ProduceLostAck appends the records and closes the connection instead
	// of answering: the client cannot tell it from a dropped request.
	ProduceLostAck
	// ProduceYield holds the request until another produce request (from
	// another connection) has been handled, or ProduceYieldWindow passed,
	// then appends it: of two producers sending at once, the later lands
	// first, as a network may order them. A request that arrives while
	// another is held is not held itself.
	ProduceYield
)

// ProduceYieldWindow bounds how long ProduceYield holds a request.
const ProduceYieldWindow = 100 * time.Millisecond

// ProduceRequest describes a produce request to an OnProduce hook.
type ProduceRequest struct {
	// Records counts the records in the request's batches.
	Records int
}

// errProduceFault closes the connection of a dropped or unanswered produce.
var errProduceFault = errors.New("evtool: produce request dropped by a fault")

// OnProduce calls fn with every produce request that carries records,
// before the broker handles it; fn says what happens to it. then, when not
// nil, runs at the exact point between the append and the answer: before
// the connection closes for ProduceDrop (nothing appended) and
// ProduceLostAck (records appended), before the error answer of
// ProduceRetriable. A fault injector kills the client there (a crash
// before or after the append). fn and then run while the request is held;
// they must not produce. remove stops the calls.
func (b *Broker) OnProduce(fn func(ProduceRequest) (ProduceFault, func())) (remove func()) {
	var (
		removed atomic.Bool
		fwdOnce sync.Once
		fwd     *kgo.Client
		fwdErr  error
		// forwarding holds the batches of a lost-ack request being
		// appended through fwd: that copy passes the hook untouched.
		forwarding sync.Map
		// held are the wake-ups of the ProduceYield requests held now.
		heldMu sync.Mutex
		held   []chan struct{}
	)
	// overtake wakes the held requests: they resume once the broker has
	// handled the current one, which the run loop does first.
	overtake := func() bool {
		heldMu.Lock()
		defer heldMu.Unlock()
		for _, ch := range held {
			close(ch)
		}
		woke := len(held) > 0
		held = nil
		return woke
	}
	b.cluster.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if removed.Load() {
			b.cluster.DropControl()
			return nil, nil, false
		}
		r, ok := req.(*kmsg.ProduceRequest)
		if !ok {
			return nil, nil, false
		}
		fp := produceFingerprint(r)
		if _, ok := forwarding.Load(fp); ok {
			return nil, nil, false
		}
		n := 0
		for _, t := range r.Topics {
			for _, p := range t.Partitions {
				n += batchRecords(p.Records)
			}
		}
		if n == 0 {
			return nil, nil, false
		}
		fault, then := fn(ProduceRequest{Records: n})
		run := func() {
			if then != nil {
				then()
			}
		}
		if overtake() && fault == ProduceYield {
			fault = ProduceAppend
		}
		switch fault {
		case ProduceYield:
			wake := make(chan struct{})
			heldMu.Lock()
			held = append(held, wake)
			heldMu.Unlock()
			run()
			b.cluster.SleepControl(func() {
				select {
				case <-wake:
				case <-time.After(ProduceYieldWindow):
				}
			})
			heldMu.Lock()
			held = slices.DeleteFunc(held, func(ch chan struct{}) bool { return ch == wake })
			heldMu.Unlock()
			return nil, nil, false
		case ProduceDrop:
			run()
			b.cluster.KeepControl()
			return nil, errProduceFault, true
		case ProduceRetriable:
			run()
			b.cluster.KeepControl()
			return retriableAnswer(r), nil, true
		case ProduceLostAck:
			fwdOnce.Do(func() { fwd, fwdErr = kgo.NewClient(kgo.SeedBrokers(b.Addrs()...)) })
			if fwdErr == nil {
				node := b.cluster.CurrentNode()
				forwarding.Store(fp, true)
				// The broker handles one request at a time: sleeping yields
				// to the forwarded copy, which appends under the client's
				// producer id and sequence (so its retry is deduplicated
				// as on a real broker).
				b.cluster.SleepControl(func() {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					_, _ = fwd.Broker(int(node)).Request(ctx, r)
				})
				forwarding.Delete(fp)
			}
			run()
			b.cluster.KeepControl()
			return nil, errProduceFault, true
		}
		run()
		return nil, nil, false
	})
	return func() {
		removed.Store(true)
		if fwd != nil {
			fwd.Close()
		}
	}
}

// produceFingerprint identifies a request by its batches.
func produceFingerprint(r *kmsg.ProduceRequest) string {
	var b []byte
	for _, t := range r.Topics {
		b = append(b, t.Topic...)
		b = append(b, t.TopicID[:]...)
		for _, p := range t.Partitions {
			b = append(b, byte(p.Partition>>24), byte(p.Partition>>16), byte(p.Partition>>8), byte(p.Partition))
			b = append(b, p.Records...)
		}
	}
	return string(b)
}

// batchRecords counts the records of the record batches in a produce
// request's partition (the count field of each v2 batch header).
func batchRecords(b []byte) int {
	n := 0
	for len(b) >= 61 {
		var batch kmsg.RecordBatch
		if err := batch.ReadFrom(b); err != nil {
			return n + 1
		}
		n += int(batch.NumRecords)
		size := 12 + int(batch.Length)
		if size <= 0 || size > len(b) {
			break
		}
		b = b[size:]
	}
	return n
}

// retriableAnswer answers every partition of r with NOT_ENOUGH_REPLICAS.
func retriableAnswer(r *kmsg.ProduceRequest) *kmsg.ProduceResponse {
	resp := r.ResponseKind().(*kmsg.ProduceResponse)
	resp.Version = r.Version
	for _, t := range r.Topics {
		rt := kmsg.NewProduceResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, t.TopicID
		for _, p := range t.Partitions {
			rp := kmsg.NewProduceResponseTopicPartition()
			rp.Partition = p.Partition
			rp.ErrorCode = kerr.NotEnoughReplicas.Code
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}
