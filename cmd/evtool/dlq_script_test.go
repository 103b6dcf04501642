package main

import (
	"context"
	"errors"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/dlq"
	"github.com/evtool/evtool/dlq/dlqtest"
	"github.com/evtool/evtool/kafka"
)

// dlqScriptCmds are the testscript commands of the dlq scripts:
//
//	dlqbroker
//	    start an embedded broker with topics orders and orders.dlq (3
//	    partitions each) for the rest of the script; set $BROKERS
//	dlqseed [-extra N]
//	    write example events to orders and a dead letter of each to
//	    orders.dlq, one per convention (see dlqtest.Seed)
//	deadletteragain
//	    dead-letter the last record of orders again (evtool convention),
//	    as a consumer that still fails on a redriven event does
//	topiccount TOPIC N
//	    fail unless TOPIC holds N records
//	waitcommit GROUP
//	    wait (up to 30s) until GROUP committed progress on orders.dlq
var dlqScriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"dlqbroker": func(ts *testscript.TestScript, neg bool, args []string) {
		b, err := kafka.StartBroker(kafka.BrokerConfig{Partitions: 3, Topics: []string{"orders", "orders.dlq"}})
		ts.Check(err)
		ts.Defer(b.Close)
		addrs := b.Addrs()
		ts.Setenv("BROKERS", addrs[0])
	},
	"dlqseed": func(ts *testscript.TestScript, neg bool, args []string) {
		extra := 0
		if len(args) == 2 && args[0] == "-extra" {
			n, err := strconv.Atoi(args[1])
			ts.Check(err)
			extra = n
		} else if len(args) != 0 {
			ts.Fatalf("usage: dlqseed [-extra N]")
		}
		events, err := os.ReadFile(ts.Getenv("EXAMPLES") + "/orders/events.jsonl")
		ts.Check(err)
		_, err = dlqtest.Seed(context.Background(), scriptClient(ts), events, extra)
		ts.Check(err)
	},
	"deadletteragain": func(ts *testscript.TestScript, neg bool, args []string) {
		recs := readTopic(ts, "orders")
		if len(recs) == 0 {
			ts.Fatalf("orders is empty")
		}
		last := recs[0]
		for _, r := range recs {
			if r.Timestamp.After(last.Timestamp) || r.Timestamp.Equal(last.Timestamp) && r.Offset > last.Offset {
				last = r
			}
		}
		ts.Check(dlqtest.Produce(context.Background(), scriptClient(ts), dlqtest.DeadLetter(last, "orders.dlq", dlq.ConventionEvtool, "unknown-version", "still failing")))
	},
	"topiccount": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: topiccount TOPIC N")
		}
		want, err := strconv.Atoi(args[1])
		ts.Check(err)
		if got := len(readTopic(ts, args[0])); (got == want) == neg {
			ts.Fatalf("%s holds %d records, want %d", args[0], got, want)
		}
	},
	"waitcommit": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: waitcommit GROUP")
		}
		o, err := scriptClient(ts).Options()
		ts.Check(err)
		cl, err := kgo.NewClient(o...)
		ts.Check(err)
		defer cl.Close()
		adm := kadm.NewClient(cl)
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			offs, err := adm.FetchOffsets(context.Background(), args[0])
			if err == nil && offs.Error() == nil {
				if o, ok := offs.Lookup("orders.dlq", 0); ok && o.At > 0 {
					return
				}
			}
		}
		ts.Fatalf("group %s committed nothing in 30s", args[0])
	},
}

func scriptClient(ts *testscript.TestScript) kafka.ClientConfig {
	return kafka.ClientConfig{Brokers: []string{ts.Getenv("BROKERS")}}
}

func readTopic(ts *testscript.TestScript, topic string) []*kgo.Record {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := kafka.OpenTopics(ctx, scriptClient(ts), kafka.ReadOptions{Topics: []string{topic}})
	ts.Check(err)
	defer r.Close()
	var out []*kgo.Record
	for {
		rec, err := r.Next(ctx)
		if errors.Is(err, kafka.ErrEnd) {
			return out
		}
		ts.Check(err)
		out = append(out, rec)
	}
}

// TestDLQScripts runs the scripts of evtool dlq in testdata/script/dlq,
// each against an embedded broker of its own.
func TestDLQScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "../../testdata/script/dlq",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Cmds:                dlqScriptCmds,
		Setup: func(env *testscript.Env) error {
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			env.Setenv("EXAMPLES", wd+"/../../examples")
			return nil
		},
	})
}
