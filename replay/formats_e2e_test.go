package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/report"
)

// formatsConsumer is a consumer of the Avro and Protobuf types of the
// catalog at dir, as the test binary runs it: it checks every record
// against the catalog (its Confluent frame included), dead-letters what
// fails (header dlq.error), and keeps per partition key the distinct
// event ids and the last value of each, in the JSON form.
func formatsConsumer(dir string) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "formats consumer: "+format+"\n", args...)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	cat, err := catalog.Load(dir)
	if err != nil {
		return fail("%v", err)
	}
	ids, err := catalog.LoadSchemaIDs(cat)
	if err != nil {
		return fail("%v", err)
	}
	v := &envelope.Validator{Catalog: cat, IDs: ids}
	var mu sync.Mutex
	seen := map[string]map[string]bool{} // key -> event ids
	ln, err := net.Listen("tcp", os.Getenv("EVTOOL_ADDR"))
	if err != nil {
		return fail("%v", err)
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		state := map[string][]string{}
		for k, s := range seen {
			for id := range s {
				state[k] = append(state[k], id)
			}
			sort.Strings(state[k])
		}
		_ = json.NewEncoder(w).Encode(state)
	}))
	opts, err := kafka.ClientConfig{Brokers: strings.Split(os.Getenv("EVTOOL_BROKERS"), ",")}.Options()
	if err != nil {
		return fail("%v", err)
	}
	cl, err := kgo.NewClient(append(opts, kgo.ConsumerGroup(os.Getenv("EVTOOL_GROUP")),
		kgo.ConsumeTopics(os.Getenv("EVTOOL_TOPIC")), kgo.DisableAutoCommit(), kgo.FetchMaxWait(500*time.Millisecond))...)
	if err != nil {
		return fail("%v", err)
	}
	defer cl.Close()
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return 0
		}
		recs := fs.Records()
		for _, r := range recs {
			_, _, findings, err := v.CheckRecord(r)
			problem := ""
			if err != nil {
				problem = err.Error()
			}
			for _, f := range findings {
				if f.Severity == report.SeverityError && problem == "" {
					problem = f.Rule + ": " + f.Message
				}
			}
			if problem != "" {
				dead := &kgo.Record{Topic: os.Getenv("EVTOOL_DLQ_TOPIC"), Key: r.Key, Value: r.Value,
					Headers: append(slices.Clone(r.Headers), kgo.RecordHeader{Key: "dlq.error", Value: []byte(problem)})}
				if err := cl.ProduceSync(ctx, dead).FirstErr(); err != nil && ctx.Err() == nil {
					return fail("dead-letter: %v", err)
				}
				continue
			}
			id := ""
			for _, h := range r.Headers {
				if h.Key == "ce_id" {
					id = string(h.Value)
				}
			}
			if id == "" { // structured mode
				var e struct {
					ID string `json:"id"`
				}
				_ = json.Unmarshal(r.Value, &e)
				id = e.ID
			}
			mu.Lock()
			if seen[string(r.Key)] == nil {
				seen[string(r.Key)] = map[string]bool{}
			}
			seen[string(r.Key)][id] = true
			mu.Unlock()
		}
		if len(recs) > 0 {
			if err := cl.CommitRecords(ctx, recs...); err != nil && ctx.Err() == nil {
				return fail("commit: %v", err)
			}
		}
	}
}

// TestReplayFormatsEndToEnd: a replay of generated Avro and Protobuf
// events, Confluent-framed, through the embedded broker with every fault
// kind (unknown-schema-id included) passes with a consumer that checks
// every record against the catalog and dead-letters exactly the poison
// events; in both content modes.
func TestReplayFormatsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	if testing.Short() {
		t.Skip("runs consumers")
	}
	t.Parallel()
	dir := formatsDir(t, true)
	for _, mode := range []string{"binary", "structured"} {
		t.Run(mode, func(t *testing.T) {
			text := `catalog: ` + dir + `
events: {generate: {count: 200, keys: 20, seed: 5}}
kafka: {partitions: 3, topic: formats, mode: ` + mode + `}
consumer:
  run: [` + self(t) + `, -test.run=^$]
  env: {REPLAY_TEST_FORMATS_CONSUMER: ` + dir + `}
  state: {http: "http://${EVTOOL_ADDR}/state"}
  settle_timeout: ` + settleHangBound + `
  quiet: 150ms
chaos:
  seed: 4
  duplicate: {rate: 0.2}
  reorder: {window: 8, scope: key, rate: 0.5}
  skew: {rate: 0.3}
  poison: {rate: 0.1, kinds: [invalid-data, undecodable, unknown-type, future-version, unknown-schema-id]}
expect: {dlq: {count: poison}}
`
			rep, err := replayText(t, text, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict != Pass {
				var b strings.Builder
				_ = WriteText(&b, rep)
				t.Fatalf("verdict %s:\n%s", rep.Verdict, b.String())
			}
			kinds := map[string]bool{}
			for _, run := range rep.Runs {
				for _, f := range run.Faults {
					kinds[string(f.Kind)+"/"+string(f.Poison)] = true
				}
			}
			for _, k := range []string{"skew/", "poison/unknown-schema-id", "poison/invalid-data", "poison/undecodable"} {
				if !kinds[k] {
					t.Errorf("no %s fault in the plan: %v", k, kinds)
				}
			}
		})
	}
}
