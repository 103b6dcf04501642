// Package kafka is the one place evtool touches Kafka plumbing: the embedded
// broker (franz-go's kfake, which no other package imports) and the client
// options (TLS, SASL, the producers' compression) every franz-go client of
// evtool is built with.
package kafka

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// BrokerConfig configures an embedded broker.
type BrokerConfig struct {
	// Addr is the first broker's listen address; further brokers take the
	// following ports. Empty or port 0 means random free ports on 127.0.0.1.
	Addr string
	// Brokers is the number of brokers (default 1).
	Brokers int
	// Partitions is the default partition count of auto-created topics
	// (default 3).
	Partitions int
	// DataDir, when set, persists the log so a restarted broker keeps its
	// topics and committed offsets.
	DataDir string
	// Topics are created at start with Partitions partitions.
	Topics []string
	// SASLUsers, when set, turn SASL on: clients must authenticate as one
	// of them (mechanism PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512).
	SASLUsers []SASLUser
}

// SASLUser is a user of an embedded broker with SASL on.
type SASLUser struct {
	Mechanism, User, Password string
}

// Broker is a running embedded Kafka cluster.
type Broker struct {
	cluster *kfake.Cluster
}

// StartBroker starts an embedded cluster and returns once it listens.
func StartBroker(cfg BrokerConfig) (*Broker, error) {
	if cfg.Brokers <= 0 {
		cfg.Brokers = 1
	}
	if cfg.Partitions <= 0 {
		cfg.Partitions = 3
	}
	host, port := "127.0.0.1", 0
	if cfg.Addr != "" {
		h, p, err := net.SplitHostPort(cfg.Addr)
		if err != nil {
			return nil, fmt.Errorf("broker address %q: %v (want host:port, e.g. 127.0.0.1:9092)", cfg.Addr, err)
		}
		port, err = strconv.Atoi(p)
		if err != nil || port < 0 || port > 65535 {
			return nil, fmt.Errorf("broker address %q: bad port %q", cfg.Addr, p)
		}
		if h != "" {
			host = h
		}
	}
	opts := []kfake.Opt{
		kfake.NumBrokers(cfg.Brokers),
		kfake.DefaultNumPartitions(cfg.Partitions),
		kfake.AllowAutoTopicCreation(),
		// kfake always asks for 127.0.0.1; honour an explicit host instead.
		kfake.ListenFn(func(network, address string) (net.Listener, error) {
			_, p, _ := net.SplitHostPort(address)
			return net.Listen(network, net.JoinHostPort(host, p))
		}),
	}
	if port != 0 {
		ports := make([]int, cfg.Brokers)
		for i := range ports {
			ports[i] = port + i
		}
		opts = append(opts, kfake.Ports(ports...))
	}
	if cfg.DataDir != "" {
		opts = append(opts, kfake.DataDir(cfg.DataDir))
	}
	if len(cfg.Topics) > 0 {
		opts = append(opts, kfake.SeedTopics(int32(cfg.Partitions), cfg.Topics...))
	}
	if len(cfg.SASLUsers) > 0 {
		opts = append(opts, kfake.EnableSASL())
		for _, u := range cfg.SASLUsers {
			opts = append(opts, kfake.Superuser(u.Mechanism, u.User, u.Password))
		}
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("start embedded broker: %w", err)
	}
	return &Broker{cluster: c}, nil
}

// Addrs returns the brokers' listen addresses (host:port).
func (b *Broker) Addrs() []string { return b.cluster.ListenAddrs() }

// Close stops the cluster, flushing its data directory if it has one.
func (b *Broker) Close() { b.cluster.Close() }

// errCommitDropped closes the connection of a dropped commit.
var errCommitDropped = errors.New("evtool: commit dropped (the consumer was killed)")

// CommitTopic is one topic of an OffsetCommit request: its name (v0-v9
// requests) or its id (v10+), and the offsets committed per partition.
type CommitTopic struct {
	Name    string
	ID      [16]byte
	Offsets map[int32]int64
}

// OnCommit calls fn with every OffsetCommit request of group, before the
// broker stores it. When fn returns true the commit is dropped (not
// stored) and the client's connection closed, as if the client had died
// before the request arrived: fn kills the client first. fn runs on the
// broker's request loop, which waits for it: it must not call the broker.
// remove stops the calls.
func (b *Broker) OnCommit(group string, fn func(topics []CommitTopic) (drop bool)) (remove func()) {
	var removed atomic.Bool
	b.cluster.ControlKey(int16(kmsg.OffsetCommit), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if removed.Load() {
			b.cluster.DropControl()
			return nil, nil, false
		}
		r, ok := req.(*kmsg.OffsetCommitRequest)
		if !ok || r.Group != group {
			return nil, nil, false
		}
		topics := make([]CommitTopic, 0, len(r.Topics))
		for _, t := range r.Topics {
			ct := CommitTopic{Name: t.Topic, ID: t.TopicID, Offsets: map[int32]int64{}}
			for _, p := range t.Partitions {
				ct.Offsets[p.Partition] = p.Offset
			}
			topics = append(topics, ct)
		}
		if !fn(topics) {
			return nil, nil, false
		}
		b.cluster.KeepControl()
		return nil, errCommitDropped, true
	})
	return func() { removed.Store(true) }
}
