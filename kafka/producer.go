package kafka

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// OpenProducer returns a client producing to topic, once the cluster
// answered. A topic that does not exist is created only if the cluster
// creates topics on first use (auto.create.topics.enable; the embedded
// broker does), as kcat's producer does. Keyed records go to partitions
// as Java's default partitioner places them (murmur2), so that a key lands
// where other clients put it.
func OpenProducer(ctx context.Context, cc ClientConfig, topic string, wait time.Duration) (*kgo.Client, error) {
	base, err := cc.Options()
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(append(base,
		kgo.DefaultProduceTopic(topic),
		kgo.AllowAutoTopicCreation(),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)),
	)...)
	if err != nil {
		return nil, err
	}
	if err := WaitReachable(ctx, cl, cc.Brokers, wait); err != nil {
		cl.Close()
		return nil, err
	}
	return cl, nil
}
