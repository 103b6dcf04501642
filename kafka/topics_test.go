package kafka

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// topicBroker starts a broker with topic "t" (2 partitions) holding n
// records per partition, values "p<partition>-<i>".
func topicBroker(t *testing.T, n int) (*Broker, ClientConfig) {
	t.Helper()
	b, err := StartBroker(BrokerConfig{Partitions: 2, Topics: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	cc := ClientConfig{Brokers: b.Addrs()}
	produceTo(t, cc, n, "")
	return b, cc
}

// produceTo appends n records to each partition of "t"; with txID set they
// go in one committed transaction (which leaves a control record).
func produceTo(t *testing.T, cc ClientConfig, n int, txID string) {
	t.Helper()
	o, err := cc.Options()
	if err != nil {
		t.Fatal(err)
	}
	o = append(o, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if txID != "" {
		o = append(o, kgo.TransactionalID(txID))
	}
	cl, err := kgo.NewClient(o...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if txID != "" {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
	}
	for p := int32(0); p < 2; p++ {
		for i := 0; i < n; i++ {
			v := fmt.Sprintf("p%d-%d", p, i)
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Partition: p, Value: []byte(v)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if txID != "" {
		if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			t.Fatal(err)
		}
	}
}

func readAll(t *testing.T, cc ClientConfig, opts ReadOptions) ([]string, *TopicReader) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := OpenTopics(ctx, cc, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	var got []string
	for {
		rec, err := r.Next(ctx)
		if errors.Is(err, ErrEnd) {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v (got %v)", err, got)
		}
		got = append(got, fmt.Sprintf("%s/%d@%d=%s", rec.Topic, rec.Partition, rec.Offset, rec.Value))
	}
	sort.Strings(got)
	return got, r
}

func TestTopicReaderReadsToTheEndSeenAtStart(t *testing.T) {
	_, cc := topicBroker(t, 2)
	ctx := context.Background()
	r, err := OpenTopics(ctx, cc, ReadOptions{Topics: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	produceTo(t, cc, 1, "") // after the reader opened: not read
	var got []string
	for {
		rec, err := r.Next(ctx)
		if errors.Is(err, ErrEnd) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(rec.Value))
	}
	sort.Strings(got)
	if want := "p0-0 p0-1 p1-0 p1-1"; strings.Join(got, " ") != want {
		t.Errorf("read %v, want %s", got, want)
	}
}

func TestTopicReaderStarts(t *testing.T) {
	_, cc := topicBroker(t, 2)
	if got, _ := readAll(t, cc, ReadOptions{Topics: []string{"t"}, From: Latest}); len(got) != 0 {
		t.Errorf("latest read %v, want nothing", got)
	}
	if got, _ := readAll(t, cc, ReadOptions{Topics: []string{"t"}, From: StartAt(time.Now().Add(time.Hour))}); len(got) != 0 {
		t.Errorf("a start after the last record read %v, want nothing", got)
	}
	if got, _ := readAll(t, cc, ReadOptions{Topics: []string{"t"}, From: StartAt(time.Now().Add(-time.Hour))}); len(got) != 4 {
		t.Errorf("a start before the first record read %v, want all 4", got)
	}
}

func TestTopicReaderPassesTransactionMarkers(t *testing.T) {
	b, err := StartBroker(BrokerConfig{Partitions: 2, Topics: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cc := ClientConfig{Brokers: b.Addrs()}
	produceTo(t, cc, 2, "tx-1")
	got, _ := readAll(t, cc, ReadOptions{Topics: []string{"t"}, Stall: 5 * time.Second})
	if len(got) != 4 {
		t.Errorf("read %v, want the 4 records and no control record", got)
	}
}

func TestTopicReaderGroupResumes(t *testing.T) {
	_, cc := topicBroker(t, 3)
	ctx := context.Background()
	r, err := OpenTopics(ctx, cc, ReadOptions{Topics: []string{"t"}, Group: "g"})
	if err != nil {
		t.Fatal(err)
	}
	var done []*kgo.Record
	for len(done) < 2 {
		rec, err := r.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Partition == 0 {
			done = append(done, rec)
		}
	}
	if err := r.Commit(ctx, done[len(done)-1]); err != nil {
		t.Fatal(err)
	}
	r.Close()
	got, _ := readAll(t, cc, ReadOptions{Topics: []string{"t"}, Group: "g"})
	if want := "t/0@2=p0-2 t/1@0=p1-0 t/1@1=p1-1 t/1@2=p1-2"; strings.Join(got, " ") != want {
		t.Errorf("resumed read %v, want %s", got, want)
	}
}

func TestTopicReaderErrors(t *testing.T) {
	_, cc := topicBroker(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name string
		opts ReadOptions
		want string
	}{
		{"missing topic", ReadOptions{Topics: []string{"t", "nope"}}, "cannot read topic nope"},
		{"no topic", ReadOptions{}, "no topic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := OpenTopics(ctx, cc, tc.opts)
			if err == nil {
				r.Close()
				t.Fatalf("OpenTopics = nil error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want %q", err, tc.want)
			}
		})
	}
	// A missing topic must not have been created by the attempt.
	if _, err := OpenTopics(ctx, cc, ReadOptions{Topics: []string{"nope"}}); err == nil {
		t.Error("the failed read created topic nope")
	}
}

func TestParseStart(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"", "earliest", ""},
		{"earliest", "earliest", ""},
		{"latest", "latest", ""},
		{"2026-12-01T09:00:00Z", "2026-12-01T09:00:00Z", ""},
		{"yesterday", "", "want earliest, latest or an RFC 3339 time"},
	} {
		s, err := ParseStart(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseStart(%q) error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || s.String() != tc.want {
			t.Errorf("ParseStart(%q) = %v, %v; want %s", tc.in, s, err, tc.want)
		}
	}
}

func TestTopicReaderOffsets(t *testing.T) {
	_, cc := topicBroker(t, 3)
	got, _ := readAll(t, cc, ReadOptions{Topics: []string{"t"}, Offsets: map[string]map[int32]int64{"t": {0: 2, 1: 99}}})
	// Partition 0 from offset 2; partition 1 past its end: nothing.
	if want := "t/0@2=p0-2"; strings.Join(got, " ") != want {
		t.Errorf("read %v, want %s", got, want)
	}
	got, _ = readAll(t, cc, ReadOptions{Topics: []string{"t"}, From: Latest, Offsets: map[string]map[int32]int64{"t": {0: 1}}})
	if len(got) != 0 {
		t.Errorf("an offset before From's start moved it back: read %v", got)
	}
}

// TestTopicReaderAbortedBeforeOpenTransaction: the end of a partition with
// an open transaction is its last stable offset; an aborted transaction
// that began before it and ended after it leaves records just short of
// that end that a committed read never returns. The reader must still see
// the end, not stall.
func TestTopicReaderAbortedBeforeOpenTransaction(t *testing.T) {
	t.Parallel()
	b, err := StartBroker(BrokerConfig{Partitions: 1, Topics: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	cc := ClientConfig{Brokers: b.Addrs()}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	txn := func(id string) *kgo.Client {
		o, err := cc.Options()
		if err != nil {
			t.Fatal(err)
		}
		cl, err := kgo.NewClient(append(o, kgo.TransactionalID(id), kgo.RecordPartitioner(kgo.ManualPartitioner()))...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		return cl
	}
	a, open := txn("a"), txn("b")
	for i, cl := range []*kgo.Client{a, open} {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Value: []byte(fmt.Sprint(i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
	r, err := OpenTopics(ctx, cc, ReadOptions{Topics: []string{"t"}, Stall: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	t.Logf("ends %v", r.Ends())
	if rec, err := r.Next(ctx); !errors.Is(err, ErrEnd) {
		t.Fatalf("Next: %v, %v; want the end", rec, err)
	}
}
