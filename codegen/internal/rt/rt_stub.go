package rt

import "time"

// Declared by the generated shared file; here so that the package compiles.
// The generator never copies this file.
var (
	evtSchemaFiles = map[string]string{}
	evtSchemaIDs   = map[string]string{}
)

// DecKey is the canonical key of a number literal, for the generator.
func DecKey(lit string) string { return evtParseDec(lit).key() }

// Canon is the canonical text of a JSON value, for the generator.
func Canon(raw []byte) string { return evtCanon(raw) }

// ParseDateTime parses a date-time as generated code does, for tests.
func ParseDateTime(s string) (time.Time, bool) { return evtParseDateTime(s) }

// ParseIntLit converts an integer literal for the generator: status 0 ok,
// 1 not an integer, 2 beyond int64 (no big arithmetic: exponents are
// harmless).
func ParseIntLit(lit string) (int64, int) { return evtParseInt([]byte(lit)) }
