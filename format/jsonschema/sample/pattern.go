package sample

import (
	"fmt"
	"math/rand/v2"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// MatchString returns a non-empty string that pattern (a JSON Schema
// pattern, as an event type's source pattern) matches in full, drawn with
// rng: the same rng state gives the same string.
func MatchString(pattern string, rng *rand.Rand) (string, error) {
	c := jsonschema.NewCompiler()
	doc := map[string]any{"type": "string", "pattern": "^(?:" + pattern + ")$", "minLength": 1}
	if err := c.AddResource("urn:evtool:pattern", doc); err != nil {
		return "", err
	}
	s, err := c.Compile("urn:evtool:pattern")
	if err != nil {
		return "", err
	}
	v, err := New(s, Options{}).Generate(rng)
	if err != nil {
		return "", err
	}
	str, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("generated %T, not a string", v)
	}
	return str, nil
}
