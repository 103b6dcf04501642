package schemaregistry

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing/fstest"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
)

// AgainstPrefix marks a registry as the base of `evtool compat check
// --against registry:URL` ("registry:" alone takes the URL from
// EVTOOL_REGISTRY_URL or evtool.yaml's registry.url).
const AgainstPrefix = "registry:"

// LoadBase materialises what a registry holds for the catalog in dir as a
// base catalog, so that `compat check --against registry:URL` treats the
// registry's versions as the published ones: versions the registry lacks
// are new and checked against it, versions that differ are reported as
// modified, subjects the catalog lost as removed types.
//
// Subjects are mapped with evtool.yaml's registry.subject_strategy; the
// registry subjects considered are the catalog's own and any other JSON
// subject that maps to a dotted type name. A registry version equal to
// the catalog version's registry form is represented by the catalog's own
// file (with the shared files it references), so an unchanged version that
// $refs a shared file is not mistaken for a modified one. Credentials come
// from opts and the EVTOOL_REGISTRY_* environment variables.
func LoadBase(ctx context.Context, dir, rawURL string, opts ClientOptions) (*catalog.Catalog, error) {
	head, err := catalog.Load(dir)
	var le *catalog.LoadError
	if err != nil && !errors.As(err, &le) {
		return nil, err
	}
	if head == nil || head.Template == nil {
		return nil, fmt.Errorf("--against %s: the catalog in %s does not load", AgainstPrefix+RedactURL(rawURL), dir)
	}
	opts.URL = rawURL
	if opts.URL == "" {
		opts.URL = os.Getenv(EnvURL)
	}
	if opts.URL == "" {
		opts.URL = head.Config.Registry.URL
	}
	opts = opts.WithEnv()
	c, err := NewClient(opts)
	if err != nil {
		return nil, fmt.Errorf("--against registry: %w", err)
	}
	st, err := ParseStrategy(head.Config.Registry.SubjectStrategy)
	if err != nil {
		return nil, err
	}
	fsys, err := BaseFS(ctx, c, head, st)
	if err != nil {
		return nil, fmt.Errorf("--against %s%s: %w", AgainstPrefix, c.Display, err)
	}
	return catalog.LoadFS(fsys, AgainstPrefix+c.Display)
}

// BaseFS builds the file system of the base catalog LoadBase loads.
func BaseFS(ctx context.Context, c *Client, head *catalog.Catalog, st Strategy) (fs.FS, error) {
	forms := wire.CatalogForms(head)
	known := map[string]string{}
	for _, t := range head.Types {
		if s, err := st.Subject(t); err == nil {
			known[s] = t.Name
		}
	}
	all, err := c.Subjects(ctx, "")
	if err != nil {
		return nil, err
	}
	var fetch []string
	for _, s := range all {
		if _, ok := known[s]; ok {
			fetch = append(fetch, s)
		} else if typ, _, ok := st.Split(s, nil); ok && strings.Contains(typ, ".") {
			fetch = append(fetch, s)
		}
	}
	remote, err := c.FetchAll(ctx, fetch)
	if err != nil {
		return nil, err
	}
	cfg, err := os.ReadFile(filepath.Join(head.Dir, catalog.ConfigName))
	if err != nil {
		return nil, err
	}
	root := path.Clean(filepath.ToSlash(head.Config.Schemas))
	m := fstest.MapFS{catalog.ConfigName: &fstest.MapFile{Data: cfg}}
	add := func(rel string, data []byte) {
		m[path.Join(root, rel)] = &fstest.MapFile{Data: data}
	}
	// Shared files: every schema file of the head's root (one with a
	// format's extension, format.KindOf) that is not a version file
	// (versions come from the registry).
	versionFiles := map[string]bool{}
	for _, t := range head.Types {
		for _, v := range t.Versions {
			versionFiles[v.RelPath] = true
		}
	}
	rootFS := os.DirFS(head.Root)
	_ = fs.WalkDir(rootFS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if catalog.SkipSchemaDir(".", p) {
				return fs.SkipDir
			}
			return nil
		}
		if _, schema := format.KindOf(p); schema && !versionFiles[p] && !catalog.LooksLikeVersion(path.Base(p)) {
			if data, err := fs.ReadFile(rootFS, p); err == nil {
				add(p, data)
			}
		}
		return nil
	})
	referenced := referencedSubjects(remote, nil)
	for _, sh := range forms.AllShared() {
		referenced[sh.Subject] = true
	}
	for s, rs := range remote {
		typ, _, ok := st.Split(s, known)
		if _, isType := known[s]; !ok || (referenced[s] && !isType) {
			continue // a shared named type or import: not a type
		}
		if wire.WithRefs(rs.Kind()) {
			if err := addFormatBase(head, forms, rs, typ, root, m); err != nil {
				return nil, err
			}
			continue
		}
		if rs.Kind() == "" {
			continue // mixed formats, or one evtool does not know
		}
		ht := head.Lookup(typ)
		for i, rv := range rs.Versions {
			if rv.Doc == nil {
				break
			}
			n := i + 1
			rel := fmt.Sprintf("%s/v%d%s", typ, n, rv.Kind.Ext())
			if ht != nil {
				if hv := ht.Version(n); hv != nil {
					if f, err := forms.Of(hv); err == nil && f.Digest == rv.Digest {
						add(rel, hv.Text)
						continue
					}
				}
			}
			text, err := schemaFileText(rv, head.Draft) // read as the catalog reads its own
			if err != nil {
				return nil, err
			}
			add(rel, text)
		}
	}
	return m, nil
}

