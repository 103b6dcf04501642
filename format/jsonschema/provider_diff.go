package jsonschema

import "github.com/evtool/evtool/format"

var _ format.Namer = Provider{}

// CLIName is json, as a JSON Schema version's extension.
func (Provider) CLIName() string { return "json" }
