package wire

import (
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
