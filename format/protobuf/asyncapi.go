package protobuf

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/jhump/protoreflect/v2/protoprint"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/evtool/evtool/format"
)

// The schemaFormat of a Protobuf payload, as the AsyncAPI 3.0
// specification spells it: the schema is embedded as the .proto text (a
// string).
const (
	AsyncAPISchemaFormat  = "application/vnd.google.protobuf;version=3"
	AsyncAPISchemaFormat2 = "application/vnd.google.protobuf;version=2"
)

var _ format.AsyncAPIPayloader = Provider{}

// The .proto text a payload embeds must stand alone: the AsyncAPI
// Protobuf parser (protobufjs) reads one file and refuses imports other
// than the well-known types ("Imports are currently not implemented"). A
// version that imports catalog files is embedded as one file bundling
// them: the declarations of an imported file of the version's package are
// added to the file; those of another package Q are nested in messages
// named by Q's segments (so that Q.Location still names them), and the
// references to them are rewritten. The event message is marked with
// the parser's @RootNode comment, as the bundle has more than one
// candidate. The version's own comments are kept; x-evtool-imports names
// the files bundled.

// AsyncAPIPayload is s embedded in an AsyncAPI message with its
// schemaFormat: the .proto text, bundled with the catalog files it imports
// (as written, with a warning, when they cannot be bundled).
func (Provider) AsyncAPIPayload(sch format.Schema, text []byte) (format.AsyncAPIPayload, error) {
	s, ok := sch.(*Schema)
	if !ok {
		return format.AsyncAPIPayload{}, format.NotKind(sch, format.Protobuf)
	}
	sf := AsyncAPISchemaFormat // proto3, and editions, which the specification does not name
	if s.Desc.Syntax() == protoreflect.Proto2 {
		sf = AsyncAPISchemaFormat2
	}
	p := format.AsyncAPIPayload{SchemaFormat: sf, Message: string(s.Message.FullName()), ContentType: s.DefaultContentType()}
	bundle, err := asyncAPIText(text, s)
	if err != nil {
		// The file as written is still the version's schema; only
		// the AsyncAPI Protobuf parser cannot follow its imports.
		p.Warning = fmt.Sprintf("embedded as written, with its imports: %v", err)
		bundle = string(text)
	}
	p.Text = bundle
	if len(s.Files) > 1 {
		for _, f := range s.Files {
			if f != s.File {
				p.Imports = append(p.Imports, f)
			}
		}
	}
	return p, nil
}

// asyncAPIText returns the .proto text of a version's payload.
func asyncAPIText(text []byte, s *Schema) (string, error) {
	deps := catalogImports(s.Desc)
	if len(deps) == 0 {
		return string(text), nil
	}
	main := protodesc.ToFileDescriptorProto(s.Desc)
	pkg := main.GetPackage()
	bundled := map[string]bool{}
	for _, d := range deps {
		bundled[d.Path()] = true
	}
	// Imports that stay: the well-known files.
	var keep []string
	for _, dep := range main.GetDependency() {
		if !bundled[dep] && !slices.Contains(keep, dep) {
			keep = append(keep, dep)
		}
	}
	for _, d := range deps {
		for i := range d.Imports().Len() {
			if p := d.Imports().Get(i).Path(); !bundled[p] && !slices.Contains(keep, p) {
				keep = append(keep, p)
			}
		}
	}
	main.Dependency, main.PublicDependency, main.WeakDependency = keep, nil, nil
	// Full names of moved types, ".Q.X" -> ".P.Q.X": by whole name, as a
	// package prefix would also match the version's own types where Q is
	// a prefix of P (package com.example imported by com.example.stock).
	renames := map[string]string{}
	var moved []*descriptorpb.SourceCodeInfo_Location
	for _, d := range deps {
		fdp := protodesc.ToFileDescriptorProto(d)
		q := fdp.GetPackage()
		if q == pkg {
			moved = append(moved, shiftedComments(fdp, len(main.MessageType), len(main.EnumType))...)
			main.MessageType = append(main.MessageType, fdp.MessageType...)
			main.EnumType = append(main.EnumType, fdp.EnumType...)
			continue
		}
		holder := wrapper(main, q)
		holder.NestedType = append(holder.NestedType, fdp.MessageType...)
		holder.EnumType = append(holder.EnumType, fdp.EnumType...)
		if pkg != "" {
			movedNames(d.Messages(), d.Enums(), pkg, renames)
		}
	}
	if len(renames) > 0 {
		for _, m := range main.MessageType {
			renameTypes(m, renames)
		}
		renameFields(main.Extension, renames)
		for _, sv := range main.Service {
			for _, m := range sv.Method {
				if to, ok := renames[m.GetInputType()]; ok {
					m.InputType = proto.String(to)
				}
				if to, ok := renames[m.GetOutputType()]; ok {
					m.OutputType = proto.String(to)
				}
			}
		}
	}
	// Comments stay where their paths still point: the file's own
	// declarations (appended ones come after them); import statements
	// are renumbered, so theirs go.
	if sci := main.GetSourceCodeInfo(); sci != nil {
		var locs []*descriptorpb.SourceCodeInfo_Location
		for _, l := range sci.Location {
			if len(l.Path) > 0 && (l.Path[0] == 3 || l.Path[0] == 10 || l.Path[0] == 11) {
				continue
			}
			locs = append(locs, l)
		}
		sci.Location = append(locs, moved...)
	}
	fd, err := protodesc.NewFile(main, protoregistry.GlobalFiles)
	if err != nil {
		return "", fmt.Errorf("%s: bundling its imports: %w", s.File, err)
	}
	var buf bytes.Buffer
	if err := (&protoprint.Printer{}).PrintProtoFile(fd, &buf); err != nil {
		return "", fmt.Errorf("%s: printing the bundle: %w", s.File, err)
	}
	return markRoot(buf.String(), s.Message), nil
}

