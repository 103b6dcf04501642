package docsite

import (
	"io/fs"
	"os"

	"github.com/evtool/evtool/format"
)

// formatFields is the field table of a version whose format's provider
// lists its fields itself (Avro, Protobuf): the same rows as JSON
// Schema's, so that version pages and diffs are one code path. The
// provider reads the schema's files again from the catalog root, never
// outside it.
func formatFields(catalogDir string, fd format.FieldDocumenter, s format.Schema) (root Field, rows []Field, truncated bool) {
	var fsys fs.FS
	if r, err := os.OpenRoot(catalogDir); err == nil {
		defer r.Close()
		fsys = r.FS()
	}
	rootDoc, docs, truncated := fd.FieldDocs(s, fsys)
	rows = make([]Field, len(docs))
	for i, d := range docs {
		rows[i] = Field{FieldDoc: d}
	}
	assignAnchors(rows)
	return Field{FieldDoc: rootDoc}, rows, truncated
}
