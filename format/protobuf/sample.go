package protobuf

import (
	"math"
	"math/rand/v2"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Sampler generates messages of a descriptor, deterministically for its
// seed. Sample 0 sets nothing (every field at its default); sample i > 0
// sets every field it reaches, choosing the i-th edge value of each field's
// type (rotated per field so that n samples cover n edge values of every
// field), the i-th branch of each oneof and the i-th value of each enum.
// Recursion stops at MaxDepth nested messages, and sooner when a sample
// would hold more than MaxValues values: the size of a sample is bounded
// by a budget, not by the shape of the schema (six repeated fields of the
// message's own type make 18^4 messages at depth 4).
type Sampler struct {
	Seed      uint64
	MaxDepth  int
	MaxValues int
}

// DefaultMaxDepth bounds nesting of sampled messages.
const DefaultMaxDepth = 4

// DefaultMaxValues bounds the values (scalars, list elements, map entries,
// and messages, which count their fields) of one sample: a sample that would hold more is made
// again with one level of nesting less, down to the event message's own
// fields, which are always set.
const DefaultMaxValues = 1024

// Samples returns n messages of md.
func (s Sampler) Samples(md protoreflect.MessageDescriptor, n int) []*dynamicpb.Message {
	out := make([]*dynamicpb.Message, n)
	for i := range out {
		out[i] = s.Sample(md, i)
	}
	return out
}

// Sample returns the i-th message of md.
func (s Sampler) Sample(md protoreflect.MessageDescriptor, i int) *dynamicpb.Message {
	m, _ := s.SampleDepth(md, i)
	return m
}

// SampleDepth returns the i-th message of md and the nesting depth it was
// made to: less than MaxDepth when the budget of MaxValues cut it.
func (s Sampler) SampleDepth(md protoreflect.MessageDescriptor, i int) (*dynamicpb.Message, int) {
	depth, limit := s.MaxDepth, s.MaxValues
	if depth <= 0 {
		depth = DefaultMaxDepth
	}
	if limit <= 0 {
		limit = DefaultMaxValues
	}
	if i == 0 {
		return dynamicpb.NewMessage(md), depth
	}
	for d := depth; ; d-- {
		m := dynamicpb.NewMessage(md)
		g := &gen{rng: rand.New(rand.NewPCG(s.Seed, uint64(i))), variant: i, maxDepth: d, left: limit}
		if d == 0 {
			// No nested message is made: the cost is the message's own
			// fields, bounded by the schema's size.
			g.left = -1
		}
		g.fill(m, 0)
		if !g.over {
			return m, d
		}
	}
}

type gen struct {
	rng      *rand.Rand
	variant  int
	maxDepth int
	// left counts down the values the sample may still hold (-1: no
	// limit); over is set when it ran out, and stops the filling.
	left int
	over bool
	// salt rotates edge values across fields: a field's number plus its
	// element index, so that samples 1..n give every field n different
	// values whatever the other fields hold.
	salt int
}

func (g *gen) pick(n int) int {
	i := (g.variant - 1 + g.salt) % n
	g.salt++
	return i
}

// spend takes n values from the budget and reports whether the sample
// may go on.
func (g *gen) spend(n int) bool {
	if g.left < 0 {
		return true
	}
	if g.over || n > g.left {
		g.over = true
		return false
	}
	g.left -= n
	return true
}

func (g *gen) fill(m protoreflect.Message, depth int) {
	md := m.Descriptor()
	// A message costs its fields: whoever reads the sample visits each.
	if !g.spend(1 + md.Fields().Len()) {
		return
	}
	if g.wellKnown(m) {
		return
	}
	fields := md.Fields()
	oneofDone := map[protoreflect.FullName]bool{}
	for i := 0; i < fields.Len() && !g.over; i++ {
		fd := fields.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if oneofDone[od.FullName()] {
				continue
			}
			oneofDone[od.FullName()] = true
			// The variant chooses the branch, so n samples cover n branches.
			fd = od.Fields().Get((g.variant - 1) % od.Fields().Len())
		}
		g.setField(m, fd, depth)
	}
}

