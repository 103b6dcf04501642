package docsite

import (
	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
)

// fieldFiles is where the providers read a catalog's schema files again
// for field tables: the file system the catalog was loaded from (a
// directory confined like the load, never outside it), the files
// the catalog locates a compiled schema's locations in, and one cache for
// the whole site. release closes the directory.
func fieldFiles(cat *catalog.Catalog) (files format.FieldDocFiles, release func()) {
	files = format.FieldDocFiles{Cache: map[string]any{}, Locate: func(location string) (string, string, bool) {
		display, rel, _, ok := cat.FileOfURL(location)
		if !ok {
			return "", "", false
		}
		return relToCatalog(cat, display), rel, true
	}}
	fsys, closeFS, err := cat.OpenFS()
	if err != nil {
		return files, func() {}
	}
	files.FS = fsys
	return files, func() { closeFS() }
}

// fieldTable is the field table of a version, from its format's provider
// (format.FieldDocumenter): the same rows for every format, so that
// version pages and diffs are one code path.
func fieldTable(files format.FieldDocFiles, s format.Schema) (root Field, rows []Field, truncated bool) {
	fd, ok := formats.Of(s).(format.FieldDocumenter)
	if !ok {
		return Field{}, nil, false
	}
	rootDoc, docs, truncated := fd.FieldDocs(s, files)
	rows = make([]Field, len(docs))
	for i, d := range docs {
		rows[i] = Field{FieldDoc: d}
	}
	assignAnchors(rows)
	return Field{FieldDoc: rootDoc}, rows, truncated
}
