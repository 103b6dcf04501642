package avro

import "github.com/evtool/evtool/format"

var _ format.InputScanner = Provider{}

// Imports is none: an Avro schema names types, not files.
func (Provider) Imports([]byte) ([]string, bool) { return nil, false }

// ReadsShared is true: CompileVersion parses every .avsc of the shared
// directories, so any of them may define a named type a version uses.
func (Provider) ReadsShared() bool { return true }