// shiftedComments returns the comments of the top-level messages and
// enums of fdp, their paths moved past the first messages and enums of
// the file they are added to.
func shiftedComments(fdp *descriptorpb.FileDescriptorProto, messages, enums int) []*descriptorpb.SourceCodeInfo_Location {
	var out []*descriptorpb.SourceCodeInfo_Location
	for _, l := range fdp.GetSourceCodeInfo().GetLocation() {
		if len(l.Path) < 2 || (l.Path[0] != 4 && l.Path[0] != 5) {
			continue
		}
		c := proto.Clone(l).(*descriptorpb.SourceCodeInfo_Location)
		if c.Path[0] == 4 {
			c.Path[1] += int32(messages)
		} else {
			c.Path[1] += int32(enums)
		}
		out = append(out, c)
	}
	return out
}

// catalogImports lists the catalog files fd imports, directly or not (the
// well-known files are every compiler's own), each once, in import order.
func catalogImports(fd protoreflect.FileDescriptor) []protoreflect.FileDescriptor {
	var out []protoreflect.FileDescriptor
	seen := map[string]bool{}
	var walk func(f protoreflect.FileDescriptor)
	walk = func(f protoreflect.FileDescriptor) {
		imps := f.Imports()
		for i := range imps.Len() {
			d := imps.Get(i).FileDescriptor
			if seen[d.Path()] || strings.HasPrefix(d.Path(), "google/protobuf/") {
				continue
			}
			seen[d.Path()] = true
			walk(d)
			out = append(out, d)
		}
	}
	walk(fd)
	return out
}

// wrapper returns the message of main nesting the declarations of package
// q, creating the chain of messages named by q's segments.
func wrapper(main *descriptorpb.FileDescriptorProto, q string) *descriptorpb.DescriptorProto {
	list := &main.MessageType
	var cur *descriptorpb.DescriptorProto
	for _, seg := range strings.Split(q, ".") {
		var next *descriptorpb.DescriptorProto
		for _, m := range *list {
			if m.GetName() == seg {
				next = m
			}
		}
		if next == nil {
			next = &descriptorpb.DescriptorProto{Name: proto.String(seg)}
			*list = append(*list, next)
		}
		cur, list = next, &next.NestedType
	}
	return cur
}

// movedNames adds the full names of messages and enums (nested ones too)
// to renames, each to its name under package pkg.
func movedNames(ms protoreflect.MessageDescriptors, es protoreflect.EnumDescriptors, pkg string, renames map[string]string) {
	for i := range es.Len() {
		n := string(es.Get(i).FullName())
		renames["."+n] = "." + pkg + "." + n
	}
	for i := range ms.Len() {
		m := ms.Get(i)
		n := string(m.FullName())
		renames["."+n] = "." + pkg + "." + n
		movedNames(m.Messages(), m.Enums(), pkg, renames)
	}
}

// renameTypes rewrites the type references of m (and its nested messages)
// to moved types.
func renameTypes(m *descriptorpb.DescriptorProto, renames map[string]string) {
	renameFields(m.Field, renames)
	renameFields(m.Extension, renames)
	for _, n := range m.NestedType {
		renameTypes(n, renames)
	}
}

// renameFields rewrites the types and extendees of fields that name a
// moved type.
func renameFields(fs []*descriptorpb.FieldDescriptorProto, renames map[string]string) {
	for _, f := range fs {
		if to, ok := renames[f.GetTypeName()]; ok {
			f.TypeName = proto.String(to)
		}
		if to, ok := renames[f.GetExtendee()]; ok {
			f.Extendee = proto.String(to)
		}
	}
}

// markRoot puts the parser's @RootNode marker on the event message, which
// the printer writes at the start of a line.
func markRoot(text string, msg protoreflect.MessageDescriptor) string {
	if msg == nil || msg.Parent() != msg.ParentFile() {
		return text // a nested event message: the parser finds top-level ones only
	}
	decl := "message " + string(msg.Name()) + " {"
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l == decl {
			lines = slices.Insert(lines, i, "// @RootNode")
			break
		}
	}
	return strings.Join(lines, "\n")
}

// AsyncAPIInfo says how Protobuf versions are carried, for the document's
// description.
func (Provider) AsyncAPIInfo() string {
	return "Protobuf types (schemas/<type>/vN.proto): the record value is the message in the Protobuf binary encoding (content-type application/protobuf, optionally Confluent-framed with message indexes); the payload embeds the .proto text with schemaFormat " + AsyncAPISchemaFormat + " (version=2 for proto2 files), x-evtool-message naming the event's message."
}
