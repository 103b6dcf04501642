package codegen

import (
	"sort"
)

// emitPlain writes the types without methods (Options.Plain).
func (g *gen) emitPlain() ([]File, error) {
	byFile := map[string][]*def{}
	for _, d := range g.defs {
		byFile[d.file] = append(byFile[d.file], d)
	}
	var files []File
	usesNull := false
	for _, n := range g.nodes {
		if n.kind == kNull {
			usesNull = true
		}
	}
	emit := func(o *w, defs []*def) {
		for _, d := range defs {
			switch d.kind {
			case kStruct:
				o.raw(g.docOf(d, "is an object of the catalog."))
				o.p("type %s struct {", d.name)
				for _, f := range d.fields {
					if f.constRaw != nil {
						continue
					}
					o.p("%s %s%s", f.name, g.fieldType(f), jsonTag(f.json, !f.required))
				}
				if d.extra != nil || d.keepExtra {
					o.p("AdditionalProperties map[string]json.RawMessage `json:\"-\"`")
				}
				o.p("}")
			case kEnum:
				o.raw(g.docOf(d, "is an enumeration of the catalog."))
				o.p("type %s string", d.name)
				o.p("const (")
				for i, v := range d.enumValues {
					o.p("%s %s = %s", d.enumNames[i], d.name, q(v))
				}
				o.p(")")
			case kKindUnion, kBranchUnion:
				o.p("type %s struct{ json.RawMessage }", d.name)
			case kSealed:
				o.p("type %s = json.RawMessage", d.name)
			case kWrapper:
				o.p("type %s struct{ Value %s }", d.name, goType(d.inner))
			}
			o.p("")
		}
	}
	for _, ti := range g.types {
		o := &w{}
		defs := byFile[ti.t.Name]
		sort.SliceStable(defs, func(i, j int) bool { return defs[i].order < defs[j].order })
		emit(o, defs)
		f, err := g.finish(ti.file, "", o.b.String())
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	o := &w{}
	shared := byFile[""]
	sort.SliceStable(shared, func(i, j int) bool { return shared[i].name < shared[j].name })
	emit(o, shared)
	if usesNull {
		o.raw(plainNull)
	}
	f, err := g.finish(SharedFile, "// Package "+g.opts.Package+" holds the plain (non-validating) types of an evtool catalog.\n", o.b.String())
	if err != nil {
		return nil, err
	}
	files = append(files, f)
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, nil
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
