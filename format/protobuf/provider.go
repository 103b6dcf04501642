package protobuf

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/evtool/evtool/format"
)

// Provider is Protobuf behind the seam (format/formats lists it).
type Provider struct{}

var _ format.Provider = Provider{}

// Kind is format.Protobuf.
func (Provider) Kind() format.Kind { return format.Protobuf }

// PartitionKey reads a partition key from a Protobuf message: a top-level
// string, integer or bool field (by JSON or proto name), its default when
// unset — which the JSON mapping leaves out (ok false for anything else).
// unframed is always nil.
func (Provider) PartitionKey(sch format.Schema, k format.KeyData) (any, bool, []byte) {
	s, ok := sch.(*Schema)
	if !ok || len(k.Tokens) != 1 {
		return nil, false, nil
	}
	fields := s.Message.Fields()
	fd := fields.ByJSONName(k.Tokens[0])
	if fd == nil {
		fd = fields.ByName(protoreflect.Name(k.Tokens[0]))
	}
	if fd == nil || fd.IsList() || fd.IsMap() {
		return nil, false, nil
	}
	var m *dynamicpb.Message
	var err error
	switch {
	case format.IsJSON(k.ContentType):
		m, err = s.DecodeJSON(k.Data)
	case len(k.Data) > 0 && k.Data[0] == 0:
		_, m, err = s.DecodeFramed(k.Data)
	default:
		m, err = s.DecodeBinary(k.Data)
	}
	if err != nil || fd.ContainingOneof() != nil && !m.Has(fd) {
		return nil, false, nil
	}
	v := m.Get(fd)
	switch fd.Kind() {
	case protoreflect.StringKind:
		return v.String(), true, nil
	case protoreflect.BoolKind:
		return v.Bool(), true, nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return json.Number(strconv.FormatInt(v.Int(), 10)), true, nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return json.Number(strconv.FormatUint(v.Uint(), 10)), true, nil
	}
	return nil, false, nil
}

// PointerForm adds to the JSON mapping v of a message what a partition
// key may be read from: the top-level string, integer and bool fields,
// also those the mapping leaves out because they hold their default (the
// message has that value: bin 0 is keyed "0"), and each also under its
// proto name when the JSON name differs (/bin_id as /binId). Fields with
// presence (in a oneof, proto3 optional) stay out when unset, as
// PartitionKey leaves them.
func (Provider) PointerForm(sch format.Schema, v any) any {
	s, ok := sch.(*Schema)
	obj, isObj := v.(map[string]any)
	if !ok || !isObj {
		return v
	}
	fields := s.Message.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.IsList() || fd.IsMap() {
			continue
		}
		name := fd.JSONName()
		if _, set := obj[name]; !set && fd.ContainingOneof() == nil {
			if def, ok := scalarDefault(fd); ok {
				obj[name] = def
			}
		}
		if val, set := obj[name]; set && string(fd.Name()) != name {
			if _, taken := obj[string(fd.Name())]; !taken {
				if _, ok := scalarDefault(fd); ok {
					obj[string(fd.Name())] = val
				}
			}
		}
	}
	return obj
}

// scalarDefault is the default of a string, integer or bool field as the
// JSON mapping writes it (64-bit integers as strings); ok is false for
// other kinds.
func scalarDefault(fd protoreflect.FieldDescriptor) (any, bool) {
	def := fd.Default()
	switch fd.Kind() {
	case protoreflect.StringKind:
		return def.String(), true
	case protoreflect.BoolKind:
		return def.Bool(), true
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return json.Number(strconv.FormatInt(def.Int(), 10)), true
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return json.Number(strconv.FormatUint(def.Uint(), 10)), true
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return strconv.FormatInt(def.Int(), 10), true
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return strconv.FormatUint(def.Uint(), 10), true
	}
	return nil, false
}

// Sampler samples with Sampler: covering sample k is index 1+k of the
// seed's stream; a random one is a random index of a random stream.
func (Provider) Sampler(sch format.Schema, seed uint64, _ format.SampleOptions) (format.CoverSampler, error) {
	s, ok := sch.(*Schema)
	if !ok {
		return nil, format.NotKind(sch, format.Protobuf)
	}
	return &coverSampler{md: s.Message, seed: seed, n: s.Cover()}, nil
}

// coverSampler is a Protobuf schema's format.CoverSampler.
type coverSampler struct {
	md   protoreflect.MessageDescriptor
	seed uint64
	n    int
}

func (c *coverSampler) Cover() int { return c.n }

func (c *coverSampler) Sample(rng *rand.Rand, k int) ([]byte, error) {
	seed, i := c.seed, 1+k
	if k < 0 {
		seed, i = rng.Uint64(), 1+rng.IntN(max(1, c.n))
	}
	return EncodeJSON(Sampler{Seed: seed}.Sample(c.md, i))
}

// Cover is how many samples of Sampler (from index 1) give every field
// each of its edge values, every oneof each branch and every enum each
// value, as Avro's Schema.Cover says for datums.
func (s *Schema) Cover() int {
	return cover(s.Message, DefaultMaxDepth, map[protoreflect.FullName]bool{})
}

func cover(md protoreflect.MessageDescriptor, depth int, seen map[protoreflect.FullName]bool) int {
	n := 1
	if depth <= 0 || seen[md.FullName()] {
		return n
	}
	seen[md.FullName()] = true
	defer delete(seen, md.FullName())
	oneofs := md.Oneofs()
	for i := 0; i < oneofs.Len(); i++ {
		if od := oneofs.Get(i); !od.IsSynthetic() {
			n = max(n, od.Fields().Len())
		}
	}
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		switch {
		case fd.Enum() != nil:
			n = max(n, fd.Enum().Values().Len())
		case fd.Message() != nil:
			n = max(n, cover(fd.Message(), depth-1, seen))
			if fd.IsMap() {
				n = max(n, len(EdgeValues(fd.MapKey())))
			}
		default:
			n = max(n, len(EdgeValues(fd)))
		}
	}
	return n
}

