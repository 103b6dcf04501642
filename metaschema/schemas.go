// Package metaschema embeds the meta-schemas of evtool's own files
// (evtool.yaml, event.yaml, replay scenarios). Each is a JSON Schema that the
// loaders check a file against before decoding it, so every mistake gets a
// line number.
package metaschema

import (
	"bytes"
	"embed"
	"fmt"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

//go:embed *.schema.json
var files embed.FS

// Names of the embedded meta-schemas.
const (
	Config   = "evtool.schema.json"
	Event    = "event.schema.json"
	Scenario = "scenario.schema.json"
	Verify   = "verify.schema.json"
	Consumer = "consumer.schema.json"
)

// Schema is a compiled meta-schema: what a loader checks a decoded file
// against, without naming the JSON Schema library.
type Schema struct {
	compiled *jsonschema.Schema
}

// Validate checks v, a decoded document (YAML read as JSON values), and
// returns nil when it is valid. The error is the validator's, whose leaf
// problems, each at a JSON pointer into v, internal/schemaerr lists (as
// internal/yamldoc's Check does).
func (s *Schema) Validate(v any) error { return s.compiled.Validate(v) }

// Compile compiles the named embedded meta-schema.
func Compile(name string) (*Schema, error) {
	data, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("meta-schema %s: %w", name, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("meta-schema %s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	url := "https://evtool.dev/schemas/" + name
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return &Schema{compiled: compiled}, nil
}

// Source returns the text of the named meta-schema (for docs and editors).
func Source(name string) ([]byte, error) { return files.ReadFile(name) }
