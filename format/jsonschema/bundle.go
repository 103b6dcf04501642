package jsonschema

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/internal/jsonvalue"
)

// registryBundles makes the registry forms of one catalog root's
// versions: one self-contained JSON Schema document each. A version whose
// $refs stay inside its own file is sent as it is in git; a version that
// $refs shared catalog files (../common/money.json) is bundled: every file
// it reaches is copied under the root's $defs ("definitions" before draft
// 2019-09) and every $ref is rewritten to point there, so serializers in
// any language can use it without access to the catalog.
type registryBundles struct {
	root fs.FS
	// draft is what the catalog reads a schema without `$schema` as.
	draft string
	skip  func(p string, d fs.DirEntry) bool

	nodes map[string]*bnode // by path relative to the root
	ids   map[string]string // absolute $id -> relative path
}

// RegistryBundles starts the registry forms of one catalog root's
// versions (format.RegistryBundler).
func (Provider) RegistryBundles(root format.RegistryRoot) format.RegistryBundles {
	draft := root.Dialect.URL
	if draft == "" {
		draft = DefaultDraft.URL
	}
	skip := root.Skip
	if skip == nil {
		skip = func(string, fs.DirEntry) bool { return false }
	}
	return &registryBundles{root: root.FS, draft: draft, skip: skip, nodes: map[string]*bnode{}}
}

// Bundle is the registry form of the version at rel.
func (f *registryBundles) Bundle(rel string, text []byte, doc any) (format.RegistryBundle, error) {
	if doc == nil {
		return format.RegistryBundle{}, errors.New("not valid JSON")
	}
	root := &bnode{id: rel, doc: doc}
	root.base = docBase(doc, fileLoc(rel))
	out, bundled, err := bundle(root, f.resolve, f.draft)
	if err != nil {
		return format.RegistryBundle{}, fmt.Errorf("cannot make a self-contained schema for the registry: %w", err)
	}
	if !bundled {
		return format.RegistryBundle{Text: text, Doc: doc}, nil
	}
	text, err = jsonvalue.MarshalIndent(out)
	if err != nil {
		return format.RegistryBundle{}, err
	}
	return format.RegistryBundle{Text: text, Doc: out, Bundled: true}, nil
}

// fileLoc is the URL registry forms compile a catalog file under.
func fileLoc(rel string) *url.URL {
	return &url.URL{Scheme: "file", Path: virtualRoot + rel}
}

// docBase is the base URI of a document: its absolute $id, else where it
// was loaded from.
func docBase(doc any, loc *url.URL) *url.URL {
	if m, ok := doc.(map[string]any); ok {
		if id, ok := m["$id"].(string); ok {
			if u, err := url.Parse(id); err == nil && u.IsAbs() {
				u.Fragment, u.RawFragment = "", ""
				return u
			}
		}
	}
	return loc
}

func (f *registryBundles) resolve(from *bnode, ref string) (*bnode, string, error) {
	u, frag, err := splitRef(ref)
	if err != nil {
		return nil, "", err
	}
	if u.String() == "" {
		return nil, frag, nil
	}
	abs := from.base.ResolveReference(u)
	if abs.String() == from.base.String() {
		return nil, frag, nil
	}
	var rel string
	if abs.Scheme == "file" && strings.HasPrefix(abs.Path, virtualRoot) {
		rel = strings.TrimPrefix(path.Clean(abs.Path), virtualRoot)
	} else {
		f.buildIDs()
		r, ok := f.ids[abs.String()]
		if !ok {
			return nil, "", fmt.Errorf("$ref %q: no catalog file declares $id %s", ref, abs)
		}
		rel = r
	}
	if rel == from.id {
		return nil, frag, nil
	}
	n, err := f.node(rel)
	if err != nil {
		return nil, "", fmt.Errorf("$ref %q: %w", ref, err)
	}
	if isAnchor(frag) {
		return nil, "", fmt.Errorf("$ref %q points at an anchor in another file; use a JSON pointer (#/...) or keep the definition in the version's own file", ref)
	}
	return n, frag, nil
}

func (f *registryBundles) node(rel string) (*bnode, error) {
	if n, ok := f.nodes[rel]; ok {
		return n, nil
	}
	if !fs.ValidPath(rel) {
		return nil, fmt.Errorf("%s is outside the catalog root", rel)
	}
	data, err := fs.ReadFile(f.root, rel)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", rel, format.UnwrapPathError(err))
	}
	doc, err := jsonstrict.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	n := &bnode{id: rel, doc: doc, base: docBase(doc, fileLoc(rel)), hint: strings.TrimSuffix(rel, ".json")}
	f.nodes[rel] = n
	return n, nil
}

// buildIDs indexes the absolute $ids declared by JSON files of the root,
// the way the catalog loader does (examples and dot directories skipped).
func (f *registryBundles) buildIDs() {
	if f.ids != nil {
		return
	}
	f.ids = map[string]string{}
	_ = fs.WalkDir(f.root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if f.skip(p, d) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".json") {
			return nil
		}
		n, err := f.node(p)
		if err != nil {
			return nil
		}
		if n.base.Scheme != "file" {
			if _, dup := f.ids[n.base.String()]; !dup {
				f.ids[n.base.String()] = p
			}
		}
		return nil
	})
}

