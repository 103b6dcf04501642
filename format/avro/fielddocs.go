package avro

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonpos"
)

// The field table of an Avro version (evtool docs) uses the same rows as
// JSON Schema's: an Avro default, logical type or alias is a constraint
// line, which diffs show as − and +.

var _ format.FieldDocumenter = Provider{}

// maxSchemaFile bounds a schema file read for its docs.
const maxSchemaFile = 16 << 20

// avroWalker turns an Avro schema into the rows of its field table.
type avroWalker struct {
	fsys      fs.FS // the catalog root, where the schema's files are
	rows      []format.FieldDoc
	stack     map[*Node]bool
	docs      map[string]any // file -> decoded text, for "doc"
	truncated bool
}

// FieldDocs lists the fields of an Avro record (nested records, array
// items, map values and union branches included) and describes the root.
func (Provider) FieldDocs(sch format.Schema, files format.FieldDocFiles) (root format.FieldDoc, rows []format.FieldDoc, truncated bool) {
	s, ok := sch.(*Schema)
	if !ok {
		return format.FieldDoc{}, nil, false
	}
	w := &avroWalker{fsys: files.FS, stack: map[*Node]bool{}, docs: map[string]any{}}
	root = format.FieldDoc{Type: docTypeName(s.Root), RefName: s.Root.Name, Description: w.doc(s.Root.File, s.Root.Pointer)}
	w.children("", 0, s.Root)
	return root, w.rows, w.truncated
}

// doc is the "doc" of the object at pointer in file (a path in the
// catalog root); schema files are read again (the compiled schema keeps
// no docs), never outside the root.
func (w *avroWalker) doc(file, pointer string) string {
	d, ok := w.docs[file]
	if !ok && w.fsys != nil {
		if b, err := format.ReadFile(w.fsys, file, maxSchemaFile); err == nil {
			_ = json.Unmarshal(b, &d)
		}
		w.docs[file] = d
	}
	d, _ = jsonpos.Get(d, pointer)
	if m, ok := d.(map[string]any); ok {
		if s, ok := m["doc"].(string); ok {
			return s
		}
	}
	return ""
}

// children adds the rows below n at path: a record's fields, or what an
// array, map or union leads to.
func (w *avroWalker) children(path string, depth int, n *Node) {
	if depth > format.MaxFieldDocDepth || len(w.rows) > format.MaxFieldDocs {
		w.truncated = true
		return
	}
	switch n.Kind {
	case "record":
		if w.stack[n] {
			return
		}
		w.stack[n] = true
		for _, f := range n.Fields {
			p := format.FieldPath(path, f.Name)
			row := format.FieldDoc{Path: p, Depth: depth, Property: true, Required: !f.HasDefault,
				Description: w.doc(n.File, f.Pointer)}
			avroDescribe(&row, f.Type)
			if f.HasDefault {
				row.Constraints = append([]string{"default: " + compactJSON(f.Default)}, row.Constraints...)
			}
			if len(f.Aliases) > 0 {
				row.Constraints = append(row.Constraints, "aliases: "+strings.Join(f.Aliases, ", "))
			}
			w.rows = append(w.rows, row)
			w.below(p, depth+1, f.Type)
		}
		delete(w.stack, n)
	}
}

// below adds the rows of the records a field's type leads to.
func (w *avroWalker) below(path string, depth int, n *Node) {
	switch n.Kind {
	case "record":
		if w.stack[n] {
			w.rows[len(w.rows)-1].Constraints = append(w.rows[len(w.rows)-1].Constraints, "recursive: "+n.Name)
			return
		}
		w.children(path, depth, n)
	case "array":
		w.item(path+"[]", depth, n.Items)
	case "map":
		w.item(path+"{}", depth, n.Values)
	case "union":
		for _, b := range n.Branches {
			if b.Kind == "null" {
				continue
			}
			w.item(path+"{"+shortName(b.BranchName())+"}", depth, b)
		}
	}
}

// item adds a row for an array item, map value or union branch when it
// leads somewhere (a record, a collection), then what is below it.
func (w *avroWalker) item(path string, depth int, n *Node) {
	switch n.Kind {
	case "record", "array", "map", "union":
	default:
		return
	}
	row := format.FieldDoc{Path: path, Depth: depth}
	avroDescribe(&row, n)
	w.rows = append(w.rows, row)
	w.below(path, depth+1, n)
}

// avroDescribe fills a row's type, symbols and the constraints of n.
func avroDescribe(row *format.FieldDoc, n *Node) {
	row.Type = docTypeName(n)
	if n.Named() {
		row.RefName = n.Name
	}
	if n.Logical != "" {
		l := n.Logical
		if l == "decimal" {
			l = fmt.Sprintf("decimal(%d, %d)", n.Precision, n.Scale)
		}
		row.Constraints = append(row.Constraints, "logical type: "+l)
	}
	switch n.Kind {
	case "enum":
		for _, s := range n.Symbols {
			row.Enum = append(row.Enum, strconv.Quote(s))
		}
		if n.HasEnumDefault {
			row.Constraints = append(row.Constraints, "enum default: "+n.EnumDefault)
		}
	case "fixed":
		row.Constraints = append(row.Constraints, fmt.Sprintf("size: %d", n.Size))
	}
	if len(n.Aliases) > 0 {
		row.Constraints = append(row.Constraints, "type aliases: "+strings.Join(n.Aliases, ", "))
	}
}

// docTypeName is a short type name: "long", "enum Status", "array<string>",
// "union [null, Card, BankTransfer]".
func docTypeName(n *Node) string {
	switch n.Kind {
	case "record", "enum", "fixed":
		return n.Kind + " " + shortName(n.Name)
	case "array":
		return "array<" + docTypeName(n.Items) + ">"
	case "map":
		return "map<" + docTypeName(n.Values) + ">"
	case "union":
		var bs []string
		for _, b := range n.Branches {
			switch {
			case b.Named():
				bs = append(bs, shortName(b.Name))
			case b.Logical == "decimal":
				bs = append(bs, fmt.Sprintf("%s (decimal(%d, %d))", b.Kind, b.Precision, b.Scale))
			case b.Logical != "":
				bs = append(bs, b.Kind+" ("+b.Logical+")")
			default:
				bs = append(bs, docTypeName(b))
			}
		}
		return "union [" + strings.Join(bs, ", ") + "]"
	}
	return n.Kind
}

func shortName(full string) string {
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		return full[i+1:]
	}
	return full
}

func compactJSON(raw json.RawMessage) string {
	var b strings.Builder
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return string(raw)
	}
	return strings.TrimSpace(b.String())
}
