// Package asyncapi exports a catalog as an AsyncAPI 3.0 document: one
// channel per Kafka topic, one message per event type and version, the
// CloudEvents Kafka binding's headers (binary content mode) as each
// message's headers schema, the version's schema as its payload as its
// format's provider writes it (JSON Schema as a component:
// format.AsyncAPIComponenter; Avro and Protobuf embedded with their
// schemaFormat: format.AsyncAPIPayloader), and owners and descriptions
// from event.yaml.
//
// The document is self-contained: every catalog file a version reaches is
// one entry of components.schemas and every $ref points inside the
// document (format/jsonschema's asyncapi.go says how JSON Schemas are
// carried over). Output is deterministic: the same catalog gives the same
// bytes.
package asyncapi

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"math/rand/v2"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/consumers"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/internal/jsonpos"
)

// Version is the AsyncAPI version of the exported document.
const Version = "3.0.0"

// kafkaBinding is the version of the Kafka bindings used.
const kafkaBinding = "0.5.0"

// Document is an exported AsyncAPI document.
type Document struct {
	root *object
	// Warnings name schema keywords that AsyncAPI Schema Objects (JSON
	// Schema draft-07) cannot express exactly.
	Warnings []Warning
}

// JSON renders the document as indented JSON.
func (d *Document) JSON() ([]byte, error) { return encodeJSON(d.root) }

// YAML renders the document as YAML.
func (d *Document) YAML() ([]byte, error) { return encodeYAML(d.root) }

// Options tune the exported document.
type Options struct {
	// Title is info.title; default: "<catalog directory name> events".
	Title string
	// Consumers are the catalog's consumer contracts: each gets a receive
	// operation per type it reads, with the versions and fields it reads.
	Consumers []*consumers.Contract
}

// Build exports a loaded catalog. Versions that did not compile are an
// error: export a catalog that `evtool lint` accepts.
func Build(cat *catalog.Catalog, opts Options) (*Document, error) {
	for _, t := range cat.Types {
		for _, v := range t.Versions {
			if v.Compiled == nil {
				return nil, fmt.Errorf("%s: the schema did not compile; run evtool lint", v.File)
			}
		}
	}
	x, err := newExporter(cat)
	if err != nil {
		return nil, err
	}
	title := opts.Title
	if title == "" {
		name := filepath.Base(cat.Dir)
		if abs, err := filepath.Abs(cat.Dir); err == nil {
			name = filepath.Base(abs)
		}
		title = name + " events"
	}

	// Types by topic; a type without a topic gets a channel of its own
	// with an unknown (null) address.
	type channel struct {
		key, address string
		types        []*catalog.EventType
	}
	channels := map[string]*channel{}
	for _, t := range cat.Types {
		if topic := t.Meta.Topic; topic != "" {
			c := channels[topic]
			if c == nil {
				c = &channel{key: topic, address: topic}
				channels[topic] = c
			}
			c.types = append(c.types, t)
		}
	}
	// Topic-less types after every topic: a type's name that is also a
	// topic's must not merge the two channels.
	for _, t := range sortedTypes(cat) {
		if t.Meta.Topic == "" {
			key := t.Name
			for channels[key] != nil {
				key += ".no-topic"
			}
			channels[key] = &channel{key: key, types: []*catalog.EventType{t}}
		}
	}

	messages := newObject()
	for _, t := range sortedTypes(cat) {
		for _, v := range t.Versions {
			m, err := x.message(cat, t, v)
			if err != nil {
				return nil, err
			}
			messages.Set(messageKey(t, v), m)
		}
	}

	chans := newObject()
	ops := newObject()
	for _, key := range slices.Sorted(maps.Keys(channels)) {
		c := channels[key]
		msgs := newObject()
		var names []string
		for _, t := range c.types {
			names = append(names, t.Name)
			for _, v := range t.Versions {
				mk := messageKey(t, v)
				msgs.Set(mk, obj("$ref", "#/components/messages/"+jsonpos.Escape(mk)))
			}
		}
		ch := newObject()
		var desc string
		if c.address != "" {
			ch.Set("address", c.address)
			ch.Set("title", c.address)
			desc = fmt.Sprintf("Kafka topic %s. Event types: %s.", c.address, strings.Join(names, ", "))
		} else {
			ch.Set("address", nil)
			ch.Set("title", c.types[0].Name)
			desc = fmt.Sprintf("Event type %s; its event.yaml names no topic, so the address is unknown.", c.types[0].Name)
		}
		ch.Set("description", desc)
		ch.Set("messages", msgs)
		kb := obj("bindingVersion", kafkaBinding)
		if c.address != "" {
			kb = obj("topic", c.address, "bindingVersion", kafkaBinding)
		}
		ch.Set("bindings", obj("kafka", kb))
		chans.Set(c.key, ch)

		for _, t := range c.types {
			chRef := "#/channels/" + jsonpos.Escape(c.key)
			var refs []any
			for _, v := range t.Versions {
				refs = append(refs, obj("$ref", chRef+"/messages/"+jsonpos.Escape(messageKey(t, v))))
			}
			mode, profile := cat.Compat(t)
			op := obj(
				"action", "send",
				"channel", obj("$ref", chRef),
				"title", "Publish "+t.Name,
				"summary", publishSummary(t),
				"messages", refs,
				"x-owner", nonEmpty(t.Meta.Owner),
				"x-evtool-compat", obj("mode", string(mode), "profile", string(profile)),
			)
			ops.Set(t.Name, op)
		}
	}

	receiveOperations(cat, ops, opts.Consumers, func(t *catalog.EventType) string {
		for _, key := range slices.Sorted(maps.Keys(channels)) {
			for _, ct := range channels[key].types {
				if ct == t {
					return key
				}
			}
		}
		return ""
	})

	info := obj(
		"title", title,
		"version", catalogVersion(cat),
		"description", infoDescription(cat),
		"x-evtool-dataschema", cat.Template.String(),
	)
	root := obj(
		"asyncapi", Version,
		"info", info,
		"defaultContentType", "application/json",
		"channels", chans,
		"operations", ops,
	)
	schemas, err := x.schemas()
	if err != nil {
		return nil, err
	}
	root.Set("components", obj("schemas", schemas, "messages", messages))
	return &Document{root: root, Warnings: x.warnings}, nil
}

