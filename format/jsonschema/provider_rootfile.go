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

// Dialects are Drafts.
func (Provider) Dialects() []format.Dialect {
	out := make([]format.Dialect, len(Drafts))
	for i, d := range Drafts {
		out[i] = d.Dialect()
	}
	return out
}

// DefaultDialect is DefaultDraft.
func (Provider) DefaultDialect() format.Dialect { return DefaultDraft.Dialect() }

// ParseDialect is ParseDraft.
func (Provider) ParseDialect(s string) (format.Dialect, error) {
	d, err := ParseDraft(s)
	return d.Dialect(), err
}

// Dialect is the draft as a format.Dialect.
func (d Draft) Dialect() format.Dialect { return format.Dialect{Name: d.Name, URL: d.URL} }
