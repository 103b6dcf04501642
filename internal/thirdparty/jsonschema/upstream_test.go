package jsonschema_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	upstream "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// The copy must behave as upstream v6.0.3 does (generated code imports
// upstream, evtool the copy, and both must agree): the same compile
// errors and the same validation errors, schema by schema, draft by draft.
func TestSameResultsAsUpstream(t *testing.T) {
	drafts := []string{
		"http://json-schema.org/draft-04/schema#",
		"http://json-schema.org/draft-06/schema#",
		"http://json-schema.org/draft-07/schema#",
		"https://json-schema.org/draft/2019-09/schema",
		"https://json-schema.org/draft/2020-12/schema",
	}
	schemas := []string{
		`"type": "object", "required": ["id"], "properties": {"id": {"type": "string", "format": "uuid"}, "n": {"type": "integer", "minimum": 0, "maximum": 10}}, "additionalProperties": false`,
		`"type": "array", "items": {"type": "number", "multipleOf": 0.5}, "minItems": 1, "uniqueItems": true`,
		`"anyOf": [{"type": "string", "pattern": "^a+$"}, {"type": "null"}]`,
		`"oneOf": [{"minimum": 5}, {"maximum": 7}], "not": {"const": 6}`,
		`"type": "string", "format": "date-time", "maxLength": 30`,
		`"type": 12`,
		`"minLength": -1`,
		`"properties": {"a": {"$ref": "#/definitions/x"}}, "definitions": {"x": {"enum": [1, "1"]}}`,
		`"exclusiveMinimum": 1`,
		`"exclusiveMinimum": true, "minimum": 2`,
		`"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"type": "integer"}`,
		`"prefixItems": [{"type": "string"}], "items": false`,
		`"dependentRequired": {"a": ["b"]}, "unevaluatedProperties": false, "properties": {"a": true, "b": true}`,
	}
	instances := []string{
		`{"id": "0f3c1b8e-7c39-4c48-9a53-2d6e6b2f0a11", "n": 3}`,
		`{"id": "nope", "n": 11, "x": 1}`,
		`{"a": 1}`, `{"a": "1", "c": 2}`,
		`[1, 1.5, 1.5]`, `[]`, `["s", 1]`, `["s"]`,
		`"aaa"`, `"b"`, `null`, `6`, `8`, `2`, `1`, `0.5`,
		`"2026-12-02T11:55:00Z"`, `"2026-13-02T11:55:00Z"`, `"x"`,
	}
	for _, d := range drafts {
		for i, s := range schemas {
			text := fmt.Sprintf(`{"$schema": %q, %s}`, d, s)
			ours, oursErr := compileOurs(text)
			theirs, theirsErr := compileUpstream(text)
			if errString(oursErr) != errString(theirsErr) {
				t.Errorf("%s schema %d: compile error\n ours: %v\n upstream: %v", d, i, oursErr, theirsErr)
				continue
			}
			if oursErr != nil {
				continue
			}
			for _, inst := range instances {
				v, err := jsonschema.UnmarshalJSON(strings.NewReader(inst))
				if err != nil {
					t.Fatal(err)
				}
				a, b := ours.Validate(v), theirs.Validate(v)
				if errString(a) != errString(b) {
					t.Errorf("%s schema %d, instance %s:\n ours: %v\n upstream: %v", d, i, inst, a, b)
				}
			}
		}
	}
}

// errString is err's message with its lines, and lists of quoted names
// within a line, sorted: both libraries walk maps, in random order.
func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = quotedList.ReplaceAllStringFunc(l, func(list string) string {
			names := strings.Split(list, ", ")
			slices.Sort(names)
			return strings.Join(names, ", ")
		})
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

var quotedList = regexp.MustCompile(`'[^']*'(, '[^']*')+`)

func compileOurs(text string) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mem.json")
}

func compileUpstream(text string) (*upstream.Schema, error) {
	doc, err := upstream.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return nil, err
	}
	c := upstream.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mem.json")
}

