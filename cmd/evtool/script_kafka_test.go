package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/kafka"
)

// kafkaBrokerCmd: kafka-broker PARTITIONS starts the script's embedded
// broker (topics created on first use with PARTITIONS partitions), its
// address in $BROKERS.
func kafkaBrokerCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: kafka-broker PARTITIONS")
	}
	parts, err := strconv.Atoi(args[0])
	ts.Check(err)
	scriptBroker(ts, parts)
}

// scriptBroker starts the script's broker once and returns its addresses.
func scriptBroker(ts *testscript.TestScript, parts int) string {
	addrs := ts.Getenv("BROKERS")
	if addrs == "" {
		b, err := kafka.StartBroker(kafka.BrokerConfig{Partitions: parts})
		ts.Check(err)
		ts.Defer(b.Close)
		addrs = strings.Join(b.Addrs(), ",")
		ts.Setenv("BROKERS", addrs)
	}
	return addrs
}

// kafkaTopicCmd: kafka-topic NAME PARTITIONS FILE starts an embedded
// broker for the script (once; its address goes in $BROKERS) and fills
// topic NAME with the records of FILE, one JSON line each:
// {"partition": 0, "key": "...", "headers": {"ce_id": "..."}, "value": "..."}
// (value a string, or any JSON value written as its JSON text).
func kafkaTopicCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: kafka-topic NAME PARTITIONS FILE")
	}
	parts, err := strconv.Atoi(args[1])
	ts.Check(err)
	addrs := scriptBroker(ts, parts)
	opts, err := kafka.ClientConfig{Brokers: strings.Split(addrs, ",")}.Options()
	ts.Check(err)
	cl, err := kgo.NewClient(append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.AllowAutoTopicCreation())...)
	ts.Check(err)
	defer cl.Close()
	data, err := os.ReadFile(ts.MkAbs(args[2]))
	ts.Check(err)
	var recs []*kgo.Record
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var line struct {
			Partition int32             `json:"partition"`
			Key       *string           `json:"key"`
			Headers   map[string]string `json:"headers"`
			Value     json.RawMessage   `json:"value"`
		}
		ts.Check(json.Unmarshal(sc.Bytes(), &line))
		r := &kgo.Record{Topic: args[0], Partition: line.Partition}
		if line.Key != nil {
			r.Key = []byte(*line.Key)
		}
		var s string
		if json.Unmarshal(line.Value, &s) == nil {
			r.Value = []byte(s)
		} else {
			r.Value = line.Value
		}
		for k, v := range line.Headers {
			r.Headers = append(r.Headers, kgo.RecordHeader{Key: k, Value: []byte(v)})
		}
		recs = append(recs, r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ts.Check(cl.ProduceSync(ctx, recs...).FirstErr())
}