// bnode is one document of a bundle.
type bnode struct {
	id   string // identity (a relative path, or subject:version)
	doc  any
	base *url.URL
	hint string // what its $defs key is derived from
	key  string // assigned $defs key
	// refs are Confluent schema references (registry side only).
	refs map[string]*bnode
}

type bundleResolver func(from *bnode, ref string) (target *bnode, frag string, err error)

// splitRef parses a $ref into its URI without fragment and its escaped
// fragment.
func splitRef(ref string) (*url.URL, string, error) {
	u, err := url.Parse(ref)
	if err != nil {
		return nil, "", fmt.Errorf("$ref %q is not a valid URI reference", ref)
	}
	frag := u.EscapedFragment()
	u.Fragment, u.RawFragment = "", ""
	return u, frag, nil
}

func isAnchor(frag string) bool { return frag != "" && !strings.HasPrefix(frag, "/") }

// bundle inlines every document root reaches through $ref. It returns
// root.doc itself (bundled false) when root reaches no other document.
// defaultDraft is the `$schema` of a document without one.
func bundle(root *bnode, resolve bundleResolver, defaultDraft string) (any, bool, error) {
	order := []*bnode{root}
	seen := map[*bnode]bool{root: true}
	for i := 0; i < len(order); i++ {
		n := order[i]
		err := walkSchemas(n.doc, "", func(m map[string]any, ptr string) error {
			ref, ok := m["$ref"].(string)
			if !ok {
				return nil
			}
			t, _, err := resolve(n, ref)
			if err != nil {
				return fmt.Errorf("at %s/$ref: %w", ptr, err)
			}
			if t != nil && !seen[t] {
				seen[t] = true
				order = append(order, t)
			}
			return nil
		})
		if err != nil {
			if n != root {
				return nil, false, fmt.Errorf("in %s: %w", n.id, err)
			}
			return nil, false, err
		}
	}
	if len(order) == 1 {
		return root.doc, false, nil
	}

	rootMap, ok := root.doc.(map[string]any)
	if !ok {
		return nil, false, errors.New("a schema that is not an object cannot reference other files")
	}
	draft, _ := rootMap["$schema"].(string)
	if draft == "" {
		draft = defaultDraft
	}
	defsKey := "$defs"
	if oldDraft(draft) {
		defsKey = "definitions"
	}
	taken := map[string]bool{}
	if existing, ok := rootMap[defsKey]; ok {
		em, ok := existing.(map[string]any)
		if !ok {
			return nil, false, fmt.Errorf("%s is not an object", defsKey)
		}
		for k := range em {
			taken[k] = true
		}
	}
	anchors := map[string]string{}
	for _, n := range order {
		if err := checkEmbeddable(n, n == root, draft, defaultDraft, anchors); err != nil {
			return nil, false, err
		}
		if n == root {
			continue
		}
		key := sanitizeKey(n.hint)
		for i := 2; taken[key]; i++ {
			key = sanitizeKey(n.hint) + "-" + strconv.Itoa(i)
		}
		taken[key] = true
		n.key = key
	}

	target := func(t *bnode, frag string) string {
		if t == root {
			return "#" + frag
		}
		return "#/" + defsKey + "/" + t.key + frag
	}
	var out, defs map[string]any
	for _, n := range order { // order[0] is root
		cp := jsonvalue.DeepCopy(n.doc)
		err := walkSchemas(cp, "", func(m map[string]any, ptr string) error {
			ref, ok := m["$ref"].(string)
			if !ok {
				return nil
			}
			t, frag, err := resolve(n, ref)
			if err != nil {
				return err
			}
			switch {
			case t != nil:
				m["$ref"] = target(t, frag)
			case isAnchor(frag):
				// An anchor of the document itself: anchors of inlined
				// documents belong to the bundle's root resource.
				m["$ref"] = "#" + frag
			default:
				m["$ref"] = target(n, frag)
			}
			return nil
		})
		if err != nil {
			return nil, false, err
		}
		if n == root {
			out = cp.(map[string]any)
			if defs, _ = out[defsKey].(map[string]any); defs == nil {
				defs = map[string]any{}
			}
			continue
		}
		if m, ok := cp.(map[string]any); ok {
			delete(m, "$schema")
			delete(m, "$id")
		}
		defs[n.key] = cp
	}
	out[defsKey] = defs
	return out, true, nil
}

