package protobuf

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonpos"
)

// ResolvePointer checks that the message's canonical JSON mapping can
// hold a value at ptr: fields by their JSON name (or their proto name,
// which the mapping also reads), repeated fields by index, map fields by
// any key. google.protobuf.Struct, Value, ListValue and Any hold any
// JSON, so every pointer below them resolves; the other well-known types
// are single JSON values.
func (s *Schema) ResolvePointer(ptr string) error {
	toks := jsonpos.Split(ptr)
	md := s.Message
	var list, isMap bool // the value at the current token is a list or a map of md (or of scalars when md is nil)
	for i, tok := range toks {
		bad := func() error {
			return fmt.Errorf("the message declares no value at %s", jsonpos.Join(toks[:i+1]...))
		}
		switch {
		case list:
			if !format.IsIndex(tok) {
				return bad()
			}
			list = false
			continue
		case isMap:
			isMap = false
			continue
		}
		if md == nil {
			return bad()
		}
		if anyJSON(md) {
			return nil
		}
		if strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
			return bad() // a well-known type mapped to one JSON value
		}
		fd := md.Fields().ByJSONName(tok)
		if fd == nil {
			fd = md.Fields().ByName(protoreflect.Name(tok))
		}
		if fd == nil {
			return bad()
		}
		switch {
		case fd.IsMap():
			isMap = true
			md = fd.MapValue().Message()
		case fd.IsList():
			list = true
			md = fd.Message()
		default:
			md = fd.Message()
		}
	}
	return nil
}

// anyJSON reports whether a message maps to arbitrary JSON.
func anyJSON(md protoreflect.MessageDescriptor) bool {
	switch md.FullName() {
	case "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue", "google.protobuf.Any":
		return true
	}
	return false
}
