package confluent

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

	"github.com/evtool/evtool/registry"
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
func LoadBase(ctx context.Context, dir, rawURL string, opts ClientOptions) (*registry.Catalog, error) {
	head, err := registry.Load(dir)
	var le *registry.LoadError
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
	return registry.LoadFS(fsys, AgainstPrefix+c.Display)
}

// BaseFS builds the file system of the base catalog LoadBase loads.
func BaseFS(ctx context.Context, c *Client, head *registry.Catalog, st Strategy) (fs.FS, error) {
	forms := CatalogForms(head)
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
	cfg, err := os.ReadFile(filepath.Join(head.Dir, registry.ConfigName))
	if err != nil {
		return nil, err
	}
	root := path.Clean(filepath.ToSlash(head.Config.Schemas))
	m := fstest.MapFS{registry.ConfigName: &fstest.MapFile{Data: cfg}}
	add := func(rel string, data []byte) {
		m[path.Join(root, rel)] = &fstest.MapFile{Data: data}
	}
	// Shared files: every JSON file of the head's root that is not a
	// version file (versions come from the registry).
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
			if registry.SkipSchemaDir(".", p) {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".json") && !versionFiles[p] {
			if data, err := fs.ReadFile(rootFS, p); err == nil {
				add(p, data)
			}
		}
		return nil
	})
	for s, rs := range remote {
		typ, _, ok := st.Split(s, known)
		if !ok || !rs.JSON() {
			continue
		}
		ht := head.Lookup(typ)
		for i, rv := range rs.Versions {
			if rv.Doc == nil {
				break
			}
			n := i + 1
			rel := fmt.Sprintf("%s/v%d.json", typ, n)
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
