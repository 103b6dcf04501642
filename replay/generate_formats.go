package replay

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/format/protobuf"
	"github.com/evtool/evtool/internal/jsonstrict"
)

// formatSampler makes the data of events.generate for an Avro or Protobuf
// version with the format's own sampler: the first cover() events of the
// type walk every union branch (oneof), enum symbol and edge value; the
// rest are random. Values are in the JSON form (Avro's JSON encoding with
// tagged unions, the Protobuf JSON mapping), so that the partition key can
// be set in them; the event carries the binary encoding.
type formatSampler struct {
	schema format.Schema
	avro   *avro.Schema
	proto  *protobuf.Schema
	seed   uint64
	n      int // how many samples cover everything
	// made counts the events generated so far, for the covering ones.
	made int
	// avroCover holds the covering Avro datums, made on first use.
	avroCover []any
}

func newFormatSampler(s format.Schema, seed uint64) (*formatSampler, error) {
	fs := &formatSampler{schema: s, seed: seed}
	switch s := s.(type) {
	case *avro.Schema:
		fs.avro, fs.n = s, s.Cover()
	case *protobuf.Schema:
		fs.proto, fs.n = s, protoCover(s.Message, protobuf.DefaultMaxDepth, map[protoreflect.FullName]bool{})
	default:
		return nil, fmt.Errorf("no sampler for %s schemas", s.Kind().Name())
	}
	return fs, nil
}

// protoCover is how many samples of Sampler (from index 1) give every
// field each of its edge values, every oneof each branch and every enum
// each value.
func protoCover(md protoreflect.MessageDescriptor, depth int, seen map[protoreflect.FullName]bool) int {
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
			n = max(n, protoCover(fd.Message(), depth-1, seen))
			if fd.IsMap() {
				n = max(n, len(protobuf.EdgeValues(fd.MapKey())))
			}
		default:
			n = max(n, len(protobuf.EdgeValues(fd)))
		}
	}
	return n
}

// sample returns the next value: a covering one while cover is set and
// some are left, else a random one from rng.
func (s *formatSampler) sample(rng *rand.Rand, cover bool) (any, error) {
	k := -1
	if cover && s.made < s.n {
		k = s.made
		s.made++
	}
	var text []byte
	var err error
	switch {
	case s.avro != nil:
		var datum any
		if k >= 0 {
			if s.avroCover == nil {
				if s.avroCover, err = s.avro.Samples(s.seed, s.n); err != nil {
					return nil, err
				}
			}
			datum = s.avroCover[k]
		} else if datum, err = s.avro.Sample(rng.Uint64()); err != nil {
			return nil, err
		}
		text, err = s.avro.EncodeJSON(datum)
	default:
		seed, i := s.seed, 1+k
		if k < 0 {
			seed, i = rng.Uint64(), 1+rng.IntN(max(1, s.n))
		}
		text, err = protobuf.EncodeJSON(protobuf.Sampler{Seed: seed}.Sample(s.proto.Message, i))
	}
	if err != nil {
		return nil, err
	}
	return jsonstrict.Decode(text)
}

// encode checks a value (its partition key set) and returns the binary
// data of the event, in data_base64.
func (s *formatSampler) encode(v any) (string, error) {
	b, err := s.schema.EncodeValue(v, s.schema.DefaultContentType())
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}