func sortedTypes(cat *catalog.Catalog) []*catalog.EventType {
	ts := append([]*catalog.EventType(nil), cat.Types...)
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
	return ts
}

func messageKey(t *catalog.EventType, v *catalog.Version) string {
	return fmt.Sprintf("%s.v%d", unsafeName().ReplaceAllString(t.Name, "_"), v.Number)
}

func nonEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func publishSummary(t *catalog.EventType) string {
	s := fmt.Sprintf("Producers send %s events", t.Name)
	if t.Meta.Owner != "" {
		s = fmt.Sprintf("%s sends %s events", t.Meta.Owner, t.Name)
	}
	if t.Meta.Topic != "" {
		s += " to topic " + t.Meta.Topic
	}
	return s + "."
}

func infoDescription(cat *catalog.Catalog) string {
	mode, profile := cat.Config.Compat.Mode, cat.Config.Compat.Profile
	if mode == "" {
		mode = catalog.DefaultMode
	}
	if profile == "" {
		profile = catalog.DefaultProfile
	}
	return strings.Join([]string{
		"Event catalog exported by evtool (evtool export asyncapi).",
		"",
		"Every message is a CloudEvents 1.0 event in the binary content mode of the",
		"CloudEvents Kafka protocol binding: its attributes travel as ce_* record",
		"headers (described by the message's headers schema), datacontenttype as the",
		"content-type header, and the record value is the event's data, described by",
		"the payload schema, which is version N of the type's JSON Schema",
		"(schemas/<type>/vN.json). Each version's dataschema attribute is the",
		"template " + cat.Template.String() + " filled in.",
		"",
		fmt.Sprintf("Schema changes are gated by evtool compat check: default mode %s, profile %s.", mode, profile),
	}, "\n") + otherFormats(cat)
}

// otherFormats says how Avro and Protobuf versions are described, when the
// catalog has any.
func otherFormats(cat *catalog.Catalog) string {
	kinds := map[format.Kind]bool{}
	for _, t := range cat.Types {
		kinds[t.Format] = true
	}
	var out string
	for _, p := range formats.All() {
		if pl, ok := p.(format.AsyncAPIPayloader); ok && kinds[p.Kind()] {
			out += "\n\n" + pl.AsyncAPIInfo()
		}
	}
	return out
}

