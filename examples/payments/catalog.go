// Package payments is the Avro example catalog (evtool.yaml and schemas/),
// embedded so that its consumer reads the schemas it was built with: a
// consumer decodes every writer version with the newest reader schema by
// Avro's resolution rules, and needs both.
package payments

import "embed"

// Catalog holds evtool.yaml, schemas/ and, once `evtool registry serve`
// gave the versions ids, evtool.ids.json of this directory.
//
//go:embed evtool.* schemas
var Catalog embed.FS
