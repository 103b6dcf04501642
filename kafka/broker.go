// Package kafka is the one place evtool touches Kafka plumbing: the embedded
// broker (franz-go's kfake, which no other package imports) and the client
// options (TLS, SASL) every franz-go client of evtool is built with.
package kafka

import (
	"fmt"
	"net"
	"strconv"

	"github.com/twmb/franz-go/pkg/kfake"
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
