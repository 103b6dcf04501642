package protobuf

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"regexp"
	"sync"

	"github.com/jhump/protoreflect/v2/protoprint"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/evtool/evtool/format"
)

var _ format.DescriptorFormer = Provider{}

// RegistryText is DescriptorText for a serialized descriptor
// (IsSerializedDescriptor), schema as it is otherwise.
func (Provider) RegistryText(schema []byte) ([]byte, error) {
	if !IsSerializedDescriptor(schema) {
		return schema, nil
	}
	return DescriptorText(schema)
}

// SerializedForm is Serialized.
func (Provider) SerializedForm(s format.Schema, name string) (string, error) {
	return Serialized(s, name)
}

// confluent-kafka-python registers a Protobuf schema as its
// FileDescriptorProto, serialized and base64-encoded, not as .proto text;
// Confluent's registry accepts both and stores text. evtool does the same:
// the descriptor is rendered as the .proto file a human would write, which
// then takes the text path (imports through references, compatibility,
// the catalog file).

// base64Schema matches a schema that is standard base64 and nothing else.
// No .proto text is but a comment line ("//TODO"): every declaration ends
// in ';' or '}'. The empty string is the empty .proto file, not an empty
// descriptor.
var base64Schema = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9+/]+={0,2}$`) })

// IsSerializedDescriptor reports whether a PROTOBUF schema is in the
// serialized form (base64 of a FileDescriptorProto). Base64 starting with
// "//" decodes to a first byte 0xff, a tag of wire type 7, which no
// serialized message starts with: that is a comment.
func IsSerializedDescriptor(schema []byte) bool {
	s := bytes.TrimSpace(schema)
	return base64Schema().Match(s) && !bytes.HasPrefix(s, []byte("//"))
}

// DescriptorText renders a base64-encoded serialized FileDescriptorProto
// as .proto text. Its imports need not resolve here: they are named by
// path, and the text is compiled with the schema's references afterwards.
func DescriptorText(schema []byte) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(schema)))
	if err != nil {
		return nil, fmt.Errorf("the schema is neither .proto text nor base64 (%v)", err)
	}
	fdp := &descriptorpb.FileDescriptorProto{}
	if err := (proto.UnmarshalOptions{RecursionLimit: descriptorRecursionLimit}).Unmarshal(raw, fdp); err != nil {
		return nil, fmt.Errorf("the base64 schema is not a serialized FileDescriptorProto: %v", err)
	}
	if err := unknownDescriptorField(fdp.ProtoReflect()); err != nil {
		return nil, fmt.Errorf("the base64 schema is not a serialized FileDescriptorProto: %v", err)
	}
	if fdp.GetName() == "" {
		// protodesc refuses a nameless file; the name is not part of the
		// text.
		fdp.Name = proto.String("schema.proto")
	}
	fd, err := (protodesc.FileOptions{AllowUnresolvable: true}).New(fdp, importResolver{})
	if err != nil {
		return nil, fmt.Errorf("the serialized FileDescriptorProto %q is not a valid descriptor: %v", fdp.GetName(), err)
	}
	if err := unrenderableOption(fd); err != nil {
		return nil, fmt.Errorf("the serialized FileDescriptorProto %q cannot be printed as .proto text: %v; register the schema as .proto text", fdp.GetName(), err)
	}
	text, err := PrintProto(fd)
	if err != nil {
		return nil, fmt.Errorf("the serialized FileDescriptorProto %q cannot be printed as .proto text: %v", fdp.GetName(), err)
	}
	return text, nil
}

// PrintProto prints fd as compact .proto text. protoprint panics on some
// values it does not know ("unknown type of value"); a descriptor from a
// client must be refused then, not take the server down.
func PrintProto(fd protoreflect.FileDescriptor) (text []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			text, err = nil, fmt.Errorf("the printer failed: %v", r)
		}
	}()
	var buf bytes.Buffer
	if err := (&protoprint.Printer{Compact: true}).PrintProtoFile(fd, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// unknownDescriptorField reports a field of a descriptor message (m or a
// message in it) that its type does not have: the parser keeps it aside
// and no printer prints it, so bytes that are no descriptor ("KAE=")
// would pass for an empty file. Options are left to unrenderableOption:
// custom options are unknown fields there until interpreted.
func unknownDescriptorField(m protoreflect.Message) error {
	if isOptions(m.Descriptor()) {
		return nil
	}
	if b := m.GetUnknown(); len(b) > 0 {
		num, _, _ := protowire.ConsumeField(b)
		return fmt.Errorf("it holds field %d of %s, which that message does not have with that wire type", num, m.Descriptor().FullName())
	}
	var err error
	m.Range(func(f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case f.Message() == nil || f.IsMap():
		case f.IsList():
			for i := 0; i < v.List().Len() && err == nil; i++ {
				err = unknownDescriptorField(v.List().Get(i).Message())
			}
		default:
			err = unknownDescriptorField(v.Message())
		}
		return err == nil
	})
	return err
}

// isOptions reports whether md is one of descriptor.proto's options
// messages that unrenderableOption checks.
func isOptions(md protoreflect.MessageDescriptor) bool {
	switch md.FullName() {
	case "google.protobuf.FileOptions", "google.protobuf.MessageOptions", "google.protobuf.FieldOptions",
		"google.protobuf.OneofOptions", "google.protobuf.EnumOptions", "google.protobuf.EnumValueOptions",
		"google.protobuf.ServiceOptions", "google.protobuf.MethodOptions":
		return true
	}
	return false
}

// unrenderableOption finds an option of fd that protoprint would drop: a
// custom option declared in an import (the imports are placeholders here,
// so the option's bytes cannot be interpreted), or a field the options
// message does not know. Dropping it would make the catalog file another
// schema than the one registered.
func unrenderableOption(fd protoreflect.FileDescriptor) error {
	declared := map[protoreflect.FullName]map[protoreflect.FieldNumber]bool{}
	var errOut error
	var walk func(d protoreflect.Descriptor)
	check := func(d protoreflect.Descriptor, opts proto.Message) {
		if errOut == nil && opts != nil {
			errOut = unknownOption(d, opts.ProtoReflect(), declared)
		}
	}
	addExts := func(exts protoreflect.ExtensionDescriptors) {
		for i := range exts.Len() {
			x := exts.Get(i)
			name := x.ContainingMessage().FullName()
			if declared[name] == nil {
				declared[name] = map[protoreflect.FieldNumber]bool{}
			}
			declared[name][x.Number()] = true
		}
	}
	var collect func(msgs protoreflect.MessageDescriptors)
	collect = func(msgs protoreflect.MessageDescriptors) {
		for i := range msgs.Len() {
			addExts(msgs.Get(i).Extensions())
			collect(msgs.Get(i).Messages())
		}
	}
	addExts(fd.Extensions())
	collect(fd.Messages())
	enums := func(es protoreflect.EnumDescriptors) {
		for i := range es.Len() {
			e := es.Get(i)
			check(e, e.Options())
			for j := range e.Values().Len() {
				check(e.Values().Get(j), e.Values().Get(j).Options())
			}
		}
	}
	fields := func(fs protoreflect.FieldDescriptors) {
		for i := range fs.Len() {
			check(fs.Get(i), fs.Get(i).Options())
		}
	}
	walk = func(d protoreflect.Descriptor) {
		m := d.(protoreflect.MessageDescriptor)
		check(m, m.Options())
		fields(m.Fields())
		for i := range m.Oneofs().Len() {
			check(m.Oneofs().Get(i), m.Oneofs().Get(i).Options())
		}
		for i := range m.Extensions().Len() {
			check(m.Extensions().Get(i), m.Extensions().Get(i).Options())
		}
		enums(m.Enums())
		for i := range m.Messages().Len() {
			walk(m.Messages().Get(i))
		}
	}
	check(fd, fd.Options())
	for i := range fd.Messages().Len() {
		walk(fd.Messages().Get(i))
	}
	enums(fd.Enums())
	for i := range fd.Extensions().Len() {
		check(fd.Extensions().Get(i), fd.Extensions().Get(i).Options())
	}
	for i := range fd.Services().Len() {
		sd := fd.Services().Get(i)
		check(sd, sd.Options())
		for j := range sd.Methods().Len() {
			check(sd.Methods().Get(j), sd.Methods().Get(j).Options())
		}
	}
	return errOut
}

// unknownOption reports a field of the options message m (or of a
// message in it) that is neither known to it nor an extension declared in
// the file.
func unknownOption(d protoreflect.Descriptor, m protoreflect.Message, declared map[protoreflect.FullName]map[protoreflect.FieldNumber]bool) error {
	for b := m.GetUnknown(); len(b) > 0; {
		num, _, n := protowire.ConsumeField(b)
		if n < 0 {
			return fmt.Errorf("%s has malformed options", d.FullName())
		}
		b = b[n:]
		if !declared[m.Descriptor().FullName()][num] {
			return fmt.Errorf("%s sets option %d of %s, which is not declared in the file (a custom option of an import cannot be read from the descriptor alone)", d.FullName(), num, m.Descriptor().FullName())
		}
	}
	var err error
	m.Range(func(f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if f.Message() == nil || f.IsMap() {
			return true
		}
		if f.IsList() {
			for i := range v.List().Len() {
				if err = unknownOption(d, v.List().Get(i).Message(), declared); err != nil {
					return false
				}
			}
			return true
		}
		err = unknownOption(d, v.Message(), declared)
		return err == nil
	})
	return err
}

// descriptorRecursionLimit bounds the nesting of a client's descriptor.
const descriptorRecursionLimit = 100

// importResolver finds no file: every import of a registered descriptor
// becomes a placeholder, resolved later through the schema's references
// (or, for the well-known types, by the compiler).
type importResolver struct{}

func (importResolver) FindFileByPath(string) (protoreflect.FileDescriptor, error) {
	return nil, protoregistry.NotFound
}

func (importResolver) FindDescriptorByName(protoreflect.FullName) (protoreflect.Descriptor, error) {
	return nil, protoregistry.NotFound
}
