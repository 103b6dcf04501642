package catalog

import (
	jsformat "github.com/evtool/evtool/format/jsonschema"
)

// JSON Schema drafts are format/jsonschema's; these names stay while
// package schemaregistry reads a catalog's Draft (and the registry's) by
// them.

// Draft is jsformat.Draft: what a JSON Schema without `$schema` is read
// as (Catalog.Draft).
type Draft = jsformat.Draft

// Drafts are the drafts evtool reads, newest first (jsformat.Drafts).
var Drafts = jsformat.Drafts

// DefaultDraft is jsformat.DefaultDraft.
var DefaultDraft = jsformat.DefaultDraft

// ParseDraft is jsformat.ParseDraft.
func ParseDraft(s string) (Draft, error) { return jsformat.ParseDraft(s) }
