package avro

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing/fstest"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonstrict"
)

// SchemaType is AVRO.
func (Provider) SchemaType() string { return "AVRO" }

// DeclaredRecords is the schema's top-level named type.
func (Provider) DeclaredRecords(text []byte) []string {
	if n := FullNameOf(text); n != "" {
		return []string{n}
	}
	return nil
}

// SharedSubject reports an Avro named type registered under its own full
// name.
func (Provider) SharedSubject(text []byte, subject string) bool {
	return FullNameOf(text) == subject
}

// FullNameOf is the full name of the named type an Avro schema document
// defines at its top level ("" when it defines none).
func FullNameOf(text []byte) string {
	doc, err := jsonstrict.Decode(text)
	if err != nil {
		return ""
	}
	m, _ := doc.(map[string]any)
	name, _ := m["name"].(string)
	switch m["type"] {
	case "record", "error", "enum", "fixed":
	default:
		return ""
	}
	if strings.Contains(name, ".") {
		return name
	}
	if ns, _ := m["namespace"].(string); ns != "" && name != "" {
		return ns + "." + name
	}
	return name
}

var _ format.RegistryCompiler = Provider{}

// CompileRegistry loads text with each reference as a file of one shared
// directory, where its named type resolves.
func (Provider) CompileRegistry(text string, refs []format.RegistryRef, _ string, _ func(string) string) (format.Schema, error) {
	files := fstest.MapFS{}
	main := format.RegistryMain + format.Avro.Ext()
	files[main] = &fstest.MapFile{Data: []byte(text)}
	for i, r := range refs {
		files[fmt.Sprintf("evtool-registry-refs/%d.avsc", i)] = &fstest.MapFile{Data: []byte(r.Text)}
	}
	shared := []string{}
	if len(refs) > 0 {
		shared = append(shared, "evtool-registry-refs")
	}
	s, err := Load(files, main, shared...)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, errors.New("no schema")
	}
	return s, nil
}

// CatalogText is the schema's JSON with its named types inlined: the
// references are not written.
func (Provider) CatalogText(sch format.Schema, text string) ([]byte, bool) {
	if s, ok := sch.(*Schema); ok {
		return format.EnsureNL(s.JSON()), false
	}
	return []byte(text), false
}

var _ format.EditChecker = Provider{}

// EditedInPlace compares the schemas' JSON, which keeps defaults, aliases,
// logical types and the named types used from shared files.
func (Provider) EditedInPlace(published, head format.Schema) bool {
	b, bok := published.(*Schema)
	h, hok := head.(*Schema)
	return bok && hok && !bytes.Equal(b.JSON(), h.JSON())
}

// JSONFormName names Avro's JSON form: a BinaryDataer.
func (Provider) JSONFormName() string { return "Avro's JSON encoding" }

// SharedRel is the named type's file in the shared directory common/.
func (Provider) SharedRel(subject string) string { return "common/" + subject + ".avsc" }

// RegistryIdentity is what push and diff compare of Avro versions.
func (Provider) RegistryIdentity() string {
	return "the whole schema with named types inlined, defaults, aliases and logical types included"
}

// RecordSubjectShared: a named type registered under its own full name is
// a shared schema, as Confluent's clients register them.
func (Provider) RecordSubjectShared() bool { return true }

// Descriptors: Avro's registry text is JSON.
func (Provider) Descriptors() bool { return false }
