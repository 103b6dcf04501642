package jsoncompat

import (
	"strings"
	"sync"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/internal/schemawalk"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
	"github.com/evtool/evtool/report"
)

// Engine is the JSON Schema engine as the gate (package compat) calls it.
// The Compare of one event type shares each version's generated
// documents, and the structural equality of its schemas, among the pairs
// the version is in.
func Engine() engine.Engine {
	return engine.Engine{
		Compiled: func(v *catalog.Version) bool { return schemaOf(v) != nil },
		ReferencedFiles: func(cat *catalog.Catalog, v *catalog.Version) map[string]string {
			return ReferencedFiles(cat, schemaOf(v))
		},
		New: func() engine.Compare {
			// Sides are shared by every call; an equalizer by the calls
			// that do not overlap (the gate's, one after another, share
			// one; overlapping calls take another from the free list).
			var mu sync.Mutex
			var free []*equalizer
			sides := map[*catalog.Version]*Side{}
			side := func(v *catalog.Version) *Side {
				mu.Lock()
				defer mu.Unlock()
				s := sides[v]
				if s == nil {
					s = NewSide(schemaOf(v), nil)
					sides[v] = s
				}
				return s
			}
			return func(vp engine.VersionPair, dir engine.Direction, opts engine.Options) []report.Finding {
				if schemaOf(vp.Old) == nil || schemaOf(vp.New) == nil {
					return nil
				}
				oldS, newS := side(vp.Old), side(vp.New)
				var eq *equalizer
				mu.Lock()
				if n := len(free); n > 0 {
					eq, free = free[n-1], free[:n-1]
				}
				mu.Unlock()
				if eq == nil {
					eq = newEqualizer()
				}
				defer func() {
					mu.Lock()
					free = append(free, eq)
					mu.Unlock()
				}()
				oldL, newL := locator(vp.OldLocate, vp.OldCatalog), locator(vp.NewLocate, vp.NewCatalog)
				var out []report.Finding
				for _, f := range compare(oldS, newS, dir, opts, eq, false) {
					out = append(out, f.ToReport(vp.Pair, oldL, newL, vp.LineOf))
				}
				return out
			}
		},
		Concurrent: true,
		Rules:      Rules,
		Section:    RulesSection,
	}
}

// schemaOf is the library's compiled schema of a JSON Schema version
// (its format.Schema, Version.Compiled, is format/jsonschema's, which
// wraps it); nil for a version that did not compile or of another format.
func schemaOf(v *catalog.Version) *jsonschema.Schema {
	if js, ok := v.Compiled.(interface{ JSONSchema() *jsonschema.Schema }); ok {
		return js.JSONSchema()
	}
	return nil
}

// locator is a side's Locator: the one the pair gives (compat diff's
// files), else its catalog's.
func locator(l func(string) (string, string), cat *catalog.Catalog) Locator {
	if l != nil {
		return l
	}
	if cat != nil {
		return cat.Locate
	}
	return nil
}

// ReferencedFiles lists the catalog files (relative path -> digest) a
// compiled schema reaches: what a published version's content depends on.
func ReferencedFiles(cat *catalog.Catalog, s *jsonschema.Schema) map[string]string {
	out := map[string]string{}
	seen := map[*jsonschema.Schema]bool{}
	bases := map[string]bool{}
	stack := []*jsonschema.Schema{s}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == nil || seen[x] {
			continue
		}
		seen[x] = true
		b, _, _ := strings.Cut(x.Location, "#")
		bases[b] = true
		stack = append(stack, schemawalk.Children(x)...)
	}
	for b := range bases {
		if _, rel, digest, ok := cat.FileOfURL(b); ok {
			out[rel] = digest
		}
	}
	return out
}
