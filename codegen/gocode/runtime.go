package gocode

import "github.com/evtool/evtool/codegen/internal/rt"

// The generated runtime's own arithmetic, for generators that compute at
// generation time what generated code compares against at run time (a
// const's canonical text, an enum's number keys): the same functions, so
// the two agree. codegen/internal/rt is internal to codegen; a format's
// generator outside it reaches them here.

// RuntimeCanon is the canonical text of a JSON value as generated code
// computes it.
func RuntimeCanon(raw []byte) string { return rt.Canon(raw) }

// RuntimeDecKey is the canonical key of a number literal as generated code
// computes it.
func RuntimeDecKey(lit string) string { return rt.DecKey(lit) }

// RuntimeParseIntLit converts an integer literal as generated code does:
// status 0 ok, 1 not an integer, 2 beyond int64.
func RuntimeParseIntLit(lit string) (int64, int) { return rt.ParseIntLit(lit) }
