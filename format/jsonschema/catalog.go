package jsonschema

import "github.com/evtool/evtool/format"

// Compiled is the file's compiled schema as a format.Schema, as a
// catalog's version of it holds it (its canonical form is the file's
// document's).
func (s *SchemaFile) Compiled() format.Schema { return New(s.Schema, Canonical(s.Doc)) }
