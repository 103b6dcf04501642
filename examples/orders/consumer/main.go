// Command consumer is the example consumer of the orders catalog: it keeps
// a read model of orders, payments and shipments in SQLite, fed from Kafka
// through a consumer group, and serves it on GET /state. It is written to
// be run by `evtool replay` (see ../replay.yaml), which passes everything
// through the environment:
//
//	EVTOOL_BROKERS  comma-separated seed brokers
//	EVTOOL_TOPIC    topic to consume
//	EVTOOL_GROUP    consumer group
//	EVTOOL_WORKDIR  directory for the SQLite database
//	EVTOOL_ADDR     host:port to serve GET /state on
//	EVTOOL_DLQ_TOPIC  dead-letter topic (or -dlq-topic; none: log and skip)
//	EVTOOL_TLS*, EVTOOL_SASL_*  TLS and SASL settings for a real cluster
//
// By default it is correct under at-least-once delivery:
//
//   - Idempotent: every event id goes into an inbox table in the same
//     transaction as the event's effect; an event already in the inbox is
//     skipped. Payments and shipments are also keyed by their own ids.
//   - Order tolerant: orderVersion increases with every event of an order;
//     an order's status and version only move forward (an older event
//     arriving late never regresses them), and an event for an order not
//     placed yet creates the row, which the placed event completes.
//   - Offsets are committed only after the transaction that applied the
//     records has committed, so a crash redelivers instead of losing; the
//     database survives a restart (it lives in EVTOOL_WORKDIR), so
//     redelivered events find their ids in the inbox.
//   - Events are validated with the catalog's generated decoders
//     (../events): any version of a type the code knows is read (placed
//     v1 and v2 alike); an event that is not readable, of an unknown type
//     or version, or whose data its schema rejects goes to the dead-letter
//     topic with headers naming the error (dlq.error, dlq.error.kind, and
//     where it came from), and its offset is committed like any other's,
//     so a poison event never stalls its partition.
//
// It runs as several instances of one group (consumer.instances): they
// share the database in EVTOOL_WORKDIR (WAL, busy timeout, immediate
// transactions), so whichever instance owns a partition after a rebalance
// finds the inbox and the rows the previous owner wrote, and a zombie (an
// instance that stalled past its session and resumes) that applies its
// stale batch finds its events in the inbox and changes nothing. It
// blocks rebalances while it handles a batch (BlockRebalanceOnPoll) and
// commits before allowing them, so a partition moves only with its
// effects committed; a commit refused after the group moved on
// (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID) is logged, and the new owner
// redelivers those records to the inbox. Every instance serves GET /state
// from the shared database.
//
// With -naive it has the classic bugs instead: no inbox (duplicates are
// applied twice: a payment counted twice) and last write wins (a late
// event sets the status and version back).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/report"
)

func main() {
	naive := flag.Bool("naive", false, "no dedupe and last write wins (the bugs evtool replay catches)")
	dlq := flag.String("dlq-topic", os.Getenv("EVTOOL_DLQ_TOPIC"), "dead-letter topic for events that cannot be applied (default $EVTOOL_DLQ_TOPIC; none: log and skip them)")
	rejectType := flag.String("reject-type", "", "dead-letter every event of this type, as a build that does not know it would (to rehearse the redrive loop of docs/dlq.md)")
	flag.Parse()
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	log.SetPrefix("consumer: ")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *naive, *dlq, *rejectType); err != nil {
		log.Print(err)
		os.Exit(1)
	}
}

func env(name string) (string, error) {
	v := os.Getenv(name)
	if v == "" {
		return "", fmt.Errorf("%s is not set (this consumer is meant to be started by evtool replay)", name)
	}
	return v, nil
}

// batchSize caps the records applied (and committed) together.
const batchSize = 200