// Unframe takes a Confluent frame off data that starts with the magic
// byte (no message starts with a zero tag).
func (Provider) Unframe(sch format.Schema, data []byte) ([]byte, uint32, bool) {
	s, ok := sch.(*Schema)
	if ok && len(data) > 0 && data[0] == 0 {
		// The event's message first: its frame may have
		// confluent-kafka-python 1.7's unsigned message indexes.
		if f, payload, err := s.Unframe(data); err == nil && f.ID >= 0 {
			return payload, uint32(f.ID), true
		}
		if f, payload, err := Unframe(data); err == nil && f.ID >= 0 {
			return payload, uint32(f.ID), true
		}
	}
	return data, 0, false
}

// Frame writes the frame with the message indexes of the event's message.
func (Provider) Frame(sch format.Schema, id uint32, payload []byte) []byte {
	s, ok := sch.(*Schema)
	if !ok {
		return format.Frame(id, payload)
	}
	return AppendFrame(nil, Frame{ID: int(id), Index: MessageIndex(s.Message)}, payload)
}

// CheckUnframed decodes data as one message.
func (Provider) CheckUnframed(sch format.Schema, data []byte) (bool, error) {
	s, ok := sch.(*Schema)
	if !ok {
		return false, nil
	}
	_, err := s.DecodeBinary(data)
	return true, err
}

// DecodeData is DecodeValue, which takes a leading zero for a frame:
// under kafka.framing none the data is first read as it is.
func (Provider) DecodeData(sch format.Schema, data []byte, ct string, unframed bool) (any, error) {
	if s, ok := sch.(*Schema); ok && unframed && !format.IsJSON(ct) {
		if _, err := s.DecodeBinary(data); err != nil {
			return nil, err
		}
	}
	return sch.DecodeValue(data, ct)
}

// CompatProfiles are wire and wire-json, the default (consumers in other
// languages read the JSON mapping too).
func (Provider) CompatProfiles() format.Profiles {
	return format.Profiles{Names: []string{"wire", "wire-json"}, Default: "wire-json"}
}

var _ format.FileCompiler = Provider{}

// CompileVersion is Load in the root: imports are paths relative to it,
// plus the bundled well-known types.
func (Provider) CompileVersion(fsys fs.FS, root, file string, _ []string, message string) (format.Schema, error) {
	sub, err := fs.Sub(fsys, root)
	if err != nil {
		return nil, err
	}
	s, err := Load(sub, relTo(root, file), message)
	if err != nil {
		return nil, inRoot(root, err)
	}
	return s, nil
}

// CompileShared is Compile in the root.
func (Provider) CompileShared(fsys fs.FS, root, file string, _ []string) error {
	sub, err := fs.Sub(fsys, root)
	if err != nil {
		return err
	}
	_, err = Compile(sub, relTo(root, file))
	return inRoot(root, err)
}

// SchemaFiles is the schema's Files, which are relative to the root.
func (Provider) SchemaFiles(sch format.Schema, root string) []string {
	s, ok := sch.(*Schema)
	if !ok {
		return nil
	}
	out := make([]string, len(s.Files))
	for i, f := range s.Files {
		out[i] = path.Join(root, f)
	}
	return out
}

// LintRule is RuleSchemaProto.
func (Provider) LintRule() string { return RuleSchemaProto }

// relTo is p (a path in an fsys) relative to root.
func relTo(root, p string) string {
	if root == "." {
		return p
	}
	return strings.TrimPrefix(p, root+"/")
}

// inRoot names the files of err's format.Errors as paths in the fsys
// root is in, not relative to root.
func inRoot(root string, err error) error {
	var list format.Errors
	var one *format.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = format.Errors{one}
	}
	for _, e := range list {
		if e.File != "" {
			e.File = path.Join(root, e.File)
		}
	}
	return err
}

// Reencode goes through the JSON mapping (format.Reencode).
func (Provider) Reencode(from, to format.Schema, data []byte, ct string, _ bool) ([]byte, error) {
	return format.Reencode(from, to, data, ct)
}

// EventRecord is the full name of the event's message.
func (Provider) EventRecord(sch format.Schema) string {
	if s, ok := sch.(*Schema); ok && s.Message != nil {
		return string(s.Message.FullName())
	}
	return ""
}

// pathSegment is one segment of an import path pull may write: no dot
// files or directories (.registry, ..), no separators or drive letters,
// nothing a file system reads specially.
var pathSegment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`) })

// CheckRefName accepts a relative .proto import path that stays inside
// the catalog root.
func (Provider) CheckRefName(name string, show func(string) string) error {
	if len(name) > 255 || !strings.HasSuffix(name, ".proto") || !fs.ValidPath(name) {
		return fmt.Errorf("reference name %q is not a relative .proto import path inside the catalog", show(name))
	}
	for _, seg := range strings.Split(name, "/") {
		if !pathSegment().MatchString(seg) {
			return fmt.Errorf("reference name %q is not a relative .proto import path inside the catalog (segment %q)", show(name), show(seg))
		}
	}
	return nil
}

// RefFile is the import path under schemas/; the well-known types are
// never written.
func (Provider) RefFile(name string) (string, bool) {
	if isStandard(name) {
		return "", false
	}
	return "schemas/" + name, true
}
