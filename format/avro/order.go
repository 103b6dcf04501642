package avro

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Map order. Datums hold maps (and records) as map[string]any, and the
// library writes a map's entries in Go's map iteration order, which
// changes from run to run: the same seed made other bytes, and a replay,
// its shrinking and its reproduce line did not send the same events. The
// specification lets a writer order a map's entries as it likes, so
// Encode and EncodeJSON rewrite what the library wrote with every map's
// entries in ascending order of their keys' bytes (in one block): the
// same datum always has the same bytes. Only schemas that reach a map
// pay for the rewrite.

// reachingMap holds the nodes a map is reachable from (the map included).
func reachingMap(root *Node) map[*Node]bool {
	maps := map[*Node]bool{}
	walk(root, func(n *Node) {
		if n.Kind == "map" {
			maps[n] = true
		}
	})
	return reachingBroken(root, maps)
}

var errMalformed = errors.New("malformed datum")

// orderedBinary is data, a binary datum of n the library wrote, with the
// entries of every map sorted by key.
func orderedBinary(n *Node, maps map[*Node]bool, data []byte) ([]byte, error) {
	out, rest, err := orderBinary(n, maps, data, make([]byte, 0, len(data)))
	if err != nil {
		return nil, fmt.Errorf("ordering the map entries of a datum: %w", err)
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("ordering the map entries of a datum: %d bytes left after it", len(rest))
	}
	return out, nil
}

// orderBinary appends the value of n at the start of src to dst, its maps'
// entries sorted, and returns what follows the value in src.
func orderBinary(n *Node, maps map[*Node]bool, src, dst []byte) (out, rest []byte, err error) {
	if !maps[n] {
		rest, err := skipBinary(n, src)
		if err != nil {
			return nil, nil, err
		}
		return append(dst, src[:len(src)-len(rest)]...), rest, nil
	}
	switch n.Kind {
	case "record":
		for _, f := range n.Fields {
			if dst, src, err = orderBinary(f.Type, maps, src, dst); err != nil {
				return nil, nil, err
			}
		}
		return dst, src, nil
	case "union":
		i, rest, ok := costVarint(src)
		if !ok || i < 0 || i >= int64(len(n.Branches)) {
			return nil, nil, errMalformed
		}
		dst = append(dst, src[:len(src)-len(rest)]...)
		return orderBinary(n.Branches[i], maps, rest, dst)
	case "array":
		// Items keep their order; the blocks become one.
		var items []byte
		count := int64(0)
		for {
			k, r, err := blockCount(src)
			if err != nil {
				return nil, nil, err
			}
			src = r
			if k == 0 {
				break
			}
			for ; k > 0; k-- {
				if items, src, err = orderBinary(n.Items, maps, src, items); err != nil {
					return nil, nil, err
				}
				count++
			}
		}
		if count > 0 {
			dst = append(appendLong(dst, count), items...)
		}
		return append(dst, 0), src, nil
	case "map":
		// Every entry is written to buf (its key with its length prefix,
		// then its value ordered); ends[i] is where entry i ends and
		// keys[i] its key.
		var buf []byte
		var ends []int
		var keys [][]byte
		for {
			k, r, err := blockCount(src)
			if err != nil {
				return nil, nil, err
			}
			src = r
			if k == 0 {
				break
			}
			for ; k > 0; k-- {
				key, r, ok := costBytes(src)
				if !ok {
					return nil, nil, errMalformed
				}
				buf = append(buf, src[:len(src)-len(r)]...)
				if buf, src, err = orderBinary(n.Values, maps, r, buf); err != nil {
					return nil, nil, err
				}
				keys = append(keys, key)
				ends = append(ends, len(buf))
			}
		}
		if len(keys) > 0 {
			order := make([]int, len(keys))
			for i := range order {
				order[i] = i
			}
			// Keys of one map differ (a Go map held them); stable all
			// the same, so that even bytes with a repeated key do not
			// depend on the sort.
			slices.SortStableFunc(order, func(a, b int) int { return bytes.Compare(keys[a], keys[b]) })
			dst = appendLong(dst, int64(len(keys)))
			for _, i := range order {
				start := 0
				if i > 0 {
					start = ends[i-1]
				}
				dst = append(dst, buf[start:ends[i]]...)
			}
		}
		return append(dst, 0), src, nil
	}
	// A node that reaches a map is a record, union, array or map.
	return nil, nil, fmt.Errorf("unexpected %s", n.Kind)
}

// blockCount reads the item count of an array or map block (the byte size
// after a negative count is dropped).
func blockCount(src []byte) (int64, []byte, error) {
	k, rest, ok := costVarint(src)
	if !ok || k == -k && k != 0 {
		return 0, nil, errMalformed
	}
	if k < 0 {
		k = -k
		if _, rest, ok = costVarint(rest); !ok {
			return 0, nil, errMalformed
		}
	}
	return k, rest, nil
}

