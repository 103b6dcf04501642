package protobuf

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/bufbuild/protocompile/parser"
	"github.com/bufbuild/protocompile/reporter"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/evtool/evtool/format"
)

// The well-known Protobuf files (google/protobuf/*.proto) are built into
// every Protobuf compiler, evtool's included, and are never catalog files.
// They are served as protobuf-go's descriptor of them, and a registration
// is accepted when it declares what that descriptor declares (messages,
// fields, enums and their numbers; options and comments may differ between
// protobuf releases).

var _ format.BuiltinFiler = Provider{}

// wellKnownPackage is the package of the well-known files.
const wellKnownPackage = "google.protobuf"

// IsBuiltin reports an import of the well-known types, which registries
// resolve themselves: they are never registered nor written.
func (Provider) IsBuiltin(name string) bool { return strings.HasPrefix(name, "google/protobuf/") }

// BuiltinWhere names the well-known files for a registry's messages.
func (Provider) BuiltinWhere() string {
	return "files under google/protobuf/ are the compiler's own (timestamp.proto, duration.proto, ...)"
}

// BuiltinFiles are the files of package google.protobuf that protobuf-go
// links.
func (Provider) BuiltinFiles() []string {
	var out []string
	protoregistry.GlobalFiles.RangeFilesByPackage(wellKnownPackage, func(fd protoreflect.FileDescriptor) bool {
		out = append(out, fd.Path())
		return true
	})
	return out
}

// wellKnownFile is the descriptor of the well-known file name (ok false
// for none).
func wellKnownFile(name string) (protoreflect.FileDescriptor, bool) {
	fd, err := protoregistry.GlobalFiles.FindFileByPath(name)
	// Package google.protobuf exactly: the files BuiltinFiles lists. Other
	// files the binary links under google/protobuf/ (go_features.proto of
	// package pb, compiler/plugin.proto) would get an id never served.
	if err != nil || !(Provider{}).IsBuiltin(name) || fd.Package() != wellKnownPackage {
		return nil, false
	}
	return fd, true
}

// BuiltinText prints the well-known file's descriptor; its digest is
// FileIDDigest's.
func (Provider) BuiltinText(name string) ([]byte, string, bool, error) {
	fd, ok := wellKnownFile(name)
	if !ok {
		return nil, "", false, nil
	}
	text, err := PrintProto(fd)
	if err != nil {
		return nil, "", true, err
	}
	return text, FileIDDigest(fd, nil), true, nil
}

// CheckBuiltin parses text and compares its declarations with the
// well-known file's.
func (Provider) CheckBuiltin(name string, text []byte) (string, error) {
	fd, ok := wellKnownFile(name)
	if !ok {
		return "", fmt.Errorf("%s is no well-known file", name)
	}
	parsed, err := parseWellKnown(name, text)
	if err != nil {
		return "", err
	}
	got, want := declarations(parsed), declarations(fd)
	if slices.Equal(got, want) {
		return "", nil
	}
	return firstDifference(got, want), nil
}

// parseWellKnown parses and links a .proto text registered as a
// well-known file; its imports are the other well-known files. (The
// catalog's compiler refuses package google.protobuf in a schema.)
func parseWellKnown(subject string, text []byte) (protoreflect.FileDescriptor, error) {
	h := reporter.NewHandler(nil)
	ast, err := parser.Parse(subject, bytes.NewReader(text), h)
	if err != nil {
		return nil, err
	}
	res, err := parser.ResultFromAST(ast, true, h)
	if err != nil {
		return nil, err
	}
	return protodesc.NewFile(res.FileDescriptorProto(), protoregistry.GlobalFiles)
}

// declarations lists what a file declares, sorted: its messages with their
// fields (number, kind, cardinality, type), its enums with their values.
func declarations(fd protoreflect.FileDescriptor) []string {
	var out []string
	var msgs func(ms protoreflect.MessageDescriptors)
	enums := func(es protoreflect.EnumDescriptors) {
		for i := range es.Len() {
			e := es.Get(i)
			out = append(out, "enum "+string(e.FullName()))
			for j := range e.Values().Len() {
				v := e.Values().Get(j)
				out = append(out, fmt.Sprintf("value %s = %d", v.FullName(), v.Number()))
			}
		}
	}
	msgs = func(ms protoreflect.MessageDescriptors) {
		for i := range ms.Len() {
			m := ms.Get(i)
			out = append(out, "message "+string(m.FullName()))
			for j := range m.Fields().Len() {
				f := m.Fields().Get(j)
				typ := f.Kind().String()
				if f.Message() != nil {
					typ = string(f.Message().FullName())
				} else if f.Enum() != nil {
					typ = string(f.Enum().FullName())
				}
				out = append(out, fmt.Sprintf("field %s = %d %s %s", f.FullName(), f.Number(), f.Cardinality(), typ))
			}
			msgs(m.Messages())
			enums(m.Enums())
		}
	}
	msgs(fd.Messages())
	enums(fd.Enums())
	slices.Sort(out)
	return out
}

// firstDifference names the first declaration one list has and the other
// lacks.
func firstDifference(got, want []string) string {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return "it lacks " + w
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			return "it adds " + g
		}
	}
	return "they differ"
}

var _ format.SameTexter = Provider{}

// SameText compiles both texts of the file name alone and compares their
// registry identities (FileIDDigest: descriptors without comments or
// layout).
func (Provider) SameText(a, b, name string) bool {
	da, err1 := Compile(fstest.MapFS{name: {Data: []byte(a)}}, name)
	db, err2 := Compile(fstest.MapFS{name: {Data: []byte(b)}}, name)
	if err1 != nil || err2 != nil {
		return false
	}
	return FileIDDigest(da, nil) == FileIDDigest(db, nil)
}
