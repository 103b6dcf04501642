package protocompat

import (
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// extensions are the extension fields one side's files declare, by the
// message they extend and number, with dynamicpb types to set and read
// them and a resolver for decoding.
type extensions struct {
	byMessage map[protoreflect.FullName]map[protoreflect.FieldNumber]protoreflect.ExtensionTypeDescriptor
	types     *dynamicpb.Types
}

// extensionsOf collects the extensions of fd and everything it imports.
func extensionsOf(fd protoreflect.FileDescriptor) *extensions {
	x := &extensions{byMessage: map[protoreflect.FullName]map[protoreflect.FieldNumber]protoreflect.ExtensionTypeDescriptor{}}
	files := &protoregistry.Files{}
	seen := map[string]bool{}
	var walk func(protoreflect.FileDescriptor)
	walk = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] {
			return
		}
		seen[f.Path()] = true
		imps := f.Imports()
		for i := 0; i < imps.Len(); i++ {
			walk(imps.Get(i).FileDescriptor)
		}
		_ = files.RegisterFile(f) // a duplicate name only repeats one already registered
		x.add(f.Extensions())
		var msgs func(protoreflect.MessageDescriptors)
		msgs = func(ms protoreflect.MessageDescriptors) {
			for i := 0; i < ms.Len(); i++ {
				x.add(ms.Get(i).Extensions())
				msgs(ms.Get(i).Messages())
			}
		}
		msgs(f.Messages())
	}
	walk(fd)
	x.types = dynamicpb.NewTypes(files)
	return x
}

func (x *extensions) add(xs protoreflect.ExtensionDescriptors) {
	for i := 0; i < xs.Len(); i++ {
		xd := xs.Get(i)
		m := xd.ContainingMessage().FullName()
		if x.byMessage[m] == nil {
			x.byMessage[m] = map[protoreflect.FieldNumber]protoreflect.ExtensionTypeDescriptor{}
		}
		x.byMessage[m][xd.Number()] = dynamicpb.NewExtensionType(xd).TypeDescriptor()
	}
}

// of lists the extensions of message m in number order.
func (x *extensions) of(m protoreflect.FullName) []protoreflect.ExtensionTypeDescriptor {
	byNum := x.byMessage[m]
	out := make([]protoreflect.ExtensionTypeDescriptor, 0, len(byNum))
	for _, xd := range byNum {
		out = append(out, xd)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Number() < out[j-1].Number(); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func (x *extensions) find(m protoreflect.FullName, n protoreflect.FieldNumber) protoreflect.ExtensionTypeDescriptor {
	return x.byMessage[m][n]
}
