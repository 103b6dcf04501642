package schemaregistry

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/evtool/evtool/catalog"
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

// topicName mirrors metaschema/event.schema.json's topic rule; its
// 249-byte bound is checked apart because a bounded repetition costs
// thousands of allocations at start-up.
var topicName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9._-]+$`) })

// validTopic reports whether Kafka accepts s as a topic name.
func validTopic(s string) bool {
	return len(s) <= 249 && topicName().MatchString(s) && s != "." && s != ".."
}

// Subject returns the subject of a type under the strategy.
func (s Strategy) Subject(t *catalog.EventType) (string, error) {
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
		if catalog.ValidTypeName(subject) {
			return subject, "", true
		}
		return "", "", false
	}
	// The topic has at most 249 bytes: looking further costs a regexp
	// match per '-' of a subject as long as a request line.
	for i := 0; i < len(subject) && i <= 249; i++ {
		if subject[i] != '-' {
			continue
		}
		topic, typ := subject[:i], subject[i+1:]
		first, _, _ := strings.Cut(typ, ".")
		if validTopic(topic) && catalog.ValidTypeName(typ) && strings.Contains(typ, ".") && !strings.Contains(first, "-") {
			return typ, topic, true
		}
	}
	return "", "", false
}

// Record-name subjects. Confluent's serializers name a subject after the
// record they write when configured with RecordNameStrategy ("<record>")
// or TopicRecordNameStrategy ("<topic>-<record>"), the record being an Avro
// record's full name or a Protobuf message's fully-qualified name. Such a
// subject is the catalog type whose versions declare that record as their
// event (the Avro schema's top-level record, the Protobuf version's event
// message), whatever strategy the server maps its own subjects with; a
// record name never creates a type, as the catalog's type names are chosen
// in git.
