package catalog

import (
	"github.com/santhosh-tekuri/jsonschema/v6"

	jsformat "github.com/evtool/evtool/format/jsonschema"
)

// JSON Schema drafts and the compiler's rules moved to format/jsonschema,
// JSON Schema's provider; these names stay for the catalog's importers.

// Draft is jsformat.Draft.
type Draft = jsformat.Draft

// Drafts are the drafts evtool reads, newest first (jsformat.Drafts).
var Drafts = jsformat.Drafts

// DefaultDraft is jsformat.DefaultDraft.
var DefaultDraft = jsformat.DefaultDraft

// ParseDraft is jsformat.ParseDraft.
func ParseDraft(s string) (Draft, error) { return jsformat.ParseDraft(s) }

// DraftNames is jsformat.DraftNames.
func DraftNames() string { return jsformat.DraftNames() }

// NewCompiler is jsformat.NewCompiler.
func NewCompiler(assertFormats bool) *jsonschema.Compiler { return jsformat.NewCompiler(assertFormats) }

// NewDraftCompiler is jsformat.NewDraftCompiler.
func NewDraftCompiler(assertFormats bool, draft Draft) *jsonschema.Compiler {
	return jsformat.NewDraftCompiler(assertFormats, draft)
}
