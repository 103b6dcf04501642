package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"sync"

	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonstrict"
)

// Mutator builds what skew and poison faults deliver, from a catalog: the
// versions an event may be re-emitted as, the re-emitted event, and the
// poison events. A nil *Mutator works without a catalog: no event has
// another version, and poison events are built without schemas. It is
// safe for concurrent use.
type Mutator struct {
	cat *catalog.Catalog
	// cands[type][v-1]: the versions an event at v may be re-emitted as.
	cands map[string][]chaos.VersionSet
	ds    sync.Map // dataschema string -> *catalog.Version (nil: unknown)
	// ids are the catalog's registry schema ids (Avro and Protobuf data
	// is framed under them); idsErr says why they could not be read.
	ids    *catalog.SchemaIDs
	idsErr error
}

// NewMutator indexes a catalog's types, versions and compatibility modes.
func NewMutator(cat *catalog.Catalog) *Mutator {
	m := &Mutator{cat: cat, cands: map[string][]chaos.VersionSet{}}
	m.ids, m.idsErr = catalog.LoadSchemaIDs(cat)
	for _, t := range cat.Types {
		mode, _ := cat.Compat(t)
		latest := len(t.Versions)
		// The consumer under test is built against the latest version: it
		// reads its own version and, under BACKWARD (and FULL), the data
		// of the previous one (every older one for the _TRANSITIVE modes).
		// FORWARD promises older consumers newer data, which the latest
		// consumer never sees: it leaves the latest version alone. NONE
		// promises nothing.
		var accepted chaos.VersionSet
		if mode.Backward() || mode.Forward() {
			accepted = accepted.Add(latest)
		}
		for u := 1; u < latest; u++ {
			if mode.Backward() && (mode.Transitive() || u == latest-1) {
				accepted = accepted.Add(u)
			}
		}
		sets := make([]chaos.VersionSet, latest)
		for v := 1; v <= latest; v++ {
			for _, u := range accepted.List() {
				if u != v {
					sets[v-1] = sets[v-1].Add(u)
				}
			}
		}
		m.cands[t.Name] = sets
	}
	return m
}

// Candidates returns the versions an event of typ at version v may be
// re-emitted as: the versions a consumer built against the latest version
// must accept, by the type's compatibility mode, other than v. That is the
// latest version, plus the previous one for BACKWARD and FULL, or every
// older one for BACKWARD_TRANSITIVE and FULL_TRANSITIVE; nothing for NONE.
func (m *Mutator) Candidates(typ string, v int) chaos.VersionSet {
	if m == nil {
		return 0
	}
	sets := m.cands[typ]
	if v < 1 || v > len(sets) {
		return 0
	}
	return sets[v-1]
}

// version resolves a dataschema (the latest version when empty).
func (m *Mutator) version(typ, dataschema string) *catalog.Version {
	if m == nil {
		return nil
	}
	if dataschema == "" {
		if t := m.cat.Lookup(typ); t != nil {
			return t.Latest()
		}
		return nil
	}
	if v, ok := m.ds.Load(dataschema); ok {
		return v.(*catalog.Version)
	}
	v, err := m.cat.Resolve(dataschema)
	if err != nil || v.Type != typ {
		v = nil
	}
	m.ds.Store(dataschema, v)
	return v
}

// SkewTargets returns the event's version and the candidate versions its
// data is valid under (the versions a skew fault may re-emit it as). data
// is the event's data as JSON text.
func (m *Mutator) SkewTargets(typ, dataschema string, data []byte) (int, chaos.VersionSet) {
	ver := m.version(typ, dataschema)
	if ver == nil {
		return 0, 0
	}
	cands := m.Candidates(typ, ver.Number)
	if cands == 0 {
		return ver.Number, 0
	}
	if isFormatted(ver) {
		return ver.Number, m.formatSkewTargets(ver, data, format.ContentTypeJSON)
	}
	doc, err := jsonstrict.Decode(data)
	if err != nil {
		return ver.Number, 0
	}
	t := m.cat.Lookup(typ)
	var out chaos.VersionSet
	for _, u := range cands.List() {
		if s, ok := t.Version(u).Compiled.(format.ValueValidator); ok && s.ValidateValue(doc) == nil {
			out = out.Add(u)
		}
	}
	return ver.Number, out
}