// catalogVersion is a digest of everything the document is made of, so
// info.version changes exactly when the catalog does.
func catalogVersion(cat *catalog.Catalog) string {
	h := sha256.New()
	for _, t := range sortedTypes(cat) {
		mode, profile := cat.Compat(t)
		m := t.Meta
		fmt.Fprintf(h, "type %q %q %q %q %q %q %s %s %v\n", t.Name, m.Description, m.Owner, m.Topic, m.PartitionKey, m.Source, mode, profile, m.Deprecated)
		for _, v := range t.Versions {
			fmt.Fprintf(h, "version %d %s\n", v.Number, v.Digest)
			for _, e := range v.Examples {
				fmt.Fprintf(h, "example %q %x\n", path.Base(filepath.ToSlash(e.File)), sha256.Sum256(e.Text))
			}
		}
	}
	fmt.Fprintf(h, "dataschema %q\n", cat.Template.String())
	return "sha256-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// message is the Message Object of one version.
func (x *exporter) message(cat *catalog.Catalog, t *catalog.EventType, v *catalog.Version) (*object, error) {
	payload, contentType, err := x.payload(v)
	if err != nil {
		return nil, err
	}
	dataschema := cat.DataSchema(t.Name, v.Number)
	m := newObject()
	m.Set("name", t.Name)
	m.Set("title", fmt.Sprintf("%s v%d", t.Name, v.Number))
	if s := summary(v); s != "" {
		m.Set("summary", s)
	}
	if d := strings.TrimSpace(t.Meta.Description); d != "" {
		m.Set("description", d)
	}
	m.Set("contentType", contentType)
	if t.Deprecated(v.Number) {
		m.Set("deprecated", true)
	}
	if t.Meta.Owner != "" {
		m.Set("tags", []any{obj("name", "owner:"+t.Meta.Owner, "description", "The team that owns this event type (event.yaml owner).")})
	}
	m.Set("headers", headersSchema(t, v.Number, dataschema, contentType))
	m.Set("payload", payload)
	if kb := keySchema(t); kb != nil {
		m.Set("bindings", obj("kafka", obj("key", kb, "bindingVersion", kafkaBinding)))
	}
	var examples []any
	for _, e := range v.Examples {
		if _, embedded := formats.Of(v.Compiled).(format.AsyncAPIPayloader); embedded {
			// Examples are written in the JSON form (Avro's JSON
			// encoding, Protobuf's JSON mapping), not in the message's
			// binary content type.
			break
		}
		val, err := decodeOrdered(e.Text)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.File, err)
		}
		name := strings.TrimSuffix(path.Base(filepath.ToSlash(e.File)), ".json")
		headers, err := exampleHeaders(t, v.Number, dataschema, name)
		if err != nil {
			return nil, err
		}
		examples = append(examples, obj("name", name, "headers", headers, "payload", val))
	}
	if len(examples) > 0 {
		m.Set("examples", examples)
	}
	if t.Meta.Owner != "" {
		m.Set("x-owner", t.Meta.Owner)
	}
	m.Set("x-evtool-dataschema", dataschema)
	return m, nil
}

// payload is the payload of a version's messages and their content type:
// a reference to the version's component (JSON Schema), or a Multi Format
// Schema Object embedding its schema (Avro, Protobuf).
func (x *exporter) payload(v *catalog.Version) (any, string, error) {
	if pl, ok := formats.Of(v.Compiled).(format.AsyncAPIPayloader); ok {
		fp, err := pl.AsyncAPIPayload(v.Compiled, v.Text)
		if err != nil {
			return nil, "", err
		}
		if fp.Warning != "" {
			x.warnings = append(x.warnings, Warning{File: v.File, Message: fp.Warning})
		}
		var schema any = fp.Text
		if fp.JSON != nil {
			if schema, err = decodeOrdered(fp.JSON); err != nil {
				return nil, "", fmt.Errorf("%s: %w", v.File, err)
			}
		}
		p := obj("schemaFormat", fp.SchemaFormat, "schema", schema)
		if fp.Message != "" {
			p.Set("x-evtool-message", fp.Message)
		}
		if len(fp.Imports) > 0 {
			imports := make([]any, len(fp.Imports))
			for i, f := range fp.Imports {
				imports[i] = f
			}
			p.Set("x-evtool-imports", imports)
		}
		return p, fp.ContentType, nil
	}
	c := x.comps[v.Compiled.Kind()]
	if c == nil {
		return nil, "", fmt.Errorf("%s: %s schemas have no AsyncAPI payload", v.File, v.Compiled.Kind().Name())
	}
	ref, warnings, err := c.Payload(asyncAPIVersion(v))
	for _, w := range warnings {
		x.warnings = append(x.warnings, Warning(w))
	}
	if err != nil {
		return nil, "", err
	}
	return obj("$ref", ref), v.Compiled.DefaultContentType(), nil
}

