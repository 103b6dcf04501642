// Package protobuf is evtool's Protobuf schema format: it parses and links
// .proto files with protocompile (no protoc, no network), selects the
// event's message, gives the canonical form used for digests, validates,
// encodes and decodes data (binary, Confluent-framed binary and the JSON
// mapping) with dynamicpb, and samples messages for replay and witness
// search.
package protobuf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/reporter"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/evtool/evtool/format"
	// Registers the two feature files protocompile would otherwise build at
	// every start (see the package).
	_ "github.com/evtool/evtool/internal/protofeatures"
)

// Error is one problem with a .proto file, at a line and column.
type Error = format.Error

// Errors is every problem the compiler reported for one file and its
// imports; lint reports them all, not the first.
type Errors = format.Errors

// Schema is one compiled .proto file with the message that is the event's
// data.
type Schema struct {
	// File is the path of the .proto file in the file system it was loaded
	// from; Files lists it and every file it imports from there (not the
	// well-known types), sorted.
	File  string
	Files []string
	Desc  protoreflect.FileDescriptor
	// Message is the event's message.
	Message protoreflect.MessageDescriptor
	// paths maps Files to OS paths, for a schema LoadFile loaded.
	paths map[string]string
}

// maxFileSize bounds one .proto file: a schema is text a person wrote, and
// the limit keeps a hostile catalog from exhausting memory.
const maxFileSize = 4 << 20

// Load compiles the .proto file name from fsys, resolving its imports
// inside fsys (paths relative to its root, as protoc's -I would) and among
// the well-known types bundled with protocompile. Nothing outside fsys is
// read and nothing is fetched: give it an os.Root's FS
// (os.OpenRoot(dir).FS()), which refuses symlinks that leave the root, or
// an fstest.MapFS. message selects the event's message by full or short
// name; empty means the file's first message. The error is Errors, or an
// *Error when the message cannot be selected.
func Load(fsys fs.FS, name, message string) (*Schema, error) {
	fd, err := Compile(fsys, name)
	if err != nil {
		return nil, err
	}
	md, err := selectMessage(fd, message)
	if err != nil {
		return nil, err
	}
	return &Schema{File: name, Files: localFiles(fd), Desc: fd, Message: md}, nil
}

// Compile compiles the .proto file name from fsys as Load does, without
// selecting a message (a file of shared enums or messages).
func Compile(fsys fs.FS, name string) (protoreflect.FileDescriptor, error) {
	if !fs.ValidPath(name) {
		return nil, &Error{File: name, Message: "not a path inside the catalog"}
	}
	if isStandard(name) {
		return nil, &Error{File: name, Message: "google/protobuf/ is reserved for the bundled well-known types"}
	}
	var errs Errors
	// Files with very long lines reach the compiler wrapped (longlines.go);
	// every position it reports is mapped back.
	wraps := map[string]*wrapped{}
	rep := reporter.NewReporter(func(err reporter.ErrorWithPos) error {
		pos := err.GetPosition()
		errs = append(errs, &Error{File: pos.Filename, Line: pos.Line, Column: pos.Col, Message: err.Unwrap().Error()})
		return nil // keep going: report every error, not the first
	}, nil)
	comp := protocompile.Compiler{
		Resolver:       protocompile.WithStandardImports(&protocompile.SourceResolver{Accessor: accessor(fsys, wraps)}),
		Reporter:       rep,
		SourceInfoMode: protocompile.SourceInfoStandard,
		MaxParallelism: 1,
	}
	files, err := comp.Compile(context.Background(), name)
	if len(errs) > 0 {
		return nil, unwrapErrors(errs, wraps)
	}
	if err != nil {
		// An import that cannot be opened is returned, not reported; it
		// still knows where the import statement is.
		var pe reporter.ErrorWithPos
		if errors.As(err, &pe) {
			pos := pe.GetPosition()
			msg := pe.Unwrap().Error()
			var pathErr *fs.PathError
			if errors.As(pe.Unwrap(), &pathErr) {
				// os.Root's op names ("openat", "statat") say nothing
				// to the reader of a catalog.
				msg = "cannot read " + pathErr.Path + ": " + pathErr.Err.Error()
			}
			return nil, unwrapErrors(Errors{{File: pos.Filename, Line: pos.Line, Column: pos.Col, Message: msg}}, wraps)
		}
		return nil, Errors{{File: name, Message: "cannot read: " + format.UnwrapPathError(err).Error()}}
	}
	if errs := shadowsWellKnown(files[0]); len(errs) > 0 {
		return nil, unwrapErrors(errs, wraps)
	}
	fd, err := rebuild(files[0], &protoregistry.Files{}, wraps)
	if err != nil {
		return nil, Errors{{File: name, Message: err.Error()}}
	}
	return fd, nil
}

