package jsonschema

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

var allDrafts = []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020}

// compiledAtInit records, after every package initialisation and before
// any test, which drafts already had their meta-schemas compiled.
var compiledAtInit []string

func TestMain(m *testing.M) {
	for _, d := range allDrafts {
		if d.meta.sch != nil || d.meta.vocabs != nil {
			compiledAtInit = append(compiledAtInit, d.url)
		}
	}
	os.Exit(m.Run())
}

// The reason this copy exists: importing the package compiles nothing.
func TestNoMetaSchemaCompiledAtInit(t *testing.T) {
	if len(compiledAtInit) > 0 {
		t.Fatalf("meta-schemas compiled during package initialisation: %v", compiledAtInit)
	}
}

func compileString(d *Draft, schema string) (*Schema, error) {
	c := NewCompiler()
	c.DefaultDraft(d)
	doc, err := UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		return nil, err
	}
	if err := c.AddResource("mem.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mem.json")
}

// Each draft's meta-schema, compiled on first use, still rejects what it
// must: a schema invalid under that draft (and only under it, where the
// drafts differ) fails with a SchemaValidationError at the keyword.
func TestMetaSchemaValidationPerDraft(t *testing.T) {
	tests := []struct {
		draft   *Draft
		schema  string
		invalid bool
		where   string // in the error when invalid
	}{
		{Draft4, `{"type": 12}`, true, "/type"},
		{Draft4, `{"minLength": -1}`, true, "/minLength"},
		// exclusiveMinimum is a boolean in draft-04, a number from draft-06 on
		{Draft4, `{"minimum": 1, "exclusiveMinimum": 1}`, true, "/exclusiveMinimum"},
		{Draft4, `{"minimum": 1, "exclusiveMinimum": true}`, false, ""},
		{Draft6, `{"exclusiveMinimum": true}`, true, "/exclusiveMinimum"},
		{Draft6, `{"exclusiveMinimum": 1}`, false, ""},
		{Draft7, `{"type": "integr"}`, true, "/type"},
		{Draft7, `{"if": 3}`, true, "/if"},
		{Draft7, `{"if": {"type": "string"}, "then": {"minLength": 1}}`, false, ""},
		{Draft2019, `{"$defs": {"a": 1}}`, true, "/$defs/a"},
		{Draft2019, `{"properties": {"a": {"minItems": "x"}}}`, true, "/properties/a/minItems"},
		{Draft2019, `{"$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a"}`, false, ""},
		{Draft2020, `{"prefixItems": {}}`, true, "/prefixItems"},
		{Draft2020, `{"required": "a"}`, true, "/required"},
		{Draft2020, `{"prefixItems": [{"type": "string"}], "items": false}`, false, ""},
	}
	for _, tt := range tests {
		schema := fmt.Sprintf(`{"$schema": %q, %s`, tt.draft.url, tt.schema[1:])
		t.Run(schema, func(t *testing.T) {
			_, err := compileString(tt.draft, schema)
			if !tt.invalid {
				if err != nil {
					t.Fatalf("valid schema rejected: %v", err)
				}
				return
			}
			var sve *SchemaValidationError
			if !errors.As(err, &sve) {
				t.Fatalf("got %v, want a SchemaValidationError", err)
			}
			if !strings.Contains(err.Error(), tt.where) {
				t.Errorf("error %q does not name %s", err, tt.where)
			}
		})
	}
	for _, d := range allDrafts {
		if d.meta.sch == nil {
			t.Errorf("%s: meta-schema not compiled after use", d.url)
		}
		if len(d.meta.vocabs) != len(d.allVocabs) {
			t.Errorf("%s: %d vocabularies compiled, want %d", d.url, len(d.meta.vocabs), len(d.allVocabs))
		}
		for name, sch := range d.allVocabs {
			if sch != nil {
				t.Errorf("%s: allVocabs[%q] written; it must stay read-only", d.url, name)
			}
		}
	}
}

// With vocabularies asserted, the meta-schema is assembled from the
// compiled vocabulary schemas: a 2020-12 schema whose $schema enables
// only core and applicator is not checked by the validation vocabulary.
func TestMetaSchemaFromVocabularies(t *testing.T) {
	c := NewCompiler()
	c.AssertVocabs()
	meta := `{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id": "http://example.com/meta",
		"$vocabulary": {
			"https://json-schema.org/draft/2020-12/vocab/core": true,
			"https://json-schema.org/draft/2020-12/vocab/applicator": true
		}
	}`
	for url, text := range map[string]string{
		"http://example.com/meta":   meta,
		"http://example.com/s.json": `{"$schema": "http://example.com/meta", "minLength": "x", "items": 1}`,
	} {
		doc, err := UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.Compile("http://example.com/s.json")
	var sve *SchemaValidationError
	if !errors.As(err, &sve) {
		t.Fatalf("got %v, want a SchemaValidationError for items", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "/items") || strings.Contains(msg, "minLength") {
		t.Errorf("error %q: want /items (applicator) and not minLength (validation, not enabled)", msg)
	}
}

// Concurrent first uses compile each draft once and all see the result
// (run with -race).
func TestMetaSchemaConcurrentFirstUse(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(allDrafts))
	for range 4 {
		for _, d := range allDrafts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := compileString(d, fmt.Sprintf(`{"$schema": %q, "type": 12}`, d.url))
				var sve *SchemaValidationError
				if !errors.As(err, &sve) {
					errs <- fmt.Errorf("%s: got %v, want a SchemaValidationError", d.url, err)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
