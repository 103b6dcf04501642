// Package inventory is the Protobuf example catalog (evtool.yaml and
// schemas/), embedded so that its consumer decodes with the descriptors it
// was built with.
package inventory

import "embed"

// Catalog holds evtool.yaml and schemas/ of this directory.
//
//go:embed evtool.yaml schemas
var Catalog embed.FS
