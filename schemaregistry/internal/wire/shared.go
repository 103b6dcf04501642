package wire

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
)

// SharedSchema is a catalog file that versions use from outside their own
// file (format.SharedSchema: its format's provider reads it).
type SharedSchema = format.SharedSchema

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
