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
