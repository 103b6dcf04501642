package schemaregistry

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format/formats"
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

// recordName splits a record-name subject into its topic (empty for
// RecordNameStrategy) and record. Avro and Protobuf names have no '-', so
// the record is what follows the last one.
func recordName(subject string) (topic, record string) {
	if i := strings.LastIndexByte(subject, '-'); i >= 0 {
		return subject[:i], subject[i+1:]
	}
	return "", subject
}

// eventRecord is the record a version declares as its event: the full name
// of an Avro schema's top-level named type, the full name of a Protobuf
// version's message; "" for JSON Schema.
func eventRecord(v *catalog.Version) string {
	if v.Compiled == nil {
		return ""
	}
	return formats.Of(v.Compiled).EventRecord(v.Compiled)
}

// recordOwners lists the types (sorted) any version of which declares
// record as its event; none for "" (a subject ending in '-'), which is
// what versions declaring no record (JSON Schema) have.
func recordOwners(cat *catalog.Catalog, record string) []*catalog.EventType {
	var out []*catalog.EventType
	if record == "" {
		return nil
	}
	for _, t := range cat.Types {
		for _, v := range t.Versions {
			if eventRecord(v) == record {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// recordSubject maps a record-name subject to the subject the server
// serves its type under. ok is false when subject names no record of the
// catalog (it is served, or refused, as it is); an error when the record is
// declared by several types, or its type cannot be reached under the
// subject's topic or the server's strategy.
func (snap *snapshot) recordSubject(subject string, strategy Strategy) (canonical string, ok bool, aerr *apiError) {
	if snap.subjects[subject] != nil || snap.shared[subject] != nil {
		return subject, false, nil
	}
	topic, record := recordName(subject)
	owners := recordOwners(snap.cat, record)
	switch {
	case len(owners) == 0:
		return "", false, nil
	case len(owners) > 1:
		names := make([]string, len(owners))
		for i, t := range owners {
			names[i] = t.Name
		}
		return "", true, apiErr(422, codeInvalidSubject, "subject %q names record %s (Confluent's RecordNameStrategy or TopicRecordNameStrategy), which %d types of the catalog declare: %s; a record-name subject must name the record of one type: give each type a record of its own, or configure the client's subject name strategy", clip(subject), record, len(owners), strings.Join(names, ", "))
	}
	t := owners[0]
	if topic != "" && t.Meta.Topic != "" && t.Meta.Topic != topic {
		return "", true, apiErr(404, codeSubjectNotFound, "subject %q names record %s of type %s, whose event.yaml has topic %q, not %q; change the topic in git, not through a subject", clip(subject), record, t.Name, t.Meta.Topic, clip(topic))
	}
	served, err := strategy.Subject(t)
	if err == nil && snap.subjects[served] != nil && snap.subjects[served].t == t {
		return served, true, nil
	}
	return "", true, apiErr(404, codeSubjectNotFound, "subject %q names record %s of type %s, which has no subject under the %s subject strategy (a topic in event.yaml, of this type only, is needed)", clip(subject), record, t.Name, strategy)
}

// requestRecords lists the records a schema request declares: the Avro
// schema's top-level named type, every message of a .proto (any may be
// the one a Protobuf serializer writes).
func requestRecords(req *schemaReq) []string {
	if p, ok := formats.ForKind(req.kind); ok {
		return p.DeclaredRecords(req.text)
	}
	return nil
}

// refuseRecordSubject refuses to create a type (or shared schema) from a
// subject that names a record the request declares, under
// TopicRecordNameStrategy, or under RecordNameStrategy for Protobuf (an
// Avro named type under its own full name is a shared schema other
// versions reference, as Confluent's clients register them).
func refuseRecordSubject(req *schemaReq, subject string) *apiError {
	topic, record := recordName(subject)
	if r, ok := registryRules(req.kind); topic == "" && (!ok || r.RecordSubjectShared()) {
		return nil
	}
	if !slices.Contains(requestRecords(req), record) {
		return nil
	}
	return apiErr(404, codeSubjectNotFound, "subject %q names record %s (Confluent's RecordNameStrategy or TopicRecordNameStrategy), which no type of the catalog declares; a record name never creates a type: add the type in git (schemas/<type>/ with the schema, and `topic:` in its event.yaml), then register its next versions under this subject", clip(subject), clip(record))
}

// subjectSegment is the index of the subject in a request path's segments
// (subjects/S..., config/S, compatibility/subjects/S/...), or -1.
func subjectSegment(segs []string) int {
	switch {
	case len(segs) >= 2 && (segs[0] == "subjects" || segs[0] == "config"):
		return 1
	case len(segs) >= 3 && segs[0] == "compatibility" && segs[1] == "subjects":
		return 2
	}
	return -1
}