// checkEmbeddable refuses documents whose meaning would change once
// inlined: nested resources, dynamic references, anchors that collide, and
// a different draft than the root's (a document without `$schema` is read
// as defaultDraft, the catalog's default_draft, and so is the root).
func checkEmbeddable(n *bnode, isRoot bool, rootDraft, defaultDraft string, anchors map[string]string) error {
	where := n.id
	if m, ok := n.doc.(map[string]any); ok && !isRoot {
		d, named := m["$schema"].(string)
		if !named {
			d = defaultDraft
		}
		if normDraft(d) != normDraft(rootDraft) {
			how := "uses $schema " + d
			if !named {
				how = "has no $schema, so it is read as the default draft " + orDefault(d)
			}
			return fmt.Errorf("%s %s but the version uses %s; shared files must use the version's draft", where, how, orDefault(rootDraft))
		}
	}
	return walkSchemas(n.doc, "", func(m map[string]any, ptr string) error {
		for _, k := range []string{"$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor"} {
			if _, ok := m[k]; ok {
				return fmt.Errorf("%s uses %s at %s, which cannot be inlined safely", where, k, orRoot(ptr))
			}
		}
		if id, ok := m["$id"].(string); ok && ptr != "" {
			if strings.HasPrefix(id, "#") {
				if err := addAnchor(anchors, id[1:], where, ptr); err != nil {
					return err
				}
			} else {
				return fmt.Errorf("%s declares a nested $id at %s, which cannot be inlined safely", where, ptr)
			}
		}
		if a, ok := m["$anchor"].(string); ok {
			if err := addAnchor(anchors, a, where, ptr); err != nil {
				return err
			}
		}
		return nil
	})
}

func addAnchor(anchors map[string]string, name, where, ptr string) error {
	if other, dup := anchors[name]; dup {
		return fmt.Errorf("anchor %q is declared in %s and %s; rename one", name, other, where+"#"+ptr)
	}
	anchors[name] = where + "#" + ptr
	return nil
}

func orDefault(d string) string {
	if d == "" {
		return "the default (2020-12)"
	}
	return d
}

func orRoot(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

func oldDraft(d string) bool {
	return strings.Contains(d, "draft-03") || strings.Contains(d, "draft-04") || strings.Contains(d, "draft-06") || strings.Contains(d, "draft-07")
}

func normDraft(d string) string {
	d = strings.TrimSuffix(strings.TrimSpace(d), "#")
	d = strings.TrimPrefix(strings.TrimPrefix(d, "https://"), "http://")
	if d == "" {
		return "json-schema.org/draft/2020-12/schema"
	}
	return d
}

func sanitizeKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ReplaceAll(s, "/", ".") {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	k := strings.Trim(b.String(), ".")
	if k == "" {
		k = "ref"
	}
	return k
}

// Schema keywords whose values are schemas, arrays of schemas, or maps of
// schemas. Only schema positions are visited: "$ref" inside enum, const,
// default or examples values is data, not a reference.
var (
	schemaKeywords = []string{"additionalProperties", "additionalItems", "contains", "propertyNames", "not",
		"if", "then", "else", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "items"}
	schemaArrayKeywords = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	schemaMapKeywords   = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)

// walkSchemas calls fn for every object schema of doc, root first, with its
// JSON pointer, in a deterministic order.
func walkSchemas(doc any, ptr string, fn func(m map[string]any, ptr string) error) error {
	return walkDepth(doc, ptr, fn, 0)
}

func walkDepth(doc any, ptr string, fn func(m map[string]any, ptr string) error, depth int) error {
	m, ok := doc.(map[string]any)
	if !ok {
		return nil
	}
	if depth > jsonstrict.MaxDepth {
		return errors.New("schema nests too deeply")
	}
	if err := fn(m, ptr); err != nil {
		return err
	}
	for _, k := range schemaKeywords {
		if sub, ok := m[k].(map[string]any); ok {
			if err := walkDepth(sub, ptr+"/"+jsonpos.Escape(k), fn, depth+1); err != nil {
				return err
			}
		}
	}
	for _, k := range schemaArrayKeywords {
		if arr, ok := m[k].([]any); ok {
			for i, sub := range arr {
				if err := walkDepth(sub, ptr+"/"+k+"/"+strconv.Itoa(i), fn, depth+1); err != nil {
					return err
				}
			}
		}
	}
	for _, k := range schemaMapKeywords {
		sm, ok := m[k].(map[string]any)
		if !ok {
			continue
		}
		names := make([]string, 0, len(sm))
		for name := range sm {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if err := walkDepth(sm[name], ptr+"/"+jsonpos.Escape(k)+"/"+jsonpos.Escape(name), fn, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// ExternalRefs lists the $refs of doc that leave the document (their URI
// part is not empty and not the document's own $id).
func ExternalRefs(doc any) []string {
	var out []string
	base := docBase(doc, &url.URL{})
	_ = walkSchemas(doc, "", func(m map[string]any, ptr string) error {
		ref, ok := m["$ref"].(string)
		if !ok {
			return nil
		}
		u, _, err := splitRef(ref)
		if err != nil {
			out = append(out, ref)
			return nil
		}
		if u.String() == "" {
			return nil
		}
		if base.String() != "" && base.ResolveReference(u).String() == base.String() {
			return nil
		}
		out = append(out, ref)
		return nil
	})
	return out
}