// Where the meta-schemas are reached other than by a root's $schema: an
// embedded resource of another draft (validated with that draft's
// meta-schema while the root's is in use), a custom meta-schema with
// $vocabulary under AssertVocabs, an unknown $schema, and the drafts'
// meta-schemas compiled as schemas, validating schemas as instances.
func TestSameResultsAsUpstreamMetaPaths(t *testing.T) {
	meta := `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "http://example.com/meta",
		"$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/core": true,
			"https://json-schema.org/draft/2020-12/vocab/applicator": true,
			"https://json-schema.org/draft/2020-12/vocab/validation": %s}}`
	docs := []string{
		`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"old": {"$id": "http://example.com/old", "$schema": "http://json-schema.org/draft-04/schema#", "exclusiveMinimum": 1}}}`,
		`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"old": {"$id": "http://example.com/old", "$schema": "http://json-schema.org/draft-07/schema#", "type": 12}}}`,
		`{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"new": {"$id": "http://example.com/new", "$schema": "https://json-schema.org/draft/2019-09/schema", "minContains": -1}}}`,
		`{"$schema": "http://example.com/meta", "minLength": "x", "items": 1}`,
		`{"$schema": "http://example.com/meta", "minLength": "x"}`,
		`{"$schema": "http://example.com/nowhere", "type": "string"}`,
		`{"$schema": "https://json-schema.org/draft/2020-12/schema#frag", "type": "string"}`,
	}
	for _, required := range []string{"true", "false"} {
		for i, text := range docs {
			ours, oursErr := compileWith(jsonschema.NewCompiler(), fmt.Sprintf(meta, required), text)
			theirs, theirsErr := compileWithUpstream(fmt.Sprintf(meta, required), text)
			if errString(oursErr) != errString(theirsErr) {
				t.Errorf("validation %s, doc %d: compile error\n ours: %v\n upstream: %v", required, i, oursErr, theirsErr)
			}
			if (ours == nil) != (theirs == nil) {
				t.Errorf("validation %s, doc %d: compiled %v, upstream %v", required, i, ours != nil, theirs != nil)
			}
		}
	}
	instances := []string{
		`{"type": "string"}`, `{"type": 12}`, `{"minLength": -1}`, `{"exclusiveMinimum": true, "minimum": 1}`,
		`{"properties": {"a": {"$schema": "http://json-schema.org/draft-04/schema#", "$id": "http://example.com/a", "exclusiveMinimum": 1}}}`,
		`{"$defs": {"a": {"$schema": "http://json-schema.org/draft-06/schema#", "$id": "http://example.com/a", "type": 12}}}`,
		`{"propertyNames": {"pattern": "("}}`, `{"contentSchema": {"type": 1}}`, `true`, `12`,
	}
	for _, d := range []*jsonschema.Draft{jsonschema.Draft4, jsonschema.Draft6, jsonschema.Draft7, jsonschema.Draft2019, jsonschema.Draft2020} {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		ours, err := c.Compile(d.String())
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		uc := upstream.NewCompiler()
		uc.AssertFormat()
		theirs, err := uc.Compile(d.String())
		if err != nil {
			t.Fatalf("upstream %s: %v", d, err)
		}
		for _, inst := range instances {
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(inst))
			if err != nil {
				t.Fatal(err)
			}
			if a, b := ours.Validate(v), theirs.Validate(v); errString(a) != errString(b) {
				t.Errorf("%s, instance %s:\n ours: %v\n upstream: %v", d, inst, a, b)
			}
		}
	}
}

func compileWith(c *jsonschema.Compiler, meta, text string) (*jsonschema.Schema, error) {
	c.AssertVocabs()
	for url, s := range map[string]string{"http://example.com/meta": meta, "mem.json": text} {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
		if err != nil {
			return nil, err
		}
		if err := c.AddResource(url, doc); err != nil {
			return nil, err
		}
	}
	return c.Compile("mem.json")
}

func compileWithUpstream(meta, text string) (*upstream.Schema, error) {
	c := upstream.NewCompiler()
	c.AssertVocabs()
	for url, s := range map[string]string{"http://example.com/meta": meta, "mem.json": text} {
		doc, err := upstream.UnmarshalJSON(strings.NewReader(s))
		if err != nil {
			return nil, err
		}
		if err := c.AddResource(url, doc); err != nil {
			return nil, err
		}
	}
	return c.Compile("mem.json")
}
