package replay

import (
	"bytes"
	"fmt"

	"github.com/cloudevents/sdk-go/v2/event"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
)

// This file is what replay does differently for Avro and Protobuf types:
// their data is a datum of the version's writer schema (binary, or the
// JSON form in event files), skew re-encodes it with another version's
// schema, and poison breaks the binary encoding or its Confluent frame.

// isFormatted reports whether v is an Avro or Protobuf version: one that
// compiled, of a format whose data has a binary encoding.
func isFormatted(v *catalog.Version) bool {
	return v != nil && binaryData(v.Format) && v.Compiled != nil
}

// binaryData reports whether the data of format k's events has a binary
// encoding beside its JSON form (Avro, Protobuf: format.BinaryDataer), so
// replay re-encodes it rather than take it as JSON text; no format ("")
// is JSON Schema's, which has none. A kind without a provider is not
// taken for JSON text either.
func binaryData(k format.Kind) bool {
	p, ok := formats.ForKind(k)
	if !ok {
		return k != ""
	}
	return format.HasBinaryData(p)
}

// dataContentType is an event's content type, JSON when it has none.
func dataContentType(e *event.Event) string {
	if ct := e.DataContentType(); ct != "" {
		return ct
	}
	return format.ContentTypeJSON
}

// formatValue sets d.Data to the JSON form of an Avro or Protobuf event's
// data (Decoded.SetFormatData), which partition keys point into; only when
// the type's key is in its data (ks). For
// binary Avro data it also returns the datum without its frame (nil
// otherwise): reading the key found the frame, so that the record can be
// written without reading the datum once more.
func formatValue(d *envelope.Decoded, ver *catalog.Version, framing catalog.Framing, ks keySpec) ([]byte, error) {
	if ks.pointer == "" || !isFormatted(ver) || !d.HasData {
		return nil, nil
	}
	k, ok, unframed := formats.Of(ver.Compiled).PartitionKey(ver.Compiled, format.KeyData{Data: d.RawData, ContentType: dataContentType(&d.Event), Unframed: framing == catalog.FramingNone, Tokens: ks.tokens})
	if ok {
		// Only the key's path: building the whole JSON form of every
		// datum costs more than the rest of the producing.
		for i := len(ks.tokens) - 1; i >= 0; i-- {
			k = map[string]any{ks.tokens[i]: k}
		}
		d.Data = k
		return unframed, nil
	}
	if err := d.SetFormatData(ver, framing); err != nil {
		return nil, err
	}
	return unframed, nil
}

// reencode returns data of version from (in content type ct) as a datum
// of version to, in the same encoding (binary unframed). Avro resolves the
// datum with from as the writer and to as the reader, then writes it with
// to; Protobuf goes through the JSON mapping. It fails when to cannot
// carry the datum. framing is the type's kafka.framing: binary Avro data
// is never taken for framed under FramingNone.
func reencode(from, to *catalog.Version, framing catalog.Framing, data []byte, ct string) ([]byte, error) {
	if !isFormatted(from) || !isFormatted(to) || from.Format != to.Format {
		return nil, fmt.Errorf("not two versions of one %s type", formats.NamesWhere(format.HasBinaryData, "or"))
	}
	return formats.Of(from.Compiled).Reencode(from.Compiled, to.Compiled, data, ct, framing == catalog.FramingNone)
}

// formatSkewTargets is SkewTargets for an Avro or Protobuf event: the
// candidate versions that can carry its datum.
func (m *Mutator) formatSkewTargets(ver *catalog.Version, data []byte, ct string) chaos.VersionSet {
	var out chaos.VersionSet
	t := m.cat.Lookup(ver.Type)
	for _, u := range m.Candidates(ver.Type, ver.Number).List() {
		if _, err := reencode(ver, t.Version(u), m.framing(ver), data, ct); err == nil {
			out = out.Add(u)
		}
	}
	return out
}

// skewFormatData re-encodes the data of c (an event of version from) with
// version to's schema; c keeps its data when to cannot carry it.
func skewFormatData(c *event.Event, from, to *catalog.Version, framing catalog.Framing) {
	if b, err := reencode(from, to, framing, c.DataEncoded, dataContentType(c)); err == nil {
		c.DataEncoded = b
	}
}

// invalidFormatData returns data in e's encoding that ver's schema
// rejects: the binary encoding cut short, or bytes no datum starts with;
// for the JSON form, values of the wrong shape.
func invalidFormatData(ver *catalog.Version, framing catalog.Framing, e event.Event) []byte {
	ct := dataContentType(&e)
	var cands [][]byte
	if !format.IsJSON(ct) {
		payload, _, _ := envelope.DataFrame(ver.Compiled, framing, e.DataEncoded)
		if len(payload) > 0 {
			cands = append(cands, payload[:len(payload)-1])
		}
		cands = append(cands, append(append([]byte(nil), payload...), 0xff), bytes.Repeat([]byte{0xff}, 11))
	} else {
		cands = append(cands, []byte(`{"evtoolPoison":"invalid-data"}`), []byte(`[]`), []byte(`"evtool poison: invalid data"`), []byte(`-1`))
	}
	for _, c := range cands {
		if ver.Compiled.Validate(c, ct) != nil {
			return c
		}
	}
	return nil
}

// undecodableFor is the undecodable poison data for an event of ver:
// undecodableData when the version's schema cannot read it either (it
// looks like a framed record), else bytes no Avro or Protobuf datum
// starts with (a varint that never ends).
func undecodableFor(ver *catalog.Version, ct string) []byte {
	if !isFormatted(ver) || ver.Compiled.Validate(undecodableData, ct) != nil {
		return undecodableData
	}
	return bytes.Repeat([]byte{0xff}, 11)
}

// unknownIDData is the data of an unknown-schema-id poison event: the
// event's data (binary for Avro and Protobuf) Confluent-framed under an id
// the catalog's registry ids do not hold.
func (m *Mutator) unknownIDData(ver *catalog.Version, e event.Event) []byte {
	id := m.schemaIDs().Unknown()
	if !isFormatted(ver) {
		return format.Frame(id, e.DataEncoded)
	}
	payload, err := envelope.BinaryData(ver, m.framing(ver), e.DataEncoded, dataContentType(&e))
	if err != nil {
		payload = e.DataEncoded
	}
	return envelope.FrameData(ver.Compiled, id, payload)
}

// schemaIDs are the catalog's registry ids (none without a catalog).
func (m *Mutator) schemaIDs() *catalog.SchemaIDs {
	if m == nil {
		return nil
	}
	return m.ids
}

// framing is the kafka.framing of ver's type (confluent, the default,
// without a catalog).
func (m *Mutator) framing(ver *catalog.Version) catalog.Framing {
	if m == nil || ver == nil {
		return catalog.FramingConfluent
	}
	return m.cat.Framing(m.cat.Lookup(ver.Type))
}

// wireID is the schema id an Avro or Protobuf event of ver is framed
// under in a record (0: unframed).
func (m *Mutator) wireID(ver *catalog.Version) uint32 {
	if m == nil {
		return 0
	}
	return envelope.WireID(m.cat, m.ids, ver)
}
