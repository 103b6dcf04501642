package jsonschema

import "github.com/evtool/evtool/format"

var (
	_ format.RootFileLoader = Provider{}
	_ format.Dialects       = Provider{}
)

// LoadRootFile is LoadSchemaFileWith, the dialect a draft.
func (Provider) LoadRootFile(file string, opts format.RootFileOptions) (*format.RootFile, error) {
	draft, err := ParseDraft(opts.Dialect)
	if err != nil {
		return nil, err
	}
	sf, err := LoadSchemaFileWith(file, SchemaFileOptions{AssertFormats: opts.AssertFormats, Draft: draft, Marker: opts.Marker})
	if err != nil {
		return nil, err
	}
	return &format.RootFile{File: sf.File, Text: sf.Text, Doc: sf.Doc, Schema: sf.Compiled(), URL: sf.URL, Digest: sf.Digest, LineOf: sf.LineOf, Locate: sf.Locate}, nil
}

// DialectNames is DraftNames.
func (Provider) DialectNames() string { return DraftNames() }

// DefaultDialect is DefaultDraft's name.
func (Provider) DefaultDialect() string { return DefaultDraft.Name }

// ParseDialect is ParseDraft's name.
func (Provider) ParseDialect(s string) (string, error) {
	d, err := ParseDraft(s)
	return d.Name, err
}
