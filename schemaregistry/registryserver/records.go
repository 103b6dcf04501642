package registryserver

import (
	"slices"
	"strings"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/schemaregistry"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
)

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
func (snap *snapshot) recordSubject(subject string, strategy schemaregistry.Strategy) (canonical string, ok bool, aerr *apiError) {
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
		return "", true, apiErr(422, codeInvalidSubject, "subject %q names record %s (Confluent's RecordNameStrategy or TopicRecordNameStrategy), which %d types of the catalog declare: %s; a record-name subject must name the record of one type: give each type a record of its own, or configure the client's subject name strategy", wire.Clip(subject), record, len(owners), strings.Join(names, ", "))
	}
	t := owners[0]
	if topic != "" && t.Meta.Topic != "" && t.Meta.Topic != topic {
		return "", true, apiErr(404, codeSubjectNotFound, "subject %q names record %s of type %s, whose event.yaml has topic %q, not %q; change the topic in git, not through a subject", wire.Clip(subject), record, t.Name, t.Meta.Topic, wire.Clip(topic))
	}
	served, err := strategy.Subject(t)
	if err == nil && snap.subjects[served] != nil && snap.subjects[served].t == t {
		return served, true, nil
	}
	return "", true, apiErr(404, codeSubjectNotFound, "subject %q names record %s of type %s, which has no subject under the %s subject strategy (a topic in event.yaml, of this type only, is needed)", wire.Clip(subject), record, t.Name, strategy)
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
	if r, ok := wire.RegistryRules(req.kind); topic == "" && (!ok || r.RecordSubjectShared()) {
		return nil
	}
	if !slices.Contains(requestRecords(req), record) {
		return nil
	}
	return apiErr(404, codeSubjectNotFound, "subject %q names record %s (Confluent's RecordNameStrategy or TopicRecordNameStrategy), which no type of the catalog declares; a record name never creates a type: add the type in git (schemas/<type>/ with the schema, and `topic:` in its event.yaml), then register its next versions under this subject", wire.Clip(subject), wire.Clip(record))
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
