package formats

import "github.com/evtool/evtool/format"

// DefaultKind is the format of a catalog's types when nothing says
// otherwise: the scaffold of `evtool init` without --format, and the
// compat profile of a type without versions.
const DefaultKind = format.JSONSchema
