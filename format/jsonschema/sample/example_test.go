package sample_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/evtool/evtool/format/jsonschema/sample"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

func mustCompile(src string) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(src))
	if err != nil {
		panic(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat() // make "format" visible to the sampler
	if err := c.AddResource("mem:///order.json", doc); err != nil {
		panic(err)
	}
	return c.MustCompile("mem:///order.json")
}

func ExampleSamples() {
	s := mustCompile(`{
		"type": "object",
		"required": ["id", "amount"],
		"properties": {
			"id": {"type": "string", "format": "uuid"},
			"amount": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.01},
			"status": {"enum": ["NEW", "PAID"]}
		}
	}`)
	docs, err := sample.Samples(s, 5, 42, sample.Options{})
	if err != nil {
		panic(err)
	}
	for _, d := range docs {
		fmt.Println(s.Validate(d) == nil)
	}
	// Output:
	// true
	// true
	// true
	// true
	// true
}

func ExampleSampler_Generate() {
	s := mustCompile(`{"type": "integer", "minimum": 10, "maximum": 1}`)
	_, err := sample.New(s, sample.Options{}).Generate(rand.New(rand.NewPCG(1, 2)))
	var ue *sample.UnsatisfiableError
	fmt.Println(errors.As(err, &ue), ue.Keyword)
	// Output: true maximum
}

func ExampleVariants() {
	writer := mustCompile(`{"type": "object", "properties": {"n": {"type": "number", "maximum": 100}}}`)
	reader := mustCompile(`{"type": "object", "properties": {"n": {"type": "number", "maximum": 50}}}`)
	doc := map[string]any{"n": 7}
	rng := rand.New(rand.NewPCG(1, 2))
	// the witness search: variants the writer accepts and the reader rejects
	for _, v := range sample.Variants(doc, writer, reader, rng, 0) {
		if writer.Validate(v) == nil && reader.Validate(v) != nil {
			fmt.Println("counterexample found")
			return
		}
	}
	// Output: counterexample found
}
