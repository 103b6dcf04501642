package format

import (
	"io/fs"

	"github.com/evtool/evtool/report"
)

// RootCompiler is a Provider whose schema files are compiled from the
// catalog root read once (JSON Schema), where a FileCompiler compiles each
// version from its own file and the shared directories (Avro, Protobuf).
// A JSON Schema $ref or $id may name any JSON file of the root, so the
// catalog reads the root before any version compiles; one RootSession
// serves a whole load (or one type of a deferred load), so the files that
// versions share compile once per session. The catalog asks a provider
// whether it is one instead of comparing kinds.
type RootCompiler interface {
	// ReadRoot reads the format's files under r.Root in fsys, once per
	// load. The findings are the files that could not be read or parsed
	// (and the format's other problems found by reading alone), in the
	// order the walk met them.
	ReadRoot(fsys fs.FS, r RootReader) (Root, []report.Finding)
	// ReadRule is the rule id of a version file the root could not read.
	ReadRule() string
}

// RootReader says how a RootCompiler walks a catalog root.
type RootReader struct {
	// Root is the slash path of the root in the file system.
	Root string
	// Show is the display path of a path in the file system.
	Show func(p string) string
	// Skip reports the directories that hold no schemas (not walked).
	Skip func(dir string) bool
	// PathProblem says why a path could not be read.
	PathProblem func(p string, err error) string
	// Evict, when set, names the files (relative to the root) whose
	// decoded form the reader may drop once read, keeping their text and
	// digest: a catalog compiled type by type does not hold every
	// version's decoded document for the whole command.
	Evict func(rel string) bool
}

// Root is a catalog root as a RootCompiler read it.
type Root interface {
	// Version is what the root holds of the version file rel (relative to
	// the root): ok false when the walk did not read it.
	Version(rel string) (v RootVersion, ok bool)
	// Session starts compiling versions with the catalog's options; an
	// error says the options are not the format's.
	Session(opts RootOptions) (RootSession, error)
}

// RootVersion is a version file read with the root, before compiling.
type RootVersion struct {
	// Text is the file as read; Doc its decoded document, nil when the
	// file could not be read or parsed (reading reported it), and then
	// Digest is "".
	Text   []byte
	Doc    any
	Digest string
}

// RootOptions are the catalog's settings a RootCompiler compiles with
// (evtool.yaml's assert_formats and default_draft).
type RootOptions struct {
	AssertFormats bool
	// DefaultDraft is the draft a schema without `$schema` is read as ("":
	// the format's default).
	DefaultDraft string
}

// RootSession compiles versions of a Root. It is used by one goroutine at
// a time.
type RootSession interface {
	// CompileVersion compiles the version file rel (relative to the
	// root); display is its display path and subject names the version
	// ("com.example.a v2"), for the finding of a version that does not
	// compile. A version whose file was not read or parsed gives neither
	// schema nor finding: reading the root reported it.
	CompileVersion(rel, display, subject string) (Schema, *report.Finding)
}

// MessageSelector is a Provider whose schema file may declare several
// messages, of which event.yaml's `message` selects the event's
// (Protobuf); the key is refused for the other formats.
type MessageSelector interface {
	// SelectsMessage marks the capability.
	SelectsMessage()
}

// RootFiler is a Root whose files the catalog answers questions about
// that are not a compile (JSON Schema, whose compiled locations, $refs and
// $ids name any file of the root): where a finding is, and what an
// incremental check must digest.
type RootFiler interface {
	// RootFiles are the files the root read, indexed for the questions.
	RootFiles() RootFiles
}

// RootFiles are the files of a Root (a RootFiler's), by path relative to
// the root. They are safe for concurrent use, except that a version's
// document may be dropped (RootReader.Evict) only while nothing else uses
// the files.
type RootFiles interface {
	// URL is the location the file rel is compiled at (a virtual URL: it
	// never names a real path), a version's Version.URL.
	URL(rel string) string
	// Locate maps a compiled schema location ("url#/pointer") to the
	// display path of its file and the JSON pointer inside it; an
	// unknown URL is returned as it is with an empty file.
	Locate(location string) (file, pointer string)
	// LineOf is the line of a JSON pointer in the file of display path
	// display (0 when unknown).
	LineOf(display, pointer string) int
	// FileOfURL describes the file a compiled schema URL (with or without
	// fragment) belongs to: its display path, its path relative to the
	// root and the digest of its canonical form.
	FileOfURL(url string) (display, rel, digest string, ok bool)
	// Document is the decoded document of the file rel (decoded again
	// when it was evicted); nil when unknown, unread or malformed.
	Document(rel string) any
	// Evicted reports whether the decoded document of rel was dropped
	// when read (RootReader.Evict).
	Evicted(rel string) bool
	// RefInputs walks what compiling the files rels may read: read is
	// called with each file reached (rels first, then what their
	// references and ids reach, transitively; each once), absent with
	// each path a reference names inside the root that the root does not
	// hold. It may reach more than a compile loads, never less.
	RefInputs(rels []string, read, absent func(rel string))
}
