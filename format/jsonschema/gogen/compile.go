package gogen

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"github.com/evtool/evtool/codegen/gocode"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// virtualRoot must match the registry's: schema locations are file URLs
// under it, whatever the real directory is.
const virtualRoot = "/evtool-catalog/"

func fileURL(rel string) string {
	u := url.URL{Scheme: "file", Path: virtualRoot + rel}
	return u.String()
}

// schemaFile is one JSON file under the catalog root.
type schemaFile struct {
	rel     string
	url     string
	id      string // the root $id, when absolute
	display string // for messages: the path as the user gave the catalog
	catRel  string // for generated code: the path inside the catalog directory
	text    []byte
	doc     any
}

// catalogSchemas holds the catalog recompiled for code generation: with
// format assertions on, so that formats are visible in the compiled
// schemas (the generated code asserts the formats it knows).
type catalogSchemas struct {
	files    map[string]*schemaFile // by URL (file URL and $id)
	compiler *jsonschema.Compiler
}

type fileLoader struct{ files map[string]*schemaFile }

func (l fileLoader) Load(raw string) (any, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	u.Fragment = ""
	if f := l.files[u.String()]; f != nil {
		return f.doc, nil
	}
	return nil, fmt.Errorf("%s is not a file of the catalog", raw)
}

// readCatalog reads every schema file under the catalog root, for the
// versions to be compiled from (compile).
func readCatalog(cat gocode.Catalog) (*catalogSchemas, error) {
	fsys, root := cat.Dir, cat.Schemas
	cs := &catalogSchemas{files: map[string]*schemaFile{}}
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "examples") {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".json") {
			return nil
		}
		rel := strings.TrimPrefix(p, root+"/")
		if root == "." {
			rel = p
		}
		text, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
		if err != nil {
			return nil // not a schema the catalog uses (the registry reports it when it is)
		}
		f := &schemaFile{rel: rel, url: fileURL(rel), display: filepath.Join(cat.Root, filepath.FromSlash(rel)), catRel: path.Join(root, rel), text: text, doc: doc}
		if m, ok := doc.(map[string]any); ok {
			if id, ok := m["$id"].(string); ok {
				if u, err := url.Parse(id); err == nil && u.IsAbs() {
					u.Fragment = ""
					f.id = u.String()
				}
			}
		}
		cs.files[f.url] = f
		if f.id != "" {
			cs.files[f.id] = f
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the catalog's schemas: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(fileLoader{files: cs.files})
	cs.compiler = c
	return cs, nil
}

// compile compiles a version of an event type.
func (cs *catalogSchemas) compile(v gocode.Version) (*jsonschema.Schema, error) {
	s, err := cs.compiler.Compile(fileURL(v.RelPath))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", v.File, err)
	}
	return s, nil
}

// split returns the file and the JSON pointer of a schema location.
func (cs *catalogSchemas) split(loc string) (*schemaFile, string) {
	base, frag, _ := strings.Cut(loc, "#")
	if p, err := url.PathUnescape(frag); err == nil {
		frag = p
	}
	return cs.files[base], frag
}

// rel renders a schema location as a path inside the catalog directory
// and a pointer: what generated code mentions (it must not depend on where
// the catalog is).
func (cs *catalogSchemas) rel(loc string) string {
	f, ptr := cs.split(loc)
	if f == nil {
		return loc
	}
	if ptr == "" {
		return f.catRel
	}
	return f.catRel + "#" + ptr
}

// display renders a schema location as a file path and pointer.
func (cs *catalogSchemas) display(loc string) string {
	f, ptr := cs.split(loc)
	if f == nil {
		return loc
	}
	if ptr == "" {
		return f.display
	}
	return f.display + "#" + ptr
}

// Schemas are the schemas the Go types of versions are generated from:
// each compiled from the catalog's files as the generator compiles it
// (format assertions on), for tests that check generated code against
// the schema.
func Schemas(cat gocode.Catalog, versions []gocode.Version) ([]*jsonschema.Schema, error) {
	cs, err := readCatalog(cat)
	if err != nil {
		return nil, err
	}
	out := make([]*jsonschema.Schema, len(versions))
	for i, v := range versions {
		if out[i], err = cs.compile(v); err != nil {
			return nil, err
		}
	}
	return out, nil
}
