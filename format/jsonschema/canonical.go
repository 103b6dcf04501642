package jsonschema

import (
	"github.com/evtool/evtool/internal/jsonvalue"
)

// Canonical is jsonvalue.Canonical: a schema file's document in one
// spelling, whatever its formatting.
func Canonical(v any) []byte { return jsonvalue.Canonical(v) }

// Digest is "sha256:" and the hex SHA-256 of the canonical form.
func Digest(v any) string { return jsonvalue.Digest(v) }
