package protobuf

import (
	"fmt"
	"slices"

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
	return project(s, fields, nil)
}

// ProjectWriter is writer projected for a reader's projection (made by
// Project with the same fields): a message keeps the fields read by name,
// as Project keeps them, and those of the numbers the reader's projection
// keeps, matched along its fields. Protobuf matches fields by number, so
// the writer's string b = 2 is what a reader's string c = 2 reads: on the
// names alone b was left out, and the rename's JSON break did not reach a
// consumer reading /c.
func (Provider) ProjectWriter(writer, reader format.Schema, fields *format.Fields) (format.Schema, error) {
	w, ok := writer.(*Schema)
	if !ok {
		return nil, format.NotKind(writer, format.Protobuf)
	}
	r, ok := reader.(*Schema)
	if !ok {
		return nil, format.NotKind(reader, format.Protobuf)
	}
	if fields == nil || fields.All {
		return w, nil
	}
	return project(w, fields, r.Message)
}

// project is s restricted to fields, and, when reader is not nil, to the
// fields of the numbers reader (a projected message) keeps.
func project(s *Schema, fields *format.Fields, reader protoreflect.MessageDescriptor) (format.Schema, error) {
	c := collector{keep: map[protoreflect.FullName]*keepSet{}, seen: map[visit]bool{}, all: &format.Fields{All: true}}
	c.collect(s.Message, fields)
	if reader != nil {
		c.byNumber(s.Message, reader, map[[2]protoreflect.FullName]bool{})
	}
	reads := c.keep
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

// keepSet is what a message keeps: every field, or those named (by JSON
// or proto name).
type keepSet struct {
	all   bool
	names map[string]bool
}

func (k *keepSet) keeps(fd protoreflect.FieldDescriptor) bool {
	return k.all || k.names[fd.JSONName()] || k.names[string(fd.Name())]
}

type visit struct {
	md protoreflect.FullName
	f  *format.Fields
}

// collector records what each message reached keeps. Each (message,
// field set) pair is walked once, so the walk costs the schema's size
// times the pointers' length at most, whatever the recursion.
type collector struct {
	keep map[protoreflect.FullName]*keepSet
	seen map[visit]bool
	// all stands for every field set that reads all of its value.
	all *format.Fields
}

func (c *collector) collect(md protoreflect.MessageDescriptor, f *format.Fields) {
	if md == nil || f == nil || md.IsMapEntry() || isStandard(md.ParentFile().Path()) {
		return
	}
	if f.All {
		f = c.all
	}
	if c.seen[visit{md.FullName(), f}] {
		return
	}
	c.seen[visit{md.FullName(), f}] = true
	k := c.keep[md.FullName()]
	if k == nil {
		k = &keepSet{names: map[string]bool{}}
		c.keep[md.FullName()] = k
	}
	k.all = k.all || f.All
	fs := md.Fields()
	for i := 0; i < fs.Len(); i++ {
		fd := fs.Get(i)
		var reads []*format.Fields
		if f.All {
			reads = []*format.Fields{f}
		} else {
			for _, name := range []string{fd.JSONName(), string(fd.Name())} {
				if r := f.Children[name]; r != nil {
					k.names[name] = true
					reads = append(reads, r)
				}
			}
		}
		for _, r := range reads {
			switch {
			case fd.IsMap() || fd.IsList():
				item := fd.Message()
				if fd.IsMap() {
					item = fd.MapValue().Message()
				}
				if r.All {
					c.collect(item, r)
				}
				for _, ir := range r.Children { // every index (or key) reads an item
					c.collect(item, ir)
				}
			default:
				c.collect(fd.Message(), r)
			}
		}
	}
}

// byNumber keeps in writer message wm the fields of the numbers reader
// message rm has, and so on down the message fields both have.
func (c *collector) byNumber(wm, rm protoreflect.MessageDescriptor, seen map[[2]protoreflect.FullName]bool) {
	if wm == nil || rm == nil || wm.IsMapEntry() || isStandard(wm.ParentFile().Path()) {
		return
	}
	pair := [2]protoreflect.FullName{wm.FullName(), rm.FullName()}
	if seen[pair] {
		return
	}
	seen[pair] = true
	k := c.keep[wm.FullName()]
	if k == nil {
		k = &keepSet{names: map[string]bool{}}
		c.keep[wm.FullName()] = k
	}
	rfs := rm.Fields()
	for i := 0; i < rfs.Len(); i++ {
		rf := rfs.Get(i)
		wf := wm.Fields().ByNumber(rf.Number())
		if wf == nil {
			continue
		}
		k.names[string(wf.Name())] = true
		c.byNumber(itemMessage(wf), itemMessage(rf), seen)
	}
}

// itemMessage is the message a field holds: its own, a list's items', a
// map's values' (nil for scalars).
func itemMessage(fd protoreflect.FieldDescriptor) protoreflect.MessageDescriptor {
	if fd.IsMap() {
		return fd.MapValue().Message()
	}
	return fd.Message()
}

// projectFile rebuilds f and its imports into reg, the messages in reads
// restricted to the fields they are read for.
func projectFile(f protoreflect.FileDescriptor, reads map[protoreflect.FullName]*keepSet, reg *protoregistry.Files) (protoreflect.FileDescriptor, error) {
	return rebuildWith(f, reg, func(f protoreflect.FileDescriptor, fdp *descriptorpb.FileDescriptorProto) {
		if isStandard(f.Path()) {
			return
		}
		for i, m := range fdp.MessageType {
			projectMessage(fdp, m, f.Messages().Get(i), []int32{4, int32(i)}, reads)
		}
	})
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
func projectMessage(fdp *descriptorpb.FileDescriptorProto, m *descriptorpb.DescriptorProto, md protoreflect.MessageDescriptor, at []int32, reads map[protoreflect.FullName]*keepSet) {
	for i, n := range m.NestedType {
		projectMessage(fdp, n, md.Messages().Get(i), append(slices.Clip(at), pathNestedType, int32(i)), reads)
	}
	r := reads[md.FullName()]
	if r == nil || r.all {
		return
	}
	fieldAt := make([]int32, len(m.Field)) // old index -> new, -1 removed
	var kept []*descriptorpb.FieldDescriptorProto
	oneofUsed := make([]bool, len(m.OneofDecl))
	for i, fd := range m.Field {
		if !r.keeps(md.Fields().Get(i)) {
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
