package compat

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/report"
)

// Rule ids of pairs no engine can compare.
const (
	RuleFormatChanged     = "format-changed"
	RuleFormatUnsupported = "format-unsupported"
)

// CompareFormat compares a pair that is not two JSON Schemas with the
// format's Comparer (from comparers) and gives its findings the pair's
// identity: subject, type, versions, direction and fingerprint.
func CompareFormat(vp VersionPair, dir Direction, opts Options, comparers map[format.Kind]Comparer) []report.Finding {
	base := report.Finding{Severity: report.SeverityError, File: vp.NewFile, Line: 1, Subject: vp.Subject, Type: vp.Type,
		OldVersion: vp.OldVersion, NewVersion: vp.NewVersion, Direction: strings.ToUpper(string(dir))}
	if kindOf(vp.Old) != kindOf(vp.New) {
		// A type's versions share a format; only a published version of
		// another format on the base gets here.
		f := base
		f.Rule = RuleFormatChanged
		f.Message = fmt.Sprintf("v%d is %s and v%d is %s: data written in one format cannot be read with a schema of another", vp.OldVersion, vp.Old.Format.Name(), vp.NewVersion, vp.New.Format.Name())
		f.Fingerprint = Fingerprint(vp.Type, f.Rule, "", "", dir)
		return []report.Finding{f}
	}
	cmp := comparers[kindOf(vp.New)]
	if cmp == nil {
		f := base
		f.Rule = RuleFormatUnsupported
		f.Message = fmt.Sprintf("no compatibility engine for %s was given: the pair is not checked, so the gate fails", vp.New.Format.Name())
		return []report.Finding{f}
	}
	out := cmp(vp, dir, opts)
	for i := range out {
		f := &out[i]
		f.Subject, f.Type, f.OldVersion, f.NewVersion = vp.Subject, vp.Type, vp.OldVersion, vp.NewVersion
		if f.Direction == "" {
			f.Direction = string(dir)
		}
		f.Direction = strings.ToUpper(f.Direction)
		if f.Fingerprint == "" {
			f.Fingerprint = Fingerprint(vp.Type, f.Rule, f.OldPointer, f.NewPointer, dir)
		}
		if f.File == "" {
			f.File = vp.NewFile
		}
	}
	return out
}

// modifiedFormat explains how a published Avro or Protobuf version
// differs between base and head beyond its digest ("" when it does not).
// An Avro digest is of the Parsing Canonical Form, which leaves out
// defaults, aliases and logical types: readers use all three, so the
// full schema (named types inlined, wherever they are written) is
// compared as well.
func modifiedFormat(bv, hv *catalog.Version) string {
	if kindOf(bv) != kindOf(hv) {
		return fmt.Sprintf("v%d is published as %s and is %s now; published versions are immutable: add a new version (in the type's format) instead", bv.Number, bv.Format.Name(), hv.Format.Name())
	}
	b, bok := bv.Compiled.(*avro.Schema)
	h, hok := hv.Compiled.(*avro.Schema)
	if bok && hok && !bytes.Equal(b.JSON(), h.JSON()) {
		return fmt.Sprintf("v%d is published and was edited in place (a default, alias, logical type or a named type it uses from a shared file changed); published versions are immutable: revert the edit and add a new version instead", bv.Number)
	}
	return ""
}

// kindOf is a version's format; a Version built without one (before the
// seam, or by hand) is JSON Schema, so its pairs still reach the JSON
// Schema engine instead of being skipped.
func kindOf(v *catalog.Version) format.Kind {
	if v.Format == "" {
		return format.JSONSchema
	}
	return v.Format
}
