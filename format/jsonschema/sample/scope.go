package sample

import (
	"reflect"
	"sync"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// Dynamic scope.
//
// $dynamicRef (and draft 2019-09 $recursiveRef) resolve against the resources
// the validator passed through on its way to the reference. The compiled
// Schema keeps each schema's resource and the resource's $dynamicAnchor table
// in unexported fields (`resource`, `dynamicAnchors`); the exported API cannot
// reach a $dynamicAnchor in a $defs entry that nothing references. We read
// those two fields with reflect, read-only. If a future version of the library
// renames them, lookups return nil and $dynamicRef falls back to its static
// target: generation becomes less accurate but stays correct, because every
// instance is validated with Schema.Validate before it is returned.

// scope is the chain of schema resources entered on the way to a node,
// innermost first.
type scope struct {
	res    *jsonschema.Schema
	parent *scope
}

// push returns the scope after entering schema s.
func (sc *scope) push(s *jsonschema.Schema) *scope {
	r := resourceOf(s)
	if r == nil {
		return sc
	}
	if sc != nil && sc.res == r {
		return sc
	}
	return &scope{res: r, parent: sc}
}

type node struct {
	s  *jsonschema.Schema
	sc *scope
}

func rootNode(s *jsonschema.Schema) node {
	return node{s: s, sc: (*scope)(nil).push(s)}
}

// child is the node for sub, entered from n.
func (n node) child(sub *jsonschema.Schema) node {
	return node{s: sub, sc: n.sc.push(sub)}
}

var (
	reflectOnce     sync.Once
	resourceField   = -1
	dynAnchorsField = -1
)

func initReflect() {
	t := reflect.TypeFor[jsonschema.Schema]()
	if f, ok := t.FieldByName("resource"); ok && f.Type == reflect.TypeFor[*jsonschema.Schema]() && len(f.Index) == 1 {
		resourceField = f.Index[0]
	}
	if f, ok := t.FieldByName("dynamicAnchors"); ok && f.Type == reflect.TypeFor[map[string]*jsonschema.Schema]() && len(f.Index) == 1 {
		dynAnchorsField = f.Index[0]
	}
}

// resourceOf returns the root schema of the resource s belongs to, or nil.
func resourceOf(s *jsonschema.Schema) *jsonschema.Schema {
	reflectOnce.Do(initReflect)
	if s == nil || resourceField < 0 {
		return nil
	}
	f := reflect.ValueOf(s).Elem().Field(resourceField)
	if f.IsNil() {
		return nil
	}
	return (*jsonschema.Schema)(f.UnsafePointer())
}

// dynamicAnchor returns the schema of resource res that declares
// $dynamicAnchor name, or nil.
func dynamicAnchor(res *jsonschema.Schema, name string) *jsonschema.Schema {
	reflectOnce.Do(initReflect)
	if res == nil || dynAnchorsField < 0 {
		return nil
	}
	m := reflect.ValueOf(res).Elem().Field(dynAnchorsField)
	if m.IsNil() {
		return nil
	}
	v := m.MapIndex(reflect.ValueOf(name))
	if !v.IsValid() || v.IsNil() {
		return nil
	}
	return (*jsonschema.Schema)(v.UnsafePointer())
}

// resolveDynamic resolves the $dynamicRef of n.s the way the validator does:
// when the static target declares the same $dynamicAnchor, the outermost
// resource in the dynamic scope that declares it wins.
func resolveDynamic(n node) *jsonschema.Schema {
	dref := n.s.DynamicRef
	target := dref.Ref
	if dref.Anchor == "" || target.DynamicAnchor != dref.Anchor {
		return target
	}
	for sc := n.sc; sc != nil; sc = sc.parent {
		if d := dynamicAnchor(sc.res, dref.Anchor); d != nil {
			target = d
		}
	}
	return target
}

// resolveRecursive resolves a draft 2019-09 $recursiveRef.
func resolveRecursive(n node) *jsonschema.Schema {
	target := n.s.RecursiveRef
	if !target.RecursiveAnchor {
		return target
	}
	for sc := n.sc; sc != nil; sc = sc.parent {
		if sc.res.RecursiveAnchor {
			target = sc.res
		}
	}
	return target
}