func (g *gen) setField(m protoreflect.Message, fd protoreflect.FieldDescriptor, depth int) {
	g.salt = int(fd.Number())
	isMsg := fd.Message() != nil
	if isMsg && depth >= g.maxDepth {
		return
	}
	switch {
	case fd.IsMap():
		mp := m.Mutable(fd).Map()
		n := 1 + g.variant%2
		for j := 0; j < n && g.spend(1); j++ {
			k := g.scalar(fd.MapKey())
			if fd.MapValue().Message() != nil {
				v := mp.NewValue()
				g.fill(v.Message(), depth+1)
				mp.Set(k.MapKey(), v)
			} else {
				mp.Set(k.MapKey(), g.scalar(fd.MapValue()))
			}
		}
	case fd.IsList():
		l := m.Mutable(fd).List()
		n := 1 + g.variant%3
		for j := 0; j < n && g.spend(1); j++ {
			if isMsg {
				v := l.NewElement()
				g.fill(v.Message(), depth+1)
				l.Append(v)
			} else {
				l.Append(g.scalar(fd))
			}
		}
	case isMsg:
		g.fill(m.Mutable(fd).Message(), depth+1)
	default:
		if g.spend(1) {
			m.Set(fd, g.scalar(fd))
		}
	}
}

// Edge values per kind: the extremes and the values that expose narrowing
// (2^40 does not fit 32 bits, 2^63 does not fit int64, -1 does not fit an
// unsigned type), and strings and bytes that are empty, long, non-ASCII or
// not UTF-8.
var (
	edgeInt32  = []int32{1, -1, math.MaxInt32, math.MinInt32, 0, 42}
	edgeInt64  = []int64{1 << 40, -1, math.MaxInt64, math.MinInt64, 1, 0, -(1 << 40)}
	edgeUint32 = []uint32{1, math.MaxUint32, 1 << 31, 0}
	edgeUint64 = []uint64{1 << 40, math.MaxUint64, 1 << 63, 1, 0}
	edgeFloat  = []float64{1.5, -2.25, math.MaxFloat32, 0, math.Inf(1)}
	edgeDouble = []float64{1.5, -1e300, 1<<53 + 1, 0, math.Inf(-1)}
)

var longText = strings.Repeat("evtool-", 40)

func (g *gen) scalar(fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(g.pick(2) == 0)
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		return protoreflect.ValueOfEnum(vals.Get(g.pick(vals.Len())).Number())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(edgeInt32[g.pick(len(edgeInt32))])
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(edgeInt64[g.pick(len(edgeInt64))])
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(edgeUint32[g.pick(len(edgeUint32))])
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(edgeUint64[g.pick(len(edgeUint64))])
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(edgeFloat[g.pick(len(edgeFloat))]))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(edgeDouble[g.pick(len(edgeDouble))])
	case protoreflect.StringKind:
		n := 4
		if !UTF8Validated(fd) {
			n = 5 // a string the writer does not validate can carry any bytes
		}
		switch g.pick(n) {
		case 4:
			return protoreflect.ValueOfString("\xff\xfe")
		case 0:
			return protoreflect.ValueOfString("a")
		case 1:
			return protoreflect.ValueOfString("é€😀")
		case 2:
			return protoreflect.ValueOfString(longText[:len(longText)-g.rng.IntN(7)])
		}
		return protoreflect.ValueOfString("")
	case protoreflect.BytesKind:
		switch g.pick(4) {
		case 0:
			return protoreflect.ValueOfBytes([]byte{0xff, 0xfe, 0x00})
		case 1:
			return protoreflect.ValueOfBytes([]byte("ok"))
		case 2:
			b := make([]byte, 300)
			for i := range b {
				b[i] = byte(g.rng.UintN(256))
			}
			return protoreflect.ValueOfBytes(b)
		}
		return protoreflect.ValueOfBytes([]byte{})
	}
	return fd.Default()
}

