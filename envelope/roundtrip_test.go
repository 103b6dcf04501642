package envelope

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/cloudevents/sdk-go/v2/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/kafka"
)

// eventCmp compares sdk-go events by value: URIs by their text, times as
// instants, nil and empty alike.
var eventCmp = []cmp.Option{
	cmp.Comparer(func(a, b types.URIRef) bool { return a.String() == b.String() }),
	cmp.Comparer(func(a, b types.URI) bool { return a.String() == b.String() }),
	cmp.Comparer(func(a, b types.Timestamp) bool { return a.Time.Equal(b.Time) }),
	cmpopts.EquateEmpty(),
}

// roundTripEvents covers JSON, text and binary data, no data, and every
// extension type.
func roundTripEvents(t *testing.T) []*event.Event {
	t.Helper()
	base := func(id string) event.Event {
		e := event.New()
		e.SetID(id)
		e.SetSource("/orders")
		e.SetType("com.example.order.placed")
		return e
	}
	evs := []*event.Event{newEvent(t)}

	text := base("text")
	_ = text.SetData("text/plain; charset=utf-8", "hello\nwörld")
	evs = append(evs, &text)

	bin := base("binary")
	_ = bin.SetData("application/octet-stream", []byte{0, 1, 2, 0xff})
	evs = append(evs, &bin)

	empty := base("empty")
	empty.SetExtension("negative", -2147483648)
	evs = append(evs, &empty)

	vendor := base("vendor")
	vendor.SetDataContentType("application/vnd.example.order+json")
	vendor.DataEncoded = []byte(`{"orderId":"o-1","lines":[{"sku":"A","qty":1}]}`)
	evs = append(evs, &vendor)
	return evs
}

// expectedAfter is what FromRecord should give for e sent in mode: binary
// headers carry every extension as a string, and binary data loses its
// base64 flag (the record value is the bytes).
func expectedAfter(e *event.Event, mode Mode) event.Event {
	want := e.Clone()
	if mode == ModeBinary {
		ec := want.Context.AsV1()
		for k, v := range ec.Extensions {
			ec.Extensions[k], _ = types.Format(v)
		}
		want.Context = ec
		want.DataBase64 = false
	}
	return want
}

// TestRoundTripThroughBroker produces every event in both modes to an
// embedded broker, consumes them back and compares the decoded events.
func TestRoundTripThroughBroker(t *testing.T) {
	b, err := kafka.StartBroker(kafka.BrokerConfig{Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	opts, err := kafka.ClientConfig{Brokers: b.Addrs()}.Options()
	if err != nil {
		t.Fatal(err)
	}
	const topic = "envelope-roundtrip"
	cl, err := kgo.NewClient(append(opts,
		kgo.AllowAutoTopicCreation(),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
	)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()

	type sent struct {
		mode Mode
		want event.Event
		key  string
	}
	var all []sent
	for _, mode := range []Mode{ModeBinary, ModeStructured} {
		for _, e := range roundTripEvents(t) {
			var opts []RecordOption
			key := ""
			if _, ok := e.Extensions()["partitionkey"]; ok {
				opts = append(opts, WithKeyFromData("/orderId"))
				key = "order-17"
			}
			r, err := ToRecord(ctx, e, mode, opts...)
			if err != nil {
				t.Fatalf("%v %s: %v", mode, e.ID(), err)
			}
			r.Topic = topic
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatalf("produce: %v", err)
			}
			all = append(all, sent{mode, expectedAfter(e, mode), key})
		}
	}

	var got []*kgo.Record
	for len(got) < len(all) {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of %d records: %v", len(got), len(all), err)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("fetch: %v", err) })
		got = append(got, fs.Records()...)
	}
	if len(got) != len(all) {
		t.Fatalf("consumed %d records, want %d", len(got), len(all))
	}
	for i, r := range got {
		s := all[i]
		t.Run(fmt.Sprintf("%v/%s", s.mode, s.want.ID()), func(t *testing.T) {
			d, fs, err := FromRecord(r)
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) != 0 {
				t.Errorf("findings: %v", fs)
			}
			if diff := cmp.Diff(s.want, d.Event, eventCmp...); diff != "" {
				t.Errorf("event (-want +got):\n%s", diff)
			}
			if string(r.Key) != s.key {
				t.Errorf("key = %q, want %q", r.Key, s.key)
			}
		})
	}
}
