package jsonschema

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/jsonschema/sample"
	js "github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

var (
	_ format.ValueSampler   = (*coverSampler)(nil)
	_ format.ValueValidator = (*Schema)(nil)
	_ format.PatternSampler = Provider{}
)

// Sampler samples with package sample, from the version compiled again
// with every format asserted (format.ValueSampler says why). Its samples
// are all random: Cover is 0, generated events of a JSON Schema type are
// drawn from the schema's constraints one by one, never from a covering
// set.
func (Provider) Sampler(sch format.Schema, seed uint64, opts format.SampleOptions) (format.CoverSampler, error) {
	s, ok := sch.(*Schema)
	if !ok {
		return nil, format.NotKind(sch, format.JSONSchema)
	}
	strict, err := s.samplingSchema()
	if err != nil {
		return nil, err
	}
	o := sample.Options{Canonical: !opts.FormatEdges}
	return &coverSampler{schema: strict, seed: seed, opts: o, sampler: sample.New(strict, o)}, nil
}

// MatchString is sample.MatchString.
func (Provider) MatchString(pattern string, rng *rand.Rand) (string, error) {
	return sample.MatchString(pattern, rng)
}

// coverSampler is a JSON Schema's format.ValueSampler.
type coverSampler struct {
	schema  *js.Schema
	seed    uint64
	opts    sample.Options
	sampler *sample.Sampler
}

// Cover is 0: no sample is a covering one.
func (c *coverSampler) Cover() int { return 0 }

func (c *coverSampler) SampleValue(rng *rand.Rand, k int) (any, error) {
	if k >= 0 {
		return nil, fmt.Errorf("no covering sample %d: a %s schema's samples are all random", k, format.JSONSchema.Name())
	}
	return c.sampler.Generate(rng)
}

func (c *coverSampler) Sample(rng *rand.Rand, k int) ([]byte, error) {
	v, err := c.SampleValue(rng, k)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func (c *coverSampler) Samples(n int) ([]any, error) {
	return sample.Samples(c.schema, n, int64(c.seed), c.opts)
}

func (c *coverSampler) ValidateValue(v any) error { return valueErrors(c.schema, v) }

// samplingRoot compiles the versions of a catalog root again with every
// format asserted, for sampling: a value valid under that schema is valid
// under the catalog's (where formats may be annotations) and also under
// every consumer that checks formats. One compiler, made on first use,
// serves the versions of a compile session, so shared files compile once.
// Safe for concurrent use.
type samplingRoot struct {
	files Files
	// asserted says the catalog asserts formats: its compiled schemas are
	// the sampling ones.
	asserted bool
	mu       sync.Mutex
	c        *js.Compiler
}

// samplingSchema is the schema s's samples come from: the version
// compiled again with every format asserted, with draft 2020-12 where
// `$schema` is absent; s's own compiled schema when the catalog asserts
// formats, or when s was not compiled from a catalog root.
func (s *Schema) samplingSchema() (*js.Schema, error) {
	r := s.sampling
	if r == nil || r.asserted {
		return s.Compiled, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.c == nil {
		r.c = NewCompiler(true)
		r.c.UseLoader(r.files.Loader())
	}
	return r.c.Compile(FileURL(s.rel))
}
