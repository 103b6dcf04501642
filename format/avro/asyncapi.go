package avro

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonorder"
)

// AsyncAPISchemaFormat is the schemaFormat of an Avro payload, as the
// AsyncAPI 3.0 specification spells it: the schema is embedded as its
// JSON object.
const AsyncAPISchemaFormat = "application/vnd.apache.avro+json;version=1.9.0"

var _ format.AsyncAPIPayloader = Provider{}

// The Avro schema a payload embeds is the version's file as written (doc,
// aliases, defaults and key order kept), made self-contained and shaped as
// the AsyncAPI Avro parser reads it: a named type from a shared file is
// written out from that file at its first use, and every named type's
// dotted full name is split into a simple name and its namespace (the
// parser's Avro meta-schema wants names matching [A-Za-z_][A-Za-z0-9_]*).

// AsyncAPIPayload is s embedded in an AsyncAPI message with its
// schemaFormat.
func (Provider) AsyncAPIPayload(sch format.Schema, _ []byte) (format.AsyncAPIPayload, error) {
	s, ok := sch.(*Schema)
	if !ok {
		return format.AsyncAPIPayload{}, format.NotKind(sch, format.Avro)
	}
	doc, err := asyncAPISchema(s)
	if err != nil {
		return format.AsyncAPIPayload{}, err
	}
	var b bytes.Buffer
	if err := jsonorder.Write(&b, doc, ""); err != nil {
		return format.AsyncAPIPayload{}, err
	}
	return format.AsyncAPIPayload{SchemaFormat: AsyncAPISchemaFormat, JSON: b.Bytes(), ContentType: s.DefaultContentType()}, nil
}

// asyncAPISchema is the embedded schema of s, as ordered JSON values.
func asyncAPISchema(s *Schema) (any, error) {
	text, ok := s.FileText(s.File)
	if !ok {
		return nil, fmt.Errorf("%s: the schema's text is not at hand", s.File)
	}
	doc, err := jsonorder.Decode(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.File, err)
	}
	in := &avroInliner{s: s, external: map[string]*Node{}, written: map[string]bool{}, docs: map[string]any{}}
	seen := map[*Node]bool{}
	var walk func(n *Node)
	walk = func(n *Node) {
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
	s        *Schema
	external map[string]*Node // named types of other files, by full name
	written  map[string]bool  // named types defined so far, by full name
	docs     map[string]any   // other files, decoded
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
	case *jsonorder.Object:
		return in.object(t, ns)
	}
	return v, nil
}

// object rewrites a schema object: a named type's name is split, and the
// schemas in it are rewritten in its namespace.
func (in *avroInliner) object(o *jsonorder.Object, ns string) (any, error) {
	typ, _ := o.Get("type")
	out := jsonorder.New()
	for _, k := range o.Keys {
		out.Set(k, o.Vals[k])
	}
	switch typ {
	case "record", "error", "enum", "fixed":
		name, _ := o.Get("name")
		short, _ := name.(string)
		inner := ns
		if nsv, ok := o.Get("namespace"); ok {
			inner, _ = nsv.(string)
		}
		if i := strings.LastIndexByte(short, '.'); i >= 0 {
			inner, short = short[:i], short[i+1:]
			out.Set("name", short)
			out.Set("namespace", inner)
		}
		full := short
		if inner != "" {
			full = inner + "." + short
		}
		if in.written[full] {
			return full, nil // written out already (from its own file, at an earlier use)
		}
		in.written[full] = true
		if fields, ok := o.Get("fields"); ok {
			list, _ := fields.([]any)
			outFields := make([]any, len(list))
			for i, f := range list {
				fo, ok := f.(*jsonorder.Object)
				if !ok {
					outFields[i] = f
					continue
				}
				nf := jsonorder.New()
				for _, k := range fo.Keys {
					nf.Set(k, fo.Vals[k])
				}
				if ft, ok := fo.Get("type"); ok {
					r, err := in.schema(ft, inner)
					if err != nil {
						return nil, err
					}
					nf.Set("type", r)
				}
				outFields[i] = nf
			}
			out.Set("fields", outFields)
		}
		return out, nil
	case "array", "map":
		key := "items"
		if typ == "map" {
			key = "values"
		}
		if sub, ok := o.Get(key); ok {
			r, err := in.schema(sub, ns)
			if err != nil {
				return nil, err
			}
			out.Set(key, r)
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
		if def, ok := r.(*jsonorder.Object); ok {
			return def, nil
		}
		return out, nil
	}
	if _, ok := typ.(string); !ok && typ != nil {
		r, err := in.schema(typ, ns) // {"type": {...}} or {"type": [...]}
		if err != nil {
			return nil, err
		}
		out.Set("type", r)
	}
	return out, nil
}

// definition is the object defining n in its own file, with its name and
// namespace made explicit: it is written where its namespace may differ.
func (in *avroInliner) definition(n *Node) (any, error) {
	doc, ok := in.docs[n.File]
	if !ok {
		text, ok := in.s.FileText(n.File)
		if !ok {
			return nil, fmt.Errorf("%s: the text of %s is not at hand", in.s.File, n.File)
		}
		var err error
		if doc, err = jsonorder.Decode(text); err != nil {
			return nil, fmt.Errorf("%s: %w", n.File, err)
		}
		in.docs[n.File] = doc
	}
	v, err := atPointer(doc, n.Pointer)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", n.File, n.Pointer, err)
	}
	o, ok := v.(*jsonorder.Object)
	if !ok {
		return nil, fmt.Errorf("%s: %s: the definition of %s is not an object", n.File, n.Pointer, n.Name)
	}
	def := jsonorder.New()
	for _, k := range o.Keys {
		def.Set(k, o.Vals[k])
	}
	ns, short := "", n.Name
	if i := strings.LastIndexByte(n.Name, '.'); i >= 0 {
		ns, short = n.Name[:i], n.Name[i+1:]
	}
	def.Set("name", short)
	def.Set("namespace", ns) // "" is the null namespace, not the enclosing one
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
		case *jsonorder.Object:
			v, ok := c.Get(tok)
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

// AsyncAPIInfo says how Avro versions are carried, for the document's
// description.
func (Provider) AsyncAPIInfo() string {
	return "Avro types (schemas/<type>/vN.avsc): the record value is the datum in Avro's binary encoding (content-type application/avro, optionally in the Confluent wire format: magic byte 0 and a 4-byte schema id); the payload embeds the schema with schemaFormat " + AsyncAPISchemaFormat + "."
}
