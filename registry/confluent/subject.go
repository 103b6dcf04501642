package confluent

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/evtool/evtool/registry"
)

// Strategy maps catalog types to registry subjects.
type Strategy string

const (
	// StrategyType names a type's subject after the type itself:
	// com.example.order.placed. The default.
	StrategyType Strategy = "type"
	// StrategyTopicType is Confluent's TopicRecordNameStrategy:
	// "<topic>-<type>", the topic taken from the type's event.yaml.
	StrategyTopicType Strategy = "topic-type"
	// StrategyTopic is Confluent's TopicNameStrategy, the serializers'
	// default: "<topic>-value", for the one type whose event.yaml has
	// that topic.
	StrategyTopic Strategy = "topic"
)

// ValueSuffix ends a subject of the topic strategy ("orders-value"); its
// "-key" sibling names key schemas, which are no catalog types.
const ValueSuffix = "-value"

// ParseStrategy accepts "type" (also the empty string), "topic-type" and
// "topic".
func ParseStrategy(s string) (Strategy, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "type":
		return StrategyType, nil
	case "topic-type", "topic_type", "topicrecordname":
		return StrategyTopicType, nil
	case "topic", "topicname":
		return StrategyTopic, nil
	}
	return "", fmt.Errorf("unknown subject strategy %q: use type, topic or topic-type", s)
}

// typeName and topicName mirror the catalog's rules (registry's loader and
// schemas/event.schema.json).
var (
	typeName  = regexp.MustCompile(`^[A-Za-z0-9]+([_-][A-Za-z0-9]+)*(\.[A-Za-z0-9]+([_-][A-Za-z0-9]+)*)*$`)
	topicName = regexp.MustCompile(`^[a-zA-Z0-9._-]{1,249}$`)
)

// validTopic reports whether Kafka accepts s as a topic name.
func validTopic(s string) bool { return topicName.MatchString(s) && s != "." && s != ".." }

// ValidTypeName reports whether s may name a catalog type (a directory of
// the catalog root).
func ValidTypeName(s string) bool { return len(s) <= 255 && typeName.MatchString(s) }

// Subject returns the subject of a type under the strategy.
func (s Strategy) Subject(t *registry.EventType) (string, error) {
	if s == StrategyType || s == "" {
		return t.Name, nil
	}
	if t.Meta.Topic == "" {
		return "", fmt.Errorf("type %s has no topic in its event.yaml, which the %s subject strategy needs (set `topic:` or use --subject-strategy type)", t.Name, s)
	}
	if s == StrategyTopic {
		return t.Meta.Topic + ValueSuffix, nil
	}
	return t.Meta.Topic + "-" + t.Name, nil
}

// Split maps a subject back to a type (and, for topic-type, its topic).
// known maps subjects of the local catalog to their types and is consulted
// first, because "<topic>-<type>" is ambiguous when either part contains
// '-'. Otherwise the type is the longest suffix after a '-' that is a valid
// type name with at least one dot and a first segment without '-'
// (my-topic-com.example.x splits as my-topic / com.example.x).
func (s Strategy) Split(subject string, known map[string]string) (typ, topic string, ok bool) {
	if t, found := known[subject]; found {
		switch s {
		case StrategyTopicType:
			return t, strings.TrimSuffix(subject, "-"+t), true
		case StrategyTopic:
			return t, strings.TrimSuffix(subject, ValueSuffix), true
		}
		return t, "", true
	}
	if s == StrategyTopic {
		return "", strings.TrimSuffix(subject, ValueSuffix), false // the type is known only from the catalog
	}
	if s != StrategyTopicType {
		if ValidTypeName(subject) {
			return subject, "", true
		}
		return "", "", false
	}
	for i := 0; i < len(subject); i++ {
		if subject[i] != '-' {
			continue
		}
		topic, typ := subject[:i], subject[i+1:]
		first, _, _ := strings.Cut(typ, ".")
		if validTopic(topic) && ValidTypeName(typ) && strings.Contains(typ, ".") && !strings.Contains(first, "-") {
			return typ, topic, true
		}
	}
	return "", "", false
}
