package avro

import (
	"fmt"
	"maps"
	"slices"

	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/jsonstrict"
)

// unknownKeys finds a member of a record object in Avro's JSON encoding
// that is not one of the record's fields. The library skips such members
// silently, so data written with another schema (or a typo) would validate.
// Unions are taken as the library takes them, tagged or not: a value
// passes when some branch accounts for every member. The error points at
// the member.
func unknownKeys(root *Node, data []byte) error {
	v, err := jsonstrict.Decode(data)
	if err != nil {
		return err
	}
	c := memberCheck{seen: map[memberKey]memberResult{}}
	if ptr, msg := c.extraMember(root, v, ""); msg != "" {
		return &Error{Pointer: ptr, Message: msg}
	}
	return nil
}

// memberCheck remembers each (schema node, value) answer: an untagged
// value under nested unions of records is tried against every branch at
// every level, which without the memo is exponential in the nesting.
// The pointer names the value, as the input is a tree.
type memberCheck struct {
	seen map[memberKey]memberResult
}

type memberKey struct {
	n   *Node
	ptr string
}

type memberResult struct{ ptr, msg string }

// extraMember returns the pointer of the first member no field accounts
// for and why ("" when there is none). v has already decoded under n, so
// only the object members are checked here.
func (c *memberCheck) extraMember(n *Node, v any, ptr string) (string, string) {
	key := memberKey{n, ptr}
	if r, ok := c.seen[key]; ok {
		return r.ptr, r.msg
	}
	p, msg := c.member(n, v, ptr)
	c.seen[key] = memberResult{p, msg}
	return p, msg
}

func (c *memberCheck) member(n *Node, v any, ptr string) (string, string) {
	switch n.Kind {
	case "record":
		obj, ok := v.(map[string]any)
		if !ok {
			return "", ""
		}
		fields := make(map[string]*Field, len(n.Fields))
		for _, f := range n.Fields {
			fields[f.Name] = f
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			f, ok := fields[k]
			if !ok {
				return ptr + "/" + jsonpos.Escape(k), fmt.Sprintf("member %q is not a field of record %s", k, n.Name)
			}
			if p, msg := c.extraMember(f.Type, obj[k], ptr+"/"+jsonpos.Escape(k)); msg != "" {
				return p, msg
			}
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			return "", ""
		}
		for i, x := range arr {
			if p, msg := c.extraMember(n.Items, x, fmt.Sprintf("%s/%d", ptr, i)); msg != "" {
				return p, msg
			}
		}
	case "map":
		obj, ok := v.(map[string]any)
		if !ok {
			return "", ""
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if p, msg := c.extraMember(n.Values, obj[k], ptr+"/"+jsonpos.Escape(k)); msg != "" {
				return p, msg
			}
		}
	case "union":
		var firstPtr, firstMsg string
		try := func(b *Node, x any, p string) bool {
			if !shapeFits(b, x) {
				return false
			}
			ep, msg := c.extraMember(b, x, p)
			if msg == "" {
				return true
			}
			if firstMsg == "" {
				firstPtr, firstMsg = ep, msg
			}
			return false
		}
		if obj, ok := v.(map[string]any); ok && len(obj) == 1 {
			for k, x := range obj {
				for _, b := range n.Branches {
					if try(b, x, ptr+"/"+jsonpos.Escape(k)) {
						return "", ""
					}
				}
			}
		}
		for _, b := range n.Branches {
			if try(b, v, ptr) {
				return "", ""
			}
		}
		return firstPtr, firstMsg
	}
	return "", ""
}

// shapeFits reports whether a JSON value has the shape of a branch's
// encoding: an object for a record or map, an array for an array, a
// scalar for the rest.
func shapeFits(n *Node, v any) bool {
	_, isObj := v.(map[string]any)
	_, isArr := v.([]any)
	switch n.Kind {
	case "record", "map":
		return isObj
	case "array":
		return isArr
	}
	return !isObj && !isArr
}
