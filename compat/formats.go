package compat

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat/avrocompat"
	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/compat/jsoncompat"
	"github.com/evtool/evtool/compat/protocompat"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/report"
)

// DefaultCatalogSamples is the default for `compat check`, which compares
// many pairs: documents are generated once per version and shared by every
// pair it is in (evtool.yaml compat.samples and --samples override it).
// Mutations toward the reader run for pairs where the rules found
// something; a pair the rules call clean gets the shared documents only.
const DefaultCatalogSamples = 2

// Rule ids of pairs no engine can compare. RuleFormatChanged is not
// "format-changed": that id is the JSON Schema engine's (a `format`
// keyword asserted), and one id names one rule.
const (
	RuleFormatChanged     = "type-format-changed"
	RuleFormatUnsupported = "format-unsupported"
)

// Engines is the table of compatibility engines, one per format: the
// gate calls each through engine.Engine and nothing else.
//
// The table is here, not in each format's provider, because an engine
// imports its format's package and a provider cannot import its engine
// back: compat/avrocompat compares format/avro's compiled schemas
// (avro.Schema, avro.Place), compat/protocompat format/protobuf's, and
// every engine imports compat/engine, whose VersionPair holds catalog
// types (catalog.Version, catalog.Catalog), and
// catalog imports format/formats, the providers' table. A narrower
// VersionPair would cut the last path but not the first: format/avro ->
// compat/avrocompat -> format/avro stays a cycle. Naming an engine by a
// string in the provider would need a registry of engines filled at init
// (package-level mutable state) or a table that imports every engine:
// this one.
func Engines() map[format.Kind]engine.Engine {
	return map[format.Kind]engine.Engine{
		format.JSONSchema: jsoncompat.Engine(),
		format.Avro:       avrocompat.Engine(),
		format.Protobuf:   protocompat.Engine(),
	}
}

// engines is Engines() in the providers' order (formats.All): the order
// of Rules and of docs/rules.md.
func engines() []engine.Engine {
	table := Engines()
	var out []engine.Engine
	for _, p := range formats.All() {
		if e, ok := table[p.Kind()]; ok {
			out = append(out, e)
		}
	}
	return out
}

// ComparePair compares a pair in one direction with cmp, the Compare of
// its format's engine (nil when the caller gave none): a pair of two
// formats, or of a format without an engine, is an error finding, never
// a pass.
func ComparePair(vp engine.VersionPair, dir engine.Direction, opts engine.Options, cmp engine.Compare) []report.Finding {
	base := report.Finding{Severity: report.SeverityError, File: vp.NewFile, Line: 1, Subject: vp.Subject, Type: vp.Type,
		OldVersion: vp.OldVersion, NewVersion: vp.NewVersion, Direction: strings.ToUpper(string(dir))}
	if kindOf(vp.Old) != kindOf(vp.New) {
		// A type's versions share a format; only a published version of
		// another format on the base gets here.
		f := base
		f.Rule = RuleFormatChanged
		f.Message = fmt.Sprintf("v%d is %s and v%d is %s: data written in one format cannot be read with a schema of another", vp.OldVersion, vp.Old.Format.Name(), vp.NewVersion, vp.New.Format.Name())
		f.Fingerprint = engine.Fingerprint(vp.Type, f.Rule, "", "", dir)
		return []report.Finding{f}
	}
	if cmp == nil {
		f := base
		f.Rule = RuleFormatUnsupported
		f.Message = fmt.Sprintf("no compatibility engine for %s was given: the pair is not checked, so the gate fails", vp.New.Format.Name())
		return []report.Finding{f}
	}
	return cmp(vp, dir, opts)
}

// modifiedFormat explains how a published version differs between base
// and head beyond its digest ("" when it does not): its format changed,
// or its provider (a format.EditChecker) finds an edit the digest leaves
// out. An Avro digest is of the Parsing Canonical Form, which leaves out
// defaults, aliases and logical types: readers use all three, so the
// full schema (named types inlined, wherever they are written) is
// compared as well.
func modifiedFormat(bv, hv *catalog.Version) string {
	if kindOf(bv) != kindOf(hv) {
		return fmt.Sprintf("v%d is published as %s and is %s now; published versions are immutable: add a new version (in the type's format) instead", bv.Number, bv.Format.Name(), hv.Format.Name())
	}
	if ec, ok := formats.Of(hv.Compiled).(format.EditChecker); ok && ec.EditedInPlace(bv.Compiled, hv.Compiled) {
		return fmt.Sprintf("v%d is published and was edited in place (a default, alias, logical type or a named type it uses from a shared file changed); published versions are immutable: revert the edit and add a new version instead", bv.Number)
	}
	return ""
}

// kindOf is a version's format; a Version built without one (before the
// seam, or by hand) is JSON Schema, so its pairs still reach the JSON
// Schema engine instead of being skipped.
func kindOf(v *catalog.Version) format.Kind {
	if v.Format == "" {
		return formats.DefaultKind
	}
	return v.Format
}

// LoadFile loads one schema file outside a catalog, for compat diff: its
// format by extension; Avro named types resolve among the .avsc files of
// its own directory, Protobuf imports relative to it (message selects the
// Protobuf message, default the file's first). Nothing outside the
// directory is read.
func LoadFile(file, message string) (*catalog.Version, error) {
	p, ok := formats.ForFile(file)
	fc, compiles := p.(format.FileCompiler)
	if !ok || !compiles {
		return nil, &format.Error{File: file, Message: "not an .avsc or .proto file"}
	}
	kind := p.Kind()
	root, err := os.OpenRoot(filepath.Dir(file))
	if err != nil {
		return nil, fmt.Errorf("directory of %s: %w", file, err)
	}
	defer root.Close()
	name := path.Base(filepath.ToSlash(file))
	v := &catalog.Version{Format: kind, File: file, Number: 1}
	s, err := fc.CompileVersion(root.FS(), ".", name, nil, message)
	if err != nil {
		return nil, displayErrors(err, filepath.Dir(file))
	}
	v.Compiled = s
	v.Digest = catalog.DigestOf(s)
	return v, nil
}

// displayErrors names the files of a format's errors by their paths as
// the user gave the directory.
func displayErrors(err error, dir string) error {
	fs := format.Findings(err, "", func(f string) string { return filepath.Join(dir, filepath.FromSlash(f)) })
	errs := make(format.Errors, len(fs))
	for i, f := range fs {
		errs[i] = &format.Error{File: f.File, Line: f.Line, Column: f.Column, Pointer: f.Pointer, Message: f.Message}
	}
	return errs
}

// CompareOf is the Compare of the engine of kind for the pairs of one
// type, from Engines(); nil when kind has none.
func CompareOf(kind format.Kind) engine.Compare {
	if e, ok := Engines()[kind]; ok {
		return e.New()
	}
	return nil
}
