package codegen

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"unicode"
)

// CatalogPrefix starts the line under Header in the shared file that
// records the catalog the package was made from (Options.Catalog), so a
// drift check finds every committed generated package and its source by
// walking the tree, with no list to keep.
const CatalogPrefix = "// Catalog: "

// plainMark ends the catalog line of a package of plain types.
const plainMark = " (plain types)"

// catalogLine returns the line recording opts.Catalog, "" when unset.
func catalogLine(opts Options) (string, error) {
	if opts.Catalog == "" {
		return "", nil
	}
	if !CanRecordCatalog(opts.Catalog) {
		return "", fmt.Errorf("catalog path %q cannot be recorded on one comment line", opts.Catalog)
	}
	line := CatalogPrefix + opts.Catalog
	if opts.Plain {
		line += plainMark
	}
	return line + "\n", nil
}

// CanRecordCatalog reports whether path can be Options.Catalog: one
// comment line that reads back as written (no control characters, no
// invalid UTF-8, not ending like the plain-types mark).
func CanRecordCatalog(path string) bool {
	return path != "" && strings.IndexFunc(path, func(r rune) bool { return unicode.IsControl(r) || r == unicode.ReplacementChar }) < 0 &&
		!strings.HasSuffix(path, plainMark)
}

// Source is what the shared file of a generated package records about how
// it was made.
type Source struct {
	// Catalog is the catalog directory relative to the package's
	// directory, slash-separated.
	Catalog string
	// Package is the package name.
	Package string
	Plain   bool
}

// ReadSource reads the source a shared file (SharedFile) records; ok is
// false when src is not a generated file or records no catalog (made
// before evtool recorded it, or by Generate without Options.Catalog).
func ReadSource(src []byte) (s Source, ok bool) {
	sc := bufio.NewScanner(bytes.NewReader(src))
	if !sc.Scan() || sc.Text() != Header || !sc.Scan() {
		return Source{}, false
	}
	rest, found := strings.CutPrefix(sc.Text(), CatalogPrefix)
	if !found || rest == "" {
		return Source{}, false
	}
	s.Catalog, s.Plain = strings.CutSuffix(rest, plainMark)
	for sc.Scan() {
		if name, found := strings.CutPrefix(sc.Text(), "package "); found {
			s.Package = strings.TrimSpace(name)
			return s, s.Catalog != "" && s.Package != ""
		}
	}
	return Source{}, false
}