// skipBinary returns what follows the value of n at the start of src.
func skipBinary(n *Node, src []byte) ([]byte, error) {
	var ok bool
	switch n.Kind {
	case "null":
		return src, nil
	case "boolean":
		if len(src) < 1 {
			return nil, errMalformed
		}
		return src[1:], nil
	case "int", "long", "enum":
		_, src, ok = costVarint(src)
	case "float":
		if len(src) < 4 {
			return nil, errMalformed
		}
		return src[4:], nil
	case "double":
		if len(src) < 8 {
			return nil, errMalformed
		}
		return src[8:], nil
	case "bytes", "string":
		_, src, ok = costBytes(src)
	case "fixed":
		if len(src) < n.Size {
			return nil, errMalformed
		}
		return src[n.Size:], nil
	case "record":
		var err error
		for _, f := range n.Fields {
			if src, err = skipBinary(f.Type, src); err != nil {
				return nil, err
			}
		}
		return src, nil
	case "union":
		var i int64
		i, src, ok = costVarint(src)
		if !ok || i < 0 || i >= int64(len(n.Branches)) {
			return nil, errMalformed
		}
		return skipBinary(n.Branches[i], src)
	case "array", "map":
		for {
			k, rest, err := blockCount(src)
			if err != nil {
				return nil, err
			}
			src = rest
			if k == 0 {
				return src, nil
			}
			for ; k > 0; k-- {
				if n.Kind == "map" {
					if _, src, ok = costBytes(src); !ok {
						return nil, errMalformed
					}
					if src, err = skipBinary(n.Values, src); err != nil {
						return nil, err
					}
				} else if src, err = skipBinary(n.Items, src); err != nil {
					return nil, err
				}
			}
		}
	default:
		return nil, fmt.Errorf("unexpected %s", n.Kind)
	}
	if !ok {
		return nil, errMalformed
	}
	return src, nil
}

// appendLong appends v as a zig-zag varint.
func appendLong(dst []byte, v int64) []byte {
	return binary.AppendUvarint(dst, uint64(v<<1)^uint64(v>>63))
}

// orderedJSON is data, a datum of n in the JSON encoding (tagged unions)
// the library wrote, with the members of every map's object sorted by key.
// Records keep their fields' order and every other value its bytes.
func orderedJSON(n *Node, maps map[*Node]bool, data []byte) ([]byte, error) {
	out, err := orderJSON(n, maps, data, make([]byte, 0, len(data)))
	if err != nil {
		return nil, fmt.Errorf("ordering the map entries of a datum: %w", err)
	}
	return out, nil
}

// member is one member of a JSON object: its key as written and decoded,
// and its value.
type member struct {
	raw   []byte
	key   string
	value json.RawMessage
}

func orderJSON(n *Node, maps map[*Node]bool, raw []byte, dst []byte) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if !maps[n] || bytes.Equal(raw, []byte("null")) {
		return append(dst, raw...), nil
	}
	switch n.Kind {
	case "record", "map":
		members, err := objectMembers(raw)
		if err != nil {
			return nil, err
		}
		if n.Kind == "map" {
			slices.SortStableFunc(members, func(a, b member) int { return bytes.Compare([]byte(a.key), []byte(b.key)) })
		}
		dst = append(dst, '{')
		for i, m := range members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(append(dst, m.raw...), ':')
			vn := n.Values
			if n.Kind == "record" {
				if vn = fieldType(n, m.key); vn == nil {
					return nil, fmt.Errorf("no field %q in record %s", m.key, n.Name)
				}
			}
			if dst, err = orderJSON(vn, maps, m.value, dst); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case "union":
		members, err := objectMembers(raw)
		if err != nil {
			return nil, err
		}
		if len(members) != 1 {
			return nil, fmt.Errorf("a union value with %d members", len(members))
		}
		m := members[0]
		var branch *Node
		for _, b := range n.Branches {
			if b.BranchName() == m.key {
				branch = b
			}
		}
		if branch == nil {
			return nil, fmt.Errorf("no branch %q in the union", m.key)
		}
		dst = append(append(append(dst, '{'), m.raw...), ':')
		if dst, err = orderJSON(branch, maps, m.value, dst); err != nil {
			return nil, err
		}
		return append(dst, '}'), nil
	case "array":
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, err
		}
		dst = append(dst, '[')
		for i, item := range items {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = orderJSON(n.Items, maps, item, dst); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	}
	return nil, fmt.Errorf("unexpected %s", n.Kind)
}

func fieldType(n *Node, name string) *Node {
	for _, f := range n.Fields {
		if f.Name == name {
			return f.Type
		}
	}
	return nil
}

// objectMembers splits a JSON object into its members, in order, keeping
// each key's bytes as written.
func objectMembers(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out []member
	for dec.More() {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("not a JSON object")
		}
		keyRaw := bytes.TrimLeft(raw[start:dec.InputOffset()], " \t\r\n,")
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{raw: keyRaw, key: key, value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}