// addFormatBase adds the registry's Avro or Protobuf versions of a subject
// to the base catalog. A version equal to the catalog's (by registry
// identity) is the catalog's file; another is the registry's schema: for
// Avro self-contained (its named types inlined, so the base reads exactly
// what the registry holds, shared types included), for Protobuf its text,
// whose imports must then be the catalog's files as they are: a published
// import edited in place is an error, never a silently equal base.
func addFormatBase(head *catalog.Catalog, forms *wire.Forms, rs *RemoteSubject, typ, root string, m fstest.MapFS) error {
	ht := head.Lookup(typ)
	for i, rv := range rs.Versions {
		if rv.Compiled == nil {
			break
		}
		n := i + 1
		rel := path.Join(root, fmt.Sprintf("%s/v%d%s", typ, n, rv.Kind.Ext()))
		if ht != nil {
			if hv := ht.Version(n); hv != nil {
				if f, err := forms.Of(hv); err == nil && f.Digest == rv.Digest {
					m[rel] = &fstest.MapFile{Data: hv.Text}
					continue
				}
			}
		}
		text, withRefs := []byte(rv.Text), true
		if p, ok := formats.ForKind(rv.Kind); ok {
			if rc, ok := p.(format.RegistryCompiler); ok {
				text, withRefs = rc.CatalogText(rv.Compiled, rv.Text)
			}
		}
		if !withRefs {
			m[rel] = &fstest.MapFile{Data: text}
			continue
		}
		for _, r := range rv.Refs {
			if wire.WellKnown(r.Name) {
				continue
			}
			p := path.Join(root, r.Name)
			have, ok := m[p]
			switch {
			case !ok:
				m[p] = &fstest.MapFile{Data: []byte(r.Text)}
			case string(have.Data) != r.Text && !sameText(rv.Kind, string(have.Data), r.Text, r.Name):
				return fmt.Errorf("subject %s version %d imports %s as the registry holds it (%s version %d), which differs from the catalog's %s: a published import was edited in place; run `evtool registry diff`", rs.Subject, rv.Version, r.Name, r.Subject, r.Version, p)
			}
		}
		m[rel] = &fstest.MapFile{Data: text}
	}
	return nil
}

// sameText reports whether two texts of the reference file name are the
// same schema of kind, comments and layout aside, as the format's
// provider says (format.SameTexter); other formats' texts are not.
func sameText(kind format.Kind, a, b, name string) bool {
	p, _ := formats.ForKind(kind)
	st, ok := p.(format.SameTexter)
	return ok && st.SameText(a, b, name)
}
