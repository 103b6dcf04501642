package jsonschema

import "github.com/evtool/evtool/internal/thirdparty/jsonschema"

// annotationFormats are the formats santhosh-tekuri/jsonschema knows.
// ("regex" cannot be overridden and stays asserted in drafts 4–7.)
var annotationFormats = []string{
	"json-pointer", "relative-json-pointer", "uuid", "duration", "period", "ipv4", "ipv6",
	"hostname", "email", "date", "time", "date-time", "uri", "iri", "uri-reference",
	"iri-reference", "uri-template", "semver",
}

// NewCompiler returns a compiler with the catalog's rules and draft
// 2020-12 when `$schema` is absent (see NewDraftCompiler).
func NewCompiler(assertFormats bool) *jsonschema.Compiler {
	return NewDraftCompiler(assertFormats, DefaultDraft)
}

// NewDraftCompiler returns a compiler with the catalog's rules: draft
// when `$schema` is absent, and `format` an annotation unless
// assertFormats. The library asserts formats for draft 7 and older by
// default; evtool gives every draft the same meaning (L(S) treats format
// as an annotation unless assert_formats is set), so for those drafts the
// known formats are registered as no-ops. The caller adds the loader.
func NewDraftCompiler(assertFormats bool, draft Draft) *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	if draft.draft == nil {
		draft = DefaultDraft
	}
	c.DefaultDraft(draft.draft)
	if assertFormats {
		c.AssertFormat()
		return c
	}
	for _, name := range annotationFormats {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(any) error { return nil }})
	}
	return c
}
