// Package formats gives the compatibility gate every schema format: JSON
// Schema is compat's own engine, Avro is compat/avro, Protobuf is
// compat/protobuf. The catalog check (modes, transitive pairs,
// --against, published versions) stays compat.CheckCatalog; this package
// hands it the other formats' comparers and turns their findings into
// the shared report.Finding with display paths, so printers, approvals
// and exit codes do not fork per format.
package formats

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat"
	avrocompat "github.com/evtool/evtool/compat/avro"
	pbcompat "github.com/evtool/evtool/compat/protobuf"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/format/protobuf"
	"github.com/evtool/evtool/report"
)

// Comparers returns the comparers of every format other than JSON Schema.
func Comparers() map[format.Kind]compat.Comparer {
	return map[format.Kind]compat.Comparer{format.Avro: CompareAvro, format.Protobuf: CompareProtobuf}
}

// CheckCatalog is compat.CheckCatalog with every format.
func CheckCatalog(head, base *catalog.Catalog, opts compat.CheckOptions) *compat.CheckResult {
	if opts.Formats == nil {
		opts.Formats = Comparers()
	}
	return compat.CheckCatalog(head, base, opts)
}

// CompareAvro compares two Avro versions with compat/avro.
func CompareAvro(vp compat.VersionPair, dir compat.Direction, opts compat.Options) []report.Finding {
	o, ok1 := vp.Old.Compiled.(*avro.Schema)
	n, ok2 := vp.New.Compiled.(*avro.Schema)
	if !ok1 || !ok2 {
		return nil
	}
	// Pointers into a version's own file print bare, so the pair names
	// the files as the schemas do; display paths are put back below.
	p := vp.Pair
	p.OldFile, p.NewFile = o.File, n.File
	aopts := avrocompat.Options{NoWitness: opts.Samples < 0, Seed: uint64(opts.Seed), Samples: opts.Samples, Context: opts.Context}
	var out []report.Finding
	for _, f := range avrocompat.Compare(o, n, dir, aopts) {
		rf := f.ToReport(p, o, n)
		switch rf.File {
		case n.File:
			rf.File = vp.New.File
		case o.File:
			rf.File = vp.Old.File
		default:
			rf.File = show(vp.NewCatalog, vp.New, rf.File, false)
		}
		out = append(out, rf)
	}
	return out
}

// CompareProtobuf compares two Protobuf versions with compat/protobuf
// under the pair's profile (wire or wire-json; default wire-json).
func CompareProtobuf(vp compat.VersionPair, dir compat.Direction, opts compat.Options) []report.Finding {
	o, ok1 := vp.Old.Compiled.(*protobuf.Schema)
	n, ok2 := vp.New.Compiled.(*protobuf.Schema)
	if !ok1 || !ok2 {
		return nil
	}
	profile, _ := pbcompat.ParseProfile(string(opts.Profile))
	popts := pbcompat.Options{Profile: profile, Samples: opts.Samples, Seed: uint64(opts.Seed), Context: opts.Context}
	out := pbcompat.Compare(o, n, dir, popts)
	for i := range out {
		f := &out[i]
		// Fingerprints of the message/field path, not of file:line:col:
		// reformatting a file must not unapprove a break.
		f.Fingerprint = compat.Fingerprint(vp.Type, f.Rule, fullName(f.OldPointer), fullName(f.NewPointer), dir)
		switch {
		case f.File == "":
		case f.File == o.File && f.File != n.File:
			f.File = show(vp.OldCatalog, vp.Old, f.File, true)
		default:
			f.File = show(vp.NewCatalog, vp.New, f.File, true)
		}
	}
	return out
}

// show is the display path of a file a schema names: Avro by its path in
// the catalog directory, Protobuf relative to the root. Without a catalog
// (compat diff) the schema was loaded from the version file's directory.
func show(cat *catalog.Catalog, v *catalog.Version, file string, rootRelative bool) string {
	if p, ok := v.Compiled.(interface{ PathOf(string) (string, bool) }); ok && cat == nil {
		// Loaded with import directories (compat diff --proto-path).
		if s, ok := p.PathOf(file); ok {
			return s
		}
	}
	switch {
	case cat == nil:
		return filepath.Join(filepath.Dir(v.File), filepath.FromSlash(file))
	case rootRelative:
		return cat.ShowRel(file)
	}
	return cat.Show(file)
}

// fullName is the descriptor name of a Protobuf finding's side
// ("file:line:col#pkg.Msg.field").
func fullName(side string) string {
	if i := strings.LastIndexByte(side, '#'); i >= 0 {
		return side[i+1:]
	}
	return side
}

// LoadFile loads one schema file outside a catalog, for compat diff: its
// format by extension; Avro named types resolve among the .avsc files of
// its own directory, Protobuf imports relative to it (message selects the
// Protobuf message, default the file's first). Nothing outside the
// directory is read.
func LoadFile(file, message string) (*catalog.Version, error) {
	kind, ok := format.KindOf(file)
	if !ok || kind == format.JSONSchema {
		return nil, &format.Error{File: file, Message: "not an .avsc or .proto file"}
	}
	root, err := os.OpenRoot(filepath.Dir(file))
	if err != nil {
		return nil, fmt.Errorf("directory of %s: %w", file, err)
	}
	defer root.Close()
	name := path.Base(filepath.ToSlash(file))
	v := &catalog.Version{Format: kind, File: file, Number: 1}
	var s format.Schema
	switch kind {
	case format.Avro:
		var as *avro.Schema
		if as, err = avro.Load(root.FS(), name); err == nil {
			s = as
		}
	case format.Protobuf:
		var ps *protobuf.Schema
		if ps, err = protobuf.Load(root.FS(), name, message); err == nil {
			s = ps
		}
	}
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

// RuleDocs documents every rule of every format for the printers (SARIF).
func RuleDocs() []report.RuleDoc {
	out := compat.RuleDocs()
	for _, r := range avrocompat.Rules() {
		out = append(out, report.RuleDoc{ID: r.ID, Summary: r.Meaning, Detail: r.Meaning})
	}
	for _, r := range pbcompat.Rules() {
		out = append(out, report.RuleDoc{ID: r.ID, Summary: r.Summary, Detail: r.Summary})
	}
	return out
}
