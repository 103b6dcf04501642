// Package kafka is the one place evtool touches Kafka plumbing: the embedded
// broker (franz-go's kfake, which no other package imports) and the client
// options (TLS, SASL, the producers' compression) every franz-go client of
// evtool is built with.
package kafka

import (
	"errors"
	"fmt"
	"net"
	"slices"
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
		// KIP-848 members reconcile their assignment on heartbeats: at
		// the broker default of 5 s every rebalance of a replay would
		// take seconds.
		kfake.BrokerConfigs(map[string]string{"group.consumer.heartbeat.interval.ms": "250"}),
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
	b := &Broker{cluster: c}
	if err := b.advertiseProduceV0(cfg); err != nil {
		c.Close()
		return nil, fmt.Errorf("start embedded broker: %w", err)
	}
	return b, nil
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

// Commit is one OffsetCommit request of a group: the member that sent it,
// its generation (classic groups; the member epoch of KIP-848 groups) and
// the offsets per topic.
type Commit struct {
	Member     string
	Generation int32
	Topics     []CommitTopic
}

// OnCommit calls fn with every OffsetCommit request of group, before the
// broker stores it. When fn returns true the commit is dropped (not
// stored) and the client's connection closed, as if the client had died
// before the request arrived: fn kills the client first. The broker's
// request loop waits for fn; it still serves Group, so fn may read the
// group's state (which holds every request handled before this one), but
// must not send requests to the broker.
// remove stops the calls.
func (b *Broker) OnCommit(group string, fn func(topics []CommitTopic) (drop bool)) (remove func()) {
	return b.OnGroupCommit(group, func(c Commit) bool { return fn(c.Topics) })
}

// OnGroupCommit is OnCommit with the request's member and generation.
func (b *Broker) OnGroupCommit(group string, fn func(c Commit) (drop bool)) (remove func()) {
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
		c := Commit{Member: r.MemberID, Generation: r.Generation, Topics: make([]CommitTopic, 0, len(r.Topics))}
		for _, t := range r.Topics {
			ct := CommitTopic{Name: t.Topic, ID: t.TopicID, Offsets: map[int32]int64{}}
			for _, p := range t.Partitions {
				ct.Offsets[p.Partition] = p.Offset
			}
			c.Topics = append(c.Topics, ct)
		}
		if !fn(c) {
			return nil, nil, false
		}
		b.cluster.KeepControl()
		return nil, errCommitDropped, true
	})
	return func() { removed.Store(true) }
}

// GroupRequest is a group-membership request the broker received: a
// classic JoinGroup (with the protocols, i.e. balancers, the member
// offers), SyncGroup, Heartbeat or LeaveGroup, or a KIP-848
// ConsumerGroupHeartbeat (with its server-side assignor, empty for the
// broker's default).
type GroupRequest struct {
	// Kind is JoinGroup, SyncGroup, Heartbeat, LeaveGroup or
	// ConsumerGroupHeartbeat.
	Kind       string
	Member     string
	Generation int32
	// Protocols are a JoinGroup's protocol names, in the member's order.
	Protocols []string
	// Assignor is a ConsumerGroupHeartbeat's server assignor.
	Assignor string
	// Left are the members a LeaveGroup removes.
	Left []string
}

// OnGroupRequest calls fn with every membership request of group (it
// observes only: the broker handles them as usual). fn runs on the
// broker's request loop and must not call the broker. remove stops it.
func (b *Broker) OnGroupRequest(group string, fn func(GroupRequest)) (remove func()) {
	var removed atomic.Bool
	observe := func(req kmsg.Request) (kmsg.Response, error, bool) {
		if removed.Load() {
			b.cluster.DropControl()
			return nil, nil, false
		}
		switch r := req.(type) {
		case *kmsg.JoinGroupRequest:
			if r.Group == group {
				g := GroupRequest{Kind: "JoinGroup", Member: r.MemberID}
				for _, p := range r.Protocols {
					g.Protocols = append(g.Protocols, p.Name)
				}
				fn(g)
			}
		case *kmsg.SyncGroupRequest:
			if r.Group == group {
				fn(GroupRequest{Kind: "SyncGroup", Member: r.MemberID, Generation: r.Generation})
			}
		case *kmsg.HeartbeatRequest:
			if r.Group == group {
				fn(GroupRequest{Kind: "Heartbeat", Member: r.MemberID, Generation: r.Generation})
			}
		case *kmsg.LeaveGroupRequest:
			if r.Group == group {
				g := GroupRequest{Kind: "LeaveGroup", Member: r.MemberID}
				if r.MemberID != "" {
					g.Left = append(g.Left, r.MemberID)
				}
				for _, m := range r.Members {
					g.Left = append(g.Left, m.MemberID)
				}
				fn(g)
			}
		case *kmsg.ConsumerGroupHeartbeatRequest:
			if r.Group == group {
				g := GroupRequest{Kind: "ConsumerGroupHeartbeat", Member: r.MemberID, Generation: r.MemberEpoch}
				if r.ServerAssignor != nil {
					g.Assignor = *r.ServerAssignor
				}
				fn(g)
			}
		}
		return nil, nil, false
	}
	for _, k := range []kmsg.Key{kmsg.JoinGroup, kmsg.SyncGroup, kmsg.Heartbeat, kmsg.LeaveGroup, kmsg.ConsumerGroupHeartbeat} {
		b.cluster.ControlKey(int16(k), observe)
	}
	return func() { removed.Store(true) }
}

// GroupState is a snapshot of a consumer group on the embedded broker.
type GroupState struct {
	// State is Empty, PreparingRebalance, CompletingRebalance, Stable...;
	// Generation the classic generation or the KIP-848 group epoch.
	State      string
	Generation int32
	Members    []GroupMember
	// Committed holds the committed offsets of topic.
	Committed map[int32]int64
}

// GroupMember is a member of a group and the partitions of topic it owns.
type GroupMember struct {
	ID, ClientID string
	// ClientHost is the member's connection as the broker sees it
	// (host:port of the client's end).
	ClientHost string
	Partitions []int32
}

// Group returns a snapshot of group with its assignment and commits on
// topic (nil: no such group). It must not be called from a hook.
func (b *Broker) Group(group, topic string) *GroupState {
	gi := b.cluster.GroupInfo(group)
	if gi == nil {
		return nil
	}
	st := &GroupState{State: gi.State, Generation: gi.Epoch, Committed: map[int32]int64{}}
	for _, m := range gi.Members {
		ps := slices.Clone(m.Assignment[topic])
		slices.Sort(ps)
		st.Members = append(st.Members, GroupMember{ID: m.MemberID, ClientID: m.ClientID, ClientHost: m.ClientHost, Partitions: ps})
	}
	for p, c := range gi.Commits[topic] {
		st.Committed[p] = c.Offset
	}
	return st
}
