package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"strings"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonvalue"
)

// RegistryDraft is the draft Confluent's and Karapace's registries read a
// JSON Schema without `$schema` as.
var RegistryDraft = Drafts[2]

// RegistryDefault is RegistryDraft.
func (Provider) RegistryDefault() format.Dialect {
	return format.Dialect{Name: RegistryDraft.Name, URL: RegistryDraft.URL}
}

// RegistryExternal is ExternalRefs.
func (Provider) RegistryExternal(doc any) []string { return ExternalRefs(doc) }

// RegistryInline inlines the schemas a registry's schema references, the
// way Bundle inlines shared catalog files: under the root's $defs, its
// $refs (which name references by their reference names) rewritten.
func (Provider) RegistryInline(doc *format.RegistryDoc) (any, bool, error) {
	nodes := map[*format.RegistryDoc]*bnode{}
	var node func(d *format.RegistryDoc) *bnode
	node = func(d *format.RegistryDoc) *bnode {
		if n, ok := nodes[d]; ok {
			return n
		}
		n := &bnode{id: d.ID, doc: d.Doc, base: docBase(d.Doc, &url.URL{}), hint: strings.TrimSuffix(d.Name, ".json")}
		nodes[d] = n
		n.refs = map[string]*bnode{}
		for name, r := range d.Refs {
			n.refs[name] = node(r)
		}
		return n
	}
	root := node(doc)
	if len(doc.Refs) == 0 {
		return doc.Doc, false, nil
	}
	return bundle(root, resolveRefs, RegistryDraft.URL)
}

// resolveRefs resolves a $ref of a registry schema by the names of its
// schema references.
func resolveRefs(from *bnode, ref string) (*bnode, string, error) {
	u, frag, err := splitRef(ref)
	if err != nil {
		return nil, "", err
	}
	if u.String() == "" {
		return nil, frag, nil
	}
	if t, ok := from.refs[u.String()]; ok {
		if isAnchor(frag) {
			return nil, "", fmt.Errorf("$ref %q points at an anchor in a referenced schema", ref)
		}
		return t, frag, nil
	}
	if from.base.String() != "" && from.base.ResolveReference(u).String() == from.base.String() {
		return nil, frag, nil
	}
	return nil, "", fmt.Errorf("$ref %q matches none of the schema's references", ref)
}

// RegistryCatalogText is what a pulled version's file holds: the
// registry's text, indented when it came compact; inlined references
// re-rendered; and `$schema` naming draft when the registry's schema has
// none (a boolean schema means the same in every draft and stays as it
// is).
func (Provider) RegistryCatalogText(schema string, doc any, bundled bool, draft format.Dialect) ([]byte, error) {
	obj, isObject := doc.(map[string]any)
	_, named := obj["$schema"]
	named = named || draft.URL == ""
	if bundled {
		if isObject && !named {
			withDraft := maps.Clone(obj)
			withDraft["$schema"] = draft.URL
			return jsonvalue.MarshalIndent(withDraft)
		}
		return jsonvalue.MarshalIndent(doc)
	}
	text := []byte(schema)
	if isObject && !named {
		text = withSchemaKeyword(text, draft.URL)
	}
	if !bytes.Contains(bytes.TrimSpace(text), []byte("\n")) {
		var buf bytes.Buffer
		if err := json.Indent(&buf, text, "", "  "); err == nil {
			text = buf.Bytes()
		}
	}
	if !bytes.HasSuffix(text, []byte("\n")) {
		text = append(text, '\n')
	}
	return text, nil
}

// withSchemaKeyword inserts "$schema": url as the first member of the JSON
// object text, leaving the rest as written.
func withSchemaKeyword(text []byte, url string) []byte {
	i := bytes.IndexByte(text, '{')
	if i < 0 {
		return text
	}
	quoted, _ := json.Marshal(url)
	member := `"$schema": ` + string(quoted)
	rest := text[i+1:]
	if len(bytes.TrimSpace(rest)) > 0 && bytes.TrimSpace(rest)[0] != '}' {
		member += ","
	}
	sep := ""
	if bytes.Contains(rest, []byte("\n")) {
		sep = "\n  " // multi-line text: a line of its own
	}
	out := append([]byte{}, text[:i+1]...)
	out = append(out, sep+member...)
	return append(out, rest...)
}

// RegistryUndialected is doc without its root `$schema`.
func (Provider) RegistryUndialected(doc any) (bare any, url string, named, ok bool) {
	obj, ok := doc.(map[string]any)
	if !ok {
		return doc, "", false, false
	}
	v, named := obj["$schema"]
	if !named {
		return doc, "", false, true
	}
	url, _ = v.(string)
	obj = maps.Clone(obj)
	delete(obj, "$schema")
	return obj, url, true, true
}

var _ format.RegistryBundler = Provider{}