// rebuild makes protobuf-go's own descriptors of a compiled file and its
// imports. protocompile's descriptors do not carry the resolved editions
// features protobuf-go's decoders consult (utf8_validation among them:
// with them an edition 2023 string that is not UTF-8 parsed without
// error); protodesc resolves them, and keeps source positions.
func rebuild(f protoreflect.FileDescriptor, reg *protoregistry.Files, wraps map[string]*wrapped) (protoreflect.FileDescriptor, error) {
	return rebuildWith(f, reg, func(f protoreflect.FileDescriptor, fdp *descriptorpb.FileDescriptorProto) {
		wraps[f.Path()].unwrapSpans(fdp.SourceCodeInfo)
	})
}

// rebuildWith makes new descriptors of f and its imports in reg, each
// file's descriptor proto edited by edit first (projection removes
// fields).
func rebuildWith(f protoreflect.FileDescriptor, reg *protoregistry.Files, edit func(protoreflect.FileDescriptor, *descriptorpb.FileDescriptorProto)) (protoreflect.FileDescriptor, error) {
	if d, err := reg.FindFileByPath(f.Path()); err == nil {
		return d, nil
	}
	imps := f.Imports()
	for i := 0; i < imps.Len(); i++ {
		if _, err := rebuildWith(imps.Get(i).FileDescriptor, reg, edit); err != nil {
			return nil, err
		}
	}
	fdp := protodesc.ToFileDescriptorProto(f)
	edit(f, fdp)
	d, err := protodesc.NewFile(fdp, reg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path(), err)
	}
	if err := reg.RegisterFile(d); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path(), err)
	}
	return d, nil
}

