package protobuf

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing/fstest"

	"github.com/bufbuild/protocompile/parser"
	"github.com/bufbuild/protocompile/reporter"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/evtool/evtool/format"
)

// SchemaType is PROTOBUF.
func (Provider) SchemaType() string { return "PROTOBUF" }

// DeclaredRecords are the .proto's messages: any may be the one a
// Protobuf serializer writes.
func (Provider) DeclaredRecords(text []byte) []string { return Messages(text) }

// SharedSubject reports a .proto registered under its import path.
func (Provider) SharedSubject(_ []byte, subject string) bool {
	return strings.HasSuffix(subject, ".proto")
}

// Messages lists the fully-qualified names of the messages (nested
// ones too) a .proto text declares; nil when it does not parse (the
// registration reports that).
func Messages(text []byte) []string {
	h := reporter.NewHandler(nil)
	ast, err := parser.Parse("request.proto", bytes.NewReader(text), h)
	if err != nil {
		return nil
	}
	res, err := parser.ResultFromAST(ast, true, h)
	if err != nil {
		return nil
	}
	fd := res.FileDescriptorProto()
	var out []string
	var walk func(prefix string, msgs []*descriptorpb.DescriptorProto)
	walk = func(prefix string, msgs []*descriptorpb.DescriptorProto) {
		for _, m := range msgs {
			name := m.GetName()
			if prefix != "" {
				name = prefix + "." + name
			}
			out = append(out, name)
			walk(name, m.GetNestedType())
		}
	}
	walk(fd.GetPackage(), fd.GetMessageType())
	return out
}

var _ format.RegistryCompiler = Provider{}

// CompileRegistry loads text with each reference as the file its name
// imports; the well-known types are the compiler's own.
func (p Provider) CompileRegistry(text string, refs []format.RegistryRef, message string, show func(string) string) (format.Schema, error) {
	files := fstest.MapFS{}
	main := format.RegistryMain + format.Protobuf.Ext()
	files[main] = &fstest.MapFile{Data: []byte(text)}
	for _, r := range refs {
		if isStandard(r.Name) {
			continue
		}
		if err := p.CheckRefName(r.Name, show); err != nil {
			return nil, err
		}
		if prev, dup := files[r.Name]; dup && string(prev.Data) != r.Text {
			return nil, fmt.Errorf("two references are named %q with different schemas", show(r.Name))
		}
		files[r.Name] = &fstest.MapFile{Data: []byte(r.Text)}
	}
	s, err := Load(files, main, message)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, errors.New("no schema")
	}
	return s, nil
}

// CatalogText is the registry's text, with its imports written beside it.
func (Provider) CatalogText(_ format.Schema, text string) ([]byte, bool) {
	return []byte(text), true
}

// Serialized is the serialized form of a Protobuf schema (Confluent's
// format=serialized): its FileDescriptorProto without source positions,
// named name, base64-encoded.
func Serialized(sch format.Schema, name string) (string, error) {
	s, ok := sch.(*Schema)
	if !ok || s == nil || s.Desc == nil {
		return "", errors.New("no schema")
	}
	fdp := protodesc.ToFileDescriptorProto(s.Desc)
	fdp.SourceCodeInfo = nil
	fdp.Name = proto.String(name)
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(fdp)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// JSONFormName names Protobuf's JSON form: a BinaryDataer.
func (Provider) JSONFormName() string { return "the Protobuf JSON mapping" }

// SharedRel is the import path itself.
func (Provider) SharedRel(subject string) string { return subject }

// RegistryIdentity is what push and diff compare of Protobuf versions.
func (Provider) RegistryIdentity() string {
	return "descriptors of the file and its imports, without comments or layout"
}

// RecordSubjectShared: a shared .proto is registered under its import
// path, never under a message's name.
func (Provider) RecordSubjectShared() bool { return false }

// Descriptors: Protobuf's registry text may be a serialized
// FileDescriptorProto; references name imports by path.
func (Provider) Descriptors() bool { return true }
