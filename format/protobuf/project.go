package protobuf

import (
	"fmt"
	"slices"

	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/evtool/evtool/format"
)

// Project is s restricted to fields, pointers into the canonical JSON
// mapping (as ResolvePointer reads them, by JSON or proto name): a
// message keeps the fields a pointer reaches, with their numbers,
// options and positions; a oneof keeps its read members (and goes when
// none is read); repeated fields and maps project their items and values.
// A message reached through several read paths keeps the fields read
// through any of them; well-known types and map entries are kept whole.
// Files are rebuilt with their source positions renumbered, so findings
// about the projection keep their file:line:col and fingerprints.
func (Provider) Project(sch format.Schema, fields *format.Fields) (format.Schema, error) {
	s, ok := sch.(*Schema)
	if !ok {
		return nil, format.NotKind(sch, format.Protobuf)
	}
	if fields == nil || fields.All {
		return s, nil
	}
	reads := map[protoreflect.FullName]*format.Fields{}
	collectReads(s.Message, fields, reads)
	reg := &protoregistry.Files{}
	fd, err := projectFile(s.Desc, reads, reg)
	if err != nil {
		return nil, fmt.Errorf("projecting %s: %w", s.Message.FullName(), err)
	}
	d, err := reg.FindDescriptorByName(s.Message.FullName())
	if err != nil {
		return nil, fmt.Errorf("projecting %s: %w", s.Message.FullName(), err)
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return nil, fmt.Errorf("projecting %s: not a message", s.Message.FullName())
	}
	return &Schema{File: s.File, Files: s.Files, Desc: fd, Message: md, paths: s.paths}, nil
}

// collectReads merges what each message reached is read for. A message
// is walked again only when that grew, so recursive messages end.
func collectReads(md protoreflect.MessageDescriptor, f *format.Fields, reads map[protoreflect.FullName]*format.Fields) {
	if md == nil || f == nil || md.IsMapEntry() || isStandard(md.ParentFile().Path()) {
		return
	}
	m := format.Merge(reads[md.FullName()], f)
	if old, seen := reads[md.FullName()]; seen && old.Equal(m) {
		return
	}
	reads[md.FullName()] = m
	fs := md.Fields()
	for i := 0; i < fs.Len(); i++ {
		fd := fs.Get(i)
		c := fieldReads(m, fd)
		if c == nil {
			continue
		}
		switch {
		case fd.IsMap():
			collectReads(fd.MapValue().Message(), anyItem(c), reads)
		case fd.IsList():
			collectReads(fd.Message(), anyItem(c), reads)
		default:
			collectReads(fd.Message(), c, reads)
		}
	}
}

// fieldReads is what m reads of field fd (by JSON or proto name; nil:
// nothing).
func fieldReads(m *format.Fields, fd protoreflect.FieldDescriptor) *format.Fields {
	if m.All {
		return m
	}
	return format.Merge(m.Children[fd.JSONName()], m.Children[string(fd.Name())])
}

// anyItem is what the items of a repeated field or the values of a map
// are read for: every index (or key) merged.
func anyItem(f *format.Fields) *format.Fields {
	if f.All {
		return f
	}
	var out *format.Fields
	for _, c := range f.Children {
		out = format.Merge(out, c)
	}
	return out
}

// projectFile rebuilds f and its imports into reg, the messages in reads
// restricted to the fields they are read for.
func projectFile(f protoreflect.FileDescriptor, reads map[protoreflect.FullName]*format.Fields, reg *protoregistry.Files) (protoreflect.FileDescriptor, error) {
	if d, err := reg.FindFileByPath(f.Path()); err == nil {
		return d, nil
	}
	imps := f.Imports()
	for i := 0; i < imps.Len(); i++ {
		if _, err := projectFile(imps.Get(i).FileDescriptor, reads, reg); err != nil {
			return nil, err
		}
	}
	fdp := protodesc.ToFileDescriptorProto(f)
	if !isStandard(f.Path()) {
		for i, m := range fdp.MessageType {
			projectMessage(fdp, m, f.Messages().Get(i), []int32{4, int32(i)}, reads)
		}
	}
	d, err := protodesc.NewFile(fdp, reg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path(), err)
	}
	if err := reg.RegisterFile(d); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path(), err)
	}
	return d, nil
}

// Field numbers of descriptor.proto's DescriptorProto, in source paths.
const (
	pathField      = 2
	pathNestedType = 3
	pathOneof      = 8
)

// projectMessage removes the fields of m (md's proto, at source path at)
// that reads does not reach, and the oneofs left empty, renumbering the
// source locations below m; nested messages are projected likewise.
func projectMessage(fdp *descriptorpb.FileDescriptorProto, m *descriptorpb.DescriptorProto, md protoreflect.MessageDescriptor, at []int32, reads map[protoreflect.FullName]*format.Fields) {
	for i, n := range m.NestedType {
		projectMessage(fdp, n, md.Messages().Get(i), append(slices.Clip(at), pathNestedType, int32(i)), reads)
	}
	r := reads[md.FullName()]
	if r == nil || r.All {
		return
	}
	fieldAt := make([]int32, len(m.Field)) // old index -> new, -1 removed
	var kept []*descriptorpb.FieldDescriptorProto
	oneofUsed := make([]bool, len(m.OneofDecl))
	for i, fd := range m.Field {
		if fieldReads(r, md.Fields().Get(i)) == nil {
			fieldAt[i] = -1
			continue
		}
		fieldAt[i] = int32(len(kept))
		kept = append(kept, fd)
		if fd.OneofIndex != nil {
			oneofUsed[fd.GetOneofIndex()] = true
		}
	}
	oneofAt := make([]int32, len(m.OneofDecl))
	var oneofs []*descriptorpb.OneofDescriptorProto
	for i, o := range m.OneofDecl {
		if !oneofUsed[i] {
			oneofAt[i] = -1
			continue
		}
		oneofAt[i] = int32(len(oneofs))
		oneofs = append(oneofs, o)
	}
	for _, fd := range kept {
		if fd.OneofIndex != nil {
			fd.OneofIndex = new(oneofAt[fd.GetOneofIndex()])
		}
	}
	m.Field, m.OneofDecl = kept, oneofs
	if fdp.SourceCodeInfo == nil {
		return
	}
	locs := fdp.SourceCodeInfo.Location[:0]
	for _, loc := range fdp.SourceCodeInfo.Location {
		p := loc.Path
		if len(p) > len(at)+1 && slices.Equal(p[:len(at)], at) {
			var renum []int32
			switch p[len(at)] {
			case pathField:
				renum = fieldAt
			case pathOneof:
				renum = oneofAt
			}
			if renum != nil {
				i := p[len(at)+1]
				if int(i) >= len(renum) || renum[i] < 0 {
					continue
				}
				loc.Path = append(slices.Clone(p[:len(at)+1]), append([]int32{renum[i]}, p[len(at)+2:]...)...)
			}
		}
		locs = append(locs, loc)
	}
	fdp.SourceCodeInfo.Location = locs
}
