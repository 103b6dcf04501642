package docsite

import (
	"os"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
)

// fieldTable is the field table of a version, from its format's provider
// (format.FieldDocumenter): the same rows for every format, so that
// version pages and diffs are one code path. The provider reads the
// schema's files again from the catalog directory, never outside it, and
// the catalog locates the files a compiled schema's locations name.
func fieldTable(cat *catalog.Catalog, s format.Schema) (root Field, rows []Field, truncated bool) {
	fd, ok := formats.Of(s).(format.FieldDocumenter)
	if !ok {
		return Field{}, nil, false
	}
	files := format.FieldDocFiles{Locate: func(location string) (string, string, bool) {
		display, rel, _, ok := cat.FileOfURL(location)
		if !ok {
			return "", "", false
		}
		return relToCatalog(cat, display), rel, true
	}}
	if r, err := os.OpenRoot(cat.Dir); err == nil {
		defer r.Close()
		files.FS = r.FS()
	}
	rootDoc, docs, truncated := fd.FieldDocs(s, files)
	rows = make([]Field, len(docs))
	for i, d := range docs {
		rows[i] = Field{FieldDoc: d}
	}
	assignAnchors(rows)
	return Field{FieldDoc: rootDoc}, rows, truncated
}
