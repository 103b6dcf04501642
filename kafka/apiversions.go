package kafka

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// advertiseProduceV0 makes the brokers advertise Produce from version 0.
//
// kfake serves Produce 3 and up (record batches, magic 2), as Kafka 4.0
// does. Older librdkafka (2.0.2, Debian's kcat's) decides whether a
// broker reads gzip, Snappy and LZ4 batches by asking for Produce version 0
// in its ApiVersions ranges: without it every batch is sent uncompressed,
// whatever compression.codec says ("Broker does not support compression
// type gzip: not compressing batch"). A client that can write a record
// batch picks the highest version both sides have; one limited to message
// sets (Produce 0-2) now sends them and is answered UNSUPPORTED_VERSION,
// as Kafka 4.0 answers it.
//
// kfake has no hook on its own responses: the brokers' ApiVersions answer
// is read once here and served from then on, with Produce widened, to the
// requests it fits (versions 0-5 without the KIP-1242 cluster and node
// check); kfake answers every other one itself.
func (b *Broker) advertiseProduceV0(cfg BrokerConfig) error {
	cc := ClientConfig{Brokers: b.Addrs()[:1], DialTimeout: 10 * time.Second}
	if len(cfg.SASLUsers) > 0 {
		u := cfg.SASLUsers[0]
		cc.SASLMechanism, cc.SASLUser, cc.SASLPassword = u.Mechanism, u.User, u.Password
	}
	opts, err := cc.Options()
	if err != nil {
		return err
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = 3
	req.ClientSoftwareName, req.ClientSoftwareVersion = "evtool", "1"
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("read the embedded broker's api versions: %w", err)
	}
	if resp.ErrorCode != 0 {
		return fmt.Errorf("read the embedded broker's api versions: error code %d", resp.ErrorCode)
	}
	keys := slices.Clone(resp.ApiKeys)
	for i := range keys {
		if keys[i].ApiKey == int16(kmsg.Produce) {
			keys[i].MinVersion = 0
		}
	}
	served := *resp
	served.ApiKeys = keys
	b.cluster.ControlKey(int16(kmsg.ApiVersions), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		b.cluster.KeepControl()
		req, ok := kreq.(*kmsg.ApiVersionsRequest)
		if !ok || req.Version > 5 || (req.Version >= 3 && (!softwareName().MatchString(req.ClientSoftwareName) || !softwareName().MatchString(req.ClientSoftwareVersion))) {
			return nil, nil, false // kfake answers: a downgrade, or the error
		}
		if req.Version >= 5 && (req.ClusterID != nil || req.NodeID != -1) {
			return nil, nil, false
		}
		out := served
		out.Version = req.Version
		out.ApiKeys = slices.Clone(keys)
		return &out, nil, true
	})
	// A client limited to Produce 0-2 (message sets, Kafka 0.10 and older)
	// now sends them: kfake would drop the connection on each, and the
	// client retry until its timeout. Kafka 4.0, which advertises Produce
	// 0 for the same librdkafka, answers them UNSUPPORTED_VERSION, which
	// clients report at once.
	b.cluster.ControlKey(int16(kmsg.Produce), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		b.cluster.KeepControl()
		req, ok := kreq.(*kmsg.ProduceRequest)
		if !ok || req.Version >= 3 || req.Acks == 0 {
			return nil, nil, false // acks=0 has no response to carry the error
		}
		return unsupportedProduce(req), nil, true
	})
	return nil
}

// unsupportedProduce answers every partition of a Produce request
// UNSUPPORTED_VERSION.
func unsupportedProduce(req *kmsg.ProduceRequest) *kmsg.ProduceResponse {
	resp := req.ResponseKind().(*kmsg.ProduceResponse)
	for _, t := range req.Topics {
		rt := kmsg.NewProduceResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewProduceResponseTopicPartition()
			rp.Partition = p.Partition
			rp.ErrorCode = kerr.UnsupportedVersion.Code
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// softwareName is what a broker accepts as ApiVersions v3+'s client
// software name and version (anything else is INVALID_REQUEST, which
// kfake answers).
var softwareName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$`) })
