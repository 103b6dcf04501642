package schemaregistry

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"testing/fstest"

	"github.com/twmb/franz-go/pkg/sr"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/format/protobuf"
)

// SharedSchema is a catalog file that versions use from outside their own
// file: an .avsc defining a named type (a record, enum or fixed referenced
// by full name), or an imported .proto. A registry holds it under a subject
// of its own, and the versions that use it carry Confluent schema
// references to it.
type SharedSchema struct {
	Kind format.Kind
	// Name is the reference name: the full name of the file's top-level
	// named type (Avro) or its import path (Protobuf). Subject is where it
	// is registered: the name itself, as Confluent's serializers and
	// Maven plugin do (DefaultReferenceSubjectNameStrategy).
	Name, Subject string
	// Rel is the file's slash path inside the catalog root.
	Rel  string
	Text []byte
	// Deps are the names of the shared schemas it uses itself, in
	// dependency order.
	Deps []string
	// Digest is the identity push, diff and the server compare.
	Digest string

	depRels []string // Deps as paths inside the root
}

// SchemaType is the Confluent schemaType of a format.
func SchemaType(k format.Kind) sr.SchemaType {
	var t sr.SchemaType
	if t.UnmarshalText([]byte(k.SchemaType())) != nil {
		return sr.TypeJSON // Kind.SchemaType names only types sr knows
	}
	return t
}

// kindOfSchemaType is the format of a Confluent schemaType ("" is AVRO,
// Confluent's default).
func kindOfSchemaType(st string) (format.Kind, bool) {
	st = strings.ToUpper(st)
	if st == "" {
		st = avro.Provider{}.SchemaType()
	}
	for _, p := range formats.All() {
		if p.SchemaType() == st {
			return p.Kind(), true
		}
	}
	return "", false
}

// wellKnown reports an import of the well-known types, which registries
// resolve themselves: they are never registered nor written.
func wellKnown(name string) bool { return strings.HasPrefix(name, "google/protobuf/") }

// formatForm is the registry form of an Avro or Protobuf version: its file
// as written, with references to the shared schemas it uses.
func (f *Forms) formatForm(v *catalog.Version) (*Form, error) {
	switch s := v.Compiled.(type) {
	case *avro.Schema:
		return f.avroForm(v, s)
	case *protobuf.Schema:
		return f.protoForm(v, s)
	}
	return nil, fmt.Errorf("%s: the version did not compile", v.File)
}

func (f *Forms) avroForm(v *catalog.Version, s *avro.Schema) (*Form, error) {
	prefix := strings.TrimSuffix(s.File, v.RelPath)
	var closure []string
	for _, file := range s.Files[1:] {
		closure = append(closure, strings.TrimPrefix(file, prefix))
	}
	sort.Strings(closure)
	files := fstest.MapFS{}
	dirs := []string{}
	for _, rel := range closure {
		text, err := format.ReadFile(f.root, rel, catalog.MaxFileSize)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.File, err)
		}
		files[rel] = &fstest.MapFile{Data: text}
		if d := path.Dir(rel); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	byRel := map[string]*SharedSchema{}
	for _, rel := range closure {
		sh, err := f.avroShared(files, rel, dirs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.File, err)
		}
		byRel[rel] = sh
	}
	shared, err := dependencyOrder(closure, byRel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.File, err)
	}
	return &Form{Kind: format.Avro, Text: ensureNL(v.Text), Digest: avroDigest(s), Shared: shared}, nil
}

// avroShared loads one shared .avsc among the files the version uses.
func (f *Forms) avroShared(files fstest.MapFS, rel string, dirs []string) (*SharedSchema, error) {
	if sh, ok := f.shared[rel]; ok {
		return sh, nil
	}
	var others []string
	for _, d := range dirs {
		if d != path.Dir(rel) {
			others = append(others, d)
		}
	}
	s, err := avro.Load(files, rel, others...)
	if err != nil {
		return nil, fmt.Errorf("shared file %s: %w", rel, err)
	}
	if !s.Root.Named() {
		return nil, fmt.Errorf("shared file %s is a %s schema: a Confluent schema reference names a record, enum or fixed, so a shared .avsc must define one at its top level", rel, s.Root.Kind)
	}
	sh := &SharedSchema{Kind: format.Avro, Name: s.Root.Name, Subject: s.Root.Name, Rel: rel, Text: ensureNL(files[rel].Data), Digest: avroDigest(s)}
	sh.depRels = append(sh.depRels, s.Files[1:]...)
	f.shared[rel] = sh
	return sh, nil
}

