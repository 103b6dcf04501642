package replay

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/evtool/evtool/kafka"
)

// groupState reads a group with its assignment on topic ("": none): from
// the embedded broker, else through the admin API — DescribeGroups for a
// classic group, ConsumerGroupDescribe for a KIP-848 one — with the
// protocol the group runs (a classic group shows only the balancer it
// chose). Committed offsets are left out on a real cluster (OffsetFetch:
// committed). nil: no such group yet.
func (h *Harness) groupState(ctx context.Context, group, topic string, topicID [16]byte) (*kafka.GroupState, GroupProtocol, error) {
	if h.embedded != nil {
		return h.embedded.Group(group, topic), GroupProtocol{}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	described, err := h.adm.DescribeGroups(ctx, group)
	if err != nil {
		return nil, GroupProtocol{}, err
	}
	// A KIP-848 group is not a classic group: DescribeGroups answers
	// GROUP_ID_NOT_FOUND, or (kfake) its state without members.
	if g, ok := described[group]; ok && g.Err == nil && (g.ProtocolType != "" || len(g.Members) > 0) {
		st := &kafka.GroupState{State: g.State, Generation: -1}
		proto := GroupProtocol{Protocol: "classic"}
		if g.Protocol != "" {
			proto.Balancers = []string{g.Protocol}
		}
		for _, m := range g.Members {
			gm := kafka.GroupMember{ID: m.MemberID, ClientID: m.ClientID, ClientHost: m.ClientHost}
			if c, ok := m.Assigned.AsConsumer(); ok {
				for _, t := range c.Topics {
					if t.Topic == topic {
						gm.Partitions = append(gm.Partitions, t.Partitions...)
					}
				}
			}
			slices.Sort(gm.Partitions)
			st.Members = append(st.Members, gm)
		}
		return st, proto, nil
	}
	return h.consumerGroupState(ctx, group, topic, topicID)
}

// consumerGroupState reads a KIP-848 group with ConsumerGroupDescribe
// (kadm's DescribeConsumerGroups keeps topic names only; a broker may send
// topic ids alone).
func (h *Harness) consumerGroupState(ctx context.Context, group, topic string, topicID [16]byte) (*kafka.GroupState, GroupProtocol, error) {
	req := kmsg.NewPtrConsumerGroupDescribeRequest()
	req.Groups = []string{group}
	resp, err := req.RequestWith(ctx, h.cl)
	if err != nil {
		return nil, GroupProtocol{}, err
	}
	for _, g := range resp.Groups {
		if g.Group != group {
			continue
		}
		if err := kerr.ErrorForCode(g.ErrorCode); err != nil {
			if errors.Is(err, kerr.GroupIDNotFound) {
				return nil, GroupProtocol{}, nil
			}
			return nil, GroupProtocol{}, err
		}
		st := &kafka.GroupState{State: g.State, Generation: g.Epoch}
		proto := GroupProtocol{Protocol: "consumer (KIP-848)"}
		if g.AssignorName != "" {
			proto.Balancers = []string{g.AssignorName}
		}
		for _, m := range g.Members {
			gm := kafka.GroupMember{ID: m.MemberID, ClientID: m.ClientID, ClientHost: m.ClientHost}
			for _, tp := range m.Assignment.TopicPartitions {
				if topic != "" && (tp.Topic == topic || tp.Topic == "" && tp.TopicID == topicID) {
					gm.Partitions = append(gm.Partitions, tp.Partitions...)
				}
			}
			slices.Sort(gm.Partitions)
			st.Members = append(st.Members, gm)
		}
		return st, proto, nil
	}
	return nil, GroupProtocol{}, nil
}
