package jsonschema

import (
	"io/fs"

	"github.com/evtool/evtool/format"
	js "github.com/evtool/evtool/internal/thirdparty/jsonschema"
	"github.com/evtool/evtool/report"
)

var (
	_ format.RootCompiler = Provider{}
	_ format.Root         = Files(nil)
)

// ReadRoot is the package's ReadRoot: JSON Schema's root is its Files.
func (Provider) ReadRoot(fsys fs.FS, r format.RootReader) (format.Root, []report.Finding) {
	return ReadRoot(fsys, r)
}

// ReadRule is RuleSchemaJSON.
func (Provider) ReadRule() string { return RuleSchemaJSON }

// Version is the file rel as ReadRoot read it, with the digest of its
// canonical JSON.
func (files Files) Version(rel string) (format.RootVersion, bool) {
	f := files[rel]
	if f == nil {
		return format.RootVersion{}, false
	}
	v := format.RootVersion{Text: f.Text, Doc: f.Doc}
	switch {
	case f.evicted:
		v.Digest = f.digest // Doc is nil: decoded again when compiled
	case f.Doc != nil:
		v.Digest = format.DigestOf(f.Canonical())
	}
	return v, true
}

// Session is one compiler of the files (Compiler) with the catalog's
// options: shared files compile once per session.
func (files Files) Session(opts format.RootOptions) (format.RootSession, error) {
	draft, err := ParseDraft(opts.DefaultDraft)
	if err != nil {
		return nil, err
	}
	return &session{files: files, c: files.Compiler(opts.AssertFormats, draft), sampling: &samplingRoot{files: files, asserted: opts.AssertFormats}}, nil
}

// session is a Files' format.RootSession.
type session struct {
	files    Files
	c        *js.Compiler
	sampling *samplingRoot
}

// CompileVersion compiles the file rel at its FileURL; a compile error is
// explained at the place that caused it (CompileFinding).
func (s *session) CompileVersion(rel, display, subject string) (format.Schema, *report.Finding) {
	f := s.files[rel]
	if f == nil || f.Doc == nil && !f.evicted {
		return nil, nil
	}
	sch, err := s.c.Compile(FileURL(rel))
	if err != nil {
		fd := s.files.CompileFinding(display, subject, err)
		return nil, &fd
	}
	out := New(sch, f.Canonical())
	out.sampling, out.rel = s.sampling, rel
	return out, nil
}
