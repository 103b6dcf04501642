package registryserver

import (
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
)

// The formats as the server's API names and compares them, from the
// providers (package formats' table).

// schemaTypes is the answer to GET /schemas/types: every format's
// schemaType in the table's order, Confluent's default (the one a
// registration without schemaType is) last, as Confluent lists its
// pluggable providers before its built-in one: ["JSON","PROTOBUF","AVRO"].
func schemaTypes() []string {
	def, _ := wire.KindOfSchemaType("")
	var out, last []string
	for _, p := range formats.All() {
		if p.Kind() == def {
			last = append(last, p.SchemaType())
			continue
		}
		out = append(out, p.SchemaType())
	}
	return append(out, last...)
}

// servedSchemaTypes lists the schemaTypes of every format, Confluent's
// default marked: "JSON, AVRO (the default) and PROTOBUF".
func servedSchemaTypes() string {
	def, _ := wire.KindOfSchemaType("")
	var types []string
	for _, p := range formats.All() {
		t := p.SchemaType()
		if p.Kind() == def {
			t += " (the default)"
		}
		types = append(types, t)
	}
	return formats.List(types, "and")
}

// descriptors reports whether kind's registry text may be a serialized
// descriptor, its references name imports by subject and its well-known
// files are built in (Protobuf).
func descriptors(kind format.Kind) bool {
	r, ok := wire.RegistryRules(kind)
	return ok && r.Descriptors()
}

// undialectedDigest is the digest of a schema read as dialect with its
// naming of its dialect (JSON Schema's root `$schema`) left out when it
// names dialect or none; "" for a schema that names another, or cannot
// name one.
func undialectedDigest(doc any, dialect format.Dialect) string {
	b := wire.Bundler()
	if b == nil {
		return ""
	}
	bare, url, named, ok := b.RegistryUndialected(doc)
	if !ok {
		return ""
	}
	if named {
		if d, err := wire.ParseDialect(url); url == "" || err != nil || d.Name != dialect.Name {
			return ""
		}
	}
	return jsonvalue.Digest(bare)
}