// summary is the message summary of a version, as its format says.
func summary(v *catalog.Version) string {
	if c, ok := formats.Of(v.Compiled).(format.AsyncAPIComponenter); ok {
		return c.AsyncAPISummary(v.Compiled)
	}
	return ""
}

// headersSchema describes the record headers of the binary content mode.
func headersSchema(t *catalog.EventType, version int, dataschema, contentType string) *object {
	str := func(desc string, kv ...any) *object {
		return obj(append([]any{"type", "string", "description", desc}, kv...)...)
	}
	source := str("ce_source: the context in which the event happened (a URI-reference).", "minLength", 1)
	if t.Meta.Source != "" {
		source = str("ce_source: the context in which the event happened (a URI-reference); event.yaml requires it to match "+t.Meta.Source+" in full.",
			"minLength", 1, "pattern", "^(?:"+t.Meta.Source+")$")
	}
	subject := str("ce_subject: the subject of the event in the context of its source (optional).")
	key := "the Kafka record key is not set by evtool (event.yaml names no partition key)."
	switch pk := t.Meta.PartitionKey; {
	case pk == "subject":
		subject = str("ce_subject: the subject of the event; it is also the Kafka record key (event.yaml partitionkey: subject).", "minLength", 1)
	case pk != "":
		key = "the Kafka record key is the value at " + pk + " of the data."
	}
	props := obj(
		"ce_specversion", str("ce_specversion: the CloudEvents version.", "const", "1.0"),
		"ce_id", str("ce_id: identifies the event; source and id are unique per distinct event, so consumers deduplicate redeliveries on them.", "minLength", 1),
		"ce_source", source,
		"ce_type", str("ce_type: the event type.", "const", t.Name),
		"ce_time", str("ce_time: when the occurrence happened (RFC 3339, optional).", "format", "date-time"),
		"ce_subject", subject,
		"ce_dataschema", str(fmt.Sprintf("ce_dataschema: the version of the data's schema, here v%d. An event without it is read as the latest version.", version),
			"format", "uri", "const", dataschema),
		"content-type", str("content-type: datacontenttype, the media type of the record value.", "const", contentType),
	)
	required := []any{"ce_specversion", "ce_id", "ce_source", "ce_type"}
	if t.Meta.PartitionKey == "subject" {
		required = append(required, "ce_subject")
	}
	return obj(
		"type", "object",
		"title", "CloudEvents Kafka binding headers (binary content mode)",
		"description", "CloudEvents attributes as Kafka record headers, values UTF-8 strings: ce_ + the attribute name, and content-type for datacontenttype; extension attributes are further ce_ headers. The record value is the data alone; "+key,
		"properties", props,
		"required", required,
	)
}

// exampleHeaders are the headers of an example message: every header its
// headers schema requires, with values that schema accepts (an id made of
// the example's name, a source matching the type's source pattern, drawn
// with a fixed seed so the document is deterministic).
func exampleHeaders(t *catalog.EventType, version int, dataschema, name string) (*object, error) {
	source := "/" + t.Name
	if t.Meta.Source != "" {
		s, err := matchString(t.Meta.Source, rand.New(rand.NewPCG(uint64(version), 1)))
		if err != nil {
			return nil, fmt.Errorf("%s: cannot make an example source matching %q: %w", t.Name, t.Meta.Source, err)
		}
		source = s
	}
	h := obj(
		"ce_specversion", "1.0",
		"ce_id", fmt.Sprintf("example-%s-v%d-%s", t.Name, version, name),
		"ce_source", source,
		"ce_type", t.Name,
	)
	if t.Meta.PartitionKey == "subject" {
		h.Set("ce_subject", "example-"+name)
	}
	h.Set("ce_dataschema", dataschema)
	h.Set("content-type", "application/json")
	return h, nil
}

// keySchema describes the Kafka record key (nil when none is configured).
func keySchema(t *catalog.EventType) *object {
	switch pk := t.Meta.PartitionKey; {
	case pk == "":
		return nil
	case pk == "subject":
		return obj("type", "string", "description", "The event's subject attribute (ce_subject).")
	default:
		return obj("type", "string", "description", "The value at "+pk+" of the event's data, as a string (a number as its JSON text), so that all events of one key land on one partition in order.")
	}
}
