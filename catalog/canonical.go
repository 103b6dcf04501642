package catalog

import (
	"github.com/evtool/evtool/internal/jsonvalue"
)

// Canonical is jsonvalue.Canonical: a decoded JSON value in canonical
// form (a JSON Schema version's, a registry's schema).
func Canonical(v any) []byte { return jsonvalue.Canonical(v) }

// Digest is "sha256:" and the hex SHA-256 of the canonical form.
func Digest(v any) string { return jsonvalue.Digest(v) }
