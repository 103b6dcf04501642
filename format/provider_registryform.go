package format

import "io/fs"

// A registry form is what a schema registry holds of a catalog version.
// A format gives it in one of two ways: with Confluent schema references
// to the shared schemas the version uses (RegistryFormer, Avro and
// Protobuf, whose registry schemas compile through RegistryCompiler), or
// as one self-contained document with everything it references inlined
// (RegistryBundler, JSON Schema). Package schemaregistry asks the
// provider of every format for it and knows none of their documents.

// RegistryBundler is a Provider whose registry form is one self-contained
// document: a version's file with every other file it references inlined
// (JSON Schema: the shared files a version $refs, copied under its $defs
// and the $refs rewritten), so that serializers in any language use it
// without the catalog. A registry's schema that carries Confluent schema
// references is read back the same way, its references inlined.
type RegistryBundler interface {
	// RegistryBundles starts the registry forms of the versions of one
	// catalog root. What it reads of the root it keeps for the next
	// versions; the caller uses it from one goroutine at a time.
	RegistryBundles(root RegistryRoot) RegistryBundles
	// RegistryInline is a registry's schema with the schemas its
	// references name inlined (bundled false and doc.Doc itself when it
	// references none), read as a registry reads a schema naming no
	// dialect (RegistryDefault).
	RegistryInline(doc *RegistryDoc) (inlined any, bundled bool, err error)
	// RegistryExternal lists the references of a decoded document that
	// leave it: none for a form a registry can use on its own.
	RegistryExternal(doc any) []string
	// RegistryCatalogText is what a registry's schema is written as in a
	// catalog read as dialect (`registry pull`): text as the registry
	// returned it (doc decoded, bundled: its references inlined), naming
	// dialect when it names none.
	RegistryCatalogText(text string, doc any, bundled bool, dialect Dialect) ([]byte, error)
	// RegistryUndialected is doc without its naming of a dialect (bare is
	// doc itself when named is false), and the dialect's URL it named ("":
	// none, or no URL); ok is false for a document that cannot name one.
	RegistryUndialected(doc any) (bare any, url string, named, ok bool)
	// RegistryDefault is the dialect (of the format's Dialects) that
	// Confluent's and Karapace's registries read a schema naming none as.
	RegistryDefault() Dialect
}

// RegistryRoot is the catalog root RegistryBundles reads shared files
// from.
type RegistryRoot struct {
	// FS is the catalog root (the directory evtool.yaml's `schemas`
	// names).
	FS fs.FS
	// Dialect is what the catalog reads a schema naming none as (its
	// default_draft); the zero value is the format's default.
	Dialect Dialect
	// Skip reports whether a walk of the root passes over the directory
	// at p (never the root itself), as the catalog loader does.
	Skip func(p string, d fs.DirEntry) bool
}

// RegistryBundles makes the registry forms of one catalog root's
// versions.
type RegistryBundles interface {
	// Bundle is the registry form of the version at rel (its slash path
	// inside the root) whose file is text, decoded as doc (nil: it is no
	// valid document).
	Bundle(rel string, text []byte, doc any) (RegistryBundle, error)
}

// RegistryBundle is a version's registry form: Text and Doc are the
// version's own (Bundled false) when it references no other file, else
// the self-contained document, indented, and decoded (json.Number
// numbers).
type RegistryBundle struct {
	Text    []byte
	Doc     any
	Bundled bool
}

// RegistryDoc is a registry's schema given to RegistryInline: decoded,
// with the schemas its Confluent schema references name, by reference
// name (a schema several references reach is one RegistryDoc).
type RegistryDoc struct {
	// ID names it in errors ("subject:version"); Name is the reference
	// name it was first reached by ("" for the schema inlined into),
	// what its place in the bundle is named after.
	ID, Name string
	Doc      any
	Refs     map[string]*RegistryDoc
}
