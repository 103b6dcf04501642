package format

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
