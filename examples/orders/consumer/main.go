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
//     records has committed, so a crash redelivers instead of losing.
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
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/kafka"
)

func main() {
	naive := flag.Bool("naive", false, "no dedupe and last write wins (the bugs evtool replay catches)")
	flag.Parse()
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	log.SetPrefix("consumer: ")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *naive); err != nil {
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

func run(ctx context.Context, naive bool) error {
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
	log.Printf("%s mode: consuming %s as group %s; state on http://%s/state", mode, cfg.topic, cfg.group, cfg.addr)

	var applied, skipped int64
	for {
		fetches := cl.PollFetches(ctx)
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
			for _, r := range recs {
				ev, err := decode(r)
				if err != nil {
					// A record this consumer cannot read: log and move on,
					// so it cannot stall the partition.
					log.Printf("skipping %s/%d@%d: %v", r.Topic, r.Partition, r.Offset, err)
					continue
				}
				events = append(events, ev)
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
	log.Printf("stopping: %d events applied, %d skipped as duplicates", applied, skipped)
	return nil
}

// clientConfig reads the TLS and SASL settings evtool replay passes on.
func clientConfig(brokers []string) kafka.ClientConfig {
	return kafka.ClientConfig{
		Brokers:       brokers,
		TLS:           os.Getenv("EVTOOL_TLS") != "",
		TLSCAFile:     os.Getenv("EVTOOL_TLS_CA"),
		TLSCertFile:   os.Getenv("EVTOOL_TLS_CERT"),
		TLSKeyFile:    os.Getenv("EVTOOL_TLS_KEY"),
		TLSServerName: os.Getenv("EVTOOL_TLS_SERVER_NAME"),
		TLSInsecure:   os.Getenv("EVTOOL_TLS_INSECURE") != "",
		SASLMechanism: os.Getenv("EVTOOL_SASL_MECHANISM"),
		SASLUser:      os.Getenv("EVTOOL_SASL_USER"),
		SASLPassword:  os.Getenv("EVTOOL_SASL_PASSWORD"),
	}
}

// decode reads the CloudEvent in a record (binary or structured mode).
func decode(r *kgo.Record) (orderEvent, error) {
	d, findings, err := envelope.FromRecord(r)
	if err != nil {
		return orderEvent{}, err
	}
	if d == nil {
		return orderEvent{}, fmt.Errorf("not a readable CloudEvent: %v", findings)
	}
	return parseEvent(d.Event.ID(), d.Event.Type(), d.Event.Data())
}