// accessor opens imports inside fsys only. An import path is a slash path
// relative to the root; "..", absolute paths and backslashes are refused
// before fsys sees them.
func accessor(fsys fs.FS, wraps map[string]*wrapped) func(string) (io.ReadCloser, error) {
	return func(p string) (io.ReadCloser, error) {
		if !fs.ValidPath(p) || strings.Contains(p, `\`) {
			return nil, fmt.Errorf("import %q leaves the catalog: %w", p, fs.ErrNotExist)
		}
		if isStandard(p) {
			// Always the bundled well-known types: a catalog's own
			// google/protobuf/timestamp.proto must not replace them.
			return nil, fs.ErrNotExist
		}
		if st, err := fs.Stat(fsys, p); err == nil && st.IsDir() {
			return nil, fmt.Errorf("%s is a directory: %w", p, fs.ErrNotExist)
		}
		data, err := format.ReadFile(fsys, p, maxFileSize)
		if err != nil {
			return nil, err
		}
		data, wraps[p] = wrapLongLines(data)
		return io.NopCloser(bytes.NewReader(data)), nil
	}
}

func selectMessage(fd protoreflect.FileDescriptor, name string) (protoreflect.MessageDescriptor, error) {
	msgs := fd.Messages()
	if name == "" {
		if msgs.Len() == 0 {
			return nil, &Error{File: fd.Path(), Line: 1, Column: 1, Message: "the file defines no message"}
		}
		return msgs.Get(0), nil
	}
	var found []protoreflect.MessageDescriptor
	var walk func(protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := 0; i < ms.Len(); i++ {
			m := ms.Get(i)
			if m.IsMapEntry() {
				continue
			}
			full := string(m.FullName())
			if full == name || strings.TrimPrefix(full, string(fd.Package())+".") == name || (string(m.Name()) == name && !strings.Contains(name, ".")) {
				found = append(found, m)
			}
			walk(m.Messages())
		}
	}
	walk(msgs)
	switch len(found) {
	case 0:
		return nil, &Error{File: fd.Path(), Line: 1, Column: 1, Message: fmt.Sprintf("no message %q in the file", name)}
	case 1:
		return found[0], nil
	}
	// A short name that several nested messages share: prefer the top-level one.
	for _, m := range found {
		if m.Parent() == fd {
			return m, nil
		}
	}
	return nil, &Error{File: fd.Path(), Line: 1, Column: 1, Message: fmt.Sprintf("message name %q is ambiguous; give the full name", name)}
}

// shadowsWellKnown: a catalog file in package google.protobuf. The JSON
// mapping and the sampler treat messages by full name
// (google.protobuf.Timestamp has seconds and nanos), so a catalog's own
// google.protobuf.Timestamp of other fields made protojson panic.
func shadowsWellKnown(fd protoreflect.FileDescriptor) Errors {
	var errs Errors
	seen := map[string]bool{}
	var walk func(protoreflect.FileDescriptor)
	walk = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] || isStandard(f.Path()) {
			return
		}
		seen[f.Path()] = true
		if f.Package() == "google.protobuf" || strings.HasPrefix(string(f.Package()), "google.protobuf.") {
			e := &Error{File: f.Path(), Message: fmt.Sprintf("package %s is reserved for the well-known types", f.Package())}
			if loc := f.SourceLocations().ByPath(protoreflect.SourcePath{2}); loc.Path != nil {
				e.Line, e.Column = loc.StartLine+1, loc.StartColumn+1
			}
			errs = append(errs, e)
		}
		imps := f.Imports()
		for i := 0; i < imps.Len(); i++ {
			walk(imps.Get(i).FileDescriptor)
		}
	}
	walk(fd)
	return errs
}

// isStandard reports whether a file is one of the bundled well-known types.
func isStandard(p string) bool {
	return strings.HasPrefix(p, "google/protobuf/")
}

func localFiles(fd protoreflect.FileDescriptor) []string {
	seen := map[string]bool{}
	var walk func(protoreflect.FileDescriptor)
	walk = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] || isStandard(f.Path()) && f.Path() != fd.Path() {
			return
		}
		seen[f.Path()] = true
		imps := f.Imports()
		for i := 0; i < imps.Len(); i++ {
			walk(imps.Get(i).FileDescriptor)
		}
	}
	walk(fd)
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Canonical is the schema's identity for digests: the FileDescriptorSet of
// the file and its local imports without source positions or comments,
// sorted by path and deterministically marshalled, followed by the event
// message's full name. Reformatting or re-commenting a file leaves it
// unchanged; any change to what is encoded changes it.
func (s *Schema) Canonical() []byte {
	set := &descriptorpb.FileDescriptorSet{}
	var walk func(protoreflect.FileDescriptor)
	seen := map[string]bool{}
	walk = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] || isStandard(f.Path()) && f != s.Desc {
			return
		}
		seen[f.Path()] = true
		fp := protodesc.ToFileDescriptorProto(f)
		fp.SourceCodeInfo = nil
		set.File = append(set.File, fp)
		imps := f.Imports()
		for i := 0; i < imps.Len(); i++ {
			walk(imps.Get(i).FileDescriptor)
		}
	}
	walk(s.Desc)
	sort.Slice(set.File, func(i, j int) bool { return set.File[i].GetName() < set.File[j].GetName() })
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(set)
	if err != nil {
		// A descriptor the linker produced always marshals.
		panic(err)
	}
	return append(append(b, '\n'), s.Message.FullName()...)
}

// Position returns where a descriptor is declared: its file and 1-based
// line and column, or the file alone when the compiler kept no position
// (well-known types).
func Position(d protoreflect.Descriptor) (file string, line, col int) {
	f := d.ParentFile()
	if f == nil {
		return "", 0, 0
	}
	loc := f.SourceLocations().ByDescriptor(d)
	if loc.Path == nil {
		return f.Path(), 0, 0
	}
	return f.Path(), loc.StartLine + 1, loc.StartColumn + 1
}

// Location renders Position as "file:line:col".
func Location(d protoreflect.Descriptor) string {
	f, l, c := Position(d)
	if l == 0 {
		return f
	}
	return fmt.Sprintf("%s:%d:%d", f, l, c)
}

// unwrapErrors maps the positions of errors in wrapped files back to the
// files as written.
func unwrapErrors(errs Errors, wraps map[string]*wrapped) Errors {
	for _, e := range errs {
		if w := wraps[e.File]; w != nil && e.Line > 0 {
			col := e.Column
			e.Line, e.Column = w.position(e.Line, max(col, 1))
			if col == 0 {
				e.Column = 0
			}
		}
	}
	return errs
}