func (f *Forms) protoForm(v *catalog.Version, s *protobuf.Schema) (*Form, error) {
	local := map[string]bool{}
	for _, file := range s.Files {
		local[file] = true
	}
	byRel := map[string]*SharedSchema{}
	var closure []string
	var visit func(fd protoreflect.FileDescriptor) error
	visit = func(fd protoreflect.FileDescriptor) error {
		imps := fd.Imports()
		for i := 0; i < imps.Len(); i++ {
			imp := imps.Get(i).FileDescriptor
			p := imp.Path()
			if !local[p] || byRel[p] != nil {
				continue
			}
			sh, ok := f.shared[p]
			if !ok {
				text, err := format.ReadFile(f.root, p, catalog.MaxFileSize)
				if err != nil {
					return err
				}
				sh = &SharedSchema{Kind: format.Protobuf, Name: p, Subject: p, Rel: p, Text: ensureNL(text), Digest: protoDigest(imp, local)}
				deps := imp.Imports()
				for j := 0; j < deps.Len(); j++ {
					if dp := deps.Get(j).Path(); local[dp] {
						sh.depRels = append(sh.depRels, dp)
					}
				}
				f.shared[p] = sh
			}
			byRel[p] = sh
			closure = append(closure, p)
			if err := visit(imp); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(s.Desc); err != nil {
		return nil, fmt.Errorf("%s: %w", v.File, err)
	}
	sort.Strings(closure)
	shared, err := dependencyOrder(closure, byRel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.File, err)
	}
	return &Form{Kind: format.Protobuf, Text: ensureNL(v.Text), Digest: protoDigest(s.Desc, local), Shared: shared}, nil
}

// dependencyOrder lists the shared schemas of rels so that each comes
// after those it uses (the order they are registered in), and turns their
// Deps from paths into reference names.
func dependencyOrder(rels []string, byRel map[string]*SharedSchema) ([]*SharedSchema, error) {
	var out []*SharedSchema
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(rel string) error
	visit = func(rel string) error {
		switch state[rel] {
		case 1:
			// Avro named types and Protobuf imports may be mutually
			// recursive across files; registries cannot register such
			// schemas one after the other.
			return fmt.Errorf("shared file %s is part of a reference cycle: a registry registers referenced schemas before those that use them", rel)
		case 2:
			return nil
		}
		state[rel] = 1
		sh := byRel[rel]
		for _, d := range sh.depRels {
			if byRel[d] == nil {
				continue
			}
			if err := visit(d); err != nil {
				return err
			}
		}
		state[rel] = 2
		out = append(out, sh)
		return nil
	}
	for _, rel := range rels {
		if err := visit(rel); err != nil {
			return nil, err
		}
	}
	for _, sh := range out {
		deps := []string{}
		for _, d := range sh.depRels {
			if dep := byRel[d]; dep != nil && !slices.Contains(deps, dep.Name) {
				deps = append(deps, dep.Name)
			}
		}
		sh.Deps = deps
	}
	return out, nil
}

// avroDigest is an Avro schema's registry identity (catalog.SchemaIDDigest).
func avroDigest(s *avro.Schema) string { return catalog.SchemaIDDigest(s) }

// protoDigest is a .proto file's registry identity
// (catalog.ProtoFileIDDigest).
func protoDigest(fd protoreflect.FileDescriptor, local map[string]bool) string {
	return catalog.ProtoFileIDDigest(fd, local)
}

// digestOf is the registry identity of a compiled Avro or Protobuf schema.
func digestOf(s format.Schema) string {
	if _, refs := formats.Of(s).(format.RegistryCompiler); refs {
		return catalog.SchemaIDDigest(s)
	}
	return ""
}

// RemoteRef is one schema a registry schema references, directly or not.
type RemoteRef struct {
	Name, Subject string
	Version       int
	SchemaType    string
	Text          string
	// Deps are the references of the referenced schema itself.
	Deps []sr.SchemaReference
}

// checkRefName checks a reference name from a registry before evtool uses
// it, as the format's provider says: an Avro full name, or a relative
// .proto import path that stays inside the catalog root.
func checkRefName(kind format.Kind, name string) error {
	p, ok := formats.ForKind(kind)
	if !ok {
		return fmt.Errorf("references of %s schemas are inlined, not written as files", kind.Name())
	}
	return p.CheckRefName(name, clip)
}

// compileRemote compiles a registry schema of kind with the schemas it
// references (refs, in any order; well-known Protobuf imports are the
// compiler's own). message selects the Protobuf message ("" the first).
func compileRemote(kind format.Kind, text string, refs []*RemoteRef, message string) (format.Schema, error) {
	p, _ := formats.ForKind(kind)
	rc, ok := p.(format.RegistryCompiler)
	if !ok {
		return nil, fmt.Errorf("%s is not a format with references", kind)
	}
	rrefs := make([]format.RegistryRef, len(refs))
	for i, r := range refs {
		rrefs[i] = format.RegistryRef{Name: r.Name, Text: r.Text}
	}
	return rc.CompileRegistry(text, rrefs, message, clip)
}

// skippedDir reports whether a walk of the catalog root passes over the
// directory at p: dot directories and examples, never the root itself.
func skippedDir(p string, d fs.DirEntry) bool {
	return p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "examples")
}

