package format

import "strings"

// What evtool's commands ask of a format by name or of its standalone
// files, beyond a catalog's versions: the optional interfaces below, so
// the commands name no format and compare no kind.

// Namer is a Provider with a name on evtool's command line other than its
// Kind (evtool init --format json for JSON Schema).
type Namer interface {
	// CLIName is the format's name in a command's --format.
	CLIName() string
}

// CLIName is p's name on evtool's command line: its Namer's, its kind's
// otherwise.
func CLIName(p Provider) string {
	if n, ok := p.(Namer); ok {
		return n.CLIName()
	}
	return string(p.Kind())
}

// MessagePicker is a Provider whose files declare several messages, of
// which a version's event is one picked by name (Protobuf: event.yaml's
// message:, compat diff's --message).
type MessagePicker interface {
	// ShortName is a message's full name without its package, as
	// event.yaml's message: may name it.
	ShortName(message string) string
}

// PathLoader is a FileCompiler whose files import others by a path that
// resolves in search directories, as protoc's -I (compat diff's
// --proto-path): it loads a standalone file with them.
type PathLoader interface {
	// LoadPath compiles the file at the OS path file: imports resolve in
	// dirs, in order, then in the file's own directory (and among the
	// format's own well-known files); message picks the event as a
	// MessagePicker does ("" the file's first). Errors name files by OS
	// paths.
	LoadPath(file, message string, dirs []string) (Schema, error)
}

// RootFileLoader is a RootCompiler that compiles a standalone schema file
// with the files around it, as a catalog's root (compat diff of two JSON
// Schema files): its references reach the files of the nearest directory
// above it that holds RootFileOptions.Marker, or else of its own
// directory, never above, never the network.
type RootFileLoader interface {
	// LoadRootFile reads and compiles the file at the OS path file.
	// Errors name the file, line and JSON pointer.
	LoadRootFile(file string, opts RootFileOptions) (*RootFile, error)
}

// RootFileOptions say how a RootFileLoader reads a file.
type RootFileOptions struct {
	// AssertFormats is evtool.yaml's assert_formats (compat diff's
	// --assert-formats).
	AssertFormats bool
	// Dialect is what a file that declares none is read as (a Dialects
	// name; "": the format's default).
	Dialect string
	// Marker is the file that marks a catalog's directory (evtool.yaml).
	Marker string
}

// RootFile is a file a RootFileLoader compiled.
type RootFile struct {
	// File is the path as given; Text and Doc its content.
	File string
	Text []byte
	Doc  any
	// Schema is the compiled file; URL the location it was compiled at;
	// Digest the digest of its canonical form.
	Schema Schema
	URL    string
	Digest string
	// LineOf is the line of a JSON pointer in a file the load read, by
	// its display path (0 when unknown); Locate maps a compiled location
	// to the display path of its file and the pointer inside it.
	LineOf func(file, pointer string) int
	Locate func(location string) (file, pointer string)
}

// Dialects is a Provider whose files are read in one of several
// dialects, which a file may declare (JSON Schema's drafts: `$schema`);
// the one of a file that declares none is evtool.yaml's default_draft,
// compat diff's and registry pull's --default-draft.
type Dialects interface {
	// Dialects are the dialects the format reads, newest first.
	Dialects() []Dialect
	// DefaultDialect is the dialect of a file that declares none when
	// nothing else says.
	DefaultDialect() Dialect
	// ParseDialect is the dialect s names (its name, one of its
	// spellings or its URL; "" the default); an error says s names none.
	ParseDialect(s string) (Dialect, error)
}

// Dialect is one of a Dialects' dialects.
type Dialect struct {
	// Name is how evtool writes it ("2020-12", "7").
	Name string
	// URL is how a file declares it (JSON Schema's `$schema`).
	URL string
}

// DialectNames lists d's dialects' names, comma separated, for help and
// messages.
func DialectNames(d Dialects) string {
	var names []string
	for _, x := range d.Dialects() {
		names = append(names, x.Name)
	}
	return strings.Join(names, ", ")
}
