// Command consumer is the example consumer of the inventory catalog
// (Protobuf): it keeps stock per SKU and bin in SQLite, fed from Kafka
// through a consumer group, and serves it on GET /state. It is written to
// be run by `evtool replay` (see ../replay.yaml), which passes
// EVTOOL_BROKERS, EVTOOL_TOPIC, EVTOOL_GROUP, EVTOOL_WORKDIR, EVTOOL_ADDR
// and EVTOOL_DLQ_TOPIC.
//
// Every record is read as a CloudEvent and checked against the embedded
// catalog (../catalog.go) with the version its dataschema names, then
// decoded the Protobuf way: with the newest version's descriptor
// (dynamicpb through evtool's format/protobuf), which reads the binary of
// every older version (Confluent framing with message indexes accepted)
// and its JSON mapping. Records it cannot read go to the dead-letter topic
// with headers naming the error, and their offsets are committed.
//
// By default it is correct under at-least-once delivery: each event id
// goes into an inbox table in the transaction of its effect, receipts and
// reservations are keyed by their ids, a bin's count follows the highest
// revision, and offsets are committed only after that transaction. With
// -naive it has the classic bugs: no inbox (a redelivered receipt is
// counted twice) and last write wins (a late stock take sets the count
// back).
package main

import (
	"context"
	"path/filepath"

	"github.com/evtool/evtool/examples/internal/exconsumer"
)

func main() { exconsumer.Main("inventory consumer", run) }

func run(ctx context.Context, env exconsumer.Env, naive bool, dlqTopic string) error {
	dec, err := newDecoder()
	if err != nil {
		return err
	}
	st, err := openStore(filepath.Join(env.Workdir, "inventory.db"), naive)
	if err != nil {
		return err
	}
	defer st.Close()
	return exconsumer.Loop[stockEvent]{
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
