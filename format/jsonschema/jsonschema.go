// Package jsonschema puts a compiled JSON Schema
// (santhosh-tekuri/jsonschema v6, which stays the IR of compat, sampling
// and codegen) behind the format seam.
package jsonschema

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/jsonschema/sample"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/internal/schemaerr"
	js "github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// Schema is a compiled JSON Schema as a format.Schema.
type Schema struct {
	// Compiled is the schema the catalog compiled.
	Compiled  *js.Schema
	canonical []byte
	// sampling compiles the version again for sampling (samplingSchema),
	// rel being its file in the root; nil for a schema not compiled from
	// a catalog root.
	sampling *samplingRoot
	rel      string
}

var _ format.Schema = (*Schema)(nil)

// New wraps a compiled schema; canonical is its identity (the catalog's
// canonical JSON of the schema document).
func New(compiled *js.Schema, canonical []byte) *Schema {
	return &Schema{Compiled: compiled, canonical: canonical}
}

// JSONSchema is the compiled schema (Compiled), for the JSON Schema
// engines (compat/jsoncompat, codegen) that hold a format.Schema and need
// the library's form without naming this package's type.
func (s *Schema) JSONSchema() *js.Schema { return s.Compiled }

// Kind is format.JSONSchema.
func (s *Schema) Kind() format.Kind { return format.JSONSchema }

// Canonical is the canonical JSON given to New.
func (s *Schema) Canonical() []byte { return s.canonical }

// ContentTypes is application/json (and every +json type).
func (s *Schema) ContentTypes() []string { return []string{format.ContentTypeJSON} }

// DefaultContentType is application/json.
func (s *Schema) DefaultContentType() string { return format.ContentTypeJSON }

// Validate decodes JSON data and validates it; the error is format.Errors
// with one JSON pointer into the data per problem.
func (s *Schema) Validate(data []byte, contentType string) error {
	_, err := s.DecodeValue(data, contentType)
	return err
}

// DecodeValue decodes JSON data (json.Number numbers, duplicate keys
// refused) and validates it.
func (s *Schema) DecodeValue(data []byte, contentType string) (any, error) {
	if !format.IsJSON(contentType) {
		return nil, contentTypeError(contentType)
	}
	v, err := jsonstrict.Decode(data)
	if err != nil {
		var je *jsonstrict.Error
		if errors.As(err, &je) {
			return nil, format.Errors{{Line: je.Line, Column: je.Column, Pointer: je.Pointer, Message: "malformed JSON: " + je.Msg}}
		}
		return nil, err
	}
	if err := s.check(v); err != nil {
		return nil, err
	}
	return v, nil
}

// EncodeValue validates a value and writes it as JSON.
func (s *Schema) EncodeValue(v any, contentType string) ([]byte, error) {
	if !format.IsJSON(contentType) {
		return nil, contentTypeError(contentType)
	}
	// Validate what will be read back: a Go value of another shape (an
	// int, a struct) is checked as its JSON.
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if _, err := s.DecodeValue(b, contentType); err != nil {
		return nil, err
	}
	return b, nil
}

// FrameValue is the Confluent wire format of the value's JSON.
func (s *Schema) FrameValue(id uint32, v any) ([]byte, error) {
	b, err := s.EncodeValue(v, format.ContentTypeJSON)
	if err != nil {
		return nil, err
	}
	return format.Frame(id, b), nil
}

// UnframeValue reads JSON in the Confluent wire format.
func (s *Schema) UnframeValue(data []byte) (any, uint32, error) {
	id, payload, err := format.Unframe(data)
	if err != nil {
		return nil, 0, err
	}
	v, err := s.DecodeValue(payload, format.ContentTypeJSON)
	return v, id, err
}

// SampleValue is one instance from sample/.
func (s *Schema) SampleValue(seed uint64) (any, error) {
	vs, err := sample.Samples(s.Compiled, 1, int64(seed), sample.Options{})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

func (s *Schema) check(v any) error {
	err := s.Compiled.Validate(v)
	if err == nil {
		return nil
	}
	var errs format.Errors
	for _, p := range schemaerr.Problems(err) {
		errs = append(errs, &format.Error{Pointer: p.Pointer, Message: p.Message})
	}
	if len(errs) == 0 {
		return err
	}
	return errs
}

func contentTypeError(contentType string) error {
	return fmt.Errorf("%w: %q is not JSON, but the schema is a JSON Schema", format.ErrContentType, contentType)
}
