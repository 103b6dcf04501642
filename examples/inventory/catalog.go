// Package inventory is the Protobuf example catalog (evtool.yaml and
// schemas/), embedded so that its consumer decodes with the descriptors it
// was built with.
package inventory

import "embed"

// Catalog holds evtool.yaml, schemas/ and, once `evtool registry serve`
// gave the versions ids, evtool.ids.json of this directory.
//
//go:embed evtool.* schemas
var Catalog embed.FS