func run(ctx context.Context, naive bool, dlqTopic, rejectType string) error {
	var cfg struct{ brokers, topic, group, workdir, addr string }
	for _, v := range []struct {
		name string
		into *string
	}{
		{"EVTOOL_BROKERS", &cfg.brokers}, {"EVTOOL_TOPIC", &cfg.topic}, {"EVTOOL_GROUP", &cfg.group},
		{"EVTOOL_WORKDIR", &cfg.workdir}, {"EVTOOL_ADDR", &cfg.addr},
	} {
		s, err := env(v.name)
		if err != nil {
			return err
		}
		*v.into = s
	}

	st, err := openStore(filepath.Join(cfg.workdir, "orders.db"), naive)
	if err != nil {
		return err
	}
	defer st.Close()

	// The state endpoint.
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /state", func(w http.ResponseWriter, r *http.Request) {
		state, err := st.State(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(state)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()

	cc := clientConfig(strings.Split(cfg.brokers, ","))
	opts, err := cc.Options()
	if err != nil {
		return err
	}
	opts = append(opts,
		kgo.ConsumerGroup(cfg.group),
		kgo.ConsumeTopics(cfg.topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		// franz-go adds partitions assigned while a fetch long-polls only
		// when that fetch returns: with the default 5 s wait, a consumer
		// restarted with one partition caught up sits idle for 5 s before
		// it reads the others.
		kgo.FetchMaxWait(500*time.Millisecond),
	)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	mode := "correct"
	if naive {
		mode = "naive"
	}
	log.Printf("%s mode: consuming %s as group %s; state on http://%s/state; dead letters to %q", mode, cfg.topic, cfg.group, cfg.addr, dlqTopic)

	var applied, skipped, dead int64
	for {
		// Bounded batches: one transaction and one commit per batch, so
		// a crash redelivers at most one batch.
		fetches := cl.PollRecords(ctx, batchSize)
		if ctx.Err() != nil {
			cl.AllowRebalance() // or Close would wait for it
			break
		}
		if errs := fetches.Errors(); len(errs) > 0 {
			for _, e := range errs {
				if errors.Is(e.Err, context.Canceled) {
					continue
				}
				log.Printf("fetch %s/%d: %v", e.Topic, e.Partition, e.Err)
			}
		}
		recs := fetches.Records()
		if len(recs) > 0 {
			events := make([]orderEvent, 0, len(recs))
			var dlq []*kgo.Record
			for _, r := range recs {
				ev, err := decode(r)
				if err == nil && rejectType != "" && ev.Type == rejectType {
					err = &rejectError{"unknown-type", fmt.Errorf("event %q: type %s is not known to this build", ev.ID, rejectType)}
				}
				if err != nil {
					// A record this consumer cannot apply: dead-letter it
					// (or log it) and move on, so it cannot stall the
					// partition.
					if dlqTopic == "" {
						log.Printf("skipping %s/%d@%d: %v", r.Topic, r.Partition, r.Offset, err)
						continue
					}
					dlq = append(dlq, deadLetter(r, dlqTopic, err))
					continue
				}
				events = append(events, ev)
			}
			if len(dlq) > 0 {
				// Written before the offsets are committed: a crash in
				// between writes them again, never loses them.
				if err := cl.ProduceSync(ctx, dlq...).FirstErr(); err != nil {
					cl.AllowRebalance()
					if ctx.Err() != nil {
						break
					}
					return fmt.Errorf("writing %d record(s) to the dead-letter topic %s: %w", len(dlq), dlqTopic, err)
				}
				dead += int64(len(dlq))
			}
			n, err := st.Apply(ctx, events)
			if err != nil {
				cl.AllowRebalance()
				return fmt.Errorf("applying %d events: %w", len(events), err)
			}
			applied += int64(n)
			skipped += int64(len(events) - n)
			// Offsets only after the transaction committed.
			if err := cl.CommitRecords(ctx, recs...); err != nil && ctx.Err() == nil {
				log.Printf("commit: %v", err)
			}
		}
		cl.AllowRebalance()
	}
	log.Printf("stopping: %d events applied, %d skipped as duplicates, %d dead-lettered", applied, skipped, dead)
	return nil
}

// deadLetter is the DLQ record of a record that cannot be applied: its
// key, value and headers as they came, plus headers naming the error and
// where the record came from.
func deadLetter(r *kgo.Record, topic string, err error) *kgo.Record {
	kind := "unreadable"
	var re *rejectError
	if errors.As(err, &re) {
		kind = re.kind
	}
	h := append([]kgo.RecordHeader(nil), r.Headers...)
	h = append(h,
		kgo.RecordHeader{Key: "dlq.error", Value: []byte(err.Error())},
		kgo.RecordHeader{Key: "dlq.error.kind", Value: []byte(kind)},
		kgo.RecordHeader{Key: "dlq.source.topic", Value: []byte(r.Topic)},
		kgo.RecordHeader{Key: "dlq.source.partition", Value: []byte(strconv.Itoa(int(r.Partition)))},
		kgo.RecordHeader{Key: "dlq.source.offset", Value: []byte(strconv.FormatInt(r.Offset, 10))},
	)
	return &kgo.Record{Topic: topic, Key: r.Key, Value: r.Value, Headers: h}
}

// clientConfig reads the TLS and SASL settings evtool replay passes on.
func clientConfig(brokers []string) kafka.ClientConfig {
	return kafka.ClientConfigFromEnv(brokers, os.Getenv)
}

// decode reads the CloudEvent in a record (binary or structured mode) and
// validates it (readEvent).
func decode(r *kgo.Record) (orderEvent, error) {
	d, findings, err := envelope.FromRecord(r)
	if err != nil {
		return orderEvent{}, &rejectError{"undecodable", err}
	}
	if d == nil {
		return orderEvent{}, &rejectError{"undecodable", fmt.Errorf("not a readable CloudEvent: %s", firstError(findings))}
	}
	if msg := firstError(findings); msg != "" {
		return orderEvent{}, &rejectError{"undecodable", fmt.Errorf("event %q: %s", d.Event.ID(), msg)}
	}
	return readEvent(d.Event)
}

func firstError(fs []report.Finding) string {
	for _, f := range fs {
		if f.Severity == report.SeverityError {
			if f.Pointer != "" {
				return f.Pointer + ": " + f.Message
			}
			return f.Message
		}
	}
	return ""
}
