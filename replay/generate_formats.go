package replay

import (
	"encoding/base64"
	"math/rand/v2"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/internal/jsonstrict"
)

// formatSampler makes the data of events.generate for a version with its
// format's sampler: the first cover() events of the type walk every union
// branch (oneof), enum symbol and edge value (Avro, Protobuf; JSON
// Schema's samples are all random); the rest are random. Values are in
// the JSON form (Avro's JSON encoding with tagged unions, the Protobuf
// JSON mapping), so that the partition key can be set in them; an Avro or
// Protobuf event carries the binary encoding.
type formatSampler struct {
	schema  format.Schema
	sampler format.CoverSampler
	// values is sampler when it makes values (format.ValueSampler): a
	// value with its key set is checked against the schema the samples
	// come from.
	values format.ValueSampler
	// binary says the event carries the binary encoding (data_base64).
	binary bool
	n      int // how many samples cover everything
	// made counts the events generated so far, for the covering ones.
	made int
}

func newFormatSampler(s format.Schema, seed uint64, opts format.SampleOptions, binary bool) (*formatSampler, error) {
	cs, err := formats.Of(s).Sampler(s, seed, opts)
	if err != nil {
		return nil, err
	}
	vs, _ := cs.(format.ValueSampler)
	return &formatSampler{schema: s, sampler: cs, values: vs, binary: binary, n: cs.Cover()}, nil
}

// sample returns the next value: a covering one while cover is set and
// some are left, else a random one from rng.
func (s *formatSampler) sample(rng *rand.Rand, cover bool) (any, error) {
	k := -1
	if cover && s.made < s.n {
		k = s.made
		s.made++
	}
	if s.values != nil {
		return s.values.SampleValue(rng, k)
	}
	text, err := s.sampler.Sample(rng, k)
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
