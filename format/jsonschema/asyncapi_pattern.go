package jsonschema

import (
	"math/rand/v2"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/sample"
)

var _ format.PatternSampler = Provider{}

// MatchString is sample.MatchString: an event type's source pattern is a
// JSON Schema pattern.
func (Provider) MatchString(pattern string, rng *rand.Rand) (string, error) {
	return sample.MatchString(pattern, rng)
}
