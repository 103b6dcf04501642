package gogen

import (
	"sort"

	"github.com/evtool/evtool/codegen/gocode"
)

// plainFiles writes the types without methods (Options.Plain), a file
// per event type.
func (g *gen) plainFiles() ([]gocode.File, error) {
	byFile := g.defsByFile()
	var files []gocode.File
	for _, ti := range g.types {
		o := &gocode.Writer{}
		defs := byFile[ti.t.Name]
		sort.SliceStable(defs, func(i, j int) bool { return defs[i].order < defs[j].order })
		g.emitPlainDefs(o, defs)
		f, err := g.pkg.Finish(ti.file, "", o.String())
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// plainShared writes the plain types of shared schema files, and Null
// when a type uses it.
func (g *gen) plainShared(o *gocode.Writer) {
	usesNull := false
	for _, n := range g.nodes {
		if n.kind == kNull {
			usesNull = true
		}
	}
	shared := g.defsByFile()[""]
	sort.SliceStable(shared, func(i, j int) bool { return shared[i].name < shared[j].name })
	g.emitPlainDefs(o, shared)
	if usesNull {
		o.Raw(plainNull)
	}
}

// emitPlainDefs writes named types without methods.
func (g *gen) emitPlainDefs(o *gocode.Writer, defs []*def) {
	for _, d := range defs {
		switch d.kind {
		case kStruct:
			o.Raw(g.docOf(d, "is an object of the catalog."))
			o.P("type %s struct {", d.name)
			for _, f := range d.fields {
				if f.constRaw != nil {
					continue
				}
				o.P("%s %s%s", f.name, g.fieldType(f), jsonTag(f.json, !f.required))
			}
			if d.extra != nil || d.keepExtra {
				o.P("AdditionalProperties map[string]json.RawMessage `json:\"-\"`")
			}
			o.P("}")
		case kEnum:
			o.Raw(g.docOf(d, "is an enumeration of the catalog."))
			o.P("type %s string", d.name)
			o.P("const (")
			for i, v := range d.enumValues {
				o.P("%s %s = %s", d.enumNames[i], d.name, gocode.Q(v))
			}
			o.P(")")
		case kKindUnion, kBranchUnion:
			o.P("type %s struct{ json.RawMessage }", d.name)
		case kSealed:
			o.P("type %s = json.RawMessage", d.name)
		case kWrapper:
			o.P("type %s struct{ Value %s }", d.name, goType(d.inner))
		}
		o.P("")
	}
}

const plainNull = `// Null is a value that may be JSON null.
type Null[T any] struct {
	V     T
	Valid bool
}

func (n Null[T]) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return json.Marshal(n.V)
}

func (n *Null[T]) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Null[T]{}
		return nil
	}
	n.Valid = true
	return json.Unmarshal(b, &n.V)
}
`
