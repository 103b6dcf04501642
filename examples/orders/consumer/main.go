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
//	EVTOOL_HEARTBEAT_INTERVAL  group heartbeat interval (default 3s)
//	EVTOOL_DOWNSTREAM_EMAIL  the email service to notify of each event
//	                 (optional; see notify.go)
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
// effects committed. A commit refused because the instance was evicted
// (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID: it stalled past its session) is
// logged and the instance starts a new Kafka client, which resumes from
// the group's committed offsets: franz-go's own rejoin would go on past
// the refused records if the group gave it the same partitions back, and
// nobody would commit them. The records it reads again find their ids in
// the inbox. Every instance serves GET /state from the shared database.
//
// With -naive it has the classic bugs instead: no inbox (duplicates are
// applied twice: a payment counted twice) and last write wins (a late
// event sets the status and version back).
package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/examples/internal/exconsumer"
)

func main() {
	rejectType := flag.String("reject-type", "", "dead-letter every event of this type, as a build that does not know it would (to rehearse the redrive loop of docs/dlq.md)")
	emailConcurrency := flag.Int("email-concurrency", 8, "most notification requests in flight (with EVTOOL_DOWNSTREAM_EMAIL)")
	emailRate := flag.Float64("email-rate", 900, "most notification requests per second (with EVTOOL_DOWNSTREAM_EMAIL; 0: unbounded): keep it under the provider's limit")
	exconsumer.Main("consumer", func(ctx context.Context, env exconsumer.Env, naive bool, dlqTopic string) error {
		return run(ctx, env, naive, dlqTopic, *rejectType, *emailConcurrency, *emailRate)
	})
}

func run(ctx context.Context, env exconsumer.Env, naive bool, dlqTopic, rejectType string, emailConcurrency int, emailRate float64) error {
	st, err := openStore(filepath.Join(env.Workdir, "orders.db"), naive)
	if err != nil {
		return err
	}
	defer st.Close()
	return exconsumer.Loop[orderEvent]{
		Call:     newNotifier(emailConcurrency, emailRate, st.Seen),
		Name:     exconsumer.Mode(naive),
		DLQTopic: dlqTopic,
		Decode: func(r *kgo.Record) (orderEvent, error) {
			ev, err := decode(r)
			if err == nil && rejectType != "" && ev.Type == rejectType {
				err = &exconsumer.Reject{Kind: "unknown-type", Err: fmt.Errorf("event %q: type %s is not known to this build", ev.ID, rejectType)}
			}
			return ev, err
		},
		Apply:      st.Apply,
		State:      func(ctx context.Context) (any, error) { return st.State(ctx) },
		WriteState: st.WriteState,
	}.Run(ctx, env)
}

// decode reads the CloudEvent in a record (binary or structured mode) and
// validates it (readEvent).
func decode(r *kgo.Record) (orderEvent, error) {
	d, err := exconsumer.DecodeRecord(r)
	if err != nil {
		return orderEvent{}, err
	}
	return readEvent(d.Event)
}
