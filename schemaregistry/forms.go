package schemaregistry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/internal/jsonvalue"
)

// Form is a catalog version as a schema registry holds it, as its
// format's provider makes it: one self-contained document (JSON Schema: a
// version that $refs shared catalog files is bundled, those files inlined;
// format.RegistryBundler), or the version's file as written with
// references to the shared schemas it uses (Avro, Protobuf;
// format.RegistryFormer).
type Form struct {
	// Text is what is registered and served.
	Text []byte
	// Doc is Text decoded (json.Number numbers) for a bundled format's
	// form.
	Doc any
	// Digest is jsonvalue.Digest(Doc) (for a bundled format's form): the
	// identity compared by push, diff and the server.
	Digest string
	// Bundled reports that external references were inlined.
	Bundled bool
	// Kind is the version's format ("" is JSON Schema). An Avro or
	// Protobuf form is the version's file as written (Doc is nil), with
	// Shared: the shared schemas it uses, directly or not, each after
	// those it uses itself, registered before it and named by its schema
	// references.
	Kind   format.Kind
	Shared []*SharedSchema
}

// SchemaType is the form's Confluent schemaType.
func (f *Form) SchemaType() sr.SchemaType { return SchemaType(f.Kind) }

// References are the form's schema references; version gives the
// registry version of a shared schema's subject.
func (f *Form) References(version func(sh *SharedSchema) int) []sr.SchemaReference {
	return references(f.Shared, version)
}

func references(shared []*SharedSchema, version func(sh *SharedSchema) int) []sr.SchemaReference {
	var out []sr.SchemaReference
	for _, sh := range shared {
		out = append(out, sr.SchemaReference{Name: sh.Name, Subject: sh.Subject, Version: version(sh)})
	}
	return out
}

// Forms computes the registry forms of a catalog's versions, reading the
// shared files they reference from the catalog root. It caches what it
// reads and is safe for concurrent use.
type Forms struct {
	root fs.FS
	// dialect is what the catalog reads a schema naming none as.
	dialect format.Dialect

	mu      sync.Mutex
	bundles map[format.Kind]format.RegistryBundles
	shared  map[string]*SharedSchema
}

// NewForms returns a Forms reading shared files from root, the catalog root
// (the directory evtool.yaml's `schemas` names).
func NewForms(root fs.FS) *Forms {
	return NewDraftForms(root, format.Dialect{})
}

// NewDraftForms is NewForms for a catalog that reads a schema naming no
// dialect as draft (its default_draft; nil or zero: the format's
// default).
func NewDraftForms(root fs.FS, draft format.Dialect) *Forms {
	return &Forms{root: root, dialect: draft, bundles: map[format.Kind]format.RegistryBundles{}, shared: map[string]*SharedSchema{}}
}

// CatalogForms returns a Forms for a catalog loaded from disk.
func CatalogForms(cat *catalog.Catalog) *Forms {
	return NewDraftForms(os.DirFS(cat.Root), cat.Draft)
}

// Of returns the registry form of v.
func (f *Forms) Of(v *catalog.Version) (*Form, error) {
	p, _ := formats.ForKind(v.Format)
	if isFormer(p) {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.formatForm(v)
	}
	b, ok := p.(format.RegistryBundler)
	if !ok {
		return nil, fmt.Errorf("%s: no schema registry form for the format %q", v.File, v.Format)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	bs := f.bundles[v.Format]
	if bs == nil {
		bs = b.RegistryBundles(format.RegistryRoot{FS: f.root, Dialect: f.dialect, Skip: skippedDir})
		f.bundles[v.Format] = bs
	}
	form, err := bs.Bundle(v.RelPath, v.Text, v.Doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.File, err)
	}
	return &Form{Text: form.Text, Doc: form.Doc, Digest: jsonvalue.Digest(form.Doc), Bundled: form.Bundled}, nil
}

// UnwrapPath is the cause of a *fs.PathError (err itself when it is
// none), for messages that name the path themselves.
func UnwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// bundler is the provider whose registry form is one self-contained
// document (format.RegistryBundler: JSON Schema's), whose dialects
// (drafts) a registry's schemas name.
func bundler() format.RegistryBundler {
	for _, p := range formats.All() {
		if b, ok := p.(format.RegistryBundler); ok {
			return b
		}
	}
	return nil
}

// registryDefault is the dialect a registry reads a schema naming none as.
func registryDefault() format.Dialect {
	if b := bundler(); b != nil {
		return b.RegistryDefault()
	}
	return format.Dialect{}
}

// ParseDialect parses a dialect's name, usual spelling or URL (a JSON
// Schema draft, as `$schema` or default_draft name it).
func ParseDialect(s string) (format.Dialect, error) {
	d, ok := bundler().(format.Dialects)
	if !ok {
		return format.Dialect{}, fmt.Errorf("no format has dialects to read %q as", s)
	}
	return d.ParseDialect(s)
}

// ExternalRefs lists the references of a decoded registry form that leave
// it: none for a form a registry can use on its own.
func ExternalRefs(doc any) []string {
	if b := bundler(); b != nil {
		return b.RegistryExternal(doc)
	}
	return nil
}

// UndialectedDigest is the digest of a schema read as dialect with its
// naming of its dialect (JSON Schema's root `$schema`) left out when it
// names dialect or none; "" for a schema that names another, or cannot
// name one.
func UndialectedDigest(doc any, dialect format.Dialect) string {
	b := bundler()
	if b == nil {
		return ""
	}
	bare, url, named, ok := b.RegistryUndialected(doc)
	if !ok {
		return ""
	}
	if named {
		if d, err := ParseDialect(url); url == "" || err != nil || d.Name != dialect.Name {
			return ""
		}
	}
	return jsonvalue.Digest(bare)
}