// EdgeValues lists the values the sampler chooses from for a scalar field,
// for targeted counterexamples.
func EdgeValues(fd protoreflect.FieldDescriptor) []protoreflect.Value {
	var out []protoreflect.Value
	switch fd.Kind() {
	case protoreflect.BoolKind:
		out = append(out, protoreflect.ValueOfBool(true), protoreflect.ValueOfBool(false))
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		lo, hi := vals.Get(0).Number(), vals.Get(0).Number()
		for i := 0; i < vals.Len(); i++ {
			out = append(out, protoreflect.ValueOfEnum(vals.Get(i).Number()))
			lo, hi = min(lo, vals.Get(i).Number()), max(hi, vals.Get(i).Number())
		}
		if !fd.Enum().IsClosed() {
			// An open enum field holds numbers its enum does not declare,
			// negative ones too.
			if hi < math.MaxInt32 {
				out = append(out, protoreflect.ValueOfEnum(hi+1))
			}
			if lo > math.MinInt32 {
				out = append(out, protoreflect.ValueOfEnum(min(lo-1, -1)))
			}
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		for _, v := range edgeInt32 {
			out = append(out, protoreflect.ValueOfInt32(v))
		}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		for _, v := range edgeInt64 {
			out = append(out, protoreflect.ValueOfInt64(v))
		}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		for _, v := range edgeUint32 {
			out = append(out, protoreflect.ValueOfUint32(v))
		}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		for _, v := range edgeUint64 {
			out = append(out, protoreflect.ValueOfUint64(v))
		}
	case protoreflect.FloatKind:
		for _, v := range edgeFloat {
			out = append(out, protoreflect.ValueOfFloat32(float32(v)))
		}
	case protoreflect.DoubleKind:
		for _, v := range edgeDouble {
			out = append(out, protoreflect.ValueOfFloat64(v))
		}
	case protoreflect.StringKind:
		out = append(out, protoreflect.ValueOfString("a"), protoreflect.ValueOfString("é€😀"), protoreflect.ValueOfString(longText), protoreflect.ValueOfString(""))
		if !UTF8Validated(fd) {
			// A string the writer does not validate can carry any bytes.
			out = append(out, protoreflect.ValueOfString("\xff\xfe"))
		}
	case protoreflect.BytesKind:
		out = append(out, protoreflect.ValueOfBytes([]byte{0xff, 0xfe, 0x00}), protoreflect.ValueOfBytes([]byte("ok")), protoreflect.ValueOfBytes([]byte{}))
	}
	return out
}

// wellKnown fills the well-known types whose JSON mapping restricts their
// fields with values the mapping can write: a Timestamp between years 1
// and 9999, a Duration within ±10000 years with nanos of the seconds' sign.
func (g *gen) wellKnown(m protoreflect.Message) bool {
	fs := m.Descriptor().Fields()
	switch m.Descriptor().FullName() {
	case "google.protobuf.Timestamp":
		secs := []int64{0, 1700000000, -62135596800, 253402300799}
		m.Set(fs.ByName("seconds"), protoreflect.ValueOfInt64(secs[g.pick(len(secs))]))
		m.Set(fs.ByName("nanos"), protoreflect.ValueOfInt32(int32(g.pick(2))*999999999))
		return true
	case "google.protobuf.Duration":
		secs := []int64{1, -1, 315576000000, 0}
		s := secs[g.pick(len(secs))]
		var n int32
		if s > 0 {
			n = 5
		} else if s < 0 {
			n = -5
		}
		m.Set(fs.ByName("seconds"), protoreflect.ValueOfInt64(s))
		m.Set(fs.ByName("nanos"), protoreflect.ValueOfInt32(n))
		return true
	case "google.protobuf.FieldMask":
		m.Mutable(fs.ByName("paths")).List().Append(protoreflect.ValueOfString("a.b_c"))
		return true
	case "google.protobuf.Value":
		// A Value needs one kind set, or the JSON mapping cannot write it
		// (and the witness search would skip JSON for the whole message).
		switch g.pick(3) {
		case 0:
			m.Set(fs.ByName("string_value"), protoreflect.ValueOfString("a"))
		case 1:
			m.Set(fs.ByName("number_value"), protoreflect.ValueOfFloat64(1.5))
		default:
			m.Set(fs.ByName("bool_value"), protoreflect.ValueOfBool(true))
		}
		return true
	case "google.protobuf.Any", "google.protobuf.Struct", "google.protobuf.ListValue":
		// Left empty: an Any needs a resolvable type URL.
		return true
	}
	return false
}

// UTF8Validated reports whether a string field rejects bytes that are not
// UTF-8 when parsed: proto3 strings do, proto2 strings do not, and under
// editions the resolved utf8_validation feature decides. protobuf-go
// resolves the feature on its descriptors behind a method it documents as
// pseudo-internal; its own decoder asks the same question the same way.
func UTF8Validated(fd protoreflect.FieldDescriptor) bool {
	if fd.Kind() != protoreflect.StringKind {
		return false
	}
	if fd.Syntax() == protoreflect.Editions {
		if v, ok := fd.(interface{ EnforceUTF8() bool }); ok {
			return v.EnforceUTF8()
		}
		return true
	}
	return fd.Syntax() == protoreflect.Proto3
}
