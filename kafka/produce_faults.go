package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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

// String names the fault in messages.
func (f ProduceFault) String() string {
	switch f {
	case ProduceAppend:
		return "append"
	case ProduceDrop:
		return "drop"
	case ProduceRetriable:
		return "retriable"
	case ProduceLostAck:
		return "lost-ack"
	case ProduceYield:
		return "yield"
	}
	return fmt.Sprintf("ProduceFault(%d)", int(f))
}

// ProduceFaultError says a fault was not injected as asked: the broker did
// not append the records of a ProduceLostAck request, so a caller that
// believes they landed would judge the producer on a log it never wrote.
type ProduceFaultError struct {
	Fault ProduceFault
	// Partitions are the request's partitions whose records did not land,
	// as topic/partition.
	Partitions []string
	// Unanswered is set when the forwarded copy got no answer (a timeout,
	// a closed connection): it may have landed all the same.
	Unanswered bool
	Err        error
}

func (e *ProduceFaultError) Error() string {
	what := "the broker did not append the held request"
	if e.Unanswered {
		what = "the forwarded copy of the held request got no answer, so whether the broker appended it is unknown"
	}
	return fmt.Sprintf("%s fault on %s: %s: %v", e.Fault, strings.Join(e.Partitions, ","), what, e.Err)
}

func (e *ProduceFaultError) Unwrap() error { return e.Err }

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
// before or after the append). then gets nil, or a *ProduceFaultError when
// the fault could not be injected (a ProduceLostAck whose records the
// broker did not append); the connection closes all the same. fn and then
// run while the request is held; they must not produce. remove stops the
// calls.
func (b *Broker) OnProduce(fn func(ProduceRequest) (ProduceFault, func(error))) (remove func()) {
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
		var faultErr error
		run := func() {
			if then != nil {
				then(faultErr)
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
			err := fwdErr
			if err == nil {
				node := b.cluster.CurrentNode()
				forwarding.Store(fp, true)
				// The broker handles one request at a time: sleeping yields
				// to the forwarded copy, which appends under the client's
				// producer id and sequence (so its retry is deduplicated
				// as on a real broker).
				b.cluster.SleepControl(func() {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					resp, err := fwd.Broker(int(node)).Request(ctx, r)
					// Asleep, the control may ask the cluster for topic
					// names (a v13 request names topics by id only).
					faultErr = produceForwardError(r, resp, err, true, b.topicName)
				})
				forwarding.Delete(fp)
			} else {
				faultErr = produceForwardError(r, nil, err, false, func(t string, id [16]byte) string { return topicLabel(t, id, "") })
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

// produceForwardError is a *ProduceFaultError when the forwarded copy of a
// lost-ack request failed (err; sent when the copy went out) or its answer
// refused partitions, or nil. name names a topic of the request.
func produceForwardError(r *kmsg.ProduceRequest, resp kmsg.Response, err error, sent bool, name func(topic string, id [16]byte) string) error {
	if err == nil {
		pr, ok := resp.(*kmsg.ProduceResponse)
		if !ok {
			err = fmt.Errorf("answered with %T", resp)
		} else {
			var parts []string
			var first error
			for _, t := range pr.Topics {
				for _, p := range t.Partitions {
					if perr := kerr.ErrorForCode(p.ErrorCode); perr != nil {
						parts = append(parts, fmt.Sprintf("%s/%d", name(t.Topic, t.TopicID), p.Partition))
						if first == nil {
							first = perr
						}
					}
				}
			}
			if first == nil {
				return nil
			}
			return &ProduceFaultError{Fault: ProduceLostAck, Partitions: parts, Err: first}
		}
	}
	var parts []string
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s/%d", name(t.Topic, t.TopicID), p.Partition))
		}
	}
	return &ProduceFaultError{Fault: ProduceLostAck, Partitions: parts, Unanswered: sent && resp == nil, Err: err}
}

// topicName names a topic of a request by its name, else by the name the
// cluster has for its id. It asks the cluster: call it only while the
// control sleeps.
func (b *Broker) topicName(topic string, id [16]byte) string {
	if topic != "" || id == [16]byte{} {
		return topicLabel(topic, id, "")
	}
	known := ""
	if ti := b.cluster.TopicIDInfo(id); ti != nil {
		known = ti.Topic
	}
	return topicLabel(topic, id, known)
}

// topicLabel is the topic's name, the name known for its id, or the id.
func topicLabel(topic string, id [16]byte, known string) string {
	switch {
	case topic != "":
		return topic
	case known != "":
		return known
	case id != [16]byte{}:
		return fmt.Sprintf("topic id %x", id[:])
	}
	return "(unnamed topic)"
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
