package schemaregistry

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
)

// SharedSchema is a catalog file that versions use from outside their own
// file (format.SharedSchema: its format's provider reads it).
type SharedSchema = format.SharedSchema

// SchemaType is the Confluent schemaType of a format.
func SchemaType(k format.Kind) sr.SchemaType {
	var t sr.SchemaType
	if t.UnmarshalText([]byte(k.SchemaType())) != nil {
		return sr.TypeJSON // Kind.SchemaType names only types sr knows
	}
	return t
}

// ServedSchemaTypes lists the schemaTypes of every format, Confluent's
// default marked: "JSON, AVRO (the default) and PROTOBUF".
func ServedSchemaTypes() string {
	def, _ := KindOfSchemaType("")
	var types []string
	for _, p := range formats.All() {
		t := p.SchemaType()
		if p.Kind() == def {
			t += " (the default)"
		}
		types = append(types, t)
	}
	return formats.List(types, "and")
}

// KindOfSchemaType is the format of a Confluent schemaType ("" is AVRO,
// Confluent's default).
func KindOfSchemaType(st string) (format.Kind, bool) {
	st = strings.ToUpper(st)
	if st == "" {
		if p, ok := formats.ForKind(format.Avro); ok {
			st = p.SchemaType()
		}
	}
	for _, p := range formats.All() {
		if p.SchemaType() == st {
			return p.Kind(), true
		}
	}
	return "", false
}

// formatForm is the registry form of a version whose format's provider
// is a format.RegistryFormer (Avro, Protobuf): its file as written, with
// references to the shared schemas it uses.
func (f *Forms) formatForm(v *catalog.Version) (*Form, error) {
	rf, ok := formats.Of(v.Compiled).(format.RegistryFormer)
	if v.Compiled == nil || !ok {
		return nil, fmt.Errorf("%s: the version did not compile", v.File)
	}
	closure, byRel, err := rf.RegistryShared(v.Compiled, v.RelPath, f.sharedFiles())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.File, err)
	}
	shared, err := dependencyOrder(closure, byRel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.File, err)
	}
	return &Form{Kind: v.Compiled.Kind(), Text: format.EnsureNL(v.Text), Digest: catalog.SchemaIDDigest(v.Compiled), Shared: shared}, nil
}

// isFormer reports whether p's registry form is built by p (a
// format.RegistryFormer) rather than bundled here (JSON Schema).
func isFormer(p format.Provider) bool {
	_, ok := p.(format.RegistryFormer)
	return ok
}

// sharedFiles is where the formats read shared schemas, with f's cache
// (f.mu held).
func (f *Forms) sharedFiles() format.SharedFiles {
	return format.SharedFiles{Root: f.root, MaxSize: catalog.MaxFileSize, Cache: f.shared}
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
		for _, d := range sh.DepRels {
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
		for _, d := range sh.DepRels {
			if dep := byRel[d]; dep != nil && !slices.Contains(deps, dep.Name) {
				deps = append(deps, dep.Name)
			}
		}
		sh.Deps = deps
	}
	return out, nil
}

// DigestOf is the registry identity of a compiled Avro or Protobuf schema.
func DigestOf(s format.Schema) string {
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

// CheckRefName checks a reference name from a registry before evtool uses
// it, as the format's provider says: an Avro full name, or a relative
// .proto import path that stays inside the catalog root.
func CheckRefName(kind format.Kind, name string) error {
	p, ok := formats.ForKind(kind)
	if !ok {
		return fmt.Errorf("references of %s schemas are inlined, not written as files", kind.Name())
	}
	return p.CheckRefName(name, Clip)
}

// CompileRemote compiles a registry schema of kind with the schemas it
// references (refs, in any order; well-known Protobuf imports are the
// compiler's own). message selects the Protobuf message ("" the first).
func CompileRemote(kind format.Kind, text string, refs []*RemoteRef, message string) (format.Schema, error) {
	p, _ := formats.ForKind(kind)
	rc, ok := p.(format.RegistryCompiler)
	if !ok {
		return nil, fmt.Errorf("%s is not a format with references", kind)
	}
	rrefs := make([]format.RegistryRef, len(refs))
	for i, r := range refs {
		rrefs[i] = format.RegistryRef{Name: r.Name, Text: r.Text}
	}
	return rc.CompileRegistry(text, rrefs, message, Clip)
}

// skippedDir reports whether a walk of the catalog root passes over the
// directory at p: dot directories and examples, never the root itself.
func skippedDir(p string, d fs.DirEntry) bool {
	return p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "examples")
}

// AllShared lists every shared schema of the catalog root, whether or not
// a version uses it yet: each .avsc that is not a version file and
// defines a named type at its top level, and each .proto that is not a
// version file (dot directories and examples skipped), as the format's
// provider (a format.RegistryFormer) finds them. A file that does not
// compile on its own is left out: the catalog loader reports it.
func (f *Forms) AllShared() []*SharedSchema {
	f.mu.Lock()
	defer f.mu.Unlock()
	byFormat := map[format.Kind][]string{}
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
		if pr, ok := formats.ForFile(p); ok {
			byFormat[pr.Kind()] = append(byFormat[pr.Kind()], p)
		}
		return nil
	})
	var out []*SharedSchema
	byRel := map[string]*SharedSchema{}
	for _, pr := range formats.All() {
		if rf, ok := pr.(format.RegistryFormer); ok && len(byFormat[pr.Kind()]) > 0 {
			maps.Copy(byRel, rf.AllShared(byFormat[pr.Kind()], f.sharedFiles()))
		}
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

// WithRefs reports whether registry schemas of kind reference other
// schemas, shared schemas the registry holds under subjects of their own
// (Avro, Protobuf: the provider is a format.RegistryCompiler); JSON
// Schema's are inlined, and a kind evtool does not know has none.
func WithRefs(kind format.Kind) bool {
	p, ok := formats.ForKind(kind)
	return ok && format.HasRegistryRefs(p)
}

// RegistryRules are kind's own rules in a schema registry's API (ok false
// for JSON Schema, whose registry form is inlined, and unknown kinds).
func RegistryRules(kind format.Kind) (format.RegistryRuler, bool) {
	p, _ := formats.ForKind(kind)
	r, ok := p.(format.RegistryRuler)
	return r, ok
}

// Descriptors reports whether kind's registry text may be a serialized
// descriptor, its references name imports by subject and its well-known
// files are built in (Protobuf).
func Descriptors(kind format.Kind) bool {
	r, ok := RegistryRules(kind)
	return ok && r.Descriptors()
}

// BuiltinFiler is the provider whose compiler has files built in that
// clients register all the same (format.BuiltinFiler: Protobuf's
// well-known files), with its kind.
func BuiltinFiler() (format.BuiltinFiler, format.Kind, bool) {
	for _, p := range formats.All() {
		if bf, ok := p.(format.BuiltinFiler); ok {
			return bf, p.Kind(), true
		}
	}
	return nil, "", false
}

// WellKnown reports an import of the well-known types, which registries
// resolve themselves: they are never registered nor written.
func WellKnown(name string) bool {
	bf, _, ok := BuiltinFiler()
	return ok && bf.IsBuiltin(name)
}
