package asyncapi

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/evtool/evtool/format/avro"
)

// The Avro schema a payload embeds is the version's file as written (doc,
// aliases, defaults and key order kept), made self-contained and shaped as
// the AsyncAPI Avro parser reads it: a named type from a shared file is
// written out from that file at its first use, and every named type's
// dotted full name is split into a simple name and its namespace (the
// parser's Avro meta-schema wants names matching [A-Za-z_][A-Za-z0-9_]*).

// avroPayloadSchema returns the embedded schema of s.
func avroPayloadSchema(s *avro.Schema) (any, error) {
	text, ok := s.FileText(s.File)
	if !ok {
		return nil, fmt.Errorf("%s: the schema's text is not at hand", s.File)
	}
	doc, err := decodeOrdered(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.File, err)
	}
	in := &avroInliner{s: s, external: map[string]*avro.Node{}, written: map[string]bool{}, docs: map[string]any{}}
	seen := map[*avro.Node]bool{}
	var walk func(n *avro.Node)
	walk = func(n *avro.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		if n.Named() && n.File != s.File {
			in.external[n.Name] = n
		}
		for _, f := range n.Fields {
			walk(f.Type)
		}
		walk(n.Items)
		walk(n.Values)
		for _, b := range n.Branches {
			walk(b)
		}
	}
	walk(s.Root)
	return in.schema(doc, "")
}

type avroInliner struct {
	s        *avro.Schema
	external map[string]*avro.Node // named types of other files, by full name
	written  map[string]bool       // named types defined so far, by full name
	docs     map[string]any        // other files, decoded
}

// avroPrimitive reports the Avro primitive type names, which no named type
// may take.
func avroPrimitive(name string) bool {
	switch name {
	case "null", "boolean", "int", "long", "float", "double", "bytes", "string":
		return true
	}
	return false
}

// schema rewrites one schema (a name, a union, an object) found in the
// namespace ns.
func (in *avroInliner) schema(v any, ns string) (any, error) {
	switch t := v.(type) {
	case string:
		if avroPrimitive(t) {
			return t, nil
		}
		full := t
		if !strings.Contains(t, ".") && ns != "" {
			full = ns + "." + t
		}
		n := in.external[full]
		if n == nil || in.written[full] {
			return t, nil
		}
		def, err := in.definition(n)
		if err != nil {
			return nil, err
		}
		return in.schema(def, ns)
	case []any:
		out := make([]any, len(t))
		for i, b := range t {
			r, err := in.schema(b, ns)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case *object:
		return in.object(t, ns)
	}
	return v, nil
}

// object rewrites a schema object: a named type's name is split, and the
// schemas in it are rewritten in its namespace.
func (in *avroInliner) object(o *object, ns string) (any, error) {
	typ, _ := o.get("type")
	out := newObject()
	for _, k := range o.keys {
		out.set(k, o.vals[k])
	}
	switch typ {
	case "record", "error", "enum", "fixed":
		name, _ := o.get("name")
		short, _ := name.(string)
		inner := ns
		if nsv, ok := o.get("namespace"); ok {
			inner, _ = nsv.(string)
		}
		if i := strings.LastIndexByte(short, '.'); i >= 0 {
			inner, short = short[:i], short[i+1:]
			out.set("name", short)
			out.set("namespace", inner)
		}
		full := short
		if inner != "" {
			full = inner + "." + short
		}
		if in.written[full] {
			return full, nil // written out already (from its own file, at an earlier use)
		}
		in.written[full] = true
		if fields, ok := o.get("fields"); ok {
			list, _ := fields.([]any)
			outFields := make([]any, len(list))
			for i, f := range list {
				fo, ok := f.(*object)
				if !ok {
					outFields[i] = f
					continue
				}
				nf := newObject()
				for _, k := range fo.keys {
					nf.set(k, fo.vals[k])
				}
				if ft, ok := fo.get("type"); ok {
					r, err := in.schema(ft, inner)
					if err != nil {
						return nil, err
					}
					nf.set("type", r)
				}
				outFields[i] = nf
			}
			out.set("fields", outFields)
		}
		return out, nil
	case "array", "map":
		key := "items"
		if typ == "map" {
			key = "values"
		}
		if sub, ok := o.get(key); ok {
			r, err := in.schema(sub, ns)
			if err != nil {
				return nil, err
			}
			out.set(key, r)
		}
		return out, nil
	}
	if name, ok := typ.(string); ok && !avroPrimitive(name) {
		// {"type": "com.example.Money"}: a reference in an object, inlined
		// as a bare one is (the wrapper has nothing else a named type reads).
		r, err := in.schema(name, ns)
		if err != nil {
			return nil, err
		}
		if def, ok := r.(*object); ok {
			return def, nil
		}
		return out, nil
	}
	if _, ok := typ.(string); !ok && typ != nil {
		r, err := in.schema(typ, ns) // {"type": {...}} or {"type": [...]}
		if err != nil {
			return nil, err
		}
		out.set("type", r)
	}
	return out, nil
}

// definition is the object defining n in its own file, with its name and
// namespace made explicit: it is written where its namespace may differ.
func (in *avroInliner) definition(n *avro.Node) (any, error) {
	doc, ok := in.docs[n.File]
	if !ok {
		text, ok := in.s.FileText(n.File)
		if !ok {
			return nil, fmt.Errorf("%s: the text of %s is not at hand", in.s.File, n.File)
		}
		var err error
		if doc, err = decodeOrdered(text); err != nil {
			return nil, fmt.Errorf("%s: %w", n.File, err)
		}
		in.docs[n.File] = doc
	}
	v, err := atPointer(doc, n.Pointer)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", n.File, n.Pointer, err)
	}
	o, ok := v.(*object)
	if !ok {
		return nil, fmt.Errorf("%s: %s: the definition of %s is not an object", n.File, n.Pointer, n.Name)
	}
	def := newObject()
	for _, k := range o.keys {
		def.set(k, o.vals[k])
	}
	ns, short := "", n.Name
	if i := strings.LastIndexByte(n.Name, '.'); i >= 0 {
		ns, short = n.Name[:i], n.Name[i+1:]
	}
	def.set("name", short)
	def.set("namespace", ns) // "" is the null namespace, not the enclosing one
	return def, nil
}

// atPointer returns the value at a JSON pointer of an ordered document.
func atPointer(doc any, ptr string) (any, error) {
	if ptr == "" {
		return doc, nil
	}
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case *object:
			v, ok := c.get(tok)
			if !ok {
				return nil, fmt.Errorf("no member %q", tok)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("no item %q", tok)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("no %q in a scalar", tok)
		}
	}
	return cur, nil
}
