package catalog

import (
	"fmt"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/report"
)

// rootOf is the root of a format that compiles from the root read once
// (format.RootCompiler), as the load read it.
type rootOf struct {
	root     format.Root
	readRule string
	// files are the root's files when its format answers questions
	// about them (format.RootFiler), else nil.
	files format.RootFiles
}

// rootFiles are the files of the root kind's versions compile from, when
// its format answers questions about them (format.RootFiler); nil when
// kind does not compile from the root or does not answer.
func (c *Catalog) rootFiles(kind format.Kind) format.RootFiles {
	return c.roots[kind].files
}

// allRootFiles are the root files of every format that answers questions
// about them, in the format table's order.
func (c *Catalog) allRootFiles() []format.RootFiles {
	var out []format.RootFiles
	for _, k := range format.Kinds() {
		if rf := c.rootFiles(k); rf != nil {
			out = append(out, rf)
		}
	}
	return out
}

// readFromRoot sets what v's format read of v's file with the root (its
// text, document and digest), when v's format compiles from the root; a
// version file the root did not read is a finding. Versions of the other
// formats are read when they compile.
func (l *loader) readFromRoot(cat *Catalog, v *Version) {
	r, ok := cat.roots[v.Format]
	if !ok {
		return
	}
	rv, ok := r.root.Version(v.RelPath)
	if !ok {
		// Never compiled, never checked: say so rather than let every
		// event of this version through.
		l.fail(report.Finding{Rule: r.readRule, File: v.File, Message: "the schema file was not read (it is outside the files the loader reads as schemas)"})
		return
	}
	v.Text, v.Doc, v.Digest = rv.Text, rv.Doc, rv.Digest
}

// rootSessions are the compile sessions of one load (or one CompileType)
// by format: versions compiled in one session share what they reach.
type rootSessions map[format.Kind]format.RootSession

// compileFromRoot compiles v when its format compiles from the root read
// once, setting its Compiled (and Schema, for a JSON Schema), and
// reports whether it did; the finding is why v does not compile.
func (c *Catalog) compileFromRoot(sessions rootSessions, v *Version) (bool, *report.Finding) {
	r, ok := c.roots[v.Format]
	if !ok {
		return false, nil
	}
	s := sessions[v.Format]
	if s == nil {
		var err error
		s, err = r.root.Session(format.RootOptions{AssertFormats: c.Config.AssertFormats, DefaultDraft: c.Draft.Name})
		if err != nil {
			return true, &report.Finding{Rule: RuleConfig, Severity: report.SeverityError, File: c.ConfigFile, Message: err.Error()}
		}
		sessions[v.Format] = s
	}
	sch, f := s.CompileVersion(v.RelPath, v.File, fmt.Sprintf("%s v%d", v.Type, v.Number))
	if f != nil {
		return true, f
	}
	if sch != nil {
		v.Compiled = sch
	}
	return true, nil
}

// readSchemaFiles reads the root once for each format that compiles
// from the root read once (format.RootCompiler: JSON Schema reads every
// JSON file under the root except examples, so that $ref and $id lookups
// are answered from memory).
func (l *loader) readSchemaFiles(cat *Catalog) {
	for _, p := range formats.All() {
		rc, ok := p.(format.RootCompiler)
		if !ok {
			continue
		}
		root, probs := rc.ReadRoot(l.fsys, format.RootReader{
			Root:        l.root,
			Show:        l.show,
			Skip:        func(dir string) bool { return SkipSchemaDir(l.root, dir) },
			PathProblem: pathProblem,
			Evict:       l.evictVersion,
		})
		if cat.roots == nil {
			cat.roots = map[format.Kind]rootOf{}
		}
		r := rootOf{root: root, readRule: rc.ReadRule()}
		if rf, ok := root.(format.RootFiler); ok {
			r.files = rf.RootFiles()
		}
		cat.roots[p.Kind()] = r
		for _, f := range probs {
			l.fail(f)
		}
	}
}

func unwrapPathError(err error) error { return format.UnwrapPathError(err) }
