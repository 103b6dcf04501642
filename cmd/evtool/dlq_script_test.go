package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/dlq"
	"github.com/evtool/evtool/dlq/dlqtest"
	"github.com/evtool/evtool/internal/gobuild"
	"github.com/evtool/evtool/internal/waitfor"
	"github.com/evtool/evtool/kafka"
)

// dlqScriptCmds are the script commands of dead letters and of the
// example consumer (the scripts of testdata/script/dlq):
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
//	produceevents FILE N
//	    write the first N events of the JSONL FILE to orders (binary mode,
//	    keyed by subject)
//	ordersconsumer start [FLAG...] | stop
//	    start the example consumer (examples/orders/consumer) on orders
//	    as group orders-consumer, dead letters to orders.dlq, its database
//	    in $WORK/orders (kept across restarts); stop it with SIGTERM.
//	    The first start builds the consumer (once per directory of
//	    scripts): scripts that do not start it never build it
//	waitconsumed
//	    wait (up to 60s) until group orders-consumer committed past the
//	    last record of every partition of orders
//	ordersshipped N
//	    fail unless the consumer's state has N orders shipped
//	dlqheaders KEY VALUE...
//	    write a record to orders.dlq with these headers (VALUE in Go
//	    string syntax, "\x00\x01" for bytes)
func dlqScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"dlqheaders": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) == 0 || len(args)%2 != 0 {
				ts.Fatalf("usage: dlqheaders KEY VALUE...")
			}
			r := &kgo.Record{Topic: "orders.dlq", Value: []byte("x")}
			for i := 0; i < len(args); i += 2 {
				v, err := strconv.Unquote(`"` + args[i+1] + `"`)
				ts.Check(err)
				r.Headers = append(r.Headers, kgo.RecordHeader{Key: args[i], Value: []byte(v)})
			}
			ts.Check(dlqtest.Produce(context.Background(), scriptClient(ts), r))
		},
		"produceevents": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 2 {
				ts.Fatalf("usage: produceevents FILE N")
			}
			n, err := strconv.Atoi(args[1])
			ts.Check(err)
			data, err := os.ReadFile(ts.MkAbs(args[0]))
			ts.Check(err)
			var recs []*kgo.Record
			for i, line := range bytes.SplitN(data, []byte("\n"), n+1)[:n] {
				r, err := dlqtest.EventRecord(context.Background(), line, "orders")
				ts.Check(err)
				r.Partition = int32(i % 3)
				recs = append(recs, r)
			}
			ts.Check(dlqtest.Produce(context.Background(), scriptClient(ts), recs...))
		},
		"ordersconsumer": func(ts *testscript.TestScript, neg bool, args []string) {
			p := ts.Value(ordersConsumerKey{}).(*ordersConsumer)
			switch {
			case len(args) >= 1 && args[0] == "start":
				if p.cmd != nil {
					ts.Fatalf("the consumer is running")
				}
				l, err := net.Listen("tcp", "127.0.0.1:0")
				ts.Check(err)
				p.addr = l.Addr().String()
				l.Close()
				exe, err := p.exe.path()
				ts.Check(err)
				cmd := exec.Command(exe, args[1:]...)
				cmd.Env = append(os.Environ(), "EVTOOL_BROKERS="+ts.Getenv("BROKERS"), "EVTOOL_TOPIC=orders", "EVTOOL_GROUP=orders-consumer",
					"EVTOOL_WORKDIR="+ts.MkAbs("orders"), "EVTOOL_ADDR="+p.addr, "EVTOOL_DLQ_TOPIC=orders.dlq")
				cmd.Stderr = &p.log
				ts.Check(os.MkdirAll(ts.MkAbs("orders"), 0o755))
				ts.Check(cmd.Start())
				p.cmd = cmd
				ts.Defer(p.stop)
			case len(args) == 1 && args[0] == "stop":
				if p.cmd == nil {
					ts.Fatalf("the consumer is not running")
				}
				p.stop()
				ts.Logf("consumer log:\n%s", p.log.String())
			default:
				ts.Fatalf("usage: ordersconsumer start [FLAG...] | stop")
			}
		},
		"waitconsumed": func(ts *testscript.TestScript, neg bool, args []string) {
			adm := scriptAdmin(ts)
			defer adm.Close()
			ctx := context.Background()
			if !waitfor.Condition(60*time.Second, func() bool {
				// The end is after each partition's last record, not the high
				// watermark: a transaction's commit marker takes the offset
				// after its last record, and a consumer commits only past
				// the records it read (redrive writes in transactions).
				ends := map[int32]int64{}
				for _, r := range readTopic(ts, "orders") {
					ends[r.Partition] = max(ends[r.Partition], r.Offset+1)
				}
				offs, err := adm.FetchOffsets(ctx, "orders-consumer")
				if err != nil {
					return false
				}
				for p, end := range ends {
					if c, ok := offs.Lookup("orders", p); !ok || c.At < end {
						return false
					}
				}
				return true
			}) {
				ts.Fatalf("group orders-consumer did not consume orders in 60s")
			}
		},
		"ordersshipped": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 1 {
				ts.Fatalf("usage: ordersshipped N")
			}
			want, err := strconv.Atoi(args[0])
			ts.Check(err)
			p := ts.Value(ordersConsumerKey{}).(*ordersConsumer)
			var got int
			if !waitfor.Condition(30*time.Second, func() bool {
				resp, err := http.Get("http://" + p.addr + "/state")
				if err != nil {
					return false
				}
				var st struct {
					Orders map[string]struct {
						Status string `json:"status"`
					} `json:"orders"`
				}
				err = json.NewDecoder(resp.Body).Decode(&st)
				resp.Body.Close()
				if err != nil {
					return false
				}
				got = 0
				for _, o := range st.Orders {
					if o.Status == "shipped" {
						got++
					}
				}
				return got == want
			}) {
				ts.Fatalf("%d orders shipped, want %d", got, want)
			}
		},
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
			adm := scriptAdmin(ts)
			defer adm.Close()
			if !waitfor.Condition(30*time.Second, func() bool {
				offs, err := adm.FetchOffsets(context.Background(), args[0])
				if err != nil || offs.Error() != nil {
					return false
				}
				o, ok := offs.Lookup("orders.dlq", 0)
				return ok && o.At > 0
			}) {
				ts.Fatalf("group %s committed nothing in 30s", args[0])
			}
		},
	}
}

type ordersConsumerKey struct{}

// ordersConsumer is the example consumer a script runs.
type ordersConsumer struct {
	exe  *lazyExecutable
	cmd  *exec.Cmd
	addr string
	log  bytes.Buffer
}

// lazyExecutable is a main package of the module, built on first use and
// once for all the scripts that share it (one asking meanwhile waits).
type lazyExecutable struct {
	dir, pkg string // gobuild.Executable's arguments

	once sync.Once
	exe  string
	err  error
}

func (l *lazyExecutable) path() (string, error) {
	l.once.Do(func() { l.exe, l.err = gobuild.Executable(l.dir, l.pkg) })
	return l.exe, l.err
}

func (p *ordersConsumer) stop() {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
	p.cmd = nil
}

func scriptClient(ts *testscript.TestScript) kafka.ClientConfig {
	return kafka.ClientConfig{Brokers: []string{ts.Getenv("BROKERS")}}
}

// scriptAdmin is an admin client of the script's broker.
func scriptAdmin(ts *testscript.TestScript) *kadm.Client {
	o, err := scriptClient(ts).Options()
	ts.Check(err)
	cl, err := kgo.NewClient(o...)
	ts.Check(err)
	return kadm.NewClient(cl)
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
