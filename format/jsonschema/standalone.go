package jsonschema

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// SchemaFile is one JSON Schema file compiled on its own, outside a catalog
// (`evtool compat diff OLD NEW`). Its $refs resolve to files inside a
// confinement directory only — never above it, never the network — with
// the same rules and error messages as a catalog: the directory of the
// nearest enclosing catalog (the one holding SchemaFileOptions.Marker),
// or else the file's own directory.
type SchemaFile struct {
	// File is the path as given; Text and Doc the file's content.
	File   string
	Text   []byte
	Doc    any
	Schema *jsonschema.Schema
	URL    string
	Digest string

	loader *dirLoader
	files  Files // the files loaded, for errors and lines
}

// SchemaFileOptions say how LoadSchemaFileWith reads a schema file.
type SchemaFileOptions struct {
	// AssertFormats treats `format` as an assertion.
	AssertFormats bool
	// Draft is what a schema without `$schema` is read as (default
	// DefaultDraft).
	Draft Draft
	// Marker is the file that marks a catalog's directory (evtool.yaml):
	// $refs may reach the files of the nearest directory above the schema
	// that holds it ("": the schema's own directory only).
	Marker string
}

// LoadSchemaFileWith reads and compiles the schema file at p. Errors name
// the file, line and JSON pointer.
func LoadSchemaFileWith(p string, opts SchemaFileOptions) (*SchemaFile, error) {
	assertFormats := opts.AssertFormats
	if opts.Draft.URL == "" {
		opts.Draft = DefaultDraft
	}
	info, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, format.UnwrapPathError(err))
	}
	if info.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a schema file", p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	rootDir := confinement(filepath.Dir(abs), opts.Marker)
	relOS, err := filepath.Rel(rootDir, abs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	base := filepath.ToSlash(relOS)
	root, err := os.OpenRoot(rootDir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, format.UnwrapPathError(err))
	}
	display := rootDir
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, rootDir); err == nil {
			display = r
		}
	}
	l := &dirLoader{root: root, display: display, files: Files{}, shown: map[string]string{base: p}}
	f := l.file(base)
	if f.Err != nil {
		var je *jsonstrict.Error
		if errors.As(f.Err, &je) {
			return nil, fmt.Errorf("%s:%d:%d: malformed JSON: %s", p, je.Line, je.Column, je.Msg)
		}
		return nil, fmt.Errorf("%s: %v", p, f.Err)
	}
	sf := &SchemaFile{File: p, Text: f.Text, Doc: f.Doc, URL: FileURL(base), Digest: Digest(f.Doc), loader: l, files: l.files}
	sch, err := l.compile(sf.URL, assertFormats, opts.Draft)
	if err != nil {
		fd := l.files.CompileFinding(p, "", err)
		msg := fd.Message
		loc := fd.File
		if loc == "" {
			loc = p
		}
		if fd.Line > 0 {
			loc = fmt.Sprintf("%s:%d:%d", loc, fd.Line, fd.Column)
		}
		if fd.Pointer != "" {
			msg = fd.Pointer + ": " + msg
		}
		return nil, fmt.Errorf("%s: %s", loc, msg)
	}
	sf.Schema = sch
	return sf, nil
}

// Locate maps a compiled schema location to a display file and pointer.
func (s *SchemaFile) Locate(location string) (file, pointer string) {
	return s.files.Locate(location)
}

// LineOf returns the line of pointer in one of the files the schema loaded.
func (s *SchemaFile) LineOf(file, pointer string) int {
	return s.files.LineOf(file, pointer)
}

// dirLoader reads schema files from one directory on demand.
type dirLoader struct {
	root    *os.Root
	display string
	files   Files
	shown   map[string]string // display paths given by the caller
}

// confinement returns the directory $refs of a file in dir may reach: the
// nearest ancestor holding marker, else dir itself.
func confinement(dir, marker string) string {
	if marker == "" {
		return dir
	}
	for d := dir; ; {
		if info, err := os.Stat(filepath.Join(d, marker)); err == nil && !info.IsDir() {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

func (l *dirLoader) file(rel string) *File {
	if f, ok := l.files[rel]; ok {
		return f
	}
	disp, ok := l.shown[rel]
	if !ok {
		disp = filepath.Join(l.display, filepath.FromSlash(rel))
	}
	f := &File{Rel: rel, Display: disp}
	l.files[rel] = f
	fh, err := l.root.Open(filepath.FromSlash(rel))
	if err != nil {
		f.Err = format.UnwrapPathError(err)
		return f
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxFileSize+1))
	if err != nil {
		f.Err = err
		return f
	}
	if len(data) > MaxFileSize {
		f.Err = fmt.Errorf("file is larger than %d bytes", MaxFileSize)
		return f
	}
	f.Text = data
	doc, err := jsonstrict.Decode(data)
	if err != nil {
		f.Err = err
		return f
	}
	f.Doc = doc
	f.ID = declaredID(doc)
	return f
}

func (l *dirLoader) compile(u string, assertFormats bool, draft Draft) (*jsonschema.Schema, error) {
	c := NewDraftCompiler(assertFormats, draft)
	c.UseLoader(&lazyLoader{l: l})
	return c.Compile(u)
}

type lazyLoader struct {
	l *dirLoader
}

func (ll *lazyLoader) Load(raw string) (any, error) {
	u, err := parseRef(raw)
	if err != nil {
		return nil, err
	}
	if u.Scheme == "file" {
		rel, ok := RelFromURL(u.String())
		if !ok || !fs.ValidPath(rel) || path.IsAbs(rel) {
			return nil, &refError{msg: fmt.Sprintf("reference to %s escapes the schema's directory: $ref may only reach files inside the enclosing catalog (or next to the schema when it is in none)", u.Path)}
		}
		f := ll.l.file(rel)
		if f.Err != nil {
			if errors.Is(f.Err, fs.ErrNotExist) {
				return nil, &refError{msg: fmt.Sprintf("reference to %s: no such file", rel)}
			}
			return nil, &refError{msg: fmt.Sprintf("reference to %s: %v", rel, f.Err)}
		}
		return f.Doc, nil
	}
	return ll.l.files.byID(u, "loaded schema", "")
}
