package exconsumer

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/evtool/evtool/internal/waitfor"
	"github.com/evtool/evtool/kafka"
)

// A member evicted while it applies a batch (as if it stalled past its
// session) has that batch's commit refused. franz-go rejoins, gets the
// same partition back and, without a new client, goes on from where it
// was: the refused records are never read or committed again. Run must
// start a new client, read them again from the group's committed
// offsets and commit them.
func TestRunRestartsWhenFenced(t *testing.T) {
	// A slow heartbeat: only the refused commit tells the member it was
	// evicted (a heartbeat seeing it first takes franz-go's safe path).
	t.Setenv("EVTOOL_HEARTBEAT_INTERVAL", "20s")
	const topic, group, records = "orders", "orders-group", 10
	b, err := kafka.StartBroker(kafka.BrokerConfig{Partitions: 1, Topics: []string{topic}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addrs()...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	// One produce: one record batch, which the consumer's first poll
	// returns whole, so nothing after it commits past the refused commit.
	var recs []*kgo.Record
	for i := range records {
		recs = append(recs, &kgo.Record{Value: []byte(strconv.Itoa(i))})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}

	// The cooperative client heartbeats once 500 ms after it joined,
	// then not for the 20 s interval: evicting after that heartbeat
	// leaves the commit the first to hear of it.
	heartbeat := make(chan struct{})
	var heard sync.Once
	defer b.OnGroupRequest(group, func(r kafka.GroupRequest) {
		if r.Kind == "Heartbeat" {
			heard.Do(func() { close(heartbeat) })
		}
	})()

	var mu sync.Mutex
	var batches [][]string
	evict := func() {
		select {
		case <-heartbeat:
		case <-ctx.Done():
			t.Error("no heartbeat before the deadline")
			return
		}
		st := b.Group(group, topic)
		if st == nil || len(st.Members) != 1 {
			t.Errorf("group before the eviction: %+v", st)
			return
		}
		req := kmsg.NewPtrLeaveGroupRequest()
		req.Group = group
		lm := kmsg.NewLeaveGroupRequestMember()
		lm.MemberID = st.Members[0].ID
		req.Members = append(req.Members, lm)
		if resp, err := req.RequestWith(ctx, cl); err != nil || resp.ErrorCode != 0 {
			t.Errorf("evicting %s: %v %+v", lm.MemberID, err, resp)
		}
	}
	loop := Loop[string]{
		Name:   "test",
		Decode: func(r *kgo.Record) (string, error) { return string(r.Value), nil },
		Apply: func(_ context.Context, events []string) (int, error) {
			mu.Lock()
			batches = append(batches, events)
			first := len(batches) == 1
			mu.Unlock()
			if first {
				evict()
			}
			return len(events), nil
		},
		State: func(context.Context) (any, error) { return nil, nil },
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- loop.Run(runCtx, Env{Brokers: b.Addrs(), Topic: topic, Group: group, Workdir: t.TempDir(), Addr: "127.0.0.1:0"})
	}()

	if !waitfor.Condition(30*time.Second, func() bool {
		st := b.Group(group, topic)
		return st != nil && st.Committed[0] == records
	}) {
		stop()
		<-done
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("the group never committed the %d records (committed %+v); batches applied: %q", records, b.Group(group, topic), batches)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(batches) < 2 || !slices.Equal(batches[0], batches[len(batches)-1]) || len(batches[0]) != records {
		t.Fatalf("want the refused batch of %d records read again, got batches %q", records, batches)
	}
}
