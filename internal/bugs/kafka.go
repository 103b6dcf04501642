package bugs

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/report"
)

// Run is the catalogue consumer as a real program for evtool replay: it
// reads EVTOOL_BROKERS, EVTOOL_TOPIC, EVTOOL_GROUP, EVTOOL_WORKDIR,
// EVTOOL_ADDR, EVTOOL_DLQ_TOPIC and EVTOOL_TLS*/EVTOOL_SASL_*, consumes in the group,
// keeps its Store in EVTOOL_WORKDIR/store.json (written atomically after
// each batch), serves GET /state and stops on ctx. Records it cannot read
// go to the DLQ topic (poison-crash: Run fails instead). Offsets are
// committed after the batch is stored (commit-first: before it is
// applied).
func Run(ctx context.Context, bug Bug) error {
	get := func(k string) (string, error) {
		v := os.Getenv(k)
		if v == "" {
			return "", fmt.Errorf("%s is not set (run me with evtool replay)", k)
		}
		return v, nil
	}
	var brokers, topic, group, workdir, addr string
	for _, x := range []struct {
		k string
		v *string
	}{{"EVTOOL_BROKERS", &brokers}, {"EVTOOL_TOPIC", &topic}, {"EVTOOL_GROUP", &group}, {"EVTOOL_WORKDIR", &workdir}, {"EVTOOL_ADDR", &addr}} {
		v, err := get(x.k)
		if err != nil {
			return err
		}
		*x.v = v
	}
	dlqTopic := os.Getenv("EVTOOL_DLQ_TOPIC")
	path := filepath.Join(workdir, "store.json")
	st := NewStore()
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, st); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	c := New(bug, st)

	var mu sync.Mutex
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(c.State())
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	opts, err := kafka.ClientConfigFromEnv(strings.Split(brokers, ","), os.Getenv).Options()
	if err != nil {
		return err
	}
	cl, err := kgo.NewClient(append(opts,
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		kgo.FetchMaxWait(500*time.Millisecond), // see examples/orders/consumer
	)...)
	if err != nil {
		return err
	}
	defer cl.Close()
	log.Printf("%s consumer on %s as group %s", bug, topic, group)
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			cl.AllowRebalance()
			return nil
		}
		recs := fs.Records()
		if len(recs) == 0 {
			cl.AllowRebalance()
			continue
		}
		if c.CommitsFirst() {
			if err := cl.CommitRecords(ctx, recs...); err != nil && ctx.Err() == nil {
				log.Printf("commit: %v", err)
			}
		}
		var dead []*kgo.Record
		mu.Lock()
		for _, r := range recs {
			in, err := decodeRecord(r)
			if err != nil {
				if c.CrashesOnPoison() {
					mu.Unlock()
					cl.AllowRebalance()
					return fmt.Errorf("record %s/%d@%d: %w", r.Topic, r.Partition, r.Offset, err)
				}
				if dlqTopic != "" {
					h := append(append([]kgo.RecordHeader(nil), r.Headers...), kgo.RecordHeader{Key: "error", Value: []byte(err.Error())},
						kgo.RecordHeader{Key: "source-offset", Value: []byte(strconv.FormatInt(r.Offset, 10))})
					dead = append(dead, &kgo.Record{Topic: dlqTopic, Key: r.Key, Value: r.Value, Headers: h})
				}
				continue
			}
			c.Apply(in, r.Partition, r.Offset)
		}
		err := save(path, st)
		mu.Unlock()
		if err != nil {
			cl.AllowRebalance()
			return err
		}
		if len(dead) > 0 {
			if err := cl.ProduceSync(ctx, dead...).FirstErr(); err != nil {
				cl.AllowRebalance()
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("dead letters: %w", err)
			}
		}
		if !c.CommitsFirst() {
			if err := cl.CommitRecords(ctx, recs...); err != nil && ctx.Err() == nil {
				log.Printf("commit: %v", err)
			}
		}
		cl.AllowRebalance()
	}
}

func decodeRecord(r *kgo.Record) (Input, error) {
	d, fs, err := envelope.FromRecord(r)
	if err != nil {
		return Input{}, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	if d == nil {
		return Input{}, fmt.Errorf("%w: not a CloudEvent", ErrUnreadable)
	}
	for _, f := range fs {
		if f.Severity == report.SeverityError {
			return Input{}, fmt.Errorf("%w: %s %s", ErrUnreadable, f.Pointer, f.Message)
		}
	}
	return Decode(d.Event)
}

// save writes the store atomically (a crash leaves the old or the new).
func save(path string, st *Store) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
