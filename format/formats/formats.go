// Package formats is the table of evtool's schema formats: one
// format.Provider per format.Kind. Jobs reach a format's rules through it
// instead of switching on the kind or asserting a compiled schema's type;
// the table is built on each call, so it holds no state.
package formats

import (
	"strings"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/format/jsonschema"
	"github.com/evtool/evtool/format/protobuf"
)

// All is every format's provider, in format.Kinds' order.
func All() []format.Provider {
	return []format.Provider{jsonschema.Provider{}, avro.Provider{}, protobuf.Provider{}}
}

// ForKind is the provider of kind k (ok false for an unknown kind).
func ForKind(k format.Kind) (format.Provider, bool) {
	for _, p := range All() {
		if p.Kind() == k {
			return p, true
		}
	}
	return nil, false
}

// Of is the provider of a compiled schema's format. For no schema (a
// version that did not compile) it is JSON Schema's, which takes data as
// it is: no frame, no binary encoding, no key of its own.
func Of(s format.Schema) format.Provider {
	if s == nil {
		return jsonschema.Provider{}
	}
	p, ok := ForKind(s.Kind())
	if !ok {
		// Every Schema comes from a provider of this table.
		panic("formats: no provider for kind " + string(s.Kind()))
	}
	return p
}

// ForFile is the provider of the format a schema file is written in, by
// its extension (format.KindOf).
func ForFile(name string) (format.Provider, bool) {
	k, ok := format.KindOf(name)
	if !ok {
		return nil, false
	}
	return ForKind(k)
}

// Names are the formats' names on evtool's command line (format.CLIName),
// in All's order.
func Names() []string {
	var out []string
	for _, p := range All() {
		out = append(out, format.CLIName(p))
	}
	return out
}

// ForName is the provider named name on evtool's command line (ok false
// for an unknown name).
func ForName(name string) (format.Provider, bool) {
	for _, p := range All() {
		if format.CLIName(p) == name {
			return p, true
		}
	}
	return nil, false
}

// NamesWhere names the formats whose providers answer yes, in All's
// order, for a message: "Protobuf", "Avro or Protobuf", "JSON Schema,
// Avro and Protobuf" (conj "or" or "and").
func NamesWhere(yes func(format.Provider) bool, conj string) string {
	var names []string
	for _, p := range All() {
		if yes(p) {
			names = append(names, p.Kind().Name())
		}
	}
	return List(names, conj)
}

// List is "a", "a CONJ b", "a, b CONJ c".
func List(items []string, conj string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// PatternSampler is the provider that draws strings matching a regular
// expression (event.yaml's source pattern is one, whatever the type's
// format); ok false when none does.
func PatternSampler() (ps format.PatternSampler, ok bool) {
	for _, p := range All() {
		if ps, ok := p.(format.PatternSampler); ok {
			return ps, true
		}
	}
	return nil, false
}