// AllShared lists every shared schema of the catalog root, whether or not
// a version uses it yet: each .avsc that is not a version file and
// defines a named type at its top level, and each .proto that is not a
// version file (dot directories and examples skipped). A file that does
// not compile on its own is left out: the catalog loader reports it.
func (f *Forms) AllShared() []*SharedSchema {
	f.mu.Lock()
	defer f.mu.Unlock()
	var avsc, protos []string
	_ = fs.WalkDir(f.root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if skippedDir(p, d) {
				return fs.SkipDir
			}
			return nil
		}
		if catalog.LooksLikeVersion(d.Name()) || !d.Type().IsRegular() {
			return nil
		}
		switch path.Ext(p) {
		case ".avsc":
			avsc = append(avsc, p)
		case ".proto":
			protos = append(protos, p)
		}
		return nil
	})
	var out []*SharedSchema
	files := fstest.MapFS{}
	var dirs []string
	for _, rel := range avsc {
		text, err := format.ReadFile(f.root, rel, catalog.MaxFileSize)
		if err != nil {
			continue
		}
		files[rel] = &fstest.MapFile{Data: text}
		if d := path.Dir(rel); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	byRel := map[string]*SharedSchema{}
	for _, rel := range avsc {
		if files[rel] == nil {
			continue
		}
		if sh, err := f.avroShared(files, rel, dirs); err == nil {
			byRel[rel] = sh
		}
	}
	for _, rel := range protos {
		sh, ok := f.shared[rel]
		if !ok {
			fd, err := protobuf.Compile(f.root, rel)
			if err != nil {
				continue
			}
			text, err := format.ReadFile(f.root, rel, catalog.MaxFileSize)
			if err != nil {
				continue
			}
			local := localImports(fd)
			sh = &SharedSchema{Kind: format.Protobuf, Name: rel, Subject: rel, Rel: rel, Text: ensureNL(text), Digest: protoDigest(fd, local)}
			imps := fd.Imports()
			for j := 0; j < imps.Len(); j++ {
				if p := imps.Get(j).Path(); local[p] {
					sh.depRels = append(sh.depRels, p)
				}
			}
			f.shared[rel] = sh
		}
		byRel[rel] = sh
	}
	rels := slices.Sorted(maps.Keys(byRel))
	for _, rel := range rels {
		one, err := dependencyOrder([]string{rel}, byRel)
		if err != nil {
			continue
		}
		out = append(out, one[len(one)-1])
	}
	return out
}

// localImports are the imports of fd, directly or not, other than the
// well-known types.
func localImports(fd protoreflect.FileDescriptor) map[string]bool {
	out := map[string]bool{}
	var visit func(fd protoreflect.FileDescriptor)
	visit = func(fd protoreflect.FileDescriptor) {
		imps := fd.Imports()
		for i := 0; i < imps.Len(); i++ {
			p := imps.Get(i).Path()
			if wellKnown(p) || out[p] {
				continue
			}
			out[p] = true
			visit(imps.Get(i).FileDescriptor)
		}
	}
	visit(fd)
	return out
}