// EventMeta returns the version of an event and the versions it may be
// re-emitted as.
func (m *Mutator) EventMeta(e *event.Event) (int, chaos.VersionSet) {
	if ver := m.version(e.Type(), e.DataSchema()); isFormatted(ver) {
		if m.Candidates(ver.Type, ver.Number) == 0 {
			return ver.Number, 0
		}
		return ver.Number, m.formatSkewTargets(ver, e.DataEncoded, dataContentType(e))
	}
	return m.SkewTargets(e.Type(), e.DataSchema(), e.Data())
}

// SkewEvent returns e re-emitted as version to of its type: the same
// event, data and id, with the dataschema of version to. The data of an
// Avro or Protobuf type is re-encoded with version to's schema (the datum
// a producer on version to writes).
func (m *Mutator) SkewEvent(e event.Event, to int) event.Event {
	c := e.Clone()
	if m != nil {
		if from := m.version(e.Type(), e.DataSchema()); isFormatted(from) {
			if t := m.cat.Lookup(e.Type()); t != nil && t.Version(to) != nil {
				skewFormatData(&c, from, t.Version(to), m.framing(from))
			}
		}
		c.SetDataSchema(m.cat.DataSchema(e.Type(), to))
	} else {
		c.SetDataSchema(withVersion(e.DataSchema(), e.Type(), to))
	}
	return c
}

// undecodableData is the data of an undecodable poison event: what a
// Confluent-framed Avro record looks like to a JSON consumer.
var undecodableData = append([]byte{0, 0, 0, 0, 42}, "evtool poison: not JSON"...)

// PoisonEvent builds the poison event of fault f from src, the event it
// applies to: src with the poison's id and
//
//   - invalid-data: data its version's schema rejects (src's data without
//     a required property, or else a value of the wrong type; when the
//     schema accepts any JSON, undecodable data, as the closest break);
//   - undecodable: data that is not JSON (datacontenttype still says JSON);
//   - unknown-type: a type the catalog does not have (no dataschema);
//   - future-version: the dataschema of the version after the type's
//     latest;
//   - unknown-schema-id: the data Confluent-framed under a schema id the
//     catalog's registry ids do not hold.
//
// For Avro and Protobuf types, invalid data is the binary encoding cut
// short (framed as the record was), and undecodable data bytes no datum
// starts with.
func (m *Mutator) PoisonEvent(f chaos.Fault, src event.Event) event.Event {
	e := src.Clone()
	e.SetID(f.PoisonID)
	ver := m.version(src.Type(), src.DataSchema())
	switch f.Poison {
	case chaos.InvalidData:
		if isFormatted(ver) {
			if data := invalidFormatData(ver, m.framing(ver), src); data != nil {
				if _, id, framed := envelope.DataFrame(ver.Compiled, m.framing(ver), src.DataEncoded); framed {
					data = envelope.FrameData(ver.Compiled, id, data)
				}
				e.DataEncoded = data
				break
			}
		} else if data := m.invalidData(src); data != nil {
			e.DataEncoded = data
			break
		}
		e.DataEncoded = append([]byte(nil), undecodableFor(ver, dataContentType(&src))...)
	case chaos.Undecodable:
		e.DataEncoded = append([]byte(nil), undecodableFor(ver, dataContentType(&src))...)
	case chaos.UnknownSchemaID:
		e.DataEncoded, e.DataBase64 = m.unknownIDData(ver, src), true
		if isFormatted(ver) {
			e.SetDataContentType(ver.Compiled.DefaultContentType())
		}
	case chaos.UnknownType:
		typ := src.Type() + ".unknown"
		for m != nil && m.cat.Lookup(typ) != nil {
			typ += "-x"
		}
		e.SetType(typ)
		e.SetDataSchema("")
	case chaos.FutureVersion:
		if m != nil {
			if t := m.cat.Lookup(src.Type()); t != nil {
				e.SetDataSchema(m.cat.DataSchema(t.Name, len(t.Versions)+1))
				break
			}
		}
		e.SetDataSchema(withVersion(src.DataSchema(), src.Type(), 999))
	}
	return e
}

var lastNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[0-9]+([^0-9]*)$`) })

// withVersion rewrites the last number of a dataschema without a catalog.
func withVersion(ds, typ string, v int) string {
	if ds == "" || !lastNumber().MatchString(ds) {
		return fmt.Sprintf("urn:evtool:%s:v%d", typ, v)
	}
	return lastNumber().ReplaceAllString(ds, strconv.Itoa(v)+"$1")
}

// invalidData returns data the schema of src's version rejects, or nil.
func (m *Mutator) invalidData(src event.Event) []byte {
	var schema format.ValueValidator
	var dropper format.RequiredDropper
	if ver := m.version(src.Type(), src.DataSchema()); ver != nil {
		schema, _ = ver.Compiled.(format.ValueValidator)
		dropper, _ = ver.Compiled.(format.RequiredDropper)
	}
	invalid := func(b []byte) bool {
		if schema == nil {
			return true
		}
		doc, err := jsonstrict.Decode(b)
		return err == nil && schema.ValidateValue(doc) != nil
	}
	var cands [][]byte
	dec := json.NewDecoder(bytes.NewReader(src.Data()))
	dec.UseNumber()
	var obj map[string]any
	if dropper != nil && dec.Decode(&obj) == nil && obj != nil {
		// The event without one of its required properties.
		for _, c := range dropper.WithoutRequired(obj) {
			if b, err := json.Marshal(c); err == nil {
				cands = append(cands, b)
			}
		}
	}
	cands = append(cands, []byte(`{"evtoolPoison":"invalid-data"}`), []byte(`[]`), []byte(`"evtool poison: invalid data"`), []byte(`-1`))
	for _, c := range cands {
		if invalid(c) {
			return c
		}
	}
	return nil
}

// mutateRecord builds the record of a skew or poison fault from the
// record of the event it applies to (same topic, partition and key).
func (h *Harness) mutateRecord(ctx context.Context, f chaos.Fault, r *kgo.Record) (*kgo.Record, error) {
	d, _, err := envelope.FromRecord(r)
	if err != nil || d == nil {
		return nil, fmt.Errorf("fault %s: cannot read back the record of event %d: %v", f.String(), f.Event.Index, err)
	}
	var e event.Event
	var broken []byte
	var out *kgo.Record
	switch f.Kind {
	case chaos.Skew:
		e = h.mut.SkewEvent(d.Event, f.To)
		// Framed under the new version's id.
		ver := h.mut.version(e.Type(), e.DataSchema())
		out, err = envelope.ToWireRecord(ctx, &e, ver, h.mut.framing(ver), h.mut.wireID(ver), h.sc.Kafka.Mode)
	case chaos.Poison:
		e = h.mut.PoisonEvent(f, d.Event)
		if ver := h.mut.version(d.Event.Type(), d.Event.DataSchema()); bytes.Equal(e.DataEncoded, undecodableFor(ver, dataContentType(&d.Event))) {
			// Encoded as a valid event first, then broken.
			broken = e.DataEncoded
			e.DataEncoded = d.Event.DataEncoded
		}
		out, err = envelope.ToRecord(ctx, &e, h.sc.Kafka.Mode)
	default:
		return r, nil
	}
	if err != nil {
		return nil, fmt.Errorf("fault %s: %w", f.String(), err)
	}
	if broken != nil {
		if h.sc.Kafka.Mode == envelope.ModeStructured {
			out.Value = out.Value[:len(out.Value)/2] // a truncated envelope
		} else {
			out.Value = append([]byte(nil), broken...)
		}
	}
	out.Topic, out.Partition, out.Key = r.Topic, r.Partition, r.Key
	return out, nil
}
