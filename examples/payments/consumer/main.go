// Command consumer is the example consumer of the payments catalog (Avro):
// it keeps a ledger of payments, refunds and account totals in SQLite, fed
// from Kafka through a consumer group, and serves it on GET /state. It is
// written to be run by `evtool replay` (see ../replay.yaml), which passes
// EVTOOL_BROKERS, EVTOOL_TOPIC, EVTOOL_GROUP, EVTOOL_WORKDIR, EVTOOL_ADDR
// and EVTOOL_DLQ_TOPIC.
//
// Every record is read as a CloudEvent and checked against the embedded
// catalog (../catalog.go): the dataschema names the writer's version, and
// the data (Avro binary, Confluent framing optional, or Avro's JSON
// encoding) is resolved to the newest version of its type by Avro's
// schema resolution, so v1, v2 and v3 payloads all arrive as v3 values.
// Records it cannot read (an unknown type or version, bytes that are no
// datum of the writer's schema) go to the dead-letter topic with headers
// naming the error, and their offsets are committed like any other's.
//
// By default it is correct under at-least-once delivery: each event id
// goes into an inbox table in the transaction of its effect, refunds are
// keyed by refundId, a payment's status follows its highest sequence, and
// offsets are committed only after that transaction. With -naive it has
// the classic bugs: no inbox (a redelivered refund is counted twice) and
// last write wins (a late event sets a payment's status back).
package main

import (
	"context"
	"path/filepath"

	"github.com/evtool/evtool/examples/internal/exconsumer"
)

func main() { exconsumer.Main("payments consumer", run) }

func run(ctx context.Context, env exconsumer.Env, naive bool, dlqTopic string) error {
	dec, err := newDecoder()
	if err != nil {
		return err
	}
	st, err := openStore(filepath.Join(env.Workdir, "payments.db"), naive)
	if err != nil {
		return err
	}
	defer st.Close()
	return exconsumer.Loop[paymentEvent]{
		Call:     st.notifier(),
		Name:     exconsumer.Mode(naive),
		DLQTopic: dlqTopic,
		Decode:   dec.decode,
		Apply:    st.Apply,
		State:    func(ctx context.Context) (any, error) { return st.State(ctx) },
		// Small batches, so that the crashes of a replay of a hundred
		// events strike between commits.
		BatchSize: 20,
	}.Run(ctx, env)
}
