// Package wire is what evtool's schema registry client (package
// schemaregistry) and server (package registryserver) share of the
// Confluent Schema Registry API: the registry forms of catalog versions
// (Forms: what push registers and the server serves), the API's media
// type, each format's schemaType, references and registry identity as its
// provider gives them (the format table as a registry sees it), the
// referenced schemas of a registry schema, and how names from the wire
// are clipped for messages and quoted in the catalog files both write.
package wire

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
)

// SchemaType is the Confluent schemaType of a format.
func SchemaType(k format.Kind) sr.SchemaType {
	var t sr.SchemaType
	if t.UnmarshalText([]byte(k.SchemaType())) != nil {
		return sr.TypeJSON // Kind.SchemaType names only types sr knows
	}
	return t
}

// KindOfSchemaType is the format of a Confluent schemaType ("" is AVRO,
// Confluent's default).
func KindOfSchemaType(st string) (format.Kind, bool) {
	st = strings.ToUpper(st)
	if st == "" {
		if p, ok := formats.ForKind(format.Avro); ok {
			st = p.SchemaType()
		}
	}
	for _, p := range formats.All() {
		if p.SchemaType() == st {
			return p.Kind(), true
		}
	}
	return "", false
}

// DigestOf is the registry identity of a compiled Avro or Protobuf schema.
func DigestOf(s format.Schema) string {
	if _, refs := formats.Of(s).(format.RegistryCompiler); refs {
		return catalog.SchemaIDDigest(s)
	}
	return ""
}

// RemoteRef is one schema a registry schema references, directly or not.
type RemoteRef struct {
	Name, Subject string
	Version       int
	SchemaType    string
	Text          string
	// Deps are the references of the referenced schema itself.
	Deps []sr.SchemaReference
}

// CheckRefName checks a reference name from a registry before evtool uses
// it, as the format's provider says: an Avro full name, or a relative
// .proto import path that stays inside the catalog root.
func CheckRefName(kind format.Kind, name string) error {
	p, ok := formats.ForKind(kind)
	if !ok {
		return fmt.Errorf("references of %s schemas are inlined, not written as files", kind.Name())
	}
	return p.CheckRefName(name, Clip)
}

// CompileRemote compiles a registry schema of kind with the schemas it
// references (refs, in any order; well-known Protobuf imports are the
// compiler's own). message selects the Protobuf message ("" the first).
func CompileRemote(kind format.Kind, text string, refs []*RemoteRef, message string) (format.Schema, error) {
	p, _ := formats.ForKind(kind)
	rc, ok := p.(format.RegistryCompiler)
	if !ok {
		return nil, fmt.Errorf("%s is not a format with references", kind)
	}
	rrefs := make([]format.RegistryRef, len(refs))
	for i, r := range refs {
		rrefs[i] = format.RegistryRef{Name: r.Name, Text: r.Text}
	}
	return rc.CompileRegistry(text, rrefs, message, Clip)
}

// WithRefs reports whether registry schemas of kind reference other
// schemas, shared schemas the registry holds under subjects of their own
// (Avro, Protobuf: the provider is a format.RegistryCompiler); JSON
// Schema's are inlined, and a kind evtool does not know has none.
func WithRefs(kind format.Kind) bool {
	p, ok := formats.ForKind(kind)
	return ok && format.HasRegistryRefs(p)
}

// RegistryRules are kind's own rules in a schema registry's API (ok false
// for JSON Schema, whose registry form is inlined, and unknown kinds).
func RegistryRules(kind format.Kind) (format.RegistryRuler, bool) {
	p, _ := formats.ForKind(kind)
	r, ok := p.(format.RegistryRuler)
	return r, ok
}

// BuiltinFiler is the provider whose compiler has files built in that
// clients register all the same (format.BuiltinFiler: Protobuf's
// well-known files), with its kind.
func BuiltinFiler() (format.BuiltinFiler, format.Kind, bool) {
	for _, p := range formats.All() {
		if bf, ok := p.(format.BuiltinFiler); ok {
			return bf, p.Kind(), true
		}
	}
	return nil, "", false
}

// WellKnown reports an import of the well-known types, which registries
// resolve themselves: they are never registered nor written.
func WellKnown(name string) bool {
	bf, _, ok := BuiltinFiler()
	return ok && bf.IsBuiltin(name)
}

// Clip shortens a name from outside (a subject, a reference) for a
// message: its first 200 bytes.
func Clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// YAMLString is s quoted for a YAML file the catalog reads (a JSON
// string is a YAML scalar), so that a value like a topic never reads as a
// number or a bool.
func YAMLString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ContentType is the Schema Registry API's media type.
const ContentType = "application/vnd.schemaregistry.v1+json"

// Bundler is the provider whose registry form is one self-contained
// document (format.RegistryBundler: JSON Schema's), whose dialects
// (drafts) a registry's schemas name.
func Bundler() format.RegistryBundler {
	for _, p := range formats.All() {
		if b, ok := p.(format.RegistryBundler); ok {
			return b
		}
	}
	return nil
}

// ParseDialect parses a dialect's name, usual spelling or URL (a JSON
// Schema draft, as `$schema` or default_draft name it).
func ParseDialect(s string) (format.Dialect, error) {
	d, ok := Bundler().(format.Dialects)
	if !ok {
		return format.Dialect{}, fmt.Errorf("no format has dialects to read %q as", s)
	}
	return d.ParseDialect(s)
}

// ExternalRefs lists the references of a decoded registry form that leave
// it: none for a form a registry can use on its own.
func ExternalRefs(doc any) []string {
	if b := Bundler(); b != nil {
		return b.RegistryExternal(doc)
	}
	return nil
}
