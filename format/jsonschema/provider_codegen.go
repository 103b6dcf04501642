package jsonschema

import (
	"github.com/evtool/evtool/codegen/gocode"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/jsonschema/gogen"
)

// GoTypes starts a run of JSON Schema's Go generator (format.GoGenerator),
// which lives in gogen: it recompiles the catalog's files with
// format assertions on rather than reading this package's Schema.
func (Provider) GoTypes(pkg gocode.Package) (format.GoTypes, error) {
	return gogen.New(pkg)
}
