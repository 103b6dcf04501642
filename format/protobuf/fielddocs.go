package protobuf

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/evtool/evtool/format"
)

// The field table of a Protobuf version (evtool docs) uses the same rows
// as JSON Schema's: a field number, label, json_name or oneof is a
// constraint line, which diffs show as − and +.

var _ format.FieldDocumenter = Provider{}

// FieldDocs lists the fields of a Protobuf message (nested messages
// included, each once on a path) and describes the root; no file is read
// again, the descriptors keep the comments.
func (Provider) FieldDocs(sch format.Schema, _ format.FieldDocFiles) (root format.FieldDoc, rows []format.FieldDoc, truncated bool) {
	s, ok := sch.(*Schema)
	if !ok {
		return format.FieldDoc{}, nil, false
	}
	m := s.Message
	root = format.FieldDoc{Type: "message " + string(m.Name()), RefName: string(m.FullName()), Description: protoComment(m)}
	stack := map[protoreflect.FullName]bool{}
	var walk func(path string, depth int, m protoreflect.MessageDescriptor)
	walk = func(path string, depth int, m protoreflect.MessageDescriptor) {
		if depth > format.MaxFieldDocDepth || len(rows) > format.MaxFieldDocs {
			truncated = true
			return
		}
		stack[m.FullName()] = true
		defer delete(stack, m.FullName())
		fields := m.Fields()
		for i := 0; i < fields.Len(); i++ {
			fd := fields.Get(i)
			p := format.FieldPath(path, string(fd.Name()))
			row := format.FieldDoc{Path: p, Depth: depth, Property: true, Required: fd.Cardinality() == protoreflect.Required,
				Type: protoType(fd), Description: protoComment(fd)}
			row.Constraints = append(row.Constraints, fmt.Sprintf("number: %d", fd.Number()))
			switch {
			case fd.IsMap():
				row.Constraints = append(row.Constraints, "label: map")
			case fd.Cardinality() == protoreflect.Repeated:
				row.Constraints = append(row.Constraints, "label: repeated")
			case fd.Cardinality() == protoreflect.Required:
				row.Constraints = append(row.Constraints, "label: required")
			case fd.HasOptionalKeyword():
				row.Constraints = append(row.Constraints, "label: optional")
			}
			row.Constraints = append(row.Constraints, "json_name: "+fd.JSONName())
			if o := fd.ContainingOneof(); o != nil && !o.IsSynthetic() {
				row.Constraints = append(row.Constraints, "oneof: "+string(o.Name()))
			}
			if e := fd.Enum(); e != nil && !fd.IsMap() {
				row.RefName = string(e.FullName())
				vals := e.Values()
				for j := 0; j < vals.Len(); j++ {
					row.Enum = append(row.Enum, fmt.Sprintf("%s = %d", vals.Get(j).Name(), vals.Get(j).Number()))
				}
			}
			target, sub := fd.Message(), p
			switch {
			case fd.IsMap():
				target, sub = fd.MapValue().Message(), p+"{}"
			case fd.Cardinality() == protoreflect.Repeated:
				sub = p + "[]"
			}
			if target != nil && !fd.IsMap() {
				row.RefName = string(target.FullName())
			}
			rows = append(rows, row)
			if target != nil {
				if stack[target.FullName()] {
					rows[len(rows)-1].Constraints = append(rows[len(rows)-1].Constraints, "recursive: "+string(target.FullName()))
					continue
				}
				walk(sub, depth+1, target)
			}
		}
	}
	walk("", 0, m)
	return root, rows, truncated
}

// protoType is a field's type: the scalar kind, or the message or enum
// name; "map<K, V>" for maps.
func protoType(fd protoreflect.FieldDescriptor) string {
	if fd.IsMap() {
		return "map<" + protoType(fd.MapKey()) + ", " + protoType(fd.MapValue()) + ">"
	}
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return string(fd.Message().Name())
	case protoreflect.EnumKind:
		return "enum " + string(fd.Enum().Name())
	}
	return fd.Kind().String()
}

// protoComment is the comment written before a declaration.
func protoComment(d protoreflect.Descriptor) string {
	loc := d.ParentFile().SourceLocations().ByDescriptor(d)
	return strings.TrimSpace(loc.LeadingComments)
}
